/* ompcost.c - what an OpenMP construct, a barrier and a loop chunk cost
 * (bench/openmp.sh, docs/openmp.md "Cost").
 *
 *   ompcost R B M U [P]   each measure P times [5], the least printed (a
 *                         pass the machine's other load left alone)
 *     parallel   R empty parallel constructs in a row: ns per construct
 *                (the team's wall time)
 *     barrier    one parallel construct running B explicit barriers: ns
 *                per barrier
 *     chunk      a parallel loop of M empty iterations handed out one per
 *                chunk (schedule(dynamic,1): one GOMP_loop_*_next each):
 *                ns per iteration
 *     chunk1us   a parallel loop of U iterations of 1 us of CPU each (the
 *                thread's CPU clock, spun), one per chunk: the team's CPU
 *                time per iteration, each thread's from its first chunk to
 *                its last (nowait: not the barrier after), so that the
 *                machine's other load, which takes the CPU from a thread,
 *                does not count; the target is at most 2% more
 *                than without the shim
 *   each printed "<what> <ns>" on stdout.
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

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void spin_cpu_ns(double ns)
{
	double end = cpu() + ns;

	while (cpu() < end)
		;
}

static double least(double a, double b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	long r = argc > 1 ? atol(argv[1]) : 500, b = argc > 2 ? atol(argv[2]) : 5000,
	     m = argc > 3 ? atol(argv[3]) : 50000, u = argc > 4 ? atol(argv[4]) : 10000,
	     passes = argc > 5 ? atol(argv[5]) : 5;
	volatile long sink = 0;
	double par = 1e300, bar = 1e300, chunk = 1e300, us = 1e300, t0;

#pragma omp parallel
	sink += omp_get_thread_num(); /* the team exists before the clock */
	for (long p = 0; p < passes; p++) {
		t0 = now();
		for (long i = 0; i < r; i++) {
#pragma omp parallel
			sink += 1;
		}
		par = least(par, (now() - t0) / r);
		t0 = now();
#pragma omp parallel
		for (long i = 0; i < b; i++) {
#pragma omp barrier
		}
		bar = least(bar, (now() - t0) / b);
		t0 = now();
#pragma omp parallel for schedule(dynamic, 1)
		for (long i = 0; i < m; i++)
			sink += i;
		chunk = least(chunk, (now() - t0) / m);
		double team = 0;
#pragma omp parallel reduction(+ : team)
		{
			double c0 = cpu();

#pragma omp for schedule(dynamic, 1) nowait
			for (long i = 0; i < u; i++)
				spin_cpu_ns(1000);
			team += cpu() - c0;
		}
		us = least(us, team / u);
	}
	printf("parallel %.1f\nbarrier %.1f\nchunk %.1f\nchunk1us %.1f\n", par, bar, chunk, us);
	return sink == -1;
}
