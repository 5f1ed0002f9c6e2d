"""Range restriction, checkpoints and start/stop triggers against known
truths (tests/shim/range_prog.c): exact page-fault attribution with period 1,
the task-clock share of a function that takes 70% of the CPU time, the
address, object and dlopen forms, exact checkpoint counts (a static
function too), start/stop triggers that exclude a phase of known faults,
privilege levels, and bad specs that each give one line and change
nothing in the program."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import (Tap, run, main_thread, BUILD, LIB, unprivileged_skip, point_method_why,
                     method_line)

t = Tap()
PROG = os.path.join(BUILD, "tests", "shim", "range_prog")
SANITIZER = os.environ.get("HPCSHIM_TEST_SANITIZER")
# Faults of the shim's own code after a thread's counters start: an
# instrumented shim touches shadow memory there.
SLACK = 40 if SANITIZER else 10


def prog(*steps, **kw):
    return run([PROG] + [str(s) for s in steps], **kw)


def samples(doc, event, where=None):
    """The "samples" entry of one event: process totals or one thread's."""
    src = where["ranges"] if where is not None else doc["ranges"]["totals"]
    return src["samples"][event]


def hits(doc, event, rng, where=None):
    return samples(doc, event, where)["ranges"][rng]["samples"]


def nm_symbol(name):
    """(value, size) of a symbol in range_prog, from nm -S."""
    out = subprocess.run(["nm", "-S", PROG], capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == name:
            return int(f[0], 16), int(f[1], 16)
    return None, None


PF = {"HPCSHIM_EVENTS": "page-faults"}

# ---- page faults, period 1: exact attribution -----------------------------
K = 10000
env = dict(PF, HPCSHIM_RANGE="func:touch_pages,!func:touch_pages")
r = prog("touch", K, env=env)
base = prog("touch", 0, env=env)
pf = samples(r.doc, "page-faults")
t.eq(r.rc, 0, "touch: exit code")
t.eq(r.shim_lines(), [], "touch: no hpcshim line")
t.eq(pf["period"], 1, "page faults sampled with period 1 by default")
t.eq(hits(r.doc, "page-faults", "func:touch_pages"), K,
     "touch 10,000 pages: exactly 10,000 faults in func:touch_pages")
t.eq(pf["ranges"]["func:touch_pages"]["error"], 0, "period 1: error 0")
inv = hits(r.doc, "page-faults", "!func:touch_pages")
t.eq(inv + K, pf["samples"], "inverse = every other sample")
inv0 = hits(base.doc, "page-faults", "!func:touch_pages")
t.ok(abs(inv - inv0) <= 20, "none of the 10,000 in the inverse: it matches a run touching "
     "nothing (%d vs %d)" % (inv, inv0))
t.eq(hits(base.doc, "page-faults", "func:touch_pages"), 0, "touch 0: nothing in the range")
t.eq(pf["lost"], 0, "no sample lost")
m = main_thread(r.doc)
t.eq(hits(r.doc, "page-faults", "func:touch_pages", m), K, "per thread: the main thread has them")
# A thread but no range: no drain thread (TSan's own helper thread, which
# it starts with the first thread, is there in both).
plain = prog("thread", 0, env=PF)
t.eq(len(r.doc["uncovered_threads"]), len(plain.doc["uncovered_threads"]),
     "the drain thread is not an uncovered thread")
rg = r.doc["ranges"]["ranges"][0]
t.ok(rg["status"] == "ok" and len(rg["intervals"]) == 1 and
     rg["intervals"][0]["object"].endswith("range_prog"), "func range resolved in the executable")

# in a thread created later, with the default event set
r = prog("thread", 2000, env={"HPCSHIM_RANGE": "func:touch_pages"})
th = [x for x in r.doc["threads"] if x["tid"] != r.doc["process"]["pid"]]
t.eq(len(th), 1, "thread: one more thread")
t.eq(hits(r.doc, "page-faults", "func:touch_pages", th[0]), 2000,
     "thread: its 2,000 faults attributed in its own rings")
t.eq(hits(r.doc, "page-faults", "func:touch_pages"), 2000, "process total: the same 2,000")

# ---- task-clock share --------------------------------------------------------
# User mode only: the program splits its thread CPU time 70/30 between
# hot_spin and cold_spin (spin_until), both the same loop.  Each reads the
# thread CPU clock, a system call the vDSO cannot serve: a timer sample
# that falls in its transition may be taken at the instruction after the
# syscall, in the vDSO, in neither function (under PVM 5% of the user
# samples, at any host's share of both loops alike).  So the truth is the
# split between the two functions: hot / (hot + cold), a binomial
# proportion within 4 standard deviations of 0.70; and the shim's share
# is its hits over all the event's samples.
r = prog("hot", 400, 70, env={"HPCSHIM_EVENTS": "task-clock:u",
                              "HPCSHIM_RANGE": "func:hot_spin,!func:hot_spin,func:spin_until"})
tc = samples(r.doc, "task-clock:u")
hot, cold = (tc["ranges"][k]["samples"] for k in ("func:hot_spin", "func:spin_until"))
split = hot / max(hot + cold, 1)
sd = (0.7 * 0.3 / max(hot + cold, 1)) ** 0.5
t.ok(abs(split - 0.70) <= 4 * sd,
     "70%% of the two functions' user CPU time in hot_spin: %.3f of %d task-clock:u samples "
     "(0.70 +- %.3f; %d samples elsewhere)" % (split, hot + cold, 4 * sd, tc["samples"] - hot - cold))
t.eq(tc["ranges"]["func:hot_spin"]["share"], hot / tc["samples"], "share: hits over all samples")
t.ok(tc["samples"] >= 3000, "100 us period: >= 3000 samples in 400 ms (%d)" % tc["samples"])
# User and kernel: the samples cover all of the thread's CPU time.
r = prog("hot", 400, 70, env={"HPCSHIM_EVENTS": "task-clock",
                              "HPCSHIM_RANGE": "func:hot_spin,!func:hot_spin"})
tc = samples(r.doc, "task-clock")
est = tc["ranges"]["func:hot_spin"]["estimate"]
err = tc["ranges"]["func:hot_spin"]["error"]
t.ok(0 < err < 0.05 * est, "binomial error reported and small (%.0f ns of %d)" % (err, est))
t.within(est + tc["ranges"]["!func:hot_spin"]["estimate"], 400e6, 0.05,
         "samples x period over range and inverse ~ the CPU time")
r = prog("hot", 100, 70, env={"HPCSHIM_EVENTS": "task-clock", "HPCSHIM_RANGE": "exe",
                              "HPCSHIM_RANGE_PERIOD": "1"})
t.eq(samples(r.doc, "task-clock")["period"], 10000, "a clock period below 10 us is raised to 10 us")

# ---- address ranges -----------------------------------------------------------
val, size = nm_symbol("touch_pages")
env = dict(PF, HPCSHIM_RANGE="addr:0x%x-0x%x@exe" % (val, val + size))
r = prog("touch", 5000, env=env)
t.eq(hits(r.doc, "page-faults", "addr:0x%x-0x%x@exe" % (val, val + size)), 5000,
     "addr:START-END@exe (nm values): exactly 5,000")
where = subprocess.run(["setarch", "-R", PROG, "where"], capture_output=True, text=True).stdout
addr = int(where.split()[1], 16)
spec = "addr:0x%x-0x%x" % (addr, addr + size)
r = run(["setarch", "-R", PROG, "touch", "5000"], env=dict(PF, HPCSHIM_RANGE=spec))
d = [x for x in r.docs if x["process"]["command"][0].endswith("range_prog")]
t.ok(len(d) == 1 and hits(d[0], "page-faults", spec) == 5000,
     "absolute addr:START-END (setarch -R): exactly 5,000")

# ---- shared objects: linked, and loaded later by dlopen ----------------------------
r = prog("sotouch", 3000, env=dict(PF, HPCSHIM_RANGE="so:librange_so.so,so:librange_so"))
t.eq(hits(r.doc, "page-faults", "so:librange_so.so"), 3000, "so:librange_so.so: exactly 3,000")
t.eq(hits(r.doc, "page-faults", "so:librange_so"), 3000, "so:librange_so (name prefix): the same")


def dlopen_checks():
    bare = prog("dlopen", 500, 777, preload=False)
    t.eq(bare.out, "dlopen 500 777\n", "dlopen by bare name through the program's RUNPATH, no shim")
    r = prog("dlopen", 500, 777)
    t.eq((r.rc, r.out), (0, bare.out), "under the shim (plain dlopen): found the same way")
    env = dict(PF, HPCSHIM_RANGE="func:dl_touch,so:librange_dl.so",
               HPCSHIM_CHECKPOINT="func:dl_count,func:dl_static@librange_dl.so")
    r = prog("dlopen", 500, 777, env=env)
    t.eq((r.rc, r.out), (0, bare.out), "with checkpoints waiting for it (dlopen hooked): "
         "found the same way")
    t.eq(hits(r.doc, "page-faults", "func:dl_touch"), 500,
         "func:dl_touch of a dlopen'ed object: exactly 500")
    # The object's own start-up code (crt's frame_dummy & co., run by
    # dlopen) may fault on its data page: a few more than dl_touch's 500.
    so_dl = hits(r.doc, "page-faults", "so:librange_dl.so")
    t.ok(500 <= so_dl <= 505, "so: of a dlopen'ed object: dl_touch's 500 and its start-up (%d)"
         % so_dl)


# A sanitizer runtime interposes dlopen itself and becomes the caller whose
# RUNPATH is searched: a bare-name dlopen cannot work under it.
if SANITIZER:
    for _ in range(8):
        t.skip("dlopen by bare name", "the %s runtime interposes dlopen" % SANITIZER)
else:
    dlopen_checks()

# ---- checkpoints and triggers, through each way the host allows ---------------------
# Hardware breakpoints and uprobes must give the same exact counts; the
# shim checks that a way fires before it uses it (a hypervisor may accept
# breakpoints and never fire them), and so does this test: a way the host
# lacks is skipped with the shim's reason, the other still checked.
POINT_CHECKS = 20


def dlopen_points(method):
    env = dict(PF, HPCSHIM_RANGE_METHOD=method,
               HPCSHIM_CHECKPOINT="func:dl_count,func:dl_static@librange_dl.so")
    r = prog("dlopen", 500, 777, env=env)
    cps = r.doc["ranges"]["totals"]["checkpoints"]
    t.eq(cps["func:dl_count"], 777, "%s: checkpoint armed at dlopen: exactly 777" % method)
    t.eq(cps["func:dl_static@librange_dl.so"], 777,
         "%s: static function of a dlopen'ed object: exactly 777" % method)
    r = prog("dlopen", 400, 1, env={"HPCSHIM_EVENTS": "page-faults", "HPCSHIM_RANGE_METHOD": method,
                                    "HPCSHIM_TRIGGER": "start:func:dl_touch"})
    n = main_thread(r.doc)["totals"]["page-faults"]
    t.ok(400 <= n < 460, "%s: start trigger at a function of a dlopen'ed object: its 400 faults "
         "and little else (%d)" % (method, n))


def checkpoints(method):
    env = {"HPCSHIM_CHECKPOINT": "func:cp_target,func:cp_static", "HPCSHIM_RANGE_METHOD": method}
    r = prog("calls", 12345, env=env)
    cps = r.doc["ranges"]["totals"]["checkpoints"]
    t.eq(r.doc["ranges"]["point_method"], method, "%s: the document says which way" % method)
    t.eq(cps["func:cp_target"], 12345, "%s: checkpoint: 12,345 calls counted exactly" % method)
    t.eq(cps["func:cp_static"], 12345,
         "%s: checkpoint on a static function (.symtab): exactly 12,345" % method)
    t.eq(main_thread(r.doc)["ranges"]["checkpoints"]["func:cp_target"], 12345,
         "%s: per thread" % method)
    t.eq([x for x in r.shim_lines() if not method_line(x)], [], "%s: no hpcshim line" % method)
    if method == "breakpoint":
        t.eq(r.doc["ranges"]["breakpoints_per_thread"], 4 if os.uname().machine == "x86_64"
             else r.doc["ranges"]["breakpoints_per_thread"], "x86: 4 debug registers per thread")
    else:
        t.eq(r.doc["ranges"]["breakpoints_per_thread"], None, "uprobe: no register probed")
    cs_val, _ = nm_symbol("cp_static")
    r = prog("calls", 100, env={"HPCSHIM_CHECKPOINT": "addr:0x%x@exe" % cs_val,
                                "HPCSHIM_RANGE_METHOD": method})
    t.eq(r.doc["ranges"]["totals"]["checkpoints"]["addr:0x%x@exe" % cs_val], 100,
         "%s: checkpoint at an address relative to the executable: exactly 100" % method)
    # per-hit cost: a trap per call
    N = 200000
    plain = prog("bench", N, env={"HPCSHIM_EVENTS": "task-clock"})
    hit = prog("bench", N, env={"HPCSHIM_EVENTS": "task-clock", "HPCSHIM_RANGE_METHOD": method,
                                "HPCSHIM_CHECKPOINT": "func:bench_target"})
    ns = lambda x: float([l for l in x.err.splitlines() if l.startswith("bench")][0].split()[2])
    cost = ns(hit) - ns(plain)
    print("# %s checkpoint cost: %.0f ns per hit (%.1f ns per call without)" % (method, cost, ns(plain)))
    t.eq(hit.doc["ranges"]["totals"]["checkpoints"]["func:bench_target"], N,
         "%s: bench: %d hits counted" % (method, N))
    t.ok(cost > 200, "%s: every hit traps: > 200 ns per call more (%.0f ns)" % (method, cost))


def triggers(method):
    # The counted window is [entry of measured, entry of after_measured): its
    # only faults are measured's 3000 pages; the prephase's 5000 must not show.
    # (A uprobe signals right after the function's first instruction, a
    # breakpoint before it: neither touches a page in between.)
    env = {"HPCSHIM_TRIGGER": "start:func:measured,stop:func:after_measured",
           "HPCSHIM_RANGE_METHOD": method}
    r = prog("prephase", 5000, "measured", 3000, "touch", 100, env=env)
    m = main_thread(r.doc)
    tr = r.doc["ranges"]["trigger"]
    t.eq(tr["state"], "stopped", "%s: start+stop: stopped" % method)
    if SANITIZER:
        t.ok(3000 <= m["totals"]["page-faults"] <= 3020, "start+stop under %s: ~3000" % SANITIZER)
    else:
        t.eq(m["totals"]["page-faults"], 3000,
             "%s: start+stop: exactly the 3,000 faults between them" % method)
    # The window holds 3,000 of the run's 8,100 page touches: well under
    # the whole run's CPU time (a fault costs 3-16 us, by host).
    whole = main_thread(prog("prephase", 5000, "measured", 3000, "touch", 100).doc)
    t.ok(m["totals"]["task-clock"] < 0.75 * whole["totals"]["task-clock"],
         "%s: start+stop: task-clock of the window only (%.1f ms of %.1f ms)" %
         (method, m["totals"]["task-clock"] / 1e6, whole["totals"]["task-clock"] / 1e6))
    start = {"HPCSHIM_TRIGGER": "start:func:measured", "HPCSHIM_RANGE_METHOD": method}
    r = prog("prephase", 5000, "measured", 3000, "touch", 100, env=start)
    m = main_thread(r.doc)
    t.ok(3100 <= m["totals"]["page-faults"] < 3300,
         "%s: start only: the 3,100 after the trigger and the exit's own, not the "
         "prephase (%d)" % (method, m["totals"]["page-faults"]))
    t.eq(r.doc["ranges"]["trigger"]["started_tid"], r.doc["process"]["pid"],
         "%s: fired on the main thread" % method)
    r = prog("prephase", 2000, "across", 1000, 3000, "thread", 700, env=start)
    th = {x["tid"]: x for x in r.doc["threads"]}
    others = sorted(x["totals"]["page-faults"] for tid, x in th.items()
                    if tid != r.doc["process"]["pid"])
    t.ok(len(others) == 2 and 700 <= others[0] <= 700 + SLACK and
         3000 <= others[1] <= 3000 + SLACK,
         "%s: a running thread starts counting at the trigger (3,000 not 4,000), a later one "
         "at once (700): %r" % (method, others))
    r = prog("prephase", 2000, env={"HPCSHIM_TRIGGER": "start:func:cp_target",
                                    "HPCSHIM_RANGE_METHOD": method})
    t.eq(r.doc["ranges"]["trigger"]["state"], "waiting", "%s: never reached: waiting" % method)
    t.eq(main_thread(r.doc)["totals"]["page-faults"], 0, "%s: never reached: nothing counted" % method)


for method in ("breakpoint", "uprobe"):
    why = point_method_why(method)
    n0 = t.n
    if why:
        for _ in range(POINT_CHECKS):
            t.skip("checkpoints and triggers through %s" % method, "this host: " + why)
        continue
    if not SANITIZER:
        dlopen_points(method)
    checkpoints(method)
    triggers(method)
    if SANITIZER:
        for _ in range(POINT_CHECKS - (t.n - n0)):
            t.skip("dlopen by bare name", "the %s runtime interposes dlopen" % SANITIZER)
t.ok(point_method_why("breakpoint") is None or point_method_why("uprobe") is None or
     os.geteuid() != 0, "as root, at least one way counts points here (breakpoint: %s; "
     "uprobe: %s)" % (point_method_why("breakpoint"), point_method_why("uprobe")))

# ---- a way that opens and never fires: not counted, never 0 ------------------------------
# HPCSHIM_DEBUG_POINT_PROBE=skip makes the shim's check skip the call it
# watches, which is what a host whose breakpoints never fire shows it:
# the path a user of such a host sees, on every host.
SKIP = {"HPCSHIM_DEBUG_POINT_PROBE": "skip"}
STEPS = ("touch", 10, "exit", 3)
ref = prog(*STEPS, preload=False)
out = tempfile.mkdtemp(prefix="hpcshim-test-")
r = prog(*STEPS, outdir=out, env=dict(SKIP, HPCSHIM_RANGE_METHOD="breakpoint",
                                      HPCSHIM_CHECKPOINT="func:cp_target",
                                      HPCSHIM_TRIGGER="start:func:measured"))
rep = subprocess.run([os.path.join(BUILD, "hpcshim"), "report", out], capture_output=True,
                     text=True)
shutil.rmtree(out, ignore_errors=True)
row = [x.split() for x in rep.stdout.splitlines() if x.split()[:2] == ["checkpoint", "func:cp_target"]]
t.ok(rep.returncode == 0 and row == [["checkpoint", "func:cp_target", "not", "counted"]] and
     "not counted: hardware breakpoints open but do not fire" in rep.stdout,
     "hpcshim report: 'not counted' with the reason, no 0", rep.stdout + rep.stderr)
cp = r.doc["ranges"]["checkpoints"][0]
t.eq((cp["status"], r.doc["ranges"]["totals"]["checkpoints"]["func:cp_target"]), ("dropped", None),
     "breakpoints that never fire: the checkpoint is dropped and its count null, not 0")
t.ok("do not fire" in (cp.get("reason") or ""), "with the reason (%s)" % cp.get("reason"))
t.eq(r.doc["ranges"]["point_method"], None, "no way used")
lines = r.shim_lines()
t.ok(len(lines) == 2 and "HPCSHIM_CHECKPOINT: hardware breakpoints open but do not fire" in lines[0]
     and "not counted" in lines[0] and "counting is not delayed" in lines[1],
     "one line for the checkpoints, one for the trigger (%s)" % lines)
t.eq((r.rc, r.out), (ref.rc, ref.out), "never fires: exit code and output unchanged")
t.eq((r.doc["ranges"]["trigger"]["state"], main_thread(r.doc)["totals"]["page-faults"] >= 10),
     ("started", True), "the trigger dropped: counting from the start, not never")
r = prog("calls", 500, env=dict(SKIP, HPCSHIM_CHECKPOINT="func:cp_target"))
up = point_method_why("uprobe")
if up:
    t.eq(r.doc["ranges"]["totals"]["checkpoints"]["func:cp_target"], None,
         "auto, breakpoints never fire, no uprobes (%s): not counted" % up)
else:
    t.eq((r.doc["ranges"]["point_method"], r.doc["ranges"]["totals"]["checkpoints"]["func:cp_target"]),
         ("uprobe", 500), "auto, breakpoints never fire: uprobes count the 500 calls exactly")
    t.ok(any(method_line(x) for x in r.shim_lines()), "and one line says so (%s)" % r.shim_lines())
why = unprivileged_skip(LIB, PROG)
if why:
    t.skip("uprobes unprivileged", why)
else:
    r = prog("calls", 50, env={"HPCSHIM_RANGE_METHOD": "uprobe",
                               "HPCSHIM_CHECKPOINT": "func:cp_target"}, user=(65534, 65534))
    cp = r.doc["ranges"]["checkpoints"][0]
    t.ok(r.doc["ranges"]["totals"]["checkpoints"]["func:cp_target"] is None and
         "CAP_SYS_ADMIN" in (cp.get("reason") or ""),
         "uprobes as an unprivileged user: not counted, says CAP_SYS_ADMIN (%s)" % cp.get("reason"))

# ---- privilege levels -----------------------------------------------------------------
r = prog("touch", 1000, env=dict(PF, HPCSHIM_PRIVILEGE="user"))
t.eq((r.doc["events"][0]["privilege"], r.doc["pmu"]["privilege_requested"]), ("user", "user"),
     "HPCSHIM_PRIVILEGE=user: user level")
t.ok(r.doc["totals"]["page-faults"] >= 1000, "user level: the 1,000 user faults counted")
r = prog("touch", 1000, env=dict(PF, HPCSHIM_PRIVILEGE="kernel"))
t.eq(r.doc["events"][0]["privilege"], "kernel", "HPCSHIM_PRIVILEGE=kernel: kernel level")
t.ok(r.doc["totals"]["page-faults"] < 100, "kernel level: user-mode faults not counted (%d)"
     % r.doc["totals"]["page-faults"])
r = prog("touch", 1000, env=dict(PF, HPCSHIM_PRIVILEGE="kernel"))
r2 = prog("touch", 10, env=dict(PF, HPCSHIM_EVENTS="page-faults:u", HPCSHIM_PRIVILEGE="kernel"))
t.eq(r2.doc["events"][0]["privilege"], "user", "an explicit :u is not overridden")
why = unprivileged_skip(LIB, PROG) or (None if r.doc["pmu"]["perf_event_paranoid"] >= 2
                              else "needs perf_event_paranoid >= 2")
if not why:
    r = prog("touch", 300, env=PF, user=(65534, 65534))
    note = r.doc["pmu"]["privilege_note"] or ""
    t.ok(r.doc["events"][0].get("downgraded") and "perf_event_paranoid=" in note,
         "unprivileged, all: downgraded to user, with a note (%s)" % note)
    r = prog("touch", 300, env=dict(PF, HPCSHIM_PRIVILEGE="kernel"), user=(65534, 65534))
    t.ok(r.doc["events"][0]["status"] == "dropped" and r.doc["events"][0]["error"] == "EACCES"
         and "dropped" in (r.doc["pmu"]["privilege_note"] or ""),
         "unprivileged, kernel: refused, never downgraded, with a note")
    r = prog("touch", 300, env=dict(PF, HPCSHIM_RANGE="func:touch_pages"), user=(65534, 65534))
    t.eq(hits(r.doc, "page-faults", "func:touch_pages"), 300,
         "unprivileged: user-level sampling still exact")
else:
    for _ in range(3):
        t.skip("unprivileged privilege checks", why)

# ---- fork: the child samples on its own ----------------------------------------------
# (Not under TSan: it refuses new threads in the child of a threaded
# process, and the child starts its own drain thread.)
wl = os.path.join(BUILD, "tests", "shim", "workload")
if SANITIZER == "tsan":
    t.skip("fork child", "TSan: no new thread after a multi-threaded fork")
else:
    r = run([wl, "fork", "400"], env=dict(PF, HPCSHIM_RANGE="exe"))
    kids = [d for d in r.docs if any(x["name"] == "child" for x in d["regions"])]
    t.ok(len(kids) == 1 and hits(kids[0], "page-faults", "exe") >= 400,
         "fork child: its own rings, its 400 faults in exe")

# ---- bad specs: one line each, the program unchanged -------------------------------------
cases = [
    ({"HPCSHIM_RANGE": "func:no_such_function"}, "matched nothing", "unresolvable symbol"),
    ({"HPCSHIM_RANGE": "addr:0x2000-0x1000"}, "inverted range", "inverted range"),
    ({"HPCSHIM_RANGE": "fnc:touch_pages"}, "unknown form", "malformed range"),
    ({"HPCSHIM_CHECKPOINT": "addr:zz"}, "not an address", "malformed checkpoint"),
    ({"HPCSHIM_CHECKPOINT": "addr:0xffffffffffff0000"}, "cannot be armed", "kernel address"),
    ({"HPCSHIM_RANGE_METHOD": "magic", "HPCSHIM_CHECKPOINT": "func:cp_target"},
     "not auto, breakpoint or uprobe", "bad method"),
    ({"HPCSHIM_TRIGGER": "begin:func:main"}, "expected start:POINT", "malformed trigger"),
    ({"HPCSHIM_TRIGGER": "start:func:nope"}, "counting never started", "unresolvable trigger"),
    ({"HPCSHIM_CHECKPOINT": "func:nope"}, "not counted", "unresolvable checkpoint"),
    ({"HPCSHIM_RANGE": "exe", "HPCSHIM_RANGE_PERIOD": "abc"}, "not a", "malformed period"),
    ({"HPCSHIM_PRIVILEGE": "root"}, "not user, kernel or all", "bad privilege"),
]
for env, text, desc in cases:
    r = prog(*STEPS, env=env)
    lines = [x for x in r.shim_lines() if not method_line(x)]
    t.ok(len(lines) == 1 and text in lines[0], "%s: one line (%s)" % (desc, lines))
    t.eq((r.rc, r.out), (ref.rc, ref.out), "%s: exit code and output unchanged" % desc)
# More points than debug registers: forced breakpoints drop the 5th;
# auto takes uprobes, which have no such limit, where they work.
FIVE = "func:cp_target,func:cp_static,func:touch_pages,func:measured,func:after_measured"
if point_method_why("breakpoint"):
    for _ in range(4):
        t.skip("5 checkpoints, 4 registers", "this host: " + point_method_why("breakpoint"))
else:
    r = prog(*STEPS, env={"HPCSHIM_CHECKPOINT": FIVE, "HPCSHIM_RANGE_METHOD": "breakpoint"})
    st = [c["status"] for c in r.doc["ranges"]["checkpoints"]]
    lines = r.shim_lines()
    t.ok(len(lines) == 1 and "hardware breakpoints" in lines[0],
         "5 checkpoints, 4 registers: one line (%s)" % lines)
    t.eq((r.rc, r.out), (ref.rc, ref.out), "5 checkpoints, 4 registers: exit code and output unchanged")
    t.eq(st, ["ok"] * 4 + ["dropped"], "5 checkpoints: the first 4 counted, the 5th dropped")
    t.ok("debug register" in r.doc["ranges"]["checkpoints"][4]["reason"], "with its reason")
r = prog(*STEPS, env={"HPCSHIM_CHECKPOINT": FIVE})
st = [c["status"] for c in r.doc["ranges"]["checkpoints"]]
if point_method_why("uprobe"):
    t.skip("5 checkpoints through uprobes", "this host: " + point_method_why("uprobe"))
else:
    t.eq((r.doc["ranges"]["point_method"], st), ("uprobe", ["ok"] * 5),
         "5 checkpoints, auto: all 5 through uprobes (%s)" % r.doc["ranges"]["point_method_note"])

t.done()
