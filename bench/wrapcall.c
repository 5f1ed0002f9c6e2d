/* wrapcall.c - the cost of a wrapped call (HPCSHIM_WRAP) against an
 * annotated pair around the same call.
 *
 * Usage: wrapcall [-n CALLS] [-w WARMUP] [-r REPS] [-c CPU] VARIANT...
 *
 *   plain    the function called through a direct pointer: the floor
 *   pair     HPC_BEGIN("bench.pair") / the call / HPC_END: an annotated pair
 *   wrapped  the function called through the pointer dlsym returns: under
 *            HPCSHIM_WRAP=bench_noop=void(long) that is its wrapper, whose
 *            region is bench_noop (a call from another object through its
 *            GOT slot costs the same: both reach the same wrapper)
 *   plain7   bench_noop7, 7 mixed int/double arguments, called directly
 *   wrapped7 the same through its wrapper (region bench_noop7)
 *
 * Run under LD_PRELOAD=libhpcshim.so with HPCSHIM_WRAP=bench_noop=void(long),
 * bench_noop7=void(long,double,int,double,long,double,int) (bench/wrap.sh).  Prints "VARIANT NS_PER_CALL" per timed loop.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "annotate/hpcshim.h"
#include "bench/bench.h"

#define USAGE                                                 \
	"wrapcall [-n CALLS] [-w WARMUP] [-r REPS] [-c CPU] " \
	"plain|pair|wrapped|plain7|wrapped7..."

__attribute__((noinline, visibility("default"))) void bench_noop(long i);
__attribute__((noinline, visibility("default"))) void bench_noop(long i)
{
	(void)i;
	BENCH_WORK();
}

__attribute__((noinline, visibility("default"))) void
bench_noop7(long i, double a, int b, double c, long d, double e, int f);
__attribute__((noinline, visibility("default"))) void
bench_noop7(long i, double a, int b, double c, long d, double e, int f)
{
	(void)i, (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	BENCH_WORK();
}

typedef void noop_fn(long);
typedef void noop7_fn(long, double, int, double, long, double, int);
static noop_fn *volatile direct = bench_noop;
static noop_fn *volatile looked;
static noop7_fn *volatile direct7 = bench_noop7;
static noop7_fn *volatile looked7;

static __attribute__((noinline)) void loop_plain(long n)
{
	noop_fn *f = direct;

	for (long i = 0; i < n; i++)
		f(i);
}

static __attribute__((noinline)) void loop_pair(long n)
{
	noop_fn *f = direct;

	for (long i = 0; i < n; i++) {
		HPC_BEGIN("bench.pair");
		f(i);
		HPC_END("bench.pair");
	}
}

static __attribute__((noinline)) void loop_wrapped(long n)
{
	noop_fn *f = looked;

	for (long i = 0; i < n; i++)
		f(i);
}

static void loop7(noop7_fn *f, long n)
{
	for (long i = 0; i < n; i++)
		f(i, 0.5, (int)i, 1.5, -i, 2.5, -3);
}

static __attribute__((noinline)) void loop_plain7(long n)
{
	loop7(direct7, n);
}

static __attribute__((noinline)) void loop_wrapped7(long n)
{
	loop7(looked7, n);
}

static const struct bench_variant variants[] = {
	{"plain", loop_plain},
	{"pair", loop_pair},
	{"wrapped", loop_wrapped},
	{"plain7", loop_plain7},
	{"wrapped7", loop_wrapped7},
};

int main(int argc, char **argv)
{
	struct bench_opts o;
	int chosen[BENCH_MAX_CHOSEN], n;

	bench__opts(&o, argc, argv, USAGE);
	n = bench__choose(&o, argc, argv, variants,
			  (int)(sizeof(variants) / sizeof(variants[0])), chosen, USAGE);
	looked = (noop_fn *)dlsym(RTLD_DEFAULT, "bench_noop");
	looked7 = (noop7_fn *)dlsym(RTLD_DEFAULT, "bench_noop7");
	if (!looked || !looked7) {
		fprintf(stderr, "wrapcall: bench_noop or bench_noop7 not exported\n");
		return 2;
	}
	bench__rounds(&o, variants, chosen, n, NULL);
	return 0;
}
