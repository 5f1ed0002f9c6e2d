/* flushwork.c - the program the flush benchmark times (bench/flush.sh).
 *
 * Usage: flushwork THREADS REGIONS PAIRS
 * THREADS threads (the main one included) each run PAIRS region pairs
 * over REGIONS distinct run-time names, so a flush has THREADS x REGIONS
 * records to copy and write.  Prints the wall time in ns.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "annotate/hpcshim.h"

static int nregions;
static long npairs;

static void *work(void *arg)
{
	char names[256][16];
	int n = nregions < 256 ? nregions : 256;

	(void)arg;
	for (int k = 0; k < n; k++)
		snprintf(names[k], sizeof(names[k]), "r%d", k);
	for (long i = 0; i < npairs; i++) {
		const char *name = names[i % n];

		if (hpcshim_region_begin)
			hpcshim_region_begin(name);
		__asm__ volatile("" ::: "memory");
		if (hpcshim_region_end)
			hpcshim_region_end(name);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t th[64];
	int nth;

	if (argc != 4)
		return 2;
	nth = atoi(argv[1]);
	nregions = atoi(argv[2]);
	npairs = atol(argv[3]);
	if (nth < 1 || nth > 64 || nregions < 1)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 1; i < nth; i++)
		pthread_create(&th[i], NULL, work, NULL);
	work(NULL);
	for (int i = 1; i < nth; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (long long)(b.tv_sec - a.tv_sec) * 1000000000 +
				 (b.tv_nsec - a.tv_nsec));
	return 0;
}
