/* omp_imbalance.c - an OpenMP team of known imbalance
 * (tests/command/test_profile_run.py):  omp_imbalance T_MS ITER
 * In each of ITER parallel regions, OpenMP thread t burns (t+1) x T_MS ms
 * of its own CPU: with 2 threads, thread 0 waits about half of each
 * region at its implicit barrier.
 *
 * It prints the bracket of thread 0's wait by its own clock, summed over
 * the regions: at least from its work's end to the last thread's, at most
 * to the master's return from the region ("wait0_ms LO HI"), so a test
 * holds on a loaded machine, where a thread's CPU takes longer wall. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAXT 64

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile double sink;

int main(int argc, char **argv)
{
	long long t = argc > 1 ? atoll(argv[1]) : 20;
	int iter = argc > 2 ? atoi(argv[2]) : 5;
	long long lo = 0, hi = 0;

	for (int i = 0; i < iter; i++) {
		long long done[MAXT] = { 0 }, last = 0, after;

#pragma omp parallel
		{
			int me = omp_get_thread_num();
			long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (me + 1) * t * 1000000LL;
			double x = 1;

			while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
				for (int k = 0; k < 1000; k++)
					x = x * 1.0000001 + 1e-9;
			sink = x;
			if (me < MAXT)
				done[me] = clock_ns(CLOCK_MONOTONIC);
		}
		after = clock_ns(CLOCK_MONOTONIC);
		for (int k = 0; k < MAXT; k++)
			if (done[k] > last)
				last = done[k];
		lo += last - done[0];
		hi += after - done[0];
	}
	printf("wait0_ms %.3f %.3f\n", lo / 1e6, hi / 1e6);
	return 0;
}
