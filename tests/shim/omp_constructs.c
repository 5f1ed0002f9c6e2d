/* omp_constructs.c - OpenMP constructs with truths the program knows
 * (tests/shim/test_openmp.py; built by the test with gcc -fopenmp).
 *
 *   pages N K SPIN_MS   N parallel regions; thread t touches (t+1) x K
 *                       fresh pages in each (one fault each, inside the
 *                       annotated region "touch"); the last thread spins
 *                       SPIN_MS more.  Each thread's clock reads around
 *                       its work bracket its barrier wait:
 *                       "bracket T LO HI" on stderr; its minor faults
 *                       during its work, as the kernel counts them:
 *                       "faults T N"
 *   loop M CHUNK        one parallel with a dynamic (CHUNK), a
 *                       schedule(runtime) and an ordered dynamic (CHUNK)
 *                       loop of M iterations, then a combined parallel
 *                       for, dynamic (CHUNK): the iterations each thread
 *                       ran ("iters T A B C D": D the ordered loop's)
 *   critical HOLD_MS    each thread holds one critical section HOLD_MS:
 *                       "critical T WAIT_NS HELD_NS" as it measured them
 *   tasks T SPIN_MS     one thread creates T tasks of SPIN_MS each, then
 *                       waits for them: "tasks T RAN"
 *   named HOLD_MS       critical, with a named critical section
 *   ull M CHUNK         one parallel with unsigned long long loops (they do
 *                       not fit a long): dynamic (CHUNK) upward, guided
 *                       downward, ordered dynamic (CHUNK) with an ordered
 *                       section: "ulliters T A B C ORDERED"
 *   atomic N            each thread adds 1 N times to a long double with
 *                       #pragma omp atomic (a type the machine cannot do
 *                       atomically: the runtime's lock): "atomic T N"
 *   taskloop M T US     one thread runs a taskloop of M iterations in T
 *                       tasks, each iteration spinning US microseconds:
 *                       "taskloop T ITERS" per thread, "tlwall T NS" the
 *                       encountering thread's clock around it
 *   teams NT MS         a teams construct of NT teams on the host, each
 *                       spinning MS: "team I RUNS"
 *
 * stdout: a checksum, the same with and without the shim.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "annotate/hpcshim.h"
#include "pages.h"

#define MAXT 64

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's minor faults so far (the kernel's count). */
static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

static void spin_ms(long ms)
{
	uint64_t end = now() + (uint64_t)ms * 1000000ull;

	while (now() < end)
		;
}

/* 64 KiB of the calling thread's stack below here, touched: a deeper
 * call later (the shim's own, say) faults no fresh stack page. */
static __attribute__((noinline)) void stack_touch(void)
{
	volatile char buf[65536];

	memset((char *)buf, 0, sizeof(buf));
}

/* A team before the measured ones, through the same calls: every
 * thread's record of "touch" exists (its first BEGIN allocates it) and
 * its stack is as deep as it gets before its work is counted. */
static void warm(void)
{
	volatile uint64_t sink = 0;

#pragma omp parallel
	{
		stack_touch();
		/* getrusage bound now: the first call's lazy binding reads
		 * pages of libc's symbol tables (faults of their own). */
		(void)minflt();
		HPC_BEGIN("touch");
		HPC_END("touch");
		if (omp_get_thread_num() < omp_get_num_threads())
			spin_ms(0);
		sink += now();
	}
	(void)sink;
}

static int pages(long n, long k, long spin)
{
	int nth = omp_get_max_threads();
	char *base[MAXT];
	long flt[MAXT] = { 0 };
	uint64_t (*b)[MAXT] = calloc((size_t)n, sizeof(*b));
	uint64_t *e = calloc((size_t)n, sizeof(*e));
	long sum = 0;

	if (nth > MAXT || !b || !e)
		return 2;
	/* Touched here, so that no thread's first write faults in its work. */
	memset(b, 1, (size_t)n * sizeof(*b));
	memset(e, 1, (size_t)n * sizeof(*e));
	for (int t = 0; t < nth; t++)
		base[t] = map_pages(n * (t + 1) * k);
	warm();
	for (long r = 0; r < n; r++) {
#pragma omp parallel reduction(+ : sum)
		{
			int t = omp_get_thread_num();
			long f0 = minflt();

			HPC_BEGIN("touch");
			touch(base[t] + r * (t + 1) * k * PAGE, (t + 1) * k);
			HPC_END("touch");
			if (t == omp_get_num_threads() - 1)
				spin_ms(spin);
			b[r][t] = now();
			flt[t] += minflt() - f0;
			sum += (t + 1) * k;
		}
		e[r] = now();
	}
	for (int t = 0; t < nth; t++) {
		uint64_t lo = 0, hi = 0;
		long lasts = 0; /* the teams in which t ended its work last */

		for (long r = 0; r < n; r++) {
			uint64_t last = 0;

			for (int u = 0; u < nth; u++)
				if (b[r][u] > last)
					last = b[r][u];
			lo += last - b[r][t];
			hi += e[r] - b[r][t];
			lasts += b[r][t] == last;
		}
		fprintf(stderr, "bracket %d %llu %llu\n", t, (unsigned long long)lo,
			(unsigned long long)hi);
		fprintf(stderr, "last %d %ld\n", t, lasts);
		fprintf(stderr, "faults %d %ld\n", t, flt[t]);
	}
	printf("sum=%ld threads=%d\n", sum, nth);
	return 0;
}

static int loop(long m, long chunk)
{
	long a[MAXT] = { 0 }, bb[MAXT] = { 0 }, c[MAXT] = { 0 }, od[MAXT] = { 0 }, sum = 0;
	int nth = omp_get_max_threads();

	if (nth > MAXT)
		return 2;
#pragma omp parallel reduction(+ : sum)
	{
		int t = omp_get_thread_num();

#pragma omp for schedule(dynamic, chunk)
		for (long i = 0; i < m; i++) {
			a[t]++;
			sum += i;
		}
#pragma omp for schedule(runtime)
		for (long i = 0; i < m; i++) {
			bb[t]++;
			sum += i;
		}
#pragma omp for schedule(dynamic, chunk) ordered
		for (long i = 0; i < m; i++) {
#pragma omp ordered
			od[t]++;
		}
	}
#pragma omp parallel for schedule(dynamic, chunk) reduction(+ : sum)
	for (long i = 0; i < m; i++) {
		c[omp_get_thread_num()]++;
		sum += i;
	}
	for (int t = 0; t < nth; t++)
		fprintf(stderr, "iters %d %ld %ld %ld %ld\n", t, a[t], bb[t], c[t], od[t]);
	printf("sum=%ld\n", sum);
	return 0;
}

static int critical(long hold)
{
	uint64_t w[MAXT] = { 0 }, h[MAXT] = { 0 };
	int nth = omp_get_max_threads(), n = 0;

	if (nth > MAXT)
		return 2;
#pragma omp parallel
	{
		int t = omp_get_thread_num();
		uint64_t t0 = now(), t1, t2;

#pragma omp critical
		{
			t1 = now();
			spin_ms(hold);
			n++;
			t2 = now();
		}
		w[t] = t1 - t0;
		h[t] = t2 - t1;
	}
	for (int t = 0; t < nth; t++)
		fprintf(stderr, "critical %d %llu %llu\n", t, (unsigned long long)w[t],
			(unsigned long long)h[t]);
	printf("entered=%d\n", n);
	return 0;
}

static int tasks(long n, long spin)
{
	long ran[MAXT] = { 0 };
	int nth = omp_get_max_threads();

	if (nth > MAXT)
		return 2;
#pragma omp parallel
	{
#pragma omp single
		{
			for (long i = 0; i < n; i++) {
#pragma omp task
				{
					spin_ms(spin);
#pragma omp atomic
					ran[omp_get_thread_num()]++;
				}
			}
#pragma omp taskwait
		}
	}
	long all = 0;
	for (int t = 0; t < nth; t++) {
		fprintf(stderr, "tasks %d %ld\n", t, ran[t]);
		all += ran[t];
	}
	printf("tasks=%ld\n", all);
	return 0;
}

static int named(long hold)
{
	uint64_t w[MAXT] = { 0 }, h[MAXT] = { 0 };
	int nth = omp_get_max_threads(), n = 0;

	if (nth > MAXT)
		return 2;
#pragma omp parallel
	{
		int t = omp_get_thread_num();
		uint64_t t0 = now(), t1, t2;

#pragma omp critical(hpcshim_named)
		{
			t1 = now();
			spin_ms(hold);
			n++;
			t2 = now();
		}
		w[t] = t1 - t0;
		h[t] = t2 - t1;
	}
	for (int t = 0; t < nth; t++)
		fprintf(stderr, "critical %d %llu %llu\n", t, (unsigned long long)w[t],
			(unsigned long long)h[t]);
	printf("entered=%d\n", n);
	return 0;
}

static int ull_loops(unsigned long long m, unsigned long long chunk)
{
	long a[MAXT] = { 0 }, b[MAXT] = { 0 }, c[MAXT] = { 0 }, od[MAXT] = { 0 };
	unsigned long long sum = 0, top = ~0ull;
	int nth = omp_get_max_threads();

	if (nth > MAXT)
		return 2;
#pragma omp parallel reduction(+ : sum)
	{
		int t = omp_get_thread_num();

#pragma omp for schedule(dynamic, chunk)
		for (unsigned long long i = top - m; i < top; i++) {
			a[t]++;
			sum += i & 7;
		}
#pragma omp for schedule(guided)
		for (unsigned long long i = top; i > top - m; i--) {
			b[t]++;
			sum += i & 7;
		}
#pragma omp for schedule(dynamic, chunk) ordered
		for (unsigned long long i = top - m; i < top; i++) {
			c[t]++;
#pragma omp ordered
			od[t]++;
		}
	}
	for (int t = 0; t < nth; t++)
		fprintf(stderr, "ulliters %d %ld %ld %ld %ld\n", t, a[t], b[t], c[t], od[t]);
	printf("sum=%llu\n", sum);
	return 0;
}

static int atomic(long n)
{
	long done[MAXT] = { 0 };
	long double x = 0;
	int nth = omp_get_max_threads();

	if (nth > MAXT)
		return 2;
#pragma omp parallel
	{
		int t = omp_get_thread_num();

		for (long i = 0; i < n; i++) {
#pragma omp atomic
			x += 1;
			done[t]++;
		}
	}
	for (int t = 0; t < nth; t++)
		fprintf(stderr, "atomic %d %ld\n", t, done[t]);
	printf("x=%.0Lf\n", x);
	return 0;
}

static int taskloop(long m, long ntasks, long us)
{
	long it[MAXT] = { 0 };
	int nth = omp_get_max_threads(), enc = -1;
	uint64_t wall = 0;

	if (nth > MAXT)
		return 2;
#pragma omp parallel
	{
#pragma omp single
		{
			uint64_t t0 = now();

			enc = omp_get_thread_num();
#pragma omp taskloop num_tasks(ntasks)
			for (long i = 0; i < m; i++) {
				uint64_t end = now() + (uint64_t)us * 1000u;

				while (now() < end)
					;
#pragma omp atomic
				it[omp_get_thread_num()]++;
			}
			wall = now() - t0;
		}
	}
	long all = 0;
	for (int t = 0; t < nth; t++) {
		fprintf(stderr, "taskloop %d %ld\n", t, it[t]);
		all += it[t];
	}
	fprintf(stderr, "tlwall %d %llu\n", enc, (unsigned long long)wall);
	printf("iterations=%ld\n", all);
	return 0;
}

static int teams(int nt, long ms)
{
	int runs[MAXT] = { 0 };

	if (nt > MAXT)
		return 2;
#pragma omp teams num_teams(nt)
	{
		spin_ms(ms);
		runs[omp_get_team_num()]++;
	}
	int all = 0;
	for (int i = 0; i < nt; i++) {
		fprintf(stderr, "team %d %d\n", i, runs[i]);
		all += runs[i];
	}
	printf("teams=%d\n", all);
	return 0;
}

int main(int argc, char **argv)
{
	prefault_stack();
	if (argc == 5 && !strcmp(argv[1], "pages"))
		return pages(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "loop"))
		return loop(atol(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "critical"))
		return critical(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "tasks"))
		return tasks(atol(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "named"))
		return named(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "ull"))
		return ull_loops(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "atomic"))
		return atomic(atol(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "taskloop"))
		return taskloop(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "teams"))
		return teams(atoi(argv[2]), atol(argv[3]));
	fprintf(stderr, "usage: %s pages N K SPIN_MS | loop M CHUNK | critical HOLD_MS | "
			"tasks T SPIN_MS | named HOLD_MS | ull M CHUNK | atomic N | "
			"taskloop M T US | teams NT MS\n",
		argv[0]);
	return 2;
}
