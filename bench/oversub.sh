#!/bin/sh
# oversub.sh - what the shim costs an oversubscribed, busy-yielding job, and
# why: the kernel's perf context work at every context switch.
#
# Usage: make bench-oversub   (or: BENCH_BUILDDIR=<build dir> sh bench/oversub.sh)
#
# Part 1, the reproducer (bench/oversub.c): four worker processes on one
# CPU pass a token and poll it with sched_yield() (on one CPU every pass is
# one switch, so runs compare; BENCH_OVERSUB_CPUS=0 uses every CPU, with a
# number of switches that varies from run to run).  A round runs it
# without the shim, under the shim with its default events, under the shim
# with task-clock alone, and under `perf stat` (default events, inherited
# by the workers), in an order that rotates from round to round; the ratio
# to the run without the shim is taken inside each round, the median over
# rounds is printed (docs/benchmarks.md).
#
# Part 2, the kernel's cost per switch (bench/switchcost.c): two processes
# on one CPU yield to each other; each opens the events on itself as the
# shim does (pid 0, cpu -1, no inherit), or inherits them as perf stat.
# Printed: CPU ns per switch, and over no events.
#
# Environment (defaults in brackets):
#   BENCH_OVERSUB_ROUNDS [9]      rounds
#   BENCH_OVERSUB_WORKERS [4]
#   BENCH_OVERSUB_CPUS [1]        CPUs the workers share (0: all)
#   BENCH_OVERSUB_PASSES [20000]  token passes per run
#   BENCH_OVERSUB_WORK [2000]     multiply-adds per pass
#   BENCH_OVERSUB_SWITCHES [100000]  switches per switchcost run
#   BENCH_KEEP=1                  keep the raw samples (their path is printed)
# Exits non-zero only when the benchmark could not run.
set -eu

SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
OVERSUB=$BUILDDIR/bench/oversub
SWITCHCOST=$BUILDDIR/bench/switchcost
PERF=${PERF:-perf}
PYTHON=${PYTHON3:-python3}
ROUNDS=${BENCH_OVERSUB_ROUNDS:-9}
WORKERS=${BENCH_OVERSUB_WORKERS:-4}
CPUS=${BENCH_OVERSUB_CPUS:-1}
PASSES=${BENCH_OVERSUB_PASSES:-20000}
WORK=${BENCH_OVERSUB_WORK:-2000}
SWITCHES=${BENCH_OVERSUB_SWITCHES:-100000}

for f in "$LIB" "$OVERSUB" "$SWITCHCOST"; do
	[ -e "$f" ] || { echo "bench: $f not built (run: make bench-oversub)" >&2; exit 1; }
done
HAVE_PERF=1
"$PERF" stat -o /dev/null true 2>/dev/null || HAVE_PERF=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hpcshim-benchoversub.XXXXXX")
if [ "${BENCH_KEEP:-0}" = 1 ]; then
	trap 'echo "bench: raw samples kept in $TMP"' EXIT
else
	trap 'rm -rf "$TMP"' EXIT
fi
REPRO=$TMP/repro.tsv   # round variant seconds switches yields
COST=$TMP/cost.tsv     # round variant ns/switch switches cpu-ns/switch
: >"$REPRO"
: >"$COST"

repro() { # round variant
	set -- "$1" "$2" "$OVERSUB" -c "$CPUS" -p "$WORKERS" -n "$PASSES" -u "$WORK" "$2"
	r=$1 v=$2
	shift 2
	case $v in
	none) env -u LD_PRELOAD "$@" ;;
	shim) HPCSHIM_OUTPUT=$TMP LD_PRELOAD=$LIB "$@" ;;
	shim-1) HPCSHIM_OUTPUT=$TMP HPCSHIM_EVENTS=task-clock LD_PRELOAD=$LIB "$@" ;;
	perf) "$PERF" stat -o /dev/null -- "$@" ;;
	esac | sed "s/^/$r	/" >>"$REPRO"
	rm -f "$TMP"/hpcshim-*.json
}

cost() { # round variant [switchcost options]
	r=$1 v=$2
	shift 2
	case $v in
	shim) HPCSHIM_OUTPUT=$TMP LD_PRELOAD=$LIB "$SWITCHCOST" -n "$SWITCHES" "$v" ;;
	*) env -u LD_PRELOAD "$SWITCHCOST" -n "$SWITCHES" "$@" "$v" ;;
	esac | sed "s/^/$r	/" >>"$COST"
	rm -f "$TMP"/hpcshim-*.json
}

VARIANTS="none shim shim-1"
[ "$HAVE_PERF" = 1 ] && VARIANTS="$VARIANTS perf"
[ "$CPUS" -gt 0 ] || CPUS=$(getconf _NPROCESSORS_ONLN)
echo "bench: $ROUNDS rounds; reproducer: $WORKERS workers on $CPUS CPUs, $PASSES passes of $WORK multiply-adds"
[ "$HAVE_PERF" = 1 ] || echo "bench: perf not found: no perf stat row"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	printf 'bench: round %s/%s\n' "$r" "$ROUNDS" >&2
	# rotate the order of the variants from round to round
	set -- $VARIANTS
	i=0
	while [ "$i" -lt $((r % $#)) ]; do
		first=$1
		shift
		set -- "$@" "$first"
		i=$((i + 1))
	done
	for v in "$@"; do
		repro "$r" "$v"
	done
	cost "$r" none
	cost "$r" 1-event -e page-faults
	cost "$r" 3-in-1-group -e page-faults,context-switches,cpu-migrations -g
	cost "$r" 3-groups -e page-faults,context-switches,cpu-migrations
	cost "$r" 5-in-1-group -e page-faults,context-switches,cpu-migrations,minor-faults,major-faults -g
	cost "$r" shim-layout -e page-faults,context-switches,cpu-migrations/task-clock
	cost "$r" shim
	cost "$r" inherited-1 -e task-clock -i
	cost "$r" inherited-4 -e task-clock,page-faults,context-switches,cpu-migrations -i
	r=$((r + 1))
done

"$PYTHON" - "$REPRO" "$COST" <<'EOF'
import collections, statistics as st, sys

def rows(path):
    by = collections.defaultdict(dict)
    for line in open(path):
        f = line.split()
        if len(f) >= 4:
            by[int(f[0])][f[1]] = [float(x) for x in f[2:]]
    return by

repro, cost = rows(sys.argv[1]), rows(sys.argv[2])
names = {"none": "none", "shim": "shim, default events",
         "shim-1": "shim, task-clock only", "perf": "perf stat (inherit)"}
print("\nReproducer (bench/oversub): median over rounds")
print("| variant | seconds | switches | ns/switch | ratio to none |")
print("| --- | --- | --- | --- | --- |")
for v in ("none", "shim", "shim-1", "perf"):
    got = [r[v] for r in repro.values() if v in r]
    if not got:
        continue
    sec = st.median(g[0] for g in got)
    sw = st.median(g[1] for g in got)
    ratio = st.median(r[v][0] / r["none"][0] for r in repro.values()
                      if v in r and "none" in r)
    print("| %s | %.4f | %.0f | %.0f | %.3f |" % (names[v], sec, sw,
                                                sec / sw * 1e9, ratio))
print("\nKernel cost per context switch (bench/switchcost, CPU time): median over rounds")
print("| events per process | ns/switch | over none |")
print("| --- | --- | --- |")
base = st.median(r["none"][2] for r in cost.values() if "none" in r)
order = []
for r in cost.values():
    order += [v for v in r if v not in order]
for v in order:
    ns = st.median(r[v][2] for r in cost.values() if v in r)
    print("| %s | %.0f | %+.0f |" % (v, ns, ns - base))
EOF
