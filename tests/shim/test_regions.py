"""Regions against known truths: task-clock of a busy loop, exact page
faults of first-touched pages, context switches of sleeps, nesting,
recursion, mismatches, and threads ending by pthread_exit or cancellation."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, workload, region, main_thread

t = Tap()


def exact_faults(steps, want):
    """Runs workload steps and returns (run, {region: (inclusive,
    exclusive) page faults}, what earlier attempts saw).  Memory compaction
    (kcompactd, under load) migrates pages, and a page already touched, a
    code or stack page, faults again at its next use: now and then a region
    counts one or two faults more than its touches, which the kernel itself
    counted (WORKLOAD_FAULTS: getrusage just inside the regions, and the
    shim's window is a little wider).  Such a run (1 in about 200 with
    compaction forced) is tried again, up to 3 runs; any other difference
    fails at once, and a shim that miscounts fails all three."""
    tries = []
    for _ in range(3):
        r = workload(*steps, env={"WORKLOAD_FAULTS": "1"})
        m = main_thread(r.doc)
        got = {n: (region(m, n)["inclusive"]["page-faults"],
                   region(m, n)["exclusive"]["page-faults"]) for n in want}
        if got == want:
            break
        tries.append((got, [l for l in r.err.splitlines() if l.startswith("faults ")]))
        if not all(0 < got[n][0] - want[n][0] <= 2 for n in want if got[n] != want[n]):
            break
    return r, got, ("; earlier runs (shim, kernel inside): %r" % tries if tries else "")


r = workload("busy", 200)
t.eq(r.rc, 0, "busy: exit code")
busy = region(main_thread(r.doc), "busy")
t.within(busy["inclusive"]["task-clock"], 200e6, 0.05, "busy 200 ms: region task-clock within 5%")
t.eq(busy["calls"], 1, "busy: one call")

r, got, tries = exact_faults(["touch", 10000], {"touch": (10000, 10000)})
t.eq(got["touch"][0], 10000, "touch 10,000 fresh pages: exact page faults" + tries)
t.eq(got["touch"][1], 10000, "touch: exclusive == inclusive without children")

# 200 us: a sleep whose timer expires before the task gets to schedule()
# returns without a switch (2 us sleeps switched 5 times in 1000 here, 10 us
# ones 998 of 1000 under load, 50 us ones 988 of 1000 once with four builds
# and test runs beside it on 2 vCPUs).
r = workload("sleep", 1000, 200)
sl = region(main_thread(r.doc), "sleep")
t.eq(r.doc["pmu"]["privilege"], "user+kernel", "root counts user+kernel")
t.ok(sl["inclusive"]["context-switches"] >= 1000,
     "1000 x nanosleep(200 us): >= 1000 context switches (got %r)" % sl["inclusive"]["context-switches"])
t.ok(sl["inclusive"]["context-switches"] <= 1100,
     "sleep: no more than 10%% extra switches (got %r)" % sl["inclusive"]["context-switches"])

r, got, tries = exact_faults(["nested", 1000, 3000], {"outer": (4000, 1000), "inner": (3000, 3000)})
m = main_thread(r.doc)
outer, inner = region(m, "outer"), region(m, "inner")
t.eq(got["outer"][0], 4000, "nested: outer inclusive" + tries)
t.eq(got["outer"][1], 1000, "nested: outer exclusive")
t.eq(got["inner"][0], 3000, "nested: inner inclusive")
t.eq(got["inner"][1], 3000, "nested: inner exclusive")
t.ok(outer["inclusive"]["task-clock"] > inner["inclusive"]["task-clock"],
     "nested: outer task-clock covers inner")
t.eq((outer["parent"], inner["parent"]), (None, "outer"),
     "nested: the region tree (outer at the top, inner inside outer)")
t.eq([(x["name"], x["parent"], x.get("parents")) for x in r.doc["regions"]
      if x["name"] in ("outer", "inner")],
     [("outer", None, None), ("inner", "outer", None)],
     "nested: the summary's parents, one per name (no 'parents' list)")

r, got, tries = exact_faults(["recurse", 3, 100], {"rec": (300, 300)})
rec = region(main_thread(r.doc), "rec")
t.eq(rec["calls"], 3, "recursion: three calls")
t.eq(got["rec"][0], 300, "recursion: inclusive not double counted" + tries)
t.eq(got["rec"][1], 300, "recursion: exclusive sums the levels")
t.eq(rec["parent"], None, "recursion: one record, parent from its first BEGIN (none)")

r = workload("mismatch", "touch", 100)
m = main_thread(r.doc)
t.eq(r.rc, 0, "mismatch: program unaffected")
t.eq(m["warnings"]["unmatched_end"], 1, "mismatch: END without BEGIN counted")
t.eq(m["warnings"]["auto_closed"], 1, "mismatch: inner region closed implicitly")
t.eq(region(m, "a")["calls"], 1, "mismatch: region a recorded")
t.eq(region(m, "b")["calls"], 1, "mismatch: region b recorded")
t.eq(region(m, "touch")["inclusive"]["page-faults"], 100, "mismatch: later regions intact")

for mode, pages in (("pexit", 500), ("cancel", 700)):
    r = workload(mode, pages)
    others = [th for th in r.doc["threads"] if th["tid"] != r.doc["process"]["pid"]]
    t.eq(len(others), 1, "%s: the thread has its own entry" % mode)
    w = region(others[0], "work")
    t.eq(w and w["inclusive"]["page-faults"], pages, "%s: thread's region faults exact" % mode)
    t.eq(others[0]["alive_at_exit"], False, "%s: thread folded in when it ended" % mode)

# A region boundary reads its counters with read(2); glibc's read() is a
# cancellation point, so a thread with a cancellation pending would be
# cancelled inside HPC_BEGIN (never without the shim).
r = workload("pending", 300)
t.eq(r.rc, 0, "pending cancel: exit code")
t.ok("pending survived 1 canceled 1" in r.out,
     "pending cancel: the region ran to its END, the thread went at its own "
     "pthread_testcancel (%r)" % r.out.strip())
others = [th for th in r.doc["threads"] if th["tid"] != r.doc["process"]["pid"]] if r.doc else []
w = region(others[0], "work") if len(others) == 1 else None
t.eq(w and (w["calls"], w["inclusive"]["page-faults"]), (1, 300),
     "pending cancel: the region's call and faults counted")

r = workload("linger", 600)
others = [th for th in r.doc["threads"] if th["tid"] != r.doc["process"]["pid"]]
t.eq(r.rc, 0, "linger: exit code")
t.eq(len(others), 1, "linger: live thread reported")
t.eq(others[0]["alive_at_exit"], True, "linger: marked alive at exit")
t.eq(region(others[0], "work")["inclusive"]["page-faults"], 600, "linger: its counts read at exit")

t.done()
