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

/* A program's variants: a name on the command line and its loop of n pairs. */
struct bench_variant {
	const char *name;
	void (*loop)(long n);
};

#define BENCH_MAX_CHOSEN 8

/* The variants named on the command line (argv from o->first), as indexes
 * into `table` in `chosen`; returns how many.  An unknown name, none or
 * more than BENCH_MAX_CHOSEN exits 2 with the usage line. */
int bench__choose(const struct bench_opts *o, int argc, char **argv,
		  const struct bench_variant *table, int ntable,
		  int chosen[BENCH_MAX_CHOSEN], const char *usage);

/* Pins, runs each chosen variant once over the warm-up (at least one pair,
 * which also initialises a library behind it), then o->reps rounds of every
 * variant round-robin, one report line per timed loop.  Stops before the
 * next round once *failed is set (NULL: never): a loop whose calls failed
 * must not be timed as a cheap one. */
void bench__rounds(const struct bench_opts *o, const struct bench_variant *table,
		   const int *chosen, int n, const volatile int *failed);

/* The loop body between BEGIN and END: nothing, but the compiler must
 * assume it reads and writes memory, as real work between annotations
 * would, so nothing is hoisted across it and the loop is not deleted. */
#define BENCH_WORK() __asm__ __volatile__("" ::: "memory")

/* The annotated loops (bench/annotated.c): regions bench.literal and
 * bench.runtime, n pairs each. */
void bench__loop_literal(long n);
void bench__loop_runtime(long n);

#endif
