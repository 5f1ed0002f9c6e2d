/* bench.h - what the benchmark programs share: options, CPU pinning, timing.
 *
 * Every program runs its variants round-robin (-r rounds of each, after a
 * warm-up of -w pairs) and prints one line per timed loop:
 *
 *     VARIANT NS_PER_PAIR
 *
 * bench/run.sh collects those lines from many processes and bench/table.py
 * turns them into medians and ratios.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <stdint.h>

struct bench_opts {
	long pairs;   /* -n: pairs per timed loop */
	long warmup;  /* -w: pairs run once before the first timed loop */
	int reps;     /* -r: timed loops per variant */
	int cpu;      /* -c: CPU to pin to, -1 = do not pin */
	const char *arg; /* -g: program-specific argument (floor groups) */
	int first;    /* argv index of the first variant */
};

/* Parses the options or exits 2 with a usage line naming `usage`. */
void bench__opts(struct bench_opts *o, int argc, char **argv,
		 const char *usage);

/* Pins the calling thread to o->cpu; a failure is reported, not fatal. */
void bench__pin(const struct bench_opts *o);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench__now(void);

/* Prints one timed loop's result. */
void bench__report(const char *variant, uint64_t ns, long pairs);

/* The loop body between BEGIN and END: nothing, but the compiler must
 * assume it reads and writes memory, as real work between annotations
 * would, so nothing is hoisted across it and the loop is not deleted. */
#define BENCH_WORK() __asm__ __volatile__("" ::: "memory")

#endif
