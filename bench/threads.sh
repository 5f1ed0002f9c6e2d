#!/bin/sh
# threads.sh - what the shim adds to a thread's create + join (default
# events) and what an ended thread leaves in memory (docs/benchmarks.md).
# "floor" is the same loop without the shim where each thread opens the
# default software events as one group, reads it once and closes it
# (bench/threads.c): the least any per-thread counting tool pays.
# BENCH_THREADS [2000] threads per loop, BENCH_ROUNDS [9] rounds of one
# bare and one shim process in a rotating order, BENCH_CPU as for make bench.
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
PROG=$BUILDDIR/bench/threads
N=${BENCH_THREADS:-2000}
ROUNDS=${BENCH_ROUNDS:-9}
CPU=${BENCH_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}
PIN=""
[ "$CPU" = -1 ] || PIN="taskset -c $CPU"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hpcshim-threads.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 0 ]; then
		echo "bare $($PIN "$PROG" "$N")"
		echo "floor $($PIN "$PROG" "$N" floor)"
		echo "shim $(HPCSHIM_OUTPUT=$TMP LD_PRELOAD=$LIB $PIN "$PROG" "$N")"
	else
		echo "shim $(HPCSHIM_OUTPUT=$TMP LD_PRELOAD=$LIB $PIN "$PROG" "$N")"
		echo "floor $($PIN "$PROG" "$N" floor)"
		echo "bare $($PIN "$PROG" "$N")"
	fi
done | python3 -c '
import sys, statistics as st
d = {}
for l in sys.stdin:
    k, ns, kib = l.split()
    d.setdefault(k, []).append((int(ns), int(kib)))
b = st.median(v[0] for v in d["bare"]); s = st.median(v[0] for v in d["shim"])
f = st.median(v[0] for v in d["floor"])
n = int(sys.argv[1])
print("create+join, %d threads x 5 loops: bare %.1f us, shim %.1f us, +%.1f us per thread (target <= 15)"
      % (n, b / 1e3, s / 1e3, (s - b) / 1e3))
print("floor (one group of the default events opened, read once, closed per thread): %.1f us, +%.1f us; shim / floor overhead %.2f"
      % (f / 1e3, (f - b) / 1e3, (s - b) / (f - b)))
for k in ("bare", "shim"):
    print("%s: RSS growth over %d ended threads %d KiB (%.0f bytes per thread)"
          % (k, 5 * n, st.median(v[1] for v in d[k]), 1024 * st.median(v[1] for v in d[k]) / (5 * n)))
' "$N"
