#!/bin/sh
# openmp.sh - the time the OpenMP feature adds (preload/openmp/,
# docs/openmp.md): per parallel construct (an empty one: the whole team's
# wall time per construct) and per loop chunk handed out by the runtime
# (schedule(dynamic,1): one GOMP_loop_*_next each), with 2 and 8 threads,
# against the same program without the shim, and under the shim with
# HPCSHIM_OPENMP=off (the entry points forwarded, nothing recorded); for
# gcc's program (libgomp's GOMP_* entry points) and clang's (LLVM's libomp,
# OMPT), when clang is there.
#
# Usage: make bench-openmp   (or: BENCH_BUILDDIR=<build dir> sh bench/openmp.sh)
# Environment: BENCH_ROUNDS [7] processes per variant, BENCH_CONSTRUCTS
# [20000], BENCH_ITERS [200000], BENCH_EVENTS [task-clock], BENCH_THREADS
# ["2 8"], BENCH_CCS ["gcc clang"].  Prints the medians (ns) and the ratios
# to the run without the shim and to the shim with the feature off.  Exits
# non-zero only when it cannot run.
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
ROUNDS=${BENCH_ROUNDS:-7}
R=${BENCH_CONSTRUCTS:-20000}
M=${BENCH_ITERS:-200000}
EVENTS=${BENCH_EVENTS:-task-clock}
THREADS=${BENCH_THREADS:-2 8}
CCS=${BENCH_CCS:-gcc clang}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for cc in $CCS; do
	command -v "$cc" >/dev/null 2>&1 || continue
	"$cc" -O2 -g -fopenmp -o "$OUT/ompcost-$cc" "$SRCDIR/bench/ompcost.c" || continue
	for n in $THREADS; do
		i=0
		while [ $i -lt "$ROUNDS" ]; do
			OMP_NUM_THREADS=$n "$OUT/ompcost-$cc" "$R" "$M" |
				sed "s/^/$cc $n bare /" >>"$OUT/samples"
			OMP_NUM_THREADS=$n HPCSHIM_OUTPUT=$OUT HPCSHIM_EVENTS=$EVENTS \
				HPCSHIM_OPENMP=off LD_PRELOAD=$LIB "$OUT/ompcost-$cc" "$R" "$M" |
				sed "s/^/$cc $n off /" >>"$OUT/samples"
			OMP_NUM_THREADS=$n HPCSHIM_OUTPUT=$OUT HPCSHIM_EVENTS=$EVENTS \
				LD_PRELOAD=$LIB "$OUT/ompcost-$cc" "$R" "$M" |
				sed "s/^/$cc $n on /" >>"$OUT/samples"
			i=$((i + 1))
		done
	done
done
${PYTHON3:-python3} - "$OUT/samples" <<'PY'
import statistics, sys
s = {}
for line in open(sys.argv[1]):
    cc, n, variant, what, ns = line.split()
    s.setdefault((cc, int(n), what, variant), []).append(float(ns))
m = {k: statistics.median(v) for k, v in s.items()}
# off - bare: the shim counting the threads (their counters switch with
# them); on - off: what the OpenMP feature itself adds.
print("%-6s %-8s %-9s %10s %10s %10s %9s %9s %9s %10s" % (
    "cc", "threads", "per", "bare ns", "off ns", "on ns", "off/bare", "on/bare", "on/off",
    "on-off ns"))
for cc, n in sorted({k[:2] for k in m}):
    for what in ("parallel", "chunk"):
        b, o, w = (m[(cc, n, what, v)] for v in ("bare", "off", "on"))
        print("%-6s %-8d %-9s %10.1f %10.1f %10.1f %9.2f %9.2f %9.2f %10.1f" % (
            cc, n, what, b, o, w, o / b, w / b, w / o, w - o))
PY
