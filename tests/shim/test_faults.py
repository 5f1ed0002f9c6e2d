"""perf_event_open failing for real (a seccomp filter makes the kernel
return the errno): each failure is recorded with a human reason, and the
program runs on unchanged.  Threads created after the filter cannot count;
an image exec'd under it counts nothing but still writes why."""
import errno
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, workload, main_thread, region

t = Tap()
STEPS = ("touch", 5, "seccomp", None, "threads", 2, 10, "exec", "touch", 7)
REASON = {  # a word each reason must contain (pmu/error.c)
    "EACCES": "paranoid", "ENOENT": "not supported", "EMFILE": "descriptors",
    "ENOSPC": "slot", "EINVAL": "invalid", "EBUSY": "exclusive",
}

for name, word in REASON.items():
    steps = [str(errno.__dict__[name]) if s is None else s for s in STEPS]
    r = workload(*steps)
    bare = workload(*steps, preload=False)
    t.eq((r.rc, r.out), (bare.rc, bare.out), "%s: program unchanged" % name)
    first = [d for d in r.docs if d["process"]["exec_generation"] == 0]
    second = [d for d in r.docs if d["process"]["exec_generation"] == 1]
    if not t.ok(len(first) == 1 and len(second) == 1, "%s: both images wrote results" % name):
        continue
    d = first[0]
    t.eq(region(main_thread(d), "touch")["inclusive"]["page-faults"], 5,
         "%s: the thread that opened before the filter still counts" % name)
    workers = [th for th in d["threads"] if th["tid"] != d["process"]["pid"]]
    t.eq([th.get("errno") for th in workers], [name, name], "%s: both new threads record the errno" % name)
    t.ok(all(word in th.get("error", "") for th in workers),
         "%s: ... and a human reason (%r)" % (name, workers[0].get("error") if workers else None))
    t.ok(all(v is None for th in workers for v in th["totals"].values()),
         "%s: their counts are null" % name)
    d = second[0]
    t.ok(all(e["status"] == "dropped" and e["error"] == name for e in d["events"]),
         "%s: exec'd image: every event dropped with %s" % (name, name))
    t.eq(region(main_thread(d), "touch")["calls"], 1, "%s: exec'd image still records its region calls" % name)
    # Threads dropped are never silent (issue 13): the first drop, the count
    # at the first image's exit, and the exec'd image that cannot count.
    lines = r.shim_lines()
    t.ok(len(lines) == 3 and "not counted" in lines[0] and
         "2 of 3 threads not counted" in lines[1] and "no event could be opened" in lines[2],
         "%s: three hpcshim lines: the first dropped thread, 2 of 3 threads at exit, the image "
         "that cannot count" % name, "\n".join(lines))
t.done()
