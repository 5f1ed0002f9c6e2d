#!/bin/sh
# bench/jobsum.sh - the in-job reduction's summaries with P simulated ranks
# in one process (bench/jobsum_sim.c, docs/mpi-scale.md "Measured"):
# rounds, the largest message, rank 0's peak (packed and heap), the
# process's peak RSS and CPU time, for P = 10^2 .. 10^5.
#
# Usage: bench/jobsum.sh [BUILDDIR] [REGIONS [EVENTS]]   (default . 10 4)
set -eu
B=$(cd "${1:-.}" && pwd)
R=${2:-10}
E=${3:-4}
L=$(mktemp /tmp/hpcshim-bench-jobsum.XXXXXX)
trap 'rm -f "$L"' EXIT
make -C "$B" bench/jobsum_sim >"$L"
echo "| P | rounds | largest message | rank 0 peak (packed) | rank 0 peak (heap) | root merge per round | process peak RSS | CPU |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for p in 100 1000 10000 100000; do
	"$B/bench/jobsum_sim" "$p" "$R" "$E" | awk -v p="$p" '
		/^P=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		/^round/ { ms += $NF; n++ }
		/^summary/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { printf "| %d | %d | %.1f KB | %.1f KB | %.1f KB | %.2f ms | %.1f MB | %.2f s |\n",
			p, v["rounds"], v["max_message_bytes"] / 1024, v["root_peak_packed_bytes"] / 1024,
			v["root_peak_heap_bytes"] / 1024, ms / n, v["peak_rss_kb"] / 1024, v["cpu_s"] }'
done
