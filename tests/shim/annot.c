/* annot.c - the annotation API's forms against known truths.
 *
 * Usage: annot STEP [ARGS] [STEP [ARGS] ...]
 *   sites A B        literal regions: "s_outer" touching A pages around
 *                    "s_inner" touching B pages (call-site handles)
 *   scoped P         HPC_REGION("scoped") touching P pages, left by falling
 *                    off the end, by break, by continue and by return
 *   percall K P      K calls of literal "pc" each touching P pages
 *   ramp K           K calls of literal "ramp", call i touching i+1 pages
 *   names N          N distinct names built at run time, one call each
 *   calls N          N calls of the empty literal region "tiny"
 *   shared T P       T threads each touch P pages in literal "shared" and
 *                    name themselves "worker-<i>" (HPC_THREAD_NAME)
 *   mix              literal and run-time names of one region interleave;
 *                    literal mismatches: BEGIN a, BEGIN b, END a; END c
 *   recurse D P      literal "lrec" nested in itself D deep, P pages a level
 *   name S           HPC_THREAD_NAME(S) on the main thread
 *   active           prints "active N"
 * Prints one line per step.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "annotate/hpcshim.h"
#include "tests/pages.h"

static void sites(long a, long b)
{
	char *pa = map_pages(a), *pb = map_pages(b);

	/* The first BEGIN of a name on a thread allocates its record, inside
	 * whatever region is open: an empty call at the top makes s_inner's
	 * record before s_outer opens (a page fault of malloc would otherwise
	 * land, now and then, in s_outer's exclusive counts). */
	HPC_BEGIN("s_inner");
	HPC_END("s_inner");
	HPC_BEGIN("s_outer");
	touch(pa, a);
	HPC_BEGIN("s_inner");
	touch(pb, b);
	HPC_END("s_inner");
	HPC_END("s_outer");
	unmap_pages(pa, a);
	unmap_pages(pb, b);
}

/* Leaves the scoped region by return from inside it. */
static void scoped_return(char *p, long pages)
{
	HPC_REGION("scoped") {
		touch(p, pages);
		return;
	}
}

static void scoped(long pages)
{
	char *p[4];

	for (int i = 0; i < 4; i++)
		p[i] = map_pages(pages);
	HPC_REGION("scoped") {
		touch(p[0], pages);
	}
	for (int i = 0; i < 1; i++) {
		HPC_REGION("scoped") {
			touch(p[1], pages);
			break;
		}
	}
	for (int i = 0; i < 1; i++) {
		HPC_REGION("scoped") {
			touch(p[2], pages);
			continue;
		}
	}
	scoped_return(p[3], pages);
	for (int i = 0; i < 4; i++)
		unmap_pages(p[i], pages);
}

static void percall(long k, long pages)
{
	for (long i = 0; i < k; i++) {
		char *p = map_pages(pages);
		HPC_BEGIN("pc");
		touch(p, pages);
		HPC_END("pc");
		unmap_pages(p, pages);
	}
}

static void ramp(long k)
{
	for (long i = 0; i < k; i++) {
		char *p = map_pages(i + 1);
		HPC_BEGIN("ramp");
		touch(p, i + 1);
		HPC_END("ramp");
		unmap_pages(p, i + 1);
	}
}

static void names(long n)
{
	char name[32];

	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "name%05ld", i);
		HPC_BEGIN(name);
		HPC_END(name);
	}
}

static void calls(long n)
{
	for (long i = 0; i < n; i++) {
		HPC_BEGIN("tiny");
		HPC_END("tiny");
	}
}

struct job {
	long index, pages;
	char *mem;
};

static void *shared_worker(void *arg)
{
	struct job *j = arg;
	char name[32];

	snprintf(name, sizeof(name), "worker-%ld", j->index);
	HPC_THREAD_NAME(name);
	HPC_BEGIN("shared");
	touch(j->mem, j->pages);
	HPC_END("shared");
	return NULL;
}

static void shared(long n, long pages)
{
	pthread_t *tid = calloc((size_t)n, sizeof(*tid));
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));

	if (!tid || !jobs)
		exit(99);
	for (long i = 0; i < n; i++) {
		jobs[i] = (struct job){ i, pages, map_pages(pages) };
		if (pthread_create(&tid[i], NULL, shared_worker, &jobs[i]) != 0)
			exit(98);
	}
	for (long i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		unmap_pages(jobs[i].mem, pages);
	}
	free(tid);
	free(jobs);
}

static void mix(void)
{
	char dyn[8] = "m";

	HPC_BEGIN("m");  /* literal BEGIN, run-time END: one region */
	HPC_END(dyn);
	HPC_BEGIN(dyn);  /* run-time BEGIN, literal END */
	HPC_END("m");
	HPC_BEGIN("a");
	HPC_BEGIN("b");
	HPC_END("a");    /* closes b too: one auto-closed */
	HPC_END("c");    /* never opened: unmatched */
	HPC_END("m");    /* m is not open any more: unmatched */
}

static void recurse(long d, long pages)
{
	char *p;

	if (d == 0)
		return;
	p = map_pages(pages);
	HPC_BEGIN("lrec");
	touch(p, pages);
	recurse(d - 1, pages);
	HPC_END("lrec");
	unmap_pages(p, pages);
}

static long arg(char **argv, int *i, int argc)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "annot: %s needs an argument\n", argv[*i]);
		exit(2);
	}
	return strtol(argv[++*i], NULL, 0);
}

int main(int argc, char **argv)
{
	prefault_stack();
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "sites") == 0) {
			long a = arg(argv, &i, argc), b = arg(argv, &i, argc);
			sites(a, b);
		} else if (strcmp(s, "scoped") == 0) {
			scoped(arg(argv, &i, argc));
		} else if (strcmp(s, "percall") == 0) {
			long k = arg(argv, &i, argc), p = arg(argv, &i, argc);
			percall(k, p);
		} else if (strcmp(s, "ramp") == 0) {
			ramp(arg(argv, &i, argc));
		} else if (strcmp(s, "names") == 0) {
			names(arg(argv, &i, argc));
		} else if (strcmp(s, "calls") == 0) {
			calls(arg(argv, &i, argc));
		} else if (strcmp(s, "shared") == 0) {
			long t = arg(argv, &i, argc), p = arg(argv, &i, argc);
			shared(t, p);
		} else if (strcmp(s, "mix") == 0) {
			mix();
		} else if (strcmp(s, "recurse") == 0) {
			long d = arg(argv, &i, argc), p = arg(argv, &i, argc);
			recurse(d, p);
		} else if (strcmp(s, "name") == 0) {
			if (i + 1 >= argc)
				return 2;
			HPC_THREAD_NAME(argv[++i]);
		} else if (strcmp(s, "active") == 0) {
			printf("active %d\n", HPC_ACTIVE());
			continue;
		} else {
			fprintf(stderr, "annot: unknown step '%s'\n", s);
			return 2;
		}
		printf("%s done\n", s);
	}
	return 0;
}
