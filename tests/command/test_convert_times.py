"""hpcshim convert and trace on trace records whose times no run writes (a
damaged or edited file): an end before its begin, negative times, a begin
before every process started.  Every format writes them from time 0 on
with a duration of 0 or more (tools/convert.c, convert__span_times: one
clamp for chrome, speedscope and OTF2), never a negative ts or dur."""
import json
import os
import re
import shutil
import subprocess
import tempfile

from convert_job import HPCSHIM, convert, make_job
from hpctest import Tap

t = Tap()
tmp = tempfile.mkdtemp(prefix="hpcshim-times-")
job, docs = make_job(tmp, ranks=1, steps=["nested", "3", "1"])
doc = docs[0]
t0 = doc["process"]["start_ns"]
th = doc["threads"][0]
recs = th["trace"]["records"]
# three crafted records, each alone at depth 0 after the real ones
last = max(r["end_ns"] for r in recs)
CRAFTED = {
    "endfirst": (last + 5000, last + 2000),  # ends 3 us before it begins
    "negative": (-9000, -1000),              # both times before 0
    "straddle": (-9000, t0 + 2000),          # begins before 0, ends 2 us in
}
for name, (b, e) in CRAFTED.items():
    recs.append({"region": name, "begin_ns": b, "end_ns": e, "depth": 0, "delta": 1})
th["trace"]["calls"] = len(recs)
src = os.path.join(tmp, "crafted.json")
with open(src, "w") as f:
    json.dump(doc, f)

# chrome (hpcshim trace's file): microseconds from the earliest start
p = convert("--to", "chrome", src)
t.eq(p.returncode, 0, "--to chrome of the crafted file exits 0")
spans = [e for e in json.loads(p.stdout)["traceEvents"] if e["ph"] == "X"] if p.returncode == 0 else []
bad = [e for e in spans if e["ts"] < 0 or e["dur"] < 0]
t.ok(spans and not bad, "chrome: no span with a negative ts or dur (%d spans)" % len(spans), bad)
got = {e["name"]: (e["ts"], e["dur"]) for e in spans if e["name"] in CRAFTED}


def near(got, want, ulp):
    """The tools read times as doubles: ulp apart at today's epoch times
    (256 ns)."""
    return got is not None and all(abs(g - w) <= ulp for g, w in zip(got, want))


for name, want, what in (("endfirst", ((last + 5000 - t0) / 1e3, 0), "an end before its begin: "
                          "at its begin, duration 0"),
                         ("negative", (0, 0), "negative times: at time 0, duration 0"),
                         ("straddle", (0, 2.0), "a negative begin: from time 0 to its end")):
    t.ok(near(got.get(name), want, 0.256) and got[name][1] >= 0,
         "chrome: %s (got %r, want %r)" % (what, got.get(name), want))
q = subprocess.run([HPCSHIM, "trace", src], capture_output=True, encoding="utf-8")
t.ok(q.returncode == 0 and q.stdout == p.stdout, "hpcshim trace writes the same", q.stderr)

# speedscope: evented, nanoseconds from the earliest start
p = convert("--to", "speedscope", src)
prof = json.loads(p.stdout)["profiles"][0] if p.returncode == 0 else {}
frames = [f["name"] for f in json.loads(p.stdout)["shared"]["frames"]] if p.returncode == 0 else []
ats = [e["at"] for e in prof.get("events", [])]
t.ok(prof.get("type") == "evented" and ats and min(ats) >= 0 and prof["startValue"] >= 0,
     "speedscope: no event before time 0 (%d events)" % len(ats), p.stderr)
at = {}
for e in prof.get("events", []):
    at.setdefault(frames[e["frame"]], []).append((e["type"], e["at"]))
e = at.get("endfirst", [])
t.ok([k for k, _ in e] == ["O", "C"] and e[0][1] == e[1][1] and
     near([e[0][1]], [last + 5000 - t0], 256),
     "speedscope: an end before its begin opens and closes at its begin (%r)" % e)
t.eq(at.get("negative"), [("O", 0), ("C", 0)], "speedscope: negative times: at 0")

# OTF2: ns since the epoch, unsigned; read back by otf2-print
line = [l for l in convert("--help").stdout.splitlines() if l.strip().startswith("otf2")]
PRINT = shutil.which("otf2-print")
if not line or "[unavailable" in line[0] or not PRINT:
    t.skip("otf2", "no OTF2 in this build, or no otf2-print")
else:
    out = os.path.join(tmp, "archive")
    p = convert("--to", "otf2", "-o", out, src)
    q = subprocess.run([PRINT, os.path.join(out, "traces.otf2")], capture_output=True,
                       encoding="utf-8")
    ev = re.findall(r'^(ENTER|LEAVE)\s+\d+\s+(\d+)\s+Region: "(\w+)"', q.stdout, re.M)
    times = {}
    for kind, when, name in ev:
        times.setdefault(name, []).append((kind, int(when)))
    t.ok(p.returncode == 0 and q.returncode == 0 and
         times.get("endfirst") == [("ENTER", last + 5000), ("LEAVE", last + 5000)] and
         times.get("negative") == [("ENTER", 0), ("LEAVE", 0)],
         "otf2: an end before its begin at its begin; negative times at 0", (p.stderr, q.stderr,
                                                                            times.get("endfirst"),
                                                                            times.get("negative")))
shutil.rmtree(tmp, ignore_errors=True)
t.done()
