#!/usr/bin/env python3
"""bigtrace.py RANKS THREADS RECORDS DIR - a job of RANKS result files in
DIR, each with THREADS threads holding RECORDS trace records (HPCSHIM_TRACE)
apiece: "outer" calls around "inner" calls, nested, with page-faults
deltas.  The template is a real result of the workload (tests/shim/
workload, run under the shim here); only the trace, rank and pid change.
For bench/convert_scale.sh (hpcshim convert at scale)."""
import json
import os
import subprocess
import sys
import tempfile

ranks, nthreads, nrec, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.environ.get("HPCSHIM_BUILDDIR", top)
lib = os.path.join(build, ".libs", "libhpcshim.so")
tmp = tempfile.mkdtemp()
env = dict(os.environ, LD_PRELOAD=lib, HPCSHIM_OUTPUT=tmp, HPCSHIM_TRACE="4",
           HPCSHIM_EVENTS="page-faults,task-clock")
subprocess.run([os.path.join(build, "tests", "shim", "workload"), "nested", "1", "1", "threads",
                str(nthreads - 1), "1"], env=env, check=True, stdout=subprocess.DEVNULL)
f = [x for x in os.listdir(tmp) if x.startswith("hpcshim-")][0]
doc = json.load(open(os.path.join(tmp, f)))
os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
threads = doc["threads"][:nthreads]
t0 = doc["process"]["start_ns"] + 1000
for k, th in enumerate(threads):
    recs = []
    t = t0 + k
    # pairs: inner (depth 1) inside outer (depth 0), oldest first by end
    for i in range(nrec // 2):
        recs.append({"region": "inner", "begin_ns": t + 100, "end_ns": t + 600, "depth": 1,
                     "delta": 3})
        recs.append({"region": "outer", "begin_ns": t, "end_ns": t + 1000, "depth": 0,
                     "delta": 5})
        t += 1500
    th["trace"] = {"capacity": nrec, "calls": len(recs), "dropped": 0, "event": "page-faults",
                   "records": recs}
doc["threads"] = threads
os.makedirs(out, exist_ok=True)
doc["process"]["rank"], doc["process"]["pid"] = 999999991, 999999992
text = json.dumps(doc, separators=(",", ":"))
for r in range(ranks):
    with open(os.path.join(out, "hpcshim-big-%05d.json" % r), "w") as fh:
        fh.write(text.replace("999999991", str(r), 1).replace("999999992", str(100000 + r), 1))
