"""Descriptors: ours live above the program's range (select() on its
numbers works with 300 live threads; it opens as many files as without us,
and sees the limits it set); the program may close ours (close_range, dup2
onto them, closefrom) and its data stays intact; ended threads leave no
descriptor behind; with no room the program keeps its descriptors and the
threads not counted are said on stderr and at the top of the JSON."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, Tap, run, workload, main_thread, region

FDLOAD = os.path.join(BUILD, "tests", "shim", "fdload")
NO_ROOM = "no descriptor room"

t = Tap()


def fdload(*steps, **kw):
    return run([FDLOAD] + [str(s) for s in steps], **kw)


def has_cap_sys_resource():
    with open("/proc/self/status") as f:
        eff = next(l for l in f if l.startswith("CapEff:")).split()[1]
    return bool(int(eff, 16) & (1 << 24))


def counted(th):
    return "error" not in th and th["totals"]["task-clock"]


# A close loop over the low numbers no longer reaches ours.
r = workload("closeall")
bare = workload("closeall", preload=False)
t.eq((r.rc, r.out), (bare.rc, bare.out), "closeall: stdout and status unchanged")
t.ok("closeall: pipe ok" in r.out, "closeall: the program's pipe data intact")
m = main_thread(r.doc)
t.ok("error" not in m and region(m, "touch")["inclusive"]["page-faults"] is not None,
     "closeall 3..1023: our descriptors are not among them, the thread is counted")

for how in ("closerange", "dup2over"):
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

# RLIMIT_NOFILE = 32 (soft = hard): room above only with CAP_SYS_RESOURCE.
bare = workload("threads", 12, 10, "openfiles", 20, preload=False, nofile=32)
r = workload("threads", 12, 10, "openfiles", 20, nofile=32)
t.eq((r.rc, r.out), (bare.rc, bare.out), "nofile 32: stdout and status unchanged")
t.ok("opened 20 of 20" in r.out, "nofile 32: the program opened all 20 files it wanted")
if has_cap_sys_resource():
    t.eq(sum(1 for th in r.doc["threads"] if counted(th)), 13,
         "nofile 32, CAP_SYS_RESOURCE: the hard limit raised, every thread counted")
    t.eq(r.doc["warnings"], [], "nofile 32, CAP_SYS_RESOURCE: no warning")
else:
    w = r.doc["warnings"]
    t.eq([(x["what"], x["threads"], x["of"], NO_ROOM in x["reason"]) for x in w],
         [("threads not counted", 13, 13, True)],
         "nofile 32, no room: the top-level warning says 13 of 13 threads")
    t.ok(all(v is None for th in r.doc["threads"] for v in th["totals"].values()),
         "nofile 32, no room: nothing reported as counted")
    lines = r.shim_lines()
    t.eq(sum(1 for l in lines if NO_ROOM in l), 2,
         "nofile 32, no room: said once at start and once at exit: %r" % lines)

# (a) 300 live threads, then the program's pipe() goes into an fd_set
# (fortified: glibc aborts on a number >= FD_SETSIZE; 134 before).
steps = ("live", 300, "select", "release")
bare, r = fdload(*steps, preload=False), fdload(*steps)
t.eq((r.rc, r.out), (bare.rc, bare.out), "300 live threads, select(): stdout and status unchanged")
t.ok("pipe below FD_SETSIZE 1" in r.out and "select 1 ready 1" in r.out,
     "300 live threads: the program's pipe is below FD_SETSIZE and select() works")
t.eq(sum(1 for th in r.doc["threads"] if counted(th)), 301,
     "300 live threads: every thread counted")

# (b) The program sets its soft limit to 1024 itself; with 100 and then 2000
# live threads it opens exactly as many files as without us, and reads back
# the limits it set.
steps = ("nofile", 1024, "live", 100, "openall", "live", 1900, "openall", "limits",
         "release")
bare = fdload(*steps, preload=False)
r = fdload(*steps, env={"HPCSHIM_MAX_THREADS": "all"})
t.eq((r.rc, r.out), (bare.rc, bare.out),
     "soft limit 1024, 100 and 2000 live threads: stdout (files opened, limits) unchanged")
opened = [l for l in r.out.splitlines() if l.startswith("opened")]
t.ok(len(opened) == 2 and all(l.endswith("until EMFILE") for l in opened),
     "soft limit 1024: both runs opened until EMFILE: %r" % opened)
hard = next(l for l in r.out.splitlines() if l.startswith("nofile")).split()[2]
t.eq(next(l for l in r.out.splitlines() if l.startswith("limits")),
     "limits " + ", ".join(["1024 " + hard] * 5),
     "getrlimit, getrlimit64, prlimit(0), prlimit(pid), prlimit64 say what it set")
t.eq(sum(1 for th in r.doc["threads"] if counted(th)), 2001,
     "soft limit 1024: all 2001 threads counted")
t.eq(r.doc["warnings"], [], "soft limit 1024: no warning")

# (c) No room: the program drops CAP_SYS_RESOURCE and sets hard = soft.
steps = ("live", 3, "lockdown", 1024, "live", 20, "openall", "release", "limits")
bare, r = fdload(*steps, preload=False), fdload(*steps)
t.eq((r.rc, r.out), (bare.rc, bare.out), "no room: stdout and status unchanged")
lines = r.shim_lines()
t.eq(len([l for l in lines if NO_ROOM in l and "not counted" in l]), 2,
     "no room: one line at the first thread, one summary at exit: %r" % lines)
t.ok(any(l.startswith("hpcshim: 20 of 24 threads not counted: " + NO_ROOM) for l in lines),
     "no room: the summary counts 20 of 24 threads")
t.ok(any("RLIMIT_NOFILE soft 1024, hard 1024" in l for l in lines),
     "no room: the first line names the limit")
w = r.doc["warnings"]
t.eq([(x["what"], x["threads"], x["of"], NO_ROOM in x["reason"]) for x in w],
     [("threads not counted", 20, 24, True)], "no room: the top-level warning")
t.eq(sum(1 for th in r.doc["threads"] if counted(th)), 4,
     "no room: the threads started before are still counted")
t.eq(sum(1 for th in r.doc["threads"] if NO_ROOM in th.get("error", "")), 20,
     "no room: the 20 later threads say why they are not counted")

# (d) closefrom(3) with live threads: the program's new pipe is its own.
steps = ("live", 10, "closefrom")
bare, r = fdload(*steps, preload=False), fdload(*steps)
t.eq((r.rc, r.out), (bare.rc, bare.out), "closefrom: stdout and status unchanged")
t.ok('closefrom: read 23 "the program\'s own data"' in r.out,
     "closefrom: the pipe opened after it reads back intact")
m = main_thread(r.doc)
t.ok("closed the counter descriptors" in m.get("error", ""),
     "closefrom: the main thread says why it is not counted")
t.eq(sum(1 for th in r.doc["threads"] if "closed the counter" in th.get("error", "")), 11,
     "closefrom: the 10 live threads and main lose their counters")
t.eq(sum(1 for th in r.doc["threads"] if counted(th)), 1,
     "closefrom: the thread started after it is counted")
t.done()
