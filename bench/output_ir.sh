#!/bin/sh
# output_ir.sh - the instructions the end's writer itself executes for the
# process of bench/output.sh (64 threads x 1000 regions, every record
# written): callgrind's count inside agg_result__create (the view pass and
# the formatting on the calling thread; not the kernel's write(2)s), the
# periodic flush off.  Deterministic where the timings of output.sh are
# not (docs/benchmarks.md).  Needs valgrind; HPCSHIM_LIB picks the shim.
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
T=${BENCH_OUTPUT_THREADS:-64}
R=${BENCH_OUTPUT_REGIONS:-1000}
if ! command -v valgrind >/dev/null; then
	echo "output_ir.sh: valgrind not found" >&2
	exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hpcshim-output-ir.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
LD_PRELOAD=$LIB HPCSHIM_FLUSH=off HPCSHIM_OUTPUT=$TMP HPCSHIM_MAX_REGIONS=all \
	HPCSHIM_MAX_THREADS=all valgrind --tool=callgrind \
	--callgrind-out-file="$TMP/cg.out" --toggle-collect=agg_result__create \
	"$BUILDDIR/bench/output" "$T" "$R" >/dev/null 2>"$TMP/log"
ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/log")
size=$(ls -l "$TMP"/hpcshim-*.json | awk '{print $5; exit}')
echo "the end's writer, $T threads x $R regions: $ir instructions (agg_result__create), file $size bytes"
