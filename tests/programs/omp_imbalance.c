/* omp_imbalance.c - an OpenMP team of known imbalance
 * (tests/command/test_profile_run.py):  omp_imbalance T_MS ITER
 * In each of ITER parallel regions, OpenMP thread t burns (t+1) x T_MS ms
 * of its own CPU: with 2 threads, thread 0 waits about half of each
 * region at its implicit barrier. */
#include <omp.h>
#include <stdlib.h>
#include <time.h>

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile double sink;

int main(int argc, char **argv)
{
	long long t = argc > 1 ? atoll(argv[1]) : 20;
	int iter = argc > 2 ? atoi(argv[2]) : 5;

	for (int i = 0; i < iter; i++) {
#pragma omp parallel
		{
			long long end = cpu_ns() + (omp_get_thread_num() + 1) * t * 1000000LL;
			double x = 1;

			while (cpu_ns() < end)
				for (int k = 0; k < 1000; k++)
					x = x * 1.0000001 + 1e-9;
			sink = x;
		}
	}
	return 0;
}
