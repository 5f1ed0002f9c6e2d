/* likwid_mixed.c - LIKWID markers and hpcshim annotations nested in one
 * another, LIKWID's contracts (tests/shim/test_markers.py).
 *
 * Usage: likwid_mixed N
 *
 * A start before likwid_markerInit; then N times: hpcshim "outer" (1 page)
 * > LIKWID "lk" (OUTER pages) > hpcshim "inner" (INNER pages) > LIKWID
 * "lk_in" (LEAF pages), each first-touching fresh pages.  Then LIKWID's
 * contracts: a stop of a name never started, double starts,
 * likwid_markerGetRegion before and after likwid_markerResetRegion, one
 * more call after the reset, a second stop, a reset of a running region
 * and of one never started.  Prints each return value and figure as
 * "key value" lines; what they must be under the shim is the test's.
 */
#include <hpcshim.h>
#include <likwid-marker.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define OUTER 5
#define INNER 3
#define LEAF 2

static void touch(int pages)
{
	char *p = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	for (int i = 0; i < pages; i++)
		((volatile char *)p)[(size_t)i * 4096] = 1;
	munmap(p, (size_t)pages * 4096);
}

static void one(void)
{
	HPC_BEGIN("outer");
	touch(1);
	likwid_markerStartRegion("lk");
	touch(OUTER);
	HPC_BEGIN("inner");
	touch(INNER);
	likwid_markerStartRegion("lk_in");
	touch(LEAF);
	likwid_markerStopRegion("lk_in");
	HPC_END("inner");
	likwid_markerStopRegion("lk");
	HPC_END("outer");
}

static void get(const char *what, const char *tag)
{
	double ev[16] = { 0 }, time = -1;
	int n = 16, count = -1;

	likwid_markerGetRegion(tag, &n, ev, &time, &count);
	printf("%s.count %d\n%s.nevents %d\n%s.time %.6f\n", what, count, what, n,
	       what, time);
	for (int i = 0; i < n && i < 16; i++)
		printf("%s.event%d %.0f\n", what, i, ev[i]);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;

	printf("early.start %d\n", likwid_markerStartRegion("early"));
	printf("early.stop %d\n", likwid_markerStopRegion("early"));
	likwid_markerInit();
	likwid_markerThreadInit();
	printf("register %d\n", likwid_markerRegisterRegion("lk"));
	for (int i = 0; i < n; i++)
		one();
	printf("unknown.stop %d\n", likwid_markerStopRegion("never"));
	printf("double.start1 %d\n", likwid_markerStartRegion("twice"));
	touch(2); /* not counted: the second start restarts the region */
	printf("double.start2 %d\n", likwid_markerStartRegion("twice"));
	touch(1);
	likwid_markerStartRegion("in_twice");
	printf("double.start3 %d\n", likwid_markerStartRegion("twice"));
	touch(1); /* twice is not the innermost: its first start stands */
	likwid_markerStopRegion("in_twice");
	printf("double.stop %d\n", likwid_markerStopRegion("twice"));
	printf("stop.again %d\n", likwid_markerStopRegion("twice"));
	likwid_markerStartRegion("running");
	printf("reset.running %d\n", likwid_markerResetRegion("running"));
	likwid_markerStopRegion("running");
	get("before", "lk");
	printf("reset %d\n", likwid_markerResetRegion("lk"));
	get("reset", "lk");
	one();
	get("after", "lk");
	printf("reset.unknown %d\n", likwid_markerResetRegion("nowhere"));
	likwid_markerNextGroup();
	likwid_markerClose();
	printf("done\n");
	return 0;
}
