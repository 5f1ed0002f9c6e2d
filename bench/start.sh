#!/bin/sh
# start.sh - what the shim adds to the start and end of a process
# (make bench-start, docs/benchmarks.md "Process start").
#
# A program that prints one line and exits (bench/hello.c) runs bare, under
# the shim (default events, writing its results file), under PAPI's
# high-level API (one region around the line: PAPI starts and writes its
# file) and under `perf stat` (default events), BENCH_START_ROUNDS rounds
# in a rotating order (bench/startrun.c: posix_spawn to wait4).  Prints
# the median per variant, its difference to bare and its ratio to bare
# (the median of the per-round ratios).
#
# Environment: BENCH_START_ROUNDS [300], BENCH_CPU [last online CPU; -1:
# not pinned], BENCH_KEEP=1 keeps the samples.
set -eu

SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
PYTHON=${PYTHON3:-python3}
ROUNDS=${BENCH_START_ROUNDS:-300}
CPU=${BENCH_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}
B=$BUILDDIR/bench

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hpcshim-start.XXXXXX")
if [ "${BENCH_KEEP:-0}" = 1 ]; then
	trap 'echo "bench: samples kept in $TMP"' EXIT
else
	trap 'rm -rf "$TMP"' EXIT
fi
mkdir "$TMP/shim" "$TMP/papi"

set -- "bare||$B/hello" "shim|LD_PRELOAD=$LIB HPCSHIM_OUTPUT=$TMP/shim|$B/hello"
if [ -x "$B/hello_papi" ]; then
	set -- "$@" "papi_bare||$B/hello_papi" \
		"papi|PAPI_EVENTS=perf::TASK-CLOCK PAPI_OUTPUT_DIRECTORY=$TMP/papi|$B/hello_papi"
fi
PERF=$(command -v perf || true)
[ -z "$PERF" ] || set -- "$@" "perf_stat||$PERF stat -o /dev/null -- $B/hello"
PIN=""
[ "$CPU" = -1 ] || PIN="taskset -c $CPU"
$PIN "$B/startrun" "$ROUNDS" "$@" >"$TMP/samples"
n=$(ls "$TMP/shim" | wc -l)
[ "$n" = "$ROUNDS" ] || echo "bench: INVALID: $n shim result files for $ROUNDS runs" >&2
"$PYTHON" - "$TMP/samples" <<'PY'
import sys, statistics as st
runs = {}
for line in open(sys.argv[1]):
    r, name, ns = line.split()
    runs.setdefault(name, {})[int(r)] = int(ns)
bare = runs["bare"]
print("%-10s %10s %12s %8s" % ("variant", "median ms", "minus bare", "/ bare"))
for name, v in runs.items():
    med = st.median(v.values())
    ratio = st.median(v[r] / bare[r] for r in v if r in bare)
    print("%-10s %10.3f %+12.3f %8.2f" % (name, med / 1e6, (med - st.median(bare.values())) / 1e6, ratio))
PY
