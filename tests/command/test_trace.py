"""hpcshim trace: HPCSHIM_TRACE's per-thread rings and the Chrome trace
event file built from them: it parses, every thread and rank appears, the
spans nest per thread, timestamps increase, counter values equal the
series."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, WORKLOAD, Tap, run  # noqa: E402

HPCSHIM = os.path.join(BUILD, "hpcshim")
t = Tap()
tmp = tempfile.mkdtemp(prefix="hpcshim-trace-")

# The ring: capacity, calls, the last N kept in order.
r = run([WORKLOAD, "nested", "10", "20", "touch", "5", "touch", "6", "touch", "7"],
        env={"HPCSHIM_TRACE": "3", "HPCSHIM_EVENTS": "page-faults,task-clock"})
tr = r.doc["threads"][0]["trace"]
t.eq((tr["capacity"], tr["calls"], tr["dropped"], tr["event"]), (3, 5, 2, "page-faults"),
     "HPCSHIM_TRACE=3: 5 calls, the last 3 kept")
t.eq([(x["region"], x["delta"]) for x in tr["records"]], [("touch", 5), ("touch", 6), ("touch", 7)],
     "the ring keeps the last calls, oldest first, with the main event's delta (exact faults)")
t.ok(all(x["begin_ns"] <= x["end_ns"] for x in tr["records"]), "begin <= end")
r = run([WORKLOAD, "touch", "5"], env={"HPCSHIM_EVENTS": "page-faults"})
t.ok("trace" not in r.doc["threads"][0], "no HPCSHIM_TRACE: no trace member")
r = run([WORKLOAD, "touch", "5"], env={"HPCSHIM_EVENTS": "page-faults", "HPCSHIM_TRACE": "x"})
t.ok(any("HPCSHIM_TRACE" in l for l in r.shim_lines()) and "trace" not in r.doc["threads"][0],
     "HPCSHIM_TRACE=x: one line, no trace", r.err)

# A job of three ranks: the workload's threads, nested regions, series.
job = os.path.join(tmp, "job")
os.makedirs(job)
for rank in range(3):
    run([WORKLOAD, "nested", "30", "10", "threads", "3", "40", "busy", "20"], outdir=job,
        env={"HPCSHIM_TRACE": "1000", "HPCSHIM_INTERVAL": "1ms", "OMPI_COMM_WORLD_RANK": str(rank),
             "HPCSHIM_EVENTS": "task-clock,page-faults"})
docs = [json.load(open(f)) for f in sorted(glob.glob(job + "/hpcshim-*.json"))]
out = os.path.join(tmp, "trace.json")
p = subprocess.run([HPCSHIM, "trace", "-o", out, job], capture_output=True, encoding="utf-8")
t.eq(p.returncode, 0, "hpcshim trace exits 0")
ev = json.load(open(out))["traceEvents"]
t.ok(len(ev) > 0, "the trace parses, %d events" % len(ev))
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
want = {}
for d in docs:
    rk = d["process"]["rank"] if d["process"]["rank"] is not None else None
    want[rk] = "rank %d (%s:%d)" % (rk, d["process"]["host"], d["process"]["pid"])
t.eq(sorted(procs.values()), sorted(want.values()), "every rank is a process named rank r (host:pid)")
tnames = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
t.eq(len(tnames), sum(len(d["threads"]) for d in docs), "every thread has a named track")
ts = [e["ts"] for e in ev if e["ph"] != "M"]
t.ok(ts == sorted(ts), "timestamps increase")
# nesting per thread: a stack of open spans
ok, nspans = True, 0
for key in tnames:
    spans = [e for e in ev if e["ph"] == "X" and (e["pid"], e["tid"]) == key]
    nspans += len(spans)
    stack = []
    for s in spans:
        end = s["ts"] + s["dur"]
        while stack and stack[-1] <= s["ts"]:
            stack.pop()
        if stack and end > stack[-1] + 1e-3:
            ok = False
        stack.append(end)
t.ok(ok, "spans nest per thread")
want_spans = sum(len(th["trace"]["records"]) for d in docs for th in d["threads"])
t.eq(nspans, want_spans, "one span per trace record")
inner = [e for e in ev if e["ph"] == "X" and e["name"] == "inner"]
t.ok(len(inner) == 3 and all(e["args"]["task-clock"] is not None for e in inner), "inner spans carry the main event's delta")
# counters: per thread, the series values in order
okc = True
ncount = 0
for d in docs:
    rk = d["process"]["rank"]
    for th in d["threads"]:
        s = th.get("series")
        if not s:
            continue
        for evn in ("page-faults", "task-clock"):
            got = [e["args"]["value"] for e in ev if e["ph"] == "C" and e["pid"] == rk + 1
                   and e["name"] == "%s tid %d" % (evn, th["tid"])]
            okc &= got == [v for v in s[evn] if v is not None]
            ncount += 1
t.ok(okc and ncount > 0, "counter tracks per thread equal the series (%d tracks)" % ncount)
p = subprocess.run([HPCSHIM, "trace", os.path.join(tmp, "nope.json")], capture_output=True, encoding="utf-8")
t.ok(p.returncode == 2 and "nope.json" in p.stderr, "missing input: exit 2, named")
shutil.rmtree(tmp, ignore_errors=True)
t.done()
