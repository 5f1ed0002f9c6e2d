/* papi_pair.c - the cost of one PAPI high-level region pair, for comparison.
 *
 * Usage: papi_pair [-n PAIRS] [-w WARMUP] [-r REPS] [-c CPU] papi
 *
 * The loop of bench/pair.c's `literal` variant with PAPI 7's
 * PAPI_hl_region_begin/end("bench.papi") in place of HPC_BEGIN/HPC_END.  The
 * events come from PAPI_EVENTS (e.g. "perf::TASK-CLOCK,perf::PAGE-FAULTS");
 * PAPI writes its results at exit under PAPI_OUTPUT_DIRECTORY, where
 * bench/run.sh checks that every event was counted (PAPI's high-level API
 * drops an event it cannot count without failing the call).  Exits 1 when a
 * call fails: a pair that does nothing must not be timed as a cheap one.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

#define USAGE "papi_pair [-n PAIRS] [-w WARMUP] [-r REPS] [-c CPU] papi"

static volatile int failed; /* the first failing return value */

static __attribute__((noinline)) void loop_papi(long n)
{
	for (long i = 0; i < n; i++) {
		int rb = PAPI_hl_region_begin("bench.papi");
		BENCH_WORK();
		int re = PAPI_hl_region_end("bench.papi");
		if (__builtin_expect(rb != PAPI_OK || re != PAPI_OK, 0) && !failed)
			failed = rb != PAPI_OK ? rb : re;
	}
}

static const struct bench_variant variants[] = {{"papi", loop_papi}};

int main(int argc, char **argv)
{
	struct bench_opts o;
	int chosen[BENCH_MAX_CHOSEN], n;

	bench__opts(&o, argc, argv, USAGE);
	n = bench__choose(&o, argc, argv, variants, 1, chosen, USAGE);
	bench__rounds(&o, variants, chosen, n, &failed); /* the warm-up initialises PAPI */
	if (failed) {
		fprintf(stderr, "papi_pair: PAPI_hl_region_begin/end failed: %s\n",
			PAPI_strerror(failed));
		return 1;
	}
	return 0;
}
