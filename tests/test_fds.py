"""Descriptors: the program may close ours (close loop, close_range, dup2
onto them) and its data stays intact; ended threads leave no descriptor
behind; under a tiny RLIMIT_NOFILE the shim leaves the program its
descriptors and says which threads it could not count."""
from hpctest import Tap, workload, main_thread, region

t = Tap()

for how in ("closeall", "closerange", "dup2over"):
    r = workload(how)
    bare = workload(how, preload=False)
    t.eq((r.rc, r.out), (bare.rc, bare.out), "%s: stdout and status unchanged" % how)
    t.ok("%s: pipe ok" % how in r.out, "%s: the program's pipe data intact across region reads" % how)
    m = main_thread(r.doc)
    t.ok("closed the counter descriptors" in m.get("error", ""), "%s: thread says why it is not counted" % how)
    t.ok(all(v is None for v in m["totals"].values()), "%s: its counts are null, not 0" % how)
    t.ok(all(v is None for v in region(m, "touch")["inclusive"].values()),
         "%s: its region counts are null" % how)

# Every thread listed: 1001 threads are above HPCSHIM_MAX_THREADS' default.
r = workload("fdcount", "churn", 1000, "fdcount", env={"HPCSHIM_MAX_THREADS": "all"})
counts = [l for l in r.out.splitlines() if l.startswith("perf fds")]
t.eq(r.rc, 0, "1000 threads: exit code")
t.eq(counts[0], counts[1], "1000 threads: no counter descriptor left behind (%s)" % counts[0])
w = [region(th, "w")["inclusive"]["page-faults"] for th in r.doc["threads"] if region(th, "w")]
t.eq(len(w), 1000, "1000 threads: every thread has its entry")
t.eq(set(w), {1}, "1000 threads: every thread's one page counted exactly")
for ev, total in r.doc["totals"].items():
    t.eq(sum(th["totals"][ev] for th in r.doc["threads"]), total,
         "1000 threads: thread entries add up to the process total of %s" % ev)

# Memory per ended thread stays small and bounded: only its result record
# is kept (needed for the output), not its frames or counters.
r = workload("churn", 500, "rss", "churn", 2000, "rss")
rss = [int(l.split()[1]) for l in r.out.splitlines() if l.startswith("rss")]
per_thread = (rss[1] - rss[0]) * 1024.0 / 2000
t.ok(per_thread < 2048, "2000 more ended threads cost %.0f bytes each (< 2 KiB)" % per_thread)

# Detached threads are covered like joined ones.
r = workload("detached", 6, 50)
w = [region(th, "work")["inclusive"]["page-faults"] for th in r.doc["threads"] if region(th, "work")]
t.eq(w, [50] * 6, "6 detached threads: each region exact")

# RLIMIT_NOFILE = 32: the program still gets its descriptors.
bare = workload("threads", 12, 10, "openfiles", 20, preload=False, nofile=32)
r = workload("threads", 12, 10, "openfiles", 20, nofile=32)
t.eq((r.rc, r.out), (bare.rc, bare.out), "nofile 32: stdout and status unchanged")
t.ok("opened 20 of 20" in r.out, "nofile 32: the program opened all 20 files it wanted")
refused = [th for th in r.doc["threads"] if "reserve" in th.get("error", "")]
counted = [th for th in r.doc["threads"] if "error" not in th]
t.eq(len(refused) + len(counted), 13, "nofile 32: every thread either counted or marked")
t.ok(len(counted) >= 1, "nofile 32: some threads counted (%d)" % len(counted))
# A thread may get some groups and not others: what it lacks is null.
t.ok(all(any(v is None for v in region(th, "work")["inclusive"].values())
         for th in refused if region(th, "work")),
     "nofile 32: threads short of descriptors report what they lack as null")
exact = sorted(region(th, "work")["inclusive"]["page-faults"] for th in counted if region(th, "work"))
t.ok(all(v % 10 == 0 and v > 0 for v in exact), "nofile 32: counted threads exact: %r" % exact)
t.done()
