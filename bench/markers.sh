#!/bin/sh
# markers.sh - a LIKWID and a PAPI marker pair under the shim against an
# HPC_BEGIN/HPC_END pair (literal and run-time name), in the same process,
# same events (bench/marker_pair.c; preload/annotations/); then many
# distinct names, each new, LIKWID's and PAPI's against HPC_BEGIN's
# run-time names (tests/shim/marker_names.c).
#
# Usage: make bench-markers   (or: BENCH_BUILDDIR=<build dir> sh bench/markers.sh)
# Environment: BENCH_ROUNDS [7] processes, BENCH_REPS [5] loops per variant
# and process, BENCH_PAIRS [20000] pairs per loop, BENCH_EVENTS
# [task-clock,page-faults,context-switches], BENCH_CPU [last online CPU];
# BENCH_NAMES [100000] names per loop, BENCH_NAME_ROUNDS [3] processes
# (each about 10 s and 0.5 GB: 4e5 regions).
# Prints the medians and, per process, the ratio of each marker pair to the
# literal pair (target: <= 1.2), checks that every pair was counted; then
# the thread CPU time per new name and, per process, its ratio to
# HPC_BEGIN's (target: <= 2.0).  Exits non-zero only when it cannot run; a
# missed target is printed as MISS.
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
ROUNDS=${BENCH_ROUNDS:-7}
REPS=${BENCH_REPS:-5}
PAIRS=${BENCH_PAIRS:-20000}
EVENTS=${BENCH_EVENTS:-task-clock,page-faults,context-switches}
CPU=${BENCH_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
[ -e "$LIB" ] || { echo "markers: $LIB not built" >&2; exit 1; }
[ -e /usr/include/likwid-marker.h ] && [ -e /usr/include/papi.h ] || {
	echo "markers: needs likwid and libpapi-dev (tools/setup.sh tests)" >&2; exit 1; }
PROG=$OUT/marker_pair
${CC:-cc} -std=gnu11 -D_GNU_SOURCE -DLIKWID_PERFMON ${CFLAGS:--O2} -I"$SRCDIR" -o "$PROG" \
	"$SRCDIR/bench/marker_pair.c" "$SRCDIR/bench/annotated.c" "$SRCDIR/bench/bench.c" -llikwid -lpapi
NAMES=${BENCH_NAMES:-100000}
NAME_ROUNDS=${BENCH_NAME_ROUNDS:-3}
NPROG=$OUT/marker_names
${CC:-cc} -std=gnu11 -DLIKWID_PERFMON ${CFLAGS:--O2} -I"$SRCDIR/annotate" -o "$NPROG" \
	"$SRCDIR/tests/shim/marker_names.c" -llikwid -lpapi -lpthread
i=0
while [ $i -lt "$ROUNDS" ]; do
	mkdir "$OUT/r$i"
	HPCSHIM_OUTPUT=$OUT/r$i HPCSHIM_EVENTS=$EVENTS LD_PRELOAD=$LIB \
		"$PROG" -n "$PAIRS" -w $((PAIRS / 10)) -r "$REPS" -c "$CPU" \
		literal likwid runtime papi | sed "s/^/$i /" >>"$OUT/samples"
	i=$((i + 1))
done
${PYTHON3:-python3} - "$OUT" "$PAIRS" "$ROUNDS" "$REPS" "$EVENTS" <<'PY'
import glob, json, statistics, sys
out, pairs, rounds, reps, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
TARGET = 1.2
s = {}
for line in open(out + "/samples"):
    r, v, ns = line.split()
    s.setdefault(v, {}).setdefault(int(r), []).append(float(ns))
med = {v: {r: statistics.median(x) for r, x in rs.items()} for v, rs in s.items()}
want = (pairs // 10) + reps * pairs
bad = []
for r in range(rounds):
    files = glob.glob("%s/r%d/hpcshim-*.json" % (out, r))
    doc = json.load(open(files[0])) if len(files) == 1 else None
    regs = {x["name"]: x["calls"] for x in doc["threads"][0]["regions"]} if doc else {}
    for v in ("literal", "runtime", "likwid", "papi"):
        if regs.get("bench." + v) != want:
            bad.append("round %d: bench.%s %s calls of %d" % (r, v, regs.get("bench." + v), want))
print("hpcshim: a LIKWID / PAPI marker pair under the shim vs HPC_BEGIN/HPC_END")
print("  events %s; %d processes x %d loops of %d pairs" % (events, rounds, reps, pairs))
print("%-14s %10s %10s  %-12s %s" % ("variant", "ns/pair", "min", "ratio", ""))
for v in ("literal", "runtime", "likwid", "papi"):
    m = statistics.median(med[v].values())
    mn = min(x for xs in s[v].values() for x in xs)
    if v == "literal":
        print("%-14s %10.1f %10.1f" % (v, m, mn))
        continue
    ratio = statistics.median(med[v][r] / med["literal"][r] for r in med[v])
    status = "" if v == "runtime" else ("PASS" if ratio <= TARGET else "MISS") + " (<= %.1f)" % TARGET
    print("%-14s %10.1f %10.1f  %-12s %s" % (v, m, mn, "%.3f x lit" % ratio, status))
for b in bad:
    print("INVALID: " + b)
PY
# Many names: the hpc loops on both sides of the marker loops, one event
# (the cost is the names', not the readings').  A process's result file
# (4e5 regions) is removed once written.
: >"$OUT/names"
i=0
while [ $i -lt "$NAME_ROUNDS" ]; do
	mkdir "$OUT/n$i"
	HPCSHIM_OUTPUT=$OUT/n$i HPCSHIM_EVENTS=task-clock LD_PRELOAD=$LIB \
		"$NPROG" "$NAMES" hpc likwid papi hpc | sed "s/^/$i /" >>"$OUT/names" || :
	rm -rf "$OUT/n$i"
	i=$((i + 1))
done
${PYTHON3:-python3} - "$OUT/names" "$NAMES" "$NAME_ROUNDS" <<'PY'
import statistics, sys
path, names, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
TARGET = 2.0
s = {}
for line in open(path):
    r, api, ns = line.split()
    s.setdefault(int(r), {}).setdefault(api, []).append(int(ns))
ok = [r for r in range(rounds) if len(s.get(r, {}).get("hpc", [])) == 2
      and all(len(s[r].get(a, [])) == 1 for a in ("likwid", "papi"))]
print("hpcshim: %d distinct region names per loop, thread CPU time per new name" % names)
print("  event task-clock; %d processes, each: hpc likwid papi hpc" % len(ok))
print("%-14s %12s %12s  %-12s %s" % ("api", "ns/name", "min", "ratio", ""))
for api in ("hpc", "likwid", "papi"):
    per = [statistics.mean(s[r][api]) / names for r in ok]
    if not per:
        break
    line = "%-14s %12.0f %12.0f" % (api, statistics.median(per), min(per))
    if api != "hpc":
        ratio = statistics.median(s[r][api][0] / statistics.mean(s[r]["hpc"]) for r in ok)
        line += "  %-12s %s" % ("%.3f x hpc" % ratio,
                                ("PASS" if ratio <= TARGET else "MISS") + " (<= %.1f)" % TARGET)
    print(line)
for r in range(rounds):
    if r not in ok:
        print("INVALID: names round %d: %s" % (r, s.get(r)))
PY
