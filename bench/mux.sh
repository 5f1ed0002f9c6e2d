#!/bin/sh
# mux.sh - the cost of the shim's rotation (HPCSHIM_MUX=rotate): fixed work
# (bench/muxwork.c) timed with the same events rotated and not rotated.
#
# Usage: make bench-mux   (or: BENCH_BUILDDIR=<build dir> sh bench/mux.sh)
#
# As in bench/run.sh, every figure is a ratio to a baseline measured in the
# same round: a round runs the work without the shim, under the shim with
# the four groups of tests/shim/test_mux.py left to the kernel (software events:
# all counted at once, no rotation), and under the shim rotating them at the
# default slice (1 ms), in an order that rotates from round to round.  Each
# process pins itself to one CPU, warms up, times BENCH_MUX_REPS loops.
#
# Environment (defaults in brackets):
#   BENCH_MUX_ROUNDS [9]      rounds
#   BENCH_MUX_REPS [3]        timed loops per process
#   BENCH_MUX_UNITS [100000]  units per timed loop (about 0.3 s here)
#   BENCH_MUX_SLICE []        HPCSHIM_MUX_SLICE for the rotated runs
#   BENCH_CPU [last online CPU]  CPU to pin to (-1: do not pin)
#   BENCH_KEEP=1              keep the raw samples (their path is printed)
# Exits non-zero only when the benchmark could not run; a missed target is
# printed as MISS, never a failure.
set -eu

SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
WORK=$BUILDDIR/bench/muxwork
PYTHON=${PYTHON3:-python3}
ROUNDS=${BENCH_MUX_ROUNDS:-9}
REPS=${BENCH_MUX_REPS:-3}
UNITS=${BENCH_MUX_UNITS:-100000}
WARM=$((UNITS / 10))
CPU=${BENCH_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}
EVENTS="{page-faults,minor-faults},{context-switches},{task-clock},{cpu-clock}"

for f in "$LIB" "$WORK"; do
	[ -e "$f" ] || { echo "bench: $f not built (run: make bench-mux)" >&2; exit 1; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hpcshim-benchmux.XXXXXX")
if [ "${BENCH_KEEP:-0}" = 1 ]; then
	trap 'echo "bench: raw samples kept in $TMP"' EXIT
else
	trap 'rm -rf "$TMP"' EXIT
fi
SAMPLES=$TMP/samples.tsv  # round <tab> variant <tab> ns per unit
CHECKS=$TMP/checks.tsv    # round <tab> variant <tab> check result (JSON)
: >"$SAMPLES"
: >"$CHECKS"

run() { # round variant
	d=$TMP/$1.$2
	mkdir "$d"
	case $2 in
	none) env -u LD_PRELOAD "$WORK" -c "$CPU" -n "$UNITS" -w "$WARM" -r "$REPS" "$2" ;;
	kernel) HPCSHIM_OUTPUT=$d HPCSHIM_EVENTS=$EVENTS LD_PRELOAD=$LIB \
		"$WORK" -c "$CPU" -n "$UNITS" -w "$WARM" -r "$REPS" "$2" ;;
	rotate) HPCSHIM_OUTPUT=$d HPCSHIM_EVENTS=$EVENTS HPCSHIM_MUX=rotate \
		HPCSHIM_MUX_SLICE=${BENCH_MUX_SLICE:-} LD_PRELOAD=$LIB \
		"$WORK" -c "$CPU" -n "$UNITS" -w "$WARM" -r "$REPS" "$2" ;;
	esac | while read -r v ns; do
		printf '%s\t%s\t%s\n' "$1" "$v" "$ns"
	done >>"$SAMPLES"
	[ "$2" = none ] || "$PYTHON" "$SRCDIR/bench/muxresults.py" check "$d" "$2" \
		$((WARM + REPS * UNITS)) | sed "s/^/$1	$2	/" >>"$CHECKS"
	rm -rf "$d"
}

echo "bench: $ROUNDS rounds x $REPS loops of $UNITS units, CPU $CPU"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	printf 'bench: round %s/%s\n' "$r" "$ROUNDS" >&2
	case $((r % 3)) in
	0) run "$r" none; run "$r" kernel; run "$r" rotate ;;
	1) run "$r" kernel; run "$r" rotate; run "$r" none ;;
	2) run "$r" rotate; run "$r" none; run "$r" kernel ;;
	esac
	r=$((r + 1))
done

CPUMODEL=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
REV=$(git -C "$SRCDIR" log -1 --format='%h %s' 2>/dev/null | cut -c1-60) || REV=unknown
"$PYTHON" "$SRCDIR/bench/muxresults.py" table "$SAMPLES" "$CHECKS" \
	"kernel $(uname -r), ${CPUMODEL:-unknown CPU}, $(getconf _NPROCESSORS_ONLN) CPUs, pinned to $CPU" \
	"source $REV" \
	"$ROUNDS rounds x $REPS loops of $UNITS units; events $EVENTS"
