#!/bin/sh
# flush.sh - the cost of the periodic flush (HPCSHIM_FLUSH), as a ratio to
# the same program with the flush off, in the same run (docs/benchmarks.md).
#   BENCH_ROUNDS (9), FLUSH_THREADS (2), FLUSH_REGIONS (200), FLUSH_PAIRS
#   (2000000 per thread), FLUSH_PERIODS ("1s 100ms 10ms").
# Each round runs the flush off and every period, in a rotating order; the
# ratio is taken inside the round, the median over the rounds is printed.
set -eu
b=${BENCH_BUILDDIR:-$(pwd)}
lib=$b/.libs/libhpcshim.so
prog=$b/bench/flushwork
rounds=${BENCH_ROUNDS:-9}
nth=${FLUSH_THREADS:-2}
nreg=${FLUSH_REGIONS:-200}
pairs=${FLUSH_PAIRS:-2000000}
periods=${FLUSH_PERIODS:-1s 100ms 10ms}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
one() { # period -> ns
	rm -f "$out"/hpcshim-*.json
	HPCSHIM_OUTPUT=$out HPCSHIM_FLUSH=$1 LD_PRELOAD=$lib "$prog" "$nth" "$nreg" "$pairs"
}
: >"$out/samples"
r=0
while [ "$r" -lt "$rounds" ]; do
	off=$(one off)
	for p in $periods; do
		echo "$p $(one "$p") $off" >>"$out/samples"
	done
	r=$((r + 1))
done
echo "flush cost: $nth threads x $nreg regions, $pairs pairs per thread, $rounds rounds"
for p in $periods; do
	awk -v p="$p" '$1 == p { print $2 / $3 }' "$out/samples" | sort -g |
		awk -v p="$p" '{ v[NR] = $1 } END { printf "  HPCSHIM_FLUSH=%-6s ratio to off: median %.4f  min %.4f  max %.4f\n", p, v[int((NR + 1) / 2)], v[1], v[NR] }'
done
