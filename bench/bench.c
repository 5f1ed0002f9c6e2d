/* bench.c - options, pinning and timing shared by the benchmark programs. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"

static long parse_long(const char *s, char opt, long min, long max,
		       const char *usage)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "bad -%c '%s' (%ld..%ld)\nusage: %s\n", opt, s,
			min, max, usage);
		exit(2);
	}
	return v;
}

void bench__opts(struct bench_opts *o, int argc, char **argv,
		 const char *usage)
{
	int c;

	o->pairs = 100000;
	o->warmup = 10000;
	o->reps = 3;
	o->cpu = -1;
	o->arg = NULL;
	while ((c = getopt(argc, argv, "n:w:r:c:g:")) != -1) {
		switch (c) {
		case 'n': o->pairs = parse_long(optarg, 'n', 1, 1L << 40, usage); break;
		case 'w': o->warmup = parse_long(optarg, 'w', 0, 1L << 40, usage); break;
		case 'r': o->reps = (int)parse_long(optarg, 'r', 1, 1000, usage); break;
		case 'c': o->cpu = (int)parse_long(optarg, 'c', -1, CPU_SETSIZE - 1, usage); break;
		case 'g': o->arg = optarg; break;
		default:
			fprintf(stderr, "usage: %s\n", usage);
			exit(2);
		}
	}
	o->first = optind;
}

void bench__pin(const struct bench_opts *o)
{
	cpu_set_t set;

	if (o->cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(o->cpu, &set);
	/* Unpinned results are still valid, only noisier. */
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		fprintf(stderr, "bench: cannot pin to CPU %d: %s\n", o->cpu,
			strerror(errno));
}

uint64_t bench__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench__report(const char *variant, uint64_t ns, long pairs)
{
	printf("%s %.3f\n", variant, (double)ns / (double)pairs);
	fflush(stdout);
}

int bench__choose(const struct bench_opts *o, int argc, char **argv,
		  const struct bench_variant *table, int ntable,
		  int chosen[BENCH_MAX_CHOSEN], const char *usage)
{
	int n = argc - o->first;

	if (n < 1 || n > BENCH_MAX_CHOSEN) {
		fprintf(stderr, "usage: %s\n", usage);
		exit(2);
	}
	for (int k = 0; k < n; k++) {
		const char *v = argv[o->first + k];

		chosen[k] = -1;
		for (int i = 0; i < ntable; i++)
			if (strcmp(v, table[i].name) == 0)
				chosen[k] = i;
		if (chosen[k] < 0) {
			fprintf(stderr, "unknown variant '%s'\nusage: %s\n", v, usage);
			exit(2);
		}
	}
	return n;
}

void bench__rounds(const struct bench_opts *o, const struct bench_variant *table,
		   const int *chosen, int n, const volatile int *failed)
{
	bench__pin(o);
	for (int k = 0; k < n; k++) /* page in the code, fill the caches */
		table[chosen[k]].loop(o->warmup > 0 ? o->warmup : 1);
	for (int r = 0; r < o->reps && !(failed && *failed); r++)
		for (int k = 0; k < n; k++) {
			uint64_t t0 = bench__now();

			table[chosen[k]].loop(o->pairs);
			bench__report(table[chosen[k]].name, bench__now() - t0,
				      o->pairs);
		}
}
