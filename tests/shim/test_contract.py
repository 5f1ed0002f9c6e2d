"""The JSON contract, the program's output and exit code untouched, and bad
input reported with one clear 'hpcshim:' line."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, workload, run, WORKLOAD, region, main_thread, can_open_hardware, unprivileged_skip

t = Tap()
STEPS = ("touch", 2000, "exit", 3)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# ---- contract ------------------------------------------------------------
r = workload(*STEPS)
d = r.doc
t.eq(d["schema"], "hpcshim/1", "schema version")
t.eq(d["tool"]["name"], "hpcshim", "tool name")
t.ok(isinstance(d["tool"]["version"], str) and d["tool"]["version"], "tool version")
p = d["process"]
t.ok(is_num(p["pid"]) and p["pid"] > 0, "process.pid is a number")
t.ok(isinstance(p["host"], str) and p["host"], "process.host")
t.eq(p["rank"], None, "process.rank null outside MPI")
t.eq(p["command"], [WORKLOAD] + [str(s) for s in STEPS], "process.command is argv")
t.ok(is_num(p["start_ns"]) and is_num(p["end_ns"]) and p["end_ns"] >= p["start_ns"], "start/end ns")
t.eq(p["complete"], True, "complete after exit()")
t.ok(all(e["status"] in ("ok", "dropped") for e in d["events"]), "event status ok|dropped")
ok_names = [e["name"] for e in d["events"] if e["status"] == "ok"]
t.eq(sorted(d["totals"]), sorted(ok_names), "totals has exactly the counted events")
t.ok(all(is_num(v) for v in d["totals"].values()), "totals are JSON numbers")
t.ok(all(is_num(th["tid"]) for th in d["threads"]), "threads carry numeric tids")
reg = d["regions"][0]
t.eq(reg["name"], "touch", "process region name")
t.ok(all(k in reg for k in ("calls", "threads", "inclusive", "exclusive")), "process region keys")
t.ok(all(set(v) >= {"sum", "min", "max", "mean"} for v in reg["inclusive"].values()),
     "region inclusive stats have sum/min/max/mean")
t.eq(region(main_thread(d), "touch")["inclusive"]["page-faults"], 2000, "touch 2000: exact")

# ---- the program does not notice ----------------------------------------
bare = workload(*STEPS, preload=False)
t.eq(bare.docs, [], "without the shim no result file")
t.eq(r.out, bare.out, "stdout identical with and without the shim")
t.eq(r.rc, bare.rc, "exit code identical with and without the shim (3)")
t.eq(r.shim_lines(), [], "no hpcshim lines on stderr by default")

# ---- default set: software fallback when there is no hardware PMU -------
hw = can_open_hardware()
cyc = [e for e in d["events"] if e["name"] == "cycles"][0]
if not hw:
    t.eq(cyc["status"], "dropped", "no PMU: cycles dropped")
    t.eq(cyc["error"], "ENOENT", "no PMU: cycles errno name")
    t.ok(cyc["reason"], "no PMU: human reason given")
    t.eq(d["pmu"]["hardware"], False, "no PMU: pmu.hardware false")
    t.ok(d["pmu"]["fallback"], "no PMU: fallback recorded")
else:
    t.eq(cyc["status"], "ok", "PMU present: cycles counted")
    t.eq(d["pmu"]["fallback"], None, "PMU present: no fallback")

# ---- explicit events, libpfm4 names, modifiers --------------------------
r = workload("touch", 1500, env={"HPCSHIM_EVENTS": "perf::PAGE-FAULTS,task-clock"})
ev = r.doc["events"][0]
if os.environ.get("LIBPFM_FORCE_PMU") and ev["status"] == "dropped":
    # A forced CPU model leaves libpfm4 that one PMU: no perf:: table.
    t.skip("libpfm4 name perf::PAGE-FAULTS", "LIBPFM_FORCE_PMU=%s: libpfm4 has no perf:: "
           "events then" % os.environ["LIBPFM_FORCE_PMU"])
    t.skip("libpfm4 source recorded", "same")
else:
    t.eq(region(main_thread(r.doc), "touch")["inclusive"]["perf::PAGE-FAULTS"], 1500,
         "libpfm4 name perf::PAGE-FAULTS counts exactly")
    t.eq(ev["source"], "libpfm4", "libpfm4 source recorded")

r = workload("sleep", 200, 50, env={"HPCSHIM_EVENTS": "context-switches:u,context-switches"})
sl = region(main_thread(r.doc), "sleep")["inclusive"]
t.eq(sl["context-switches:u"], 0, ":u excludes the kernel, where switches happen")
t.ok(sl["context-switches"] >= 200, "unmodified context-switches counts them")
t.eq(r.doc["events"][0]["privilege"], "user", ":u recorded as user privilege")
t.eq(r.doc["pmu"]["privilege"], "mixed", "process privilege mixed")

# ---- bad input: one line, program unchanged -----------------------------
def bad(env, desc, mention):
    r = workload(*STEPS, env=env)
    lines = r.shim_lines()
    t.eq(len(lines), 1, "%s: one hpcshim line" % desc)
    t.ok(lines and mention in lines[0], "%s: line mentions %r: %r" % (desc, mention, lines))
    t.eq((r.rc, r.out), (bare.rc, bare.out), "%s: exit code and stdout unchanged" % desc)
    return r

r = bad({"HPCSHIM_EVENTS": "task-clock,bogus_event"}, "unknown event", "bogus_event")
bogus = [e for e in r.doc["events"] if e["name"] == "bogus_event"][0]
t.eq(bogus["status"], "dropped", "unknown event listed as dropped")
t.ok("libpfm4" in bogus["reason"], "unknown event reason names the lookups tried")
t.ok(r.doc["totals"]["task-clock"] > 0, "the valid event is still counted")

r = bad({"HPCSHIM_EVENTS": ",,"}, "empty event list", "HPCSHIM_EVENTS")
t.ok("task-clock" in r.doc["totals"], "empty list: default set used")
bad({"HPCSHIM_EVENTS": "page-faults,,task-clock"}, "empty item", "empty")
bad({"HPCSHIM_VERBOSE": "loud"}, "bad verbosity", "HPCSHIM_VERBOSE")
# (A missing directory is made, test_reach.py: this one cannot be.)
r = bad({"HPCSHIM_OUTPUT": "/dev/null/dir"}, "output dir under a file", "/dev/null/dir")
t.eq(len(r.docs), 1, "output dir under a file: results written to $TMPDIR instead")
t.ok("instead" in r.shim_lines()[0], "output dir under a file: the line says where they went")
if not hw:
    bad({"HPCSHIM_EVENTS": "cycles,page-faults"}, "unavailable hardware event", "cycles")

r = workload("touch", 10, env={"HPCSHIM_VERBOSE": "1"})
t.ok(any("results written to" in l for l in r.shim_lines()), "verbose 1 reports the result path")

# ---- unprivileged user under perf_event_paranoid >= 2 -------------------
paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read())
why = unprivileged_skip() or (None if paranoid >= 2 else "needs perf_event_paranoid >= 2")
if not why:
    r = workload("touch", 800, user=(65534, 65534))
    t.eq(r.rc, 0, "unprivileged: runs")
    t.eq(r.doc["pmu"]["privilege"], "user", "unprivileged + paranoid 2: downgraded to user")
    t.ok(all(e.get("downgraded") for e in r.doc["events"] if e["status"] == "ok"),
         "unprivileged: every counted event marked downgraded")
    t.eq(region(main_thread(r.doc), "touch")["inclusive"]["page-faults"], 800,
         "unprivileged: user-level page faults still exact")
    r = workload("touch", 10, user=(65534, 65534), env={"HPCSHIM_EVENTS": "page-faults:k,task-clock"})
    k = [e for e in r.doc["events"] if e["name"] == "page-faults:k"][0]
    t.eq((k["status"], k["error"]), ("dropped", "EACCES"), "explicit :k is not downgraded: EACCES")
else:
    t.skip("unprivileged downgrade", why)
t.done()
