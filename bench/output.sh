#!/bin/sh
# output.sh - the exit path of a process of 64 threads x 1000 regions, all
# alive at the end: with the shim (HPCSHIM_MAX_REGIONS=all, every record
# written) minus without, median of BENCH_ROUNDS [9] rounds, in wall time and
# in CPU time (user + system, from wait4) (docs/benchmarks.md).
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
PROG=$BUILDDIR/bench/output
T=${BENCH_OUTPUT_THREADS:-64}
R=${BENCH_OUTPUT_REGIONS:-1000}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hpcshim-output.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for r in $(seq "${BENCH_ROUNDS:-9}"); do
	python3 - "$PROG" "$T" "$R" "$LIB" "$TMP" <<'PY'
import os, subprocess, sys, time
prog, t, r, lib, tmp = sys.argv[1:]
def run(env):
    p = subprocess.Popen([prog, t, r], stdout=subprocess.PIPE, env=env)
    out = p.stdout.read()
    _, _, ru = os.wait4(p.pid, 0)
    end = time.monotonic_ns()
    at, cpu = (int(x) for x in out.split())
    return "%d %d" % (end - at, (ru.ru_utime + ru.ru_stime) * 1e9 - cpu)
base = dict(os.environ)
shim = dict(base, LD_PRELOAD=lib, HPCSHIM_OUTPUT=tmp, HPCSHIM_MAX_REGIONS="all",
            HPCSHIM_MAX_THREADS="all")
print("bare", run(base)); print("shim", run(shim))
PY
done | python3 -c '
import sys, statistics as st
d, c = {}, {}
for l in sys.stdin:
    k, ns, cpu = l.split()
    d.setdefault(k, []).append(int(ns)); c.setdefault(k, []).append(float(cpu))
b, s = st.median(d["bare"]), st.median(d["shim"])
cb, cs = st.median(c["bare"]), st.median(c["shim"])
print("exit path, %s threads x %s regions: bare %.1f ms, shim %.1f ms: +%.1f ms (target <= 50)"
      % (sys.argv[1], sys.argv[2], b / 1e6, s / 1e6, (s - b) / 1e6))
print("exit path CPU time: bare %.1f ms, shim %.1f ms: +%.1f ms" % (cb / 1e6, cs / 1e6, (cs - cb) / 1e6))
' "$T" "$R"
ls -l "$TMP"/hpcshim-*.json | head -1 | awk '{print "result file: " $5 " bytes"}'
