#!/bin/sh
# run-sample.sh - the main job: set up, build, run the annotated samples under
# LD_PRELOAD=libhpcshim.so and print a per-region / per-thread summary.
# The JSON results stay in ./sample-results/.
set -e
cd "$(dirname "$0")"
sh tools/setup.sh
out="$(pwd)/sample-results"
mkdir -p "$out"
lib="$(pwd)/.libs/libhpcshim.so"
for prog in "samples/matmul" "samples/pthreads_work 4"; do
	echo
	echo "== LD_PRELOAD=$lib $prog"
	before=$(ls "$out" 2>/dev/null)
	# shellcheck disable=SC2086
	HPCSHIM_OUTPUT="$out" LD_PRELOAD="$lib" ./$prog
	for f in "$out"/hpcshim-*.json; do
		echo "$before" | grep -qx "$(basename "$f")" || ./hpcshim-report "$f"
	done
done
echo
echo "JSON results: $out"
