/* annotated.c - the annotated loops several benchmarks time: an
 * HPC_BEGIN/HPC_END pair around nothing, named by a string literal (the
 * call-site cached path of annotate/hpcshim.h) or by a name built at run
 * time (the by-name path).  The regions are bench.literal and bench.runtime;
 * the scripts check in the shim's results that every pair was counted. */
#include <stdio.h>

#include "annotate/hpcshim.h"
#include "bench/bench.h"

/* Separate functions, never inlined, so each loop is compiled alone. */
__attribute__((noinline)) void bench__loop_literal(long n)
{
	for (long i = 0; i < n; i++) {
		HPC_BEGIN("bench.literal");
		BENCH_WORK();
		HPC_END("bench.literal");
	}
}

static char runtime_buf[32];
/* Read through a volatile pointer: no optimisation can turn the name into
 * a constant, so the macros take the by-name path. */
static const char *volatile runtime_name = runtime_buf;

__attribute__((noinline)) void bench__loop_runtime(long n)
{
	const char *name = runtime_name;

	if (!runtime_buf[0]) /* built here, once, outside any timed pair */
		snprintf(runtime_buf, sizeof(runtime_buf), "bench.%s", "runtime");
	for (long i = 0; i < n; i++) {
		HPC_BEGIN(name);
		BENCH_WORK();
		HPC_END(name);
	}
}
