/* marker_names.c - the cost of many distinct region names, LIKWID's and
 * PAPI's markers against HPC_BEGIN's run-time names, in one process
 * (tests/shim/test_markers.py, bench/markers.sh).
 *
 * Usage: marker_names [-t THREADS] N API...   (API: hpc, likwid, papi)
 *
 * For each API in turn, N regions of N distinct names, one begin/end pair
 * each, no work inside.  Names are built before the timed loop, each its
 * own string ("<api><k>.<i>", k the API's place in the list), so that a
 * cache keyed by the name's address never hits: every pair is a new name
 * for the shim and for the process.  Prints "API CPU_NS" per API: the
 * calling thread's CPU time over its loop (CLOCK_THREAD_CPUTIME_ID, not
 * wall time: the other load on the machine does not count).  Exits 1 when
 * a marker call did not return success (a pair that does nothing must not
 * pass for a cheap one).
 *
 * With -t, THREADS threads run every loop at once, over the same names
 * (each thread its own copies of the strings): the same names looked up
 * and added by several threads together.  Prints the slowest thread's
 * CPU time per API.
 */
#define _GNU_SOURCE
#include <hpcshim.h>
#include <stdbool.h>
#include <likwid-marker.h>
#include <papi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 16

static int failed; /* atomic */

struct loop {
	const char *api;
	int k, n;
	long long ns;
	pthread_t th;
};

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static char **names(const char *api, int k, int n)
{
	char **v = malloc((size_t)n * sizeof(*v));

	for (int i = 0; v && i < n; i++)
		if (asprintf(&v[i], "%s%d.%d", api, k, i) < 0)
			exit(2);
	if (!v)
		exit(2);
	return v;
}

static bool pair(const char *api, const char *name)
{
	if (strcmp(api, "hpc") == 0) {
		HPC_BEGIN(name);
		HPC_END(name);
		return true;
	}
	if (strcmp(api, "likwid") == 0)
		return (likwid_markerStartRegion(name) == 0) &
		       (likwid_markerStopRegion(name) == 0);
	return (PAPI_hl_region_begin(name) == PAPI_OK) & (PAPI_hl_region_end(name) == PAPI_OK);
}

/* One API's loop on the calling thread; its CPU time in l->ns. */
static void *loop(void *arg)
{
	struct loop *l = arg;
	char **v = names(l->api, l->k, l->n);
	bool ok = true;
	long long t0 = cpu_ns();

	for (int i = 0; i < l->n; i++)
		ok &= pair(l->api, v[i]);
	l->ns = cpu_ns() - t0;
	if (!ok)
		__atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < l->n; i++)
		free(v[i]);
	free(v);
	return NULL;
}

/* The API's loop on nth threads at once (the calling thread when 1); the
 * slowest thread's CPU time. */
static long long run(const char *api, int k, int n, int nth)
{
	struct loop l[MAX_THREADS];
	long long worst = 0;

	for (int j = 0; j < nth; j++) {
		l[j] = (struct loop){ .api = api, .k = k, .n = n };
		if (nth == 1)
			loop(&l[j]);
		else if (pthread_create(&l[j].th, NULL, loop, &l[j]) != 0)
			exit(2);
	}
	for (int j = 0; j < nth; j++) {
		if (nth > 1)
			pthread_join(l[j].th, NULL);
		worst = l[j].ns > worst ? l[j].ns : worst;
	}
	return worst;
}

int main(int argc, char **argv)
{
	int a = 1, nth = 1, n;

	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		nth = atoi(argv[2]);
		a = 3;
	}
	n = argc > a ? atoi(argv[a]) : 0;
	if (n <= 0 || argc < a + 2 || nth < 1 || nth > MAX_THREADS) {
		fprintf(stderr, "usage: marker_names [-t THREADS] N hpc|likwid|papi...\n");
		return 2;
	}
	likwid_markerInit();
	for (int k = a + 1; k < argc; k++) {
		printf("%s %lld\n", argv[k], run(argv[k], k - a - 1, n, nth));
		fflush(stdout);
	}
	likwid_markerClose();
	if (failed)
		fprintf(stderr, "marker_names: a marker call failed\n");
	return failed;
}
