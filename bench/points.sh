#!/bin/sh
# points.sh - what one hit of a checkpoint costs, per way of watching it
# (HPCSHIM_RANGE_METHOD: a hardware breakpoint's debug exception, a
# uprobe's int3 and single step), against the same calls under the shim
# without a checkpoint, in the same round (docs/benchmarks.md).
#
# Usage: make bench-points   (or: BENCH_BUILDDIR=<build dir> sh bench/points.sh)
# Environment: BENCH_ROUNDS [7] rounds, BENCH_CALLS [200000] calls per run.
# A way this host cannot use (the shim's own check: a point on a function
# executed once must count 1) is printed with the shim's reason.  Every
# checked run must have counted every call.  Exits non-zero only when it
# cannot run.
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
PROG=$BUILDDIR/tests/shim/range_prog
ROUNDS=${BENCH_ROUNDS:-7}
CALLS=${BENCH_CALLS:-200000}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for f in "$LIB" "$PROG"; do
	[ -e "$f" ] || { echo "points: $f not built (make check builds range_prog)" >&2; exit 1; }
done
# one run: its ns per call (stderr) and its document
one() { # label method|none
	d=$OUT/$1.$i
	mkdir "$d"
	if [ "$2" = none ]; then
		HPCSHIM_OUTPUT=$d HPCSHIM_EVENTS=task-clock LD_PRELOAD=$LIB \
			"$PROG" bench "$CALLS" 2>"$d/err" >/dev/null
	else
		HPCSHIM_OUTPUT=$d HPCSHIM_EVENTS=task-clock HPCSHIM_RANGE_METHOD=$2 \
			HPCSHIM_CHECKPOINT=func:bench_target LD_PRELOAD=$LIB \
			"$PROG" bench "$CALLS" 2>"$d/err" >/dev/null
	fi
}
i=0
while [ $i -lt "$ROUNDS" ]; do
	one none none
	one breakpoint breakpoint
	one uprobe uprobe
	i=$((i + 1))
done
${PYTHON3:-python3} - "$OUT" "$ROUNDS" "$CALLS" <<'PY'
import glob, json, statistics, sys
out, rounds, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def ns(label, i):
    for line in open("%s/%s.%d/err" % (out, label, i)):
        if line.startswith("bench ns_per_call"):
            return float(line.split()[2])
    return None

def doc(label, i):
    f = glob.glob("%s/%s.%d/hpcshim-*.json" % (out, label, i))
    return json.load(open(f[0])) if f else None

print("checkpoint hit cost, %d calls per run, %d rounds (median, [min, max])" % (calls, rounds))
base = [ns("none", i) for i in range(rounds)]
print("  %-11s %9.1f ns per call  (the shim, no checkpoint)" % ("none", statistics.median(base)))
for m in ("breakpoint", "uprobe"):
    d0 = doc(m, 0)
    rg = (d0 or {}).get("ranges") or {}
    if rg.get("point_method") != m:
        print("  %-11s not usable here: %s" % (m, rg.get("point_method_note")))
        continue
    bad = [i for i in range(rounds)
           if doc(m, i)["ranges"]["totals"]["checkpoints"]["func:bench_target"] != calls]
    if bad:
        print("  %-11s FAIL: a run did not count every call (rounds %s)" % (m, bad))
        continue
    hit = [ns(m, i) - base[i] for i in range(rounds)]
    print("  %-11s %9.0f ns per hit  [%.0f, %.0f]" % (m, statistics.median(hit), min(hit), max(hit)))
PY
