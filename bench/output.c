/* output.c - the time to write the results of a large process
 * (bench/output.sh).
 *
 * output THREADS REGIONS: THREADS threads, alive at the end, each calling
 * REGIONS distinct region names once; then main prints the CLOCK_MONOTONIC
 * time at which it returns (ns) and the process's CPU time so far (ns,
 * user + system) on stdout.  The runner takes the time at which wait4
 * returns and the CPU time wait4 reports: the differences are the exit
 * path, with the shim its view pass and the JSON written to its file, in
 * wall time and in CPU time (the latter less sensitive to other jobs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "annotate/hpcshim.h"

static int regions;
static pthread_barrier_t done, end;

static void *worker(void *arg)
{
	char name[32];

	(void)arg;
	for (int k = 0; k < regions; k++) {
		snprintf(name, sizeof(name), "region.%d", k);
		HPC_BEGIN(name);
		HPC_END(name);
	}
	pthread_barrier_wait(&done);
	pthread_barrier_wait(&end); /* never passed: alive at the end */
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	struct timespec ts;
	struct rusage ru;
	pthread_t t;

	regions = argc > 2 ? atoi(argv[2]) : 1000;
	pthread_barrier_init(&done, NULL, (unsigned)n + 1);
	pthread_barrier_init(&end, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, worker, NULL);
	pthread_barrier_wait(&done);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	getrusage(RUSAGE_SELF, &ru);
	printf("%lld %lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	fflush(stdout);
	return 0;
}
