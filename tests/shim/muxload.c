/* muxload.c - workloads for the multiplexing tests (tests/shim/test_mux.py and
 * bench/mux.sh): steady and phased rates of software events.
 *
 * Usage: muxload STEP [ARGS] [STEP [ARGS] ...]
 *   steady MS        region "steady", MS ms of thread CPU time of a steady
 *                    mix: each unit touches one fresh page (one page fault),
 *                    computes ~17 us, and every 8th unit sleeps 50 us (one
 *                    context switch)
 *   busy MS          region "busy": the same units without the sleeps (the
 *                    only switches are the ones the scheduler imposes)
 *   phased N         region "phased": N pairs of phases of different
 *                    lengths: a touching phase (pages as fast as possible,
 *                    a 50 us sleep every 256 pages) of 20..60 ms, then a
 *                    compute phase (no faults, no switches) of 30..90 ms
 *   short K US GAP   K regions "short0".."short<K-1>" (K <= 100), each US
 *                    us of compute, GAP us of compute between them outside
 *                    any region
 *   threads N MS     N threads, each running "steady MS" in region "steady"
 *   compute MS       region "compute": MS ms of compute only
 *   fork MS          fork(); the child runs "steady MS" and exits; the
 *                    parent waits
 * Prints one line per step.  Durations are thread CPU time
 * (CLOCK_THREAD_CPUTIME_ID), so they do not depend on the machine's load.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "annotate/hpcshim.h"

#define PAGE 4096
/* A unit of the steady mix: one page touched, then ~17 us of compute.  A
 * counted software event costs the thread time (~12 ns per occurrence
 * and enabled event, measured here), so a rotated group of fault events
 * slows a fault-bound loop while it is enabled: at a fault every 4 us that
 * biased the estimate by -0.6%; at one every 20 us it is below the
 * sampling error.  Hardware counters cost the program nothing. */
#define UNIT_COMPUTE 10000
/* A voluntary context switch: a 50 us sleep (timer slack is 1 ns).  A
 * shorter sleep need not switch at all: on some kernels a 2 us timer has
 * expired before the sleeper reaches schedule() (5 switches in 1000 sleeps
 * of 2 us; 1000 in 1000 from 20 us up). */
#define SLEEP_NS 50000
/* Pages touched between the sleeps of a touching phase. */
#define PHASE_PAGES 256
#define POOL_PAGES 256 /* 1 MiB, given back and touched again: the
			 * give-back is short, the fault rate stays even */

struct pool {
	char *base;
	long next;
};

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pool_init(struct pool *p)
{
	p->base = mmap(NULL, (size_t)POOL_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->base == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	/* One fault per 4 KiB page, not one per 2 MiB. */
	madvise(p->base, (size_t)POOL_PAGES * PAGE, MADV_NOHUGEPAGE);
	p->next = 0;
}

/* One first touch: exactly one minor fault. */
static void pool_touch(struct pool *p)
{
	if (p->next == POOL_PAGES) {
		madvise(p->base, (size_t)POOL_PAGES * PAGE, MADV_DONTNEED);
		p->next = 0;
	}
	p->base[p->next++ * PAGE] = 1;
}

static volatile uint64_t sink;

/* About n x 10 ns of arithmetic. */
static void compute(long n)
{
	uint64_t x = sink;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

/* One voluntary context switch (SLEEP_NS). */
static void yield_cpu(void)
{
	struct timespec ts = {0, SLEEP_NS};

	nanosleep(&ts, NULL);
}

/* ms of thread CPU time in region name: units of one page touch and
 * UNIT_COMPUTE, in eights, each eight followed by a sleep if asked. */
static void mix(const char *name, uint64_t ms, bool sleeps)
{
	struct pool p;
	uint64_t end;

	pool_init(&p);
	HPC_BEGIN(name);
	end = cpu_ns() + ms * 1000000;
	while (cpu_ns() < end) {
		for (int k = 0; k < 8; k++) {
			pool_touch(&p);
			compute(UNIT_COMPUTE);
		}
		if (sleeps)
			yield_cpu();
	}
	HPC_END(name);
	munmap(p.base, (size_t)POOL_PAGES * PAGE);
}

static void steady(uint64_t ms)
{
	mix("steady", ms, true);
}

static void phased(long n)
{
	struct pool p;

	pool_init(&p);
	HPC_BEGIN("phased");
	for (long i = 0; i < n; i++) {
		uint64_t touch_ms = 20 + 10 * (uint64_t)(i * 3 % 5);
		uint64_t comp_ms = 30 + 10 * (uint64_t)(i * 5 % 7);
		uint64_t end = cpu_ns() + touch_ms * 1000000;

		while (cpu_ns() < end) {
			for (int k = 0; k < PHASE_PAGES; k++)
				pool_touch(&p);
			yield_cpu();
		}
		end = cpu_ns() + comp_ms * 1000000;
		while (cpu_ns() < end)
			compute(5000);
	}
	HPC_END("phased");
	munmap(p.base, (size_t)POOL_PAGES * PAGE);
}

static void spin_us(uint64_t us)
{
	uint64_t end = cpu_ns() + us * 1000;

	while (cpu_ns() < end)
		compute(50);
}

static void shorts(long k, uint64_t us, uint64_t gap)
{
	static const char *const names[] = {
#define N10(d) "short" #d "0", "short" #d "1", "short" #d "2", "short" #d "3", \
	"short" #d "4", "short" #d "5", "short" #d "6", "short" #d "7", \
	"short" #d "8", "short" #d "9"
		"short0", "short1", "short2", "short3", "short4", "short5",
		"short6", "short7", "short8", "short9",
		N10(1), N10(2), N10(3), N10(4), N10(5), N10(6), N10(7), N10(8), N10(9),
#undef N10
	};

	for (long i = 0; i < k && i < 100; i++) {
		HPC_BEGIN(names[i]);
		spin_us(us);
		HPC_END(names[i]);
		spin_us(gap);
	}
}

static void *worker(void *arg)
{
	steady(*(uint64_t *)arg);
	return NULL;
}

static long num(char **argv, int *i, int argc)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "muxload: %s needs an argument\n", argv[*i]);
		exit(2);
	}
	return strtol(argv[++*i], NULL, 0);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "steady") == 0) {
			uint64_t ms = (uint64_t)num(argv, &i, argc);
			steady(ms);
			printf("steady %llu\n", (unsigned long long)ms);
		} else if (strcmp(s, "busy") == 0) {
			uint64_t ms = (uint64_t)num(argv, &i, argc);
			mix("busy", ms, false);
			printf("busy %llu\n", (unsigned long long)ms);
		} else if (strcmp(s, "phased") == 0) {
			long n = num(argv, &i, argc);
			phased(n);
			printf("phased %ld\n", n);
		} else if (strcmp(s, "short") == 0) {
			long k = num(argv, &i, argc), us = num(argv, &i, argc),
			     gap = num(argv, &i, argc);
			shorts(k, (uint64_t)us, (uint64_t)gap);
			printf("short %ld %ld %ld\n", k, us, gap);
		} else if (strcmp(s, "compute") == 0) {
			long ms = num(argv, &i, argc);
			HPC_BEGIN("compute");
			spin_us((uint64_t)ms * 1000);
			HPC_END("compute");
			printf("compute %ld\n", ms);
		} else if (strcmp(s, "threads") == 0) {
			long n = num(argv, &i, argc);
			uint64_t ms = (uint64_t)num(argv, &i, argc);
			pthread_t t[64];

			for (long k = 0; k < n && k < 64; k++)
				if (pthread_create(&t[k], NULL, worker, &ms) != 0)
					exit(98);
			for (long k = 0; k < n && k < 64; k++)
				pthread_join(t[k], NULL);
			printf("threads %ld %llu\n", n, (unsigned long long)ms);
		} else if (strcmp(s, "fork") == 0) {
			uint64_t ms = (uint64_t)num(argv, &i, argc);
			pid_t pid = fork();
			int st;

			if (pid == 0) {
				steady(ms);
				exit(0);
			}
			waitpid(pid, &st, 0);
			printf("fork %llu %d\n", (unsigned long long)ms,
			       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		} else {
			fprintf(stderr, "muxload: unknown step '%s'\n", s);
			return 2;
		}
	}
	return 0;
}
