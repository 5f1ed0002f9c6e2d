#!/bin/sh
# tools_scale.sh [N...] - the tools' time and peak memory on one result of
# N regions (bench/bigregions.py; default 10000 100000 1000000): report,
# report --view tree, html, diff.  Run from the build tree; the files go
# to a scratch directory (454 MB at 10^6).  docs/benchmarks.md, "The tools
# at 10^5 and 10^6 regions".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
hpcshim=${HPCSHIM:-./hpcshim}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in ${@:-10000 100000 1000000}; do
	python3 "$top/bench/bigregions.py" "$n" "$work/r.json"
	for cmd in "report" "report --view tree" "html -o $work/r.html" "diff --all"; do
		extra=
		[ "$cmd" = "diff --all" ] && extra="$work/r.json"
		# shellcheck disable=SC2086
		/usr/bin/time -f "$n regions: hpcshim ${cmd%% -o*}: %e s, %M KB" \
			$hpcshim $cmd $extra "$work/r.json" >/dev/null 2>"$work/err" || true
		tail -1 "$work/err"
	done
done
