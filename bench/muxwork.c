/* muxwork.c - fixed work for the rotation benchmark (bench/mux.sh).
 *
 * Usage: muxwork [-n UNITS] [-w WARMUP] [-r REPS] [-c CPU] LABEL
 *
 * One unit is the first touch of a page (one page fault, from a 1 MiB pool
 * given back with MADV_DONTNEED when used up) and about 2,000 dependent
 * multiply-adds.  Each timed loop of UNITS units is one region "work".  The
 * work is the same whatever the shim does, so the time per unit under
 * HPCSHIM_MUX=rotate against the same events without rotation is the cost
 * of rotating.  Prints "LABEL NS_PER_UNIT" per timed loop (bench/bench.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "annotate/hpcshim.h"
#include "bench/bench.h"

#define USAGE "muxwork [-n UNITS] [-w WARMUP] [-r REPS] [-c CPU] LABEL"
#define PAGE 4096
#define POOL 256

static char *pool;
static long next_page;
static volatile unsigned long long sink;

static __attribute__((noinline)) void unit(void)
{
	unsigned long long x = sink;

	if (next_page == POOL) {
		madvise(pool, (size_t)POOL * PAGE, MADV_DONTNEED);
		next_page = 0;
	}
	pool[next_page++ * PAGE] = 1;
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

static __attribute__((noinline)) void work(long n)
{
	HPC_BEGIN("work");
	for (long i = 0; i < n; i++)
		unit();
	HPC_END("work");
}

int main(int argc, char **argv)
{
	struct bench_opts o;

	bench__opts(&o, argc, argv, USAGE);
	if (o.first != argc - 1) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	pool = mmap(NULL, (size_t)POOL * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool == MAP_FAILED)
		return 1;
	madvise(pool, (size_t)POOL * PAGE, MADV_NOHUGEPAGE);
	bench__pin(&o);
	work(o.warmup);
	for (int r = 0; r < o.reps; r++) {
		uint64_t t0 = bench__now();
		work(o.pairs);
		bench__report(argv[o.first], bench__now() - t0, o.pairs);
	}
	return 0;
}
