#!/bin/sh
# openmp.sh - the time the OpenMP feature adds (preload/openmp/,
# docs/openmp.md "Cost"), against the same program without the shim in the
# same run: per parallel construct (an empty one: the team's wall time per
# construct), per explicit barrier, per loop chunk handed out by the
# runtime (schedule(dynamic,1): one GOMP_loop_*_next each, empty
# iterations), and the slowdown of a dynamic loop of 1 us chunks (the
# issue's target: at most 2%), with 2 and 8 threads; gcc's program
# (libgomp's GOMP_* entry points) and clang's (LLVM's libomp, OMPT) when
# clang is there.
#
# Four variants, interleaved in every round (the machine's load moves
# between rounds, not within one): bare (no shim), off (the shim with
# HPCSHIM_OPENMP=off: the threads counted, the entry points forwarded), on
# (the default: one region pair per thread per construct) and barrier
# (HPCSHIM_OPENMP=barrier: the wait measured with its counts, a barrier and
# a region pair more).
#
# Usage: make bench-openmp   (or: BENCH_BUILDDIR=<build dir> sh bench/openmp.sh)
# Each process measures each figure BENCH_PASSES times and prints the
# least (bench/ompcost.c); the table has the medians over the rounds.
# Environment: BENCH_ROUNDS [7] processes per variant, BENCH_CONSTRUCTS
# [500], BENCH_BARRIERS [5000], BENCH_ITERS [50000], BENCH_US_ITERS
# [10000] per pass, BENCH_PASSES [5], BENCH_EVENTS [task-clock], BENCH_THREADS ["2 8"], BENCH_CCS
# ["gcc clang"], BENCH_KEEP=1 keeps the samples.  Prints the medians (ns),
# the ratios to bare and the time added (on - bare, barrier - bare); the
# 1 us loop's ratio against the 2% target as OK or MISS (never a failure).
# Exits non-zero only when it cannot run.
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
ROUNDS=${BENCH_ROUNDS:-7}
R=${BENCH_CONSTRUCTS:-500}
B=${BENCH_BARRIERS:-5000}
M=${BENCH_ITERS:-50000}
U=${BENCH_US_ITERS:-10000}
P=${BENCH_PASSES:-5}
EVENTS=${BENCH_EVENTS:-task-clock}
THREADS=${BENCH_THREADS:-2 8}
CCS=${BENCH_CCS:-gcc clang}
[ -e "$LIB" ] || { echo "bench: $LIB not built (run: make)" >&2; exit 1; }
OUT=$(mktemp -d)
if [ "${BENCH_KEEP:-}" = 1 ]; then
	echo "bench: samples in $OUT/samples"
else
	trap 'rm -rf "$OUT"' EXIT
fi
one() { # cc threads variant [VAR=value...]
	cc=$1 n=$2 v=$3
	shift 3
	env OMP_NUM_THREADS="$n" "$@" "$OUT/ompcost-$cc" "$R" "$B" "$M" "$U" "$P" |
		sed "s/^/$cc $n $v /" >>"$OUT/samples"
}
for cc in $CCS; do
	command -v "$cc" >/dev/null 2>&1 || continue
	"$cc" -O2 -g -fopenmp -o "$OUT/ompcost-$cc" "$SRCDIR/bench/ompcost.c" || continue
	for n in $THREADS; do
		i=0
		while [ $i -lt "$ROUNDS" ]; do
			shim="HPCSHIM_OUTPUT=$OUT HPCSHIM_EVENTS=$EVENTS LD_PRELOAD=$LIB"
			one "$cc" "$n" bare
			# shellcheck disable=SC2086
			one "$cc" "$n" off $shim HPCSHIM_OPENMP=off
			# shellcheck disable=SC2086
			one "$cc" "$n" on $shim
			# shellcheck disable=SC2086
			one "$cc" "$n" barrier $shim HPCSHIM_OPENMP=barrier
			i=$((i + 1))
		done
		rm -f "$OUT"/*.json
	done
done
[ -s "$OUT/samples" ] || { echo "bench: no compiler with -fopenmp ran" >&2; exit 1; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(getconf _NPROCESSORS_ONLN) CPUs, $ROUNDS rounds"
${PYTHON3:-python3} - "$OUT/samples" <<'PY'
import statistics, sys
s = {}
for line in open(sys.argv[1]):
    cc, n, variant, what, ns = line.split()
    s.setdefault((cc, int(n), what, variant), []).append(float(ns))
m = {k: statistics.median(v) for k, v in s.items()}
print("%-6s %-7s %-9s %10s %10s %10s %10s %8s %8s %8s %10s %10s" % (
    "cc", "threads", "per", "bare ns", "off ns", "on ns", "barrier ns", "off/bare",
    "on/bare", "bar/bare", "on-bare", "bar-bare"))
for cc, n in sorted({k[:2] for k in m}):
    for what in ("parallel", "barrier", "chunk", "chunk1us"):
        if (cc, n, what, "bare") not in m:
            continue
        b, o, w, x = (m[(cc, n, what, v)] for v in ("bare", "off", "on", "barrier"))
        note = ""
        if what == "chunk1us":
            note = "  %s (target: on/bare <= 1.02)" % ("OK" if w / b <= 1.02 else "MISS")
        print("%-6s %-7d %-9s %10.1f %10.1f %10.1f %10.1f %8.3f %8.3f %8.3f %10.1f %10.1f%s" % (
            cc, n, what, b, o, w, x, o / b, w / b, x / b, w - b, x - b, note))
PY
