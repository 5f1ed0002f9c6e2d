/* marker_pair.c - the cost of a LIKWID or PAPI marker pair under the shim
 * against an HPC_BEGIN/HPC_END pair, in one process (bench/markers.sh).
 *
 * Usage: marker_pair [-n PAIRS] [-w WARMUP] [-r REPS] [-c CPU] VARIANT...
 *
 *   literal  HPC_BEGIN("bench.literal") / HPC_END (bench/annotated.c)
 *   runtime  HPC_BEGIN(name) / HPC_END(name), a name built at run time
 *   likwid   likwid_markerStartRegion/StopRegion("bench.likwid")
 *   papi     PAPI_hl_region_begin/end("bench.papi")
 *
 * Under LD_PRELOAD=libhpcshim.so the markers are the shim's (preload/
 * annotations/): regions named at run time, like `runtime`.  Prints
 * "VARIANT NS_PER_PAIR" per timed loop (bench/bench.h); exits 1 when a
 * marker call failed (a pair that does nothing must not be timed as a
 * cheap one).  Built by bench/markers.sh (-llikwid -lpapi).
 */
#include <likwid-marker.h>
#include <papi.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

#define USAGE \
	"marker_pair [-n PAIRS] [-w WARMUP] [-r REPS] [-c CPU] literal|runtime|likwid|papi..."

static volatile int failed;

static __attribute__((noinline)) void loop_likwid(long n)
{
	for (long i = 0; i < n; i++) {
		int rb = likwid_markerStartRegion("bench.likwid");
		BENCH_WORK();
		int re = likwid_markerStopRegion("bench.likwid");
		if (__builtin_expect(rb != 0 || re != 0, 0))
			failed = 1;
	}
}

static __attribute__((noinline)) void loop_papi(long n)
{
	for (long i = 0; i < n; i++) {
		int rb = PAPI_hl_region_begin("bench.papi");
		BENCH_WORK();
		int re = PAPI_hl_region_end("bench.papi");
		if (__builtin_expect(rb != PAPI_OK || re != PAPI_OK, 0))
			failed = 1;
	}
}

static const struct bench_variant variants[] = {
	{ "literal", bench__loop_literal },
	{ "runtime", bench__loop_runtime },
	{ "likwid", loop_likwid },
	{ "papi", loop_papi },
};

int main(int argc, char **argv)
{
	struct bench_opts o;
	int chosen[BENCH_MAX_CHOSEN], n;

	bench__opts(&o, argc, argv, USAGE);
	n = bench__choose(&o, argc, argv, variants,
			  (int)(sizeof(variants) / sizeof(variants[0])), chosen, USAGE);
	likwid_markerInit();
	bench__rounds(&o, variants, chosen, n, &failed);
	likwid_markerClose();
	if (failed) {
		fprintf(stderr,
			"marker_pair: a marker call failed (not under the shim?)\n");
		return 1;
	}
	return 0;
}
