"""hpcshim convert --to otf2, read by the OTF2 tools themselves: otf2-print
(one ENTER and one LEAVE per trace record, a location per thread, a
location group per rank, the region names, our clock) and python3-otf2
(every location's Enter/Leave stack balances, the metric at each Leave is
the record's delta in the JSON); a result without trace records gives an
archive of definitions only and one line."""
import collections
import json
import os
import re
import shutil
import subprocess
import tempfile

from convert_job import convert, make_job
from hpctest import Tap

t = Tap()
p = convert("--help")
line = [l for l in p.stdout.splitlines() if l.strip().startswith("otf2")]
if not line or "[unavailable" in line[0]:
    t.skip("otf2", "this build has no OTF2 library (configure)")
    t.done()
    raise SystemExit(0)
PRINT = shutil.which("otf2-print")
# python3-otf2 is Debian's: its interpreter, whichever runs the tests
SYS_PY = "/usr/bin/python3"
tmp = tempfile.mkdtemp(prefix="hpcshim-otf2-")
job, docs = make_job(tmp, ranks=3)
out = os.path.join(tmp, "archive")
p = convert("--to", "otf2", "-o", out, job)
t.eq(p.returncode, 0, "--to otf2 exits 0")
anchor = os.path.join(out, "traces.otf2")
t.ok(os.path.exists(anchor), "the archive is DIR/traces.otf2")
p = convert("--to", "otf2", "-o", out, job)
t.ok(p.returncode == 2 and "exists" in p.stderr, "an existing -o: exit 2, left alone", p.stderr)

threads = [(d, th) for d in docs for th in d["threads"]]
records = [r for d, th in threads for r in th["trace"]["records"]]
if not PRINT:
    t.skip("otf2-print", "no otf2-print (Debian otf2-tools)")
else:
    ver = subprocess.run([PRINT, "--version"], capture_output=True, encoding="utf-8").stdout.strip()
    t.diag("reader: " + ver)
    q = subprocess.run([PRINT, anchor], capture_output=True, encoding="utf-8", timeout=300)
    ev = [l.split() for l in q.stdout.splitlines() if l.startswith(("ENTER ", "LEAVE ", "METRIC "))]
    enters = collections.Counter(x[1] for x in ev if x[0] == "ENTER")
    leaves = collections.Counter(x[1] for x in ev if x[0] == "LEAVE")
    t.ok(q.returncode == 0 and sum(enters.values()) == len(records) == sum(leaves.values()),
         "otf2-print: one ENTER and one LEAVE per recorded call (%d)" % len(records), q.stderr)
    names = set(re.findall(r'Region: "([^"]*)"', q.stdout))
    t.eq(sorted(names), sorted({r["region"] for r in records}), "otf2-print: the region names")
    g = subprocess.run([PRINT, "-G", anchor], capture_output=True, encoding="utf-8", timeout=300)
    locs = [l for l in g.stdout.splitlines() if l.startswith("LOCATION ")]
    groups = [l for l in g.stdout.splitlines() if l.startswith("LOCATION_GROUP ")]
    t.eq(len(locs), len(threads), "otf2-print -G: one location per thread")
    want_groups = sorted("rank %d (%s:%d)" % (d["process"]["rank"], d["process"]["host"],
                                              d["process"]["pid"]) for d in docs)
    t.eq(sorted(re.search(r'Name: "([^"]*)"', l).group(1) for l in groups), want_groups,
         "otf2-print -G: a location group (PROCESS) per rank, the job's ranks in one archive")
    t.ok(all("Type: PROCESS" in l for l in groups) and all("CPU_THREAD" in l for l in locs),
         "groups are processes, locations CPU threads")
    m = re.search(r"CLOCK_PROPERTIES\s+Ticks per Seconds: (\d+), Global Offset: (\d+)", g.stdout)
    t0 = min([th["start_ns"] for d, th in threads] + [r["begin_ns"] for r in records])
    t.ok(m and int(m.group(1)) == 10**9 and int(m.group(2)) == t0,
         "clock properties: ns ticks, the earliest thread start as global offset", m and m.group(0))

probe = r'''
import json, sys
import otf2
out = {}
with otf2.reader.open(sys.argv[1]) as tr:
    for loc, ev in tr.events:
        o = out.setdefault(loc.name, {"group": loc.group.name, "ok": True, "calls": [], "stack": [],
                                      "enters": []})
        k = type(ev).__name__
        if k == "Enter":
            o["stack"].append(ev.region.name)
            o["enters"].append(ev.time)
        elif k == "Leave":
            if not o["stack"] or o["stack"][-1] != ev.region.name:
                o["ok"] = False
            else:
                o["stack"].pop()
            o["calls"].append([ev.region.name, None, ev.time])
        elif k == "Metric":
            o["calls"][-1][1] = ev.value
print(json.dumps(out))
'''
if not os.path.exists(SYS_PY) or subprocess.run([SYS_PY, "-c", "import otf2"]).returncode:
    t.skip("python3-otf2", "no python3-otf2 (Debian)")
else:
    q = subprocess.run([SYS_PY, "-c", probe, anchor], capture_output=True, encoding="utf-8",
                       timeout=600)
    got = json.loads(q.stdout) if q.returncode == 0 else {}
    t.ok(got and all(o["ok"] and not o["stack"] for o in got.values()),
         "python3-otf2: every location's Enter/Leave stack balances", q.stderr[-2000:])
    okm, okt = True, True
    for d, th in threads:
        o = got.get("tid %d" % th["tid"], {"calls": [], "enters": []})
        want = sorted((r["region"], r["delta"]) for r in th["trace"]["records"])
        okm &= sorted((c[0], c[1]) for c in o["calls"]) == want
        okt &= sorted(o["enters"]) == sorted(r["begin_ns"] for r in th["trace"]["records"])
    t.ok(okm, "python3-otf2: the metric at each Leave equals the record's delta in the JSON")
    t.ok(okt, "python3-otf2: Enter times are the records' begin_ns")

p = convert("--to", "otf2", "-o", os.path.join(tmp, "a3"), os.path.join(tmp, "nope.json"))
t.ok(p.returncode == 2 and not os.path.exists(os.path.join(tmp, "a3")) and
     len(p.stderr.splitlines()) == 2 and "nope.json" in p.stderr,
     "no readable input: exit 2, the input named, no archive left", p.stderr)
p = convert("--to", "otf2", "-o", "/proc/self/nope/archive", job)
t.ok(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and "/proc/self/nope/archive" in p.stderr,
     "an archive that cannot be made: exit 2, one line (the library's own messages kept)", p.stderr)

# a result without trace records: definitions only, one line
job2 = os.path.join(tmp, "notrace")
os.makedirs(job2)
_, docs2 = make_job(job2, ranks=1, trace=None)
out2 = os.path.join(tmp, "archive2")
p = convert("--to", "otf2", "-o", out2, os.path.join(job2, "job"))
lines = [l for l in p.stderr.splitlines() if l.strip()]
t.ok(p.returncode == 0 and len(lines) == 1 and "definitions only" in lines[0],
     "no trace records: exit 0, one line saying the archive has definitions only", p.stderr)
if PRINT:
    q = subprocess.run([PRINT, os.path.join(out2, "traces.otf2")], capture_output=True,
                       encoding="utf-8", timeout=300)
    g = subprocess.run([PRINT, "-G", os.path.join(out2, "traces.otf2")], capture_output=True,
                       encoding="utf-8", timeout=300)
    t.ok(q.returncode == 0 and "ENTER" not in q.stdout and
         len([l for l in g.stdout.splitlines() if l.startswith("LOCATION ")]) == len(docs2[0]["threads"]),
         "otf2-print reads it: no events, a location per thread", q.stderr + g.stderr)
shutil.rmtree(tmp, ignore_errors=True)
t.done()
