/* ompcost.c - what an OpenMP construct and a loop chunk cost (bench/openmp.sh).
 *
 *   ompcost R M   R empty parallel constructs, then one parallel loop of M
 *                 iterations handed out one per chunk (schedule(dynamic,1):
 *                 one GOMP_loop_*_next per iteration, per thread one more);
 *                 prints "parallel <ns per construct>" and "chunk <ns per
 *                 iteration>" of the team's wall time.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long r = argc > 1 ? atol(argv[1]) : 20000, m = argc > 2 ? atol(argv[2]) : 200000;
	volatile long sink = 0;
	double t0, t1, t2;

#pragma omp parallel
	sink += omp_get_thread_num(); /* the team exists before the clock */
	t0 = now();
	for (long i = 0; i < r; i++) {
#pragma omp parallel
		sink += 1;
	}
	t1 = now();
#pragma omp parallel for schedule(dynamic, 1)
	for (long i = 0; i < m; i++)
		sink += i;
	t2 = now();
	printf("parallel %.1f\nchunk %.1f\n", (t1 - t0) / r, (t2 - t1) / m);
	return sink == -1;
}
