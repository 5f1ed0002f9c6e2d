"""hpcshim run --profile and HPCSHIM_PROFILE=1 (docs/environment.md): the
mpi and io wrap sets merged with the user's HPCSHIM_WRAP, task-clock alone
or added, peak memory in the process object."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, Tap, run  # noqa: E402

HPCSHIM = os.path.join(BUILD, "hpcshim")
DD = ["dd", "if=/dev/zero", "of=out.bin", "bs=4096", "count=10", "status=none"]
t = Tap()


def wrapped(doc):
    return {w["name"] for w in doc.get("wrap", [])}


def calls(doc, name):
    return sum(r["calls"] for r in doc["regions"] if r["name"] == name)


r = run([HPCSHIM, "run", "--profile", "-q", "--"] + DD, preload=False)
t.eq(r.rc, 0, "hpcshim run --profile dd exits 0")
d = r.doc
t.eq([e["name"] for e in d["events"]], ["task-clock"], "--profile: task-clock alone")
t.ok({"MPI_Allreduce", "MPI_Barrier", "write", "read", "fwrite"} <= wrapped(d),
     "--profile: the mpi and io sets asked for")
t.eq((calls(d, "write"), calls(d, "read")), (10, 10), "dd's 10 reads and 10 writes are regions")
t.ok(0 < d["process"].get("peak_rss_bytes", 0) < 1 << 32, "process.peak_rss_bytes %r"
     % d["process"].get("peak_rss_bytes"))

r = run(DD, env={"HPCSHIM_PROFILE": "1", "HPCSHIM_WRAP": "cos,write",
                 "HPCSHIM_EVENTS": "page-faults"})
d = r.doc
t.eq([e["name"] for e in d["events"]], ["page-faults", "task-clock"],
     "HPCSHIM_PROFILE=1 with HPCSHIM_EVENTS: task-clock added")
t.ok({"cos", "MPI_Send", "write"} <= wrapped(d) and
     sum(1 for w in d["wrap"] if w["name"] == "write") == 1,
     "HPCSHIM_WRAP merged: cos added, write listed once")
t.eq(calls(d, "write"), 10, "write counted once per call")

r = run(DD, env={"HPCSHIM_PROFILE": "yes"})
t.ok(any("HPCSHIM_PROFILE" in l for l in r.shim_lines()) and "wrap" not in r.doc,
     "HPCSHIM_PROFILE=yes: one line, off", r.err)
t.ok(len(r.doc["events"]) > 1, "off: the default events")
t.done()
