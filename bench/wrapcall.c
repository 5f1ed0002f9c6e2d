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
 *            GOT slot costs the same: both reach the same closure)
 *
 * Run under LD_PRELOAD=libhpcshim.so with HPCSHIM_WRAP=bench_noop=void(long)
 * (bench/wrap.sh).  Prints "VARIANT NS_PER_CALL" per timed loop.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "annotate/hpcshim.h"
#include "bench/bench.h"

#define USAGE \
	"wrapcall [-n CALLS] [-w WARMUP] [-r REPS] [-c CPU] plain|pair|wrapped..."

__attribute__((noinline, visibility("default"))) void bench_noop(long i);
__attribute__((noinline, visibility("default"))) void bench_noop(long i)
{
	(void)i;
	BENCH_WORK();
}

typedef void noop_fn(long);
static noop_fn *volatile direct = bench_noop;
static noop_fn *volatile looked;

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

int main(int argc, char **argv)
{
	struct bench_opts o;

	bench__opts(&o, argc, argv, USAGE);
	bench__pin(&o);
	looked = (noop_fn *)dlsym(RTLD_DEFAULT, "bench_noop");
	if (!looked) {
		fprintf(stderr, "wrapcall: bench_noop not exported\n");
		return 2;
	}
	for (int v = o.first; v < argc; v++) {
		void (*loop)(long) = !strcmp(argv[v], "plain")   ? loop_plain :
				     !strcmp(argv[v], "pair")    ? loop_pair :
				     !strcmp(argv[v], "wrapped") ? loop_wrapped :
								   NULL;
		if (!loop) {
			fprintf(stderr, "usage: %s\n", USAGE);
			return 2;
		}
		loop(o.warmup);
	}
	for (int r = 0; r < o.reps; r++)
		for (int v = o.first; v < argc; v++) {
			void (*loop)(long) = !strcmp(argv[v], "plain") ? loop_plain :
					     !strcmp(argv[v], "pair")  ? loop_pair :
									 loop_wrapped;
			uint64_t t0 = bench__now();

			loop(o.pairs);
			bench__report(argv[v], bench__now() - t0, o.pairs);
		}
	return 0;
}
