/* marker_pair.c - the cost of a LIKWID or PAPI marker pair under the shim
 * against an HPC_BEGIN/HPC_END pair, in one process (bench/markers.sh).
 *
 * Usage: marker_pair [-n PAIRS] [-w WARMUP] [-r REPS] [-c CPU] VARIANT...
 *
 *   literal  HPC_BEGIN("bench.literal") / HPC_END (bench/pair.c's loop)
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

#include "annotate/hpcshim.h"
#include "bench/bench.h"

#define USAGE \
	"marker_pair [-n PAIRS] [-w WARMUP] [-r REPS] [-c CPU] literal|runtime|likwid|papi..."

static int failed;

static __attribute__((noinline)) void loop_literal(long n)
{
	for (long i = 0; i < n; i++) {
		HPC_BEGIN("bench.literal");
		BENCH_WORK();
		HPC_END("bench.literal");
	}
}

static char runtime_buf[32];
static const char *volatile runtime_name = runtime_buf;

static __attribute__((noinline)) void loop_runtime(long n)
{
	const char *name = runtime_name;

	for (long i = 0; i < n; i++) {
		HPC_BEGIN(name);
		BENCH_WORK();
		HPC_END(name);
	}
}

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

static const struct {
	const char *name;
	void (*loop)(long);
} variants[] = {
	{ "literal", loop_literal },
	{ "runtime", loop_runtime },
	{ "likwid", loop_likwid },
	{ "papi", loop_papi },
};

int main(int argc, char **argv)
{
	struct bench_opts o;
	int nv, idx[8];

	bench__opts(&o, argc, argv, USAGE);
	nv = argc - o.first;
	if (nv < 1 || nv > 8) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	for (int k = 0; k < nv; k++) {
		idx[k] = -1;
		for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
			if (strcmp(argv[o.first + k], variants[i].name) == 0)
				idx[k] = (int)i;
		if (idx[k] < 0) {
			fprintf(stderr, "usage: %s\n", USAGE);
			return 2;
		}
	}
	snprintf(runtime_buf, sizeof(runtime_buf), "bench.%s", "runtime");
	likwid_markerInit();
	bench__pin(&o);
	for (int k = 0; k < nv; k++)
		variants[idx[k]].loop(o.warmup > 0 ? o.warmup : 1);
	for (int r = 0; r < o.reps && !failed; r++)
		for (int k = 0; k < nv; k++) {
			uint64_t t0 = bench__now();
			variants[idx[k]].loop(o.pairs);
			bench__report(variants[idx[k]].name, bench__now() - t0,
				      o.pairs);
		}
	likwid_markerClose();
	if (failed) {
		fprintf(stderr,
			"marker_pair: a marker call failed (not under the shim?)\n");
		return 1;
	}
	return 0;
}
