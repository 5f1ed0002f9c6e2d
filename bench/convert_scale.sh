#!/bin/sh
# convert_scale.sh [RANKS...] - hpcshim convert's time and peak memory on a
# job of RANKS ranks x 8 threads x 10^5 trace records per thread
# (bench/bigtrace.py; default 8 64: 79 MB a rank, 5.1 GB at 64).  Run from
# the build tree; the files go to a scratch directory (TMPDIR).
# FORMATS (default "otf2 pprof"): the formats to time.  docs/formats.md,
# "Large jobs".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
hpcshim=${HPCSHIM:-./hpcshim}
threads=${THREADS:-8}
records=${RECORDS:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in ${@:-8 64}; do
	rm -rf "$work/job"
	python3 "$top/bench/bigtrace.py" "$n" "$threads" "$records" "$work/job"
	in=$(du -sm "$work/job" | cut -f1)
	for fmt in ${FORMATS:-otf2 pprof}; do
		rm -rf "$work/out"
		/usr/bin/time -f "$n ranks x $threads threads x $records records ($in MB): convert --to $fmt: %e s, %M KB peak" \
			$hpcshim convert --to "$fmt" -o "$work/out" "$work/job" 2>"$work/err" >/dev/null || true
		grep -v '^hpcshim convert: no regions' "$work/err" | tail -1
		[ -e "$work/out" ] && echo "  output $(du -sm "$work/out" | cut -f1) MB"
	done
done
