#!/bin/sh
# wrap.sh - ns per wrapped call (HPCSHIM_WRAP) against an annotated pair
# around the same call, same process, same events (bench/wrapcall.c): a
# function of 1 argument and one of 7 mixed int/double arguments.
#
# Usage: make bench-wrap   (or: BENCH_BUILDDIR=<build dir> sh bench/wrap.sh)
# Environment: BENCH_ROUNDS [7] processes, BENCH_REPS [5] loops per variant
# and process, BENCH_PAIRS [20000] calls per loop, BENCH_EVENTS [task-clock],
# BENCH_CPU [last online CPU].  Prints the medians and the ratios
# (wrapped - plain) / (pair - plain), for 1 and 7 arguments (target: <= 2).  Exits non-zero only when it cannot run.
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
PROG=$BUILDDIR/bench/wrapcall
ROUNDS=${BENCH_ROUNDS:-7}
REPS=${BENCH_REPS:-5}
PAIRS=${BENCH_PAIRS:-20000}
EVENTS=${BENCH_EVENTS:-task-clock}
CPU=${BENCH_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}
SPEC='bench_noop=void(long),bench_noop7=void(long,double,int,double,long,double,int)'
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
i=0
while [ $i -lt "$ROUNDS" ]; do
	HPCSHIM_OUTPUT=$OUT HPCSHIM_EVENTS=$EVENTS HPCSHIM_WRAP="$SPEC" \
		LD_PRELOAD=$LIB "$PROG" -n "$PAIRS" -w $((PAIRS / 10)) -r "$REPS" -c "$CPU" \
		plain pair wrapped plain7 wrapped7 >>"$OUT/samples"
	i=$((i + 1))
done
${PYTHON3:-python3} - "$OUT" "$PAIRS" "$ROUNDS" "$REPS" <<'PY'
import glob, json, statistics, sys
out, pairs, rounds, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = {}
for line in open(out + "/samples"):
    v, ns = line.split()
    s.setdefault(v, []).append(float(ns))
m = {v: statistics.median(x) for v, x in s.items()}
calls = {}
for f in glob.glob(out + "/hpcshim-*.json"):
    for r in json.load(open(f))["regions"]:
        calls[r["name"]] = calls.get(r["name"], 0) + r["calls"]
want = rounds * (reps * pairs + pairs // 10)
for v in ("plain", "pair", "wrapped", "plain7", "wrapped7"):
    print("%-8s %8.1f ns per call" % (v, m[v]))
pair = m["pair"] - m["plain"]
for n, w, p in ((1, "wrapped", "plain"), (7, "wrapped7", "plain7")):
    print("%d arg(s): wrapped call - plain: %.1f ns; pair - plain: %.1f ns; ratio %.2f "
          "(target <= 2)" % (n, m[w] - m[p], pair, (m[w] - m[p]) / pair))
ok = calls.get("bench_noop") == calls.get("bench_noop7") == calls.get("bench.pair") == want
print("calls counted: bench_noop %s, bench_noop7 %s, bench.pair %s (want %d each): %s"
      % (calls.get("bench_noop"), calls.get("bench_noop7"), calls.get("bench.pair"), want,
         "ok" if ok else "MISMATCH"))
PY
