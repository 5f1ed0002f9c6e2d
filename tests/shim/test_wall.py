"""Wall-clock time of regions, threads and the process against what the
program measures itself with CLOCK_MONOTONIC (tests/shim/wallprog.c): each call
of a region is timed inside its HPC_BEGIN/HPC_END ("inner") and around
them ("outer"), and the shim's figure must lie in [inner, outer], exactly.
Nesting and recursion: exclusive = inclusive - children's inclusive, in
integers.  A sleeping region: wall >= the sleep, task-clock far below.
Also: no event opened, folded regions and threads, a flushed document, and
hpcshim-merge's wall statistics against the files' own values."""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, LIB, PRELOAD, Tap, run, region, proc_region, main_thread

WALLPROG = os.path.join(BUILD, "tests", "shim", "wallprog")
t = Tap()


def wall(*args, **kw):
    return run([WALLPROG] + [str(a) for a in args], **kw)


def calls(out):
    """{name: [(inner, outer), ...]} from the program's "call" lines, in
    the order the calls ended."""
    c = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "call":
            c.setdefault(f[1], []).append((int(f[2]), int(f[3])))
    return c


def bracket(got, lo, hi, desc):
    t.ok(got is not None and lo <= got <= hi,
         "%s: %r in [%r, %r]" % (desc, got, lo, hi))


def check_percall(reg, measured, desc):
    """Per-call statistics against the program's own per-call figures:
    each call's wall lies in [inner, outer], so min, max and the sum do."""
    pc = reg["per_call_wall_ns"]
    inn = [i for i, _ in measured]
    out = [o for _, o in measured]
    t.eq(pc["calls"], len(measured), "%s: per-call wall calls exact" % desc)
    bracket(pc["min"], min(inn), min(out), "%s: per-call min" % desc)
    bracket(pc["max"], max(inn), max(out), "%s: per-call max" % desc)
    bracket(pc["mean"] * pc["calls"], sum(inn) - 1, sum(out) + 1,
            "%s: per-call mean x calls" % desc)
    t.ok(pc["min"] <= pc["mean"] <= pc["max"], "%s: min <= mean <= max" % desc)


# ---- a sleeping region -------------------------------------------------
t0 = time.monotonic_ns()
r = wall("nap", 50)
t1 = time.monotonic_ns()
t.eq(r.rc, 0, "nap: exit code")
c = calls(r.out)
nap = region(main_thread(r.doc), "nap")
inner, outer = c["nap"][0]
w = nap["wall_ns"]
t.ok(w["inclusive"] >= 50000000, "nap 50 ms: wall inclusive >= the sleep (%r)" % w["inclusive"])
bracket(w["inclusive"], inner, outer, "nap: wall inclusive within the program's own")
t.eq(w["exclusive"], w["inclusive"], "nap: exclusive == inclusive without children")
check_percall(nap, c["nap"], "nap")
tc = nap["inclusive"]["task-clock"]
t.ok(tc <= w["inclusive"], "nap: task-clock (%r) <= wall (one thread)" % tc)
t.ok(tc < w["inclusive"] / 10, "nap: a sleep is not on a CPU: task-clock %r < wall/10" % tc)
s = proc_region(r.doc, "nap")
t.eq(s["wall_ns"], w, "nap: summary wall == the one thread's")
t.eq(s["per_call_wall_ns"], nap["per_call_wall_ns"], "nap: summary per-call == thread's")
# The process: constructor to collection, within the test's own measure.
pw = r.doc["process"]["wall_ns"]
t.ok(0 < pw <= t1 - t0, "process wall_ns %r in (0, %r]" % (pw, t1 - t0))
m = main_thread(r.doc)
t.ok(w["inclusive"] <= m["wall_ns"] <= pw,
     "main thread wall_ns %r between its region's %r and the process's %r"
     % (m["wall_ns"], w["inclusive"], pw))

# ---- the raw counter's mapping --------------------------------------------
# With read() a boundary's wall time comes from the CPU's constant-rate
# counter (rdtsc, cntvct_el0) mapped onto CLOCK_MONOTONIC, once its rate is
# measured (the first END 100 ms into the thread; the vDSO's clock before),
# where the kernel keeps time with that counter.  The calls after it must
# lie in the program's own [inner, outer] as exactly as the first.
r = wall("nap", 120, "nap", 40, "nap", 30, "nap", 250, env={"HPCSHIM_VERBOSE": "2"})
c = calls(r.out)
nap = region(main_thread(r.doc), "nap")
check_percall(nap, c["nap"], "raw counter")
bracket(nap["wall_ns"]["inclusive"], sum(i for i, _ in c["nap"]), sum(o for _, o in c["nap"]),
        "raw counter: wall inclusive of four calls")
try:
    with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
        source = f.read().strip()
except OSError:
    source = ""
if source in {"x86_64": "tsc", "aarch64": "arch_sys_counter"}.get(os.uname().machine, ()):
    t.ok("wall time from the %s counter" % source in r.err,
         "raw counter: in use where the kernel keeps time with it (%s)" % source, r.err)
else:
    t.skip("raw counter: in use", "the kernel's clocksource is %r" % source)

# ---- no event opened: wall time is still there --------------------------
r = wall("nap", 20, env={"HPCSHIM_EVENTS": "no-such-event"})
c = calls(r.out)
nap = region(main_thread(r.doc), "nap")
t.eq(nap and nap["inclusive"], {}, "no event: the region has no counts")
bracket(nap and nap["wall_ns"]["inclusive"], c["nap"][0][0], c["nap"][0][1],
        "no event: wall inclusive still within the program's own")
t.ok(r.doc["process"]["wall_ns"] > 0 and main_thread(r.doc)["wall_ns"] > 0,
     "no event: process and thread wall_ns > 0")

# ---- nesting -------------------------------------------------------------
K = 3
r = wall("nest", K, 2)
c = calls(r.out)
m = main_thread(r.doc)
o, a, b = region(m, "n_outer"), region(m, "n_a"), region(m, "n_b")
ow, aw, bw = o["wall_ns"], a["wall_ns"], b["wall_ns"]
t.eq(ow["exclusive"], ow["inclusive"] - aw["inclusive"] - bw["inclusive"],
     "nest: outer exclusive == inclusive - children's inclusive, exactly")
t.eq(aw["exclusive"], aw["inclusive"], "nest: leaf exclusive == inclusive")
for name, reg in (("n_outer", o), ("n_a", a), ("n_b", b)):
    bracket(reg["wall_ns"]["inclusive"], sum(i for i, _ in c[name]),
            sum(x for _, x in c[name]), "nest: %s wall inclusive" % name)
    check_percall(reg, c[name], "nest %s" % name)
t.eq([o["calls"], a["calls"], b["calls"]], [K, 2 * K, K], "nest: calls exact")
# Folded names carry their wall time: with one name kept (n_outer, the
# largest), n_a and n_b are folded, and they are n_outer's children.
r = wall("nest", K, 2, env={"HPCSHIM_MAX_REGIONS": "1"})
fo = r.doc["folded"]["regions"]
kept = proc_region(r.doc, "n_outer")
t.ok(fo is not None and kept is not None and len(r.doc["regions"]) == 1,
     "max regions 1: n_outer kept, the others folded")
if fo and kept:
    t.eq(fo["wall_ns"]["inclusive"],
         kept["wall_ns"]["inclusive"] - kept["wall_ns"]["exclusive"],
         "folded regions' wall inclusive == n_outer's children's time, exactly")
    t.eq(fo["per_call_wall_ns"]["calls"], 3 * K, "folded regions: per-call wall calls")

# ---- recursion -------------------------------------------------------------
D = 3
r = wall("recurse", D, 2)
c = calls(r.out)
rec = region(main_thread(r.doc), "w_rec")
outermost = c["w_rec"][-1]  # the outermost call ends last
bracket(rec["wall_ns"]["inclusive"], outermost[0], outermost[1],
        "recursion: inclusive counted once (the outermost call)")
t.eq(rec["wall_ns"]["exclusive"], rec["wall_ns"]["inclusive"],
     "recursion: exclusive over the levels == inclusive")
check_percall(rec, c["w_rec"], "recursion")
t.eq(rec["calls"], D, "recursion: calls")

# ---- a thread ---------------------------------------------------------------
r = wall("thread", 20)
c = calls(r.out)
joined = int([l for l in r.out.splitlines() if l.startswith("thread ")][0].split()[1])
others = [th for th in r.doc["threads"] if th["tid"] != r.doc["process"]["pid"]]
t.eq(len(others), 1, "thread: its own entry")
th = others[0]
tn = region(th, "t_nap")
bracket(tn["wall_ns"]["inclusive"], c["t_nap"][0][0], c["t_nap"][0][1],
        "thread: region wall within the program's own")
bracket(th["wall_ns"], tn["wall_ns"]["inclusive"], joined,
        "thread wall_ns between its region's and pthread_create..join")
t.ok(th["wall_ns"] <= r.doc["process"]["wall_ns"], "thread wall_ns <= process wall_ns")
# Threads folded by HPCSHIM_MAX_THREADS carry theirs.
r = wall("thread", 20, env={"HPCSHIM_MAX_THREADS": "1"})
c = calls(r.out)
joined = int([l for l in r.out.splitlines() if l.startswith("thread ")][0].split()[1])
ft = r.doc["folded"]["threads"]
t.ok(ft is not None and ft["count"] == 1, "max threads 1: the worker folded")
if ft:
    bracket(ft["wall_ns"], c["t_nap"][0][0], joined,
            "folded thread's wall_ns between its region's and create..join")

# ---- the flush document carries wall time -----------------------------------
# The program sleeps 30 ms in "nap", then sleeps in a second region far
# longer than the test waits; once a flush shows the first call, SIGKILL.
tmp = tempfile.mkdtemp(prefix="hpcshim-wall-")
try:
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("HPCSHIM_") and k not in ("HPCSHIM_LIB", "HPCSHIM_BUILDDIR"):
            del env[k]
    env.update({"LD_PRELOAD": PRELOAD.format(lib=LIB), "HPCSHIM_OUTPUT": tmp, "HPCSHIM_FLUSH": "50ms"})
    t0 = time.monotonic_ns()
    p = subprocess.Popen([WALLPROG, "nap", "30", "nap", "600000"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp)

    def flushed():
        for f in os.listdir(tmp):
            if f.startswith("hpcshim-") and f.endswith(".json"):
                try:
                    with open(os.path.join(tmp, f)) as fh:
                        d = json.load(fh)
                except (OSError, ValueError):
                    return None
                nap = region(main_thread(d) or {"regions": []}, "nap")
                if nap and nap["calls"] >= 1:
                    return d
        return None

    d, limit = None, time.monotonic() + 120  # the limit only turns a hang into a failure
    while d is None and time.monotonic() < limit and p.poll() is None:
        d = flushed()
        if d is None:
            time.sleep(0.005)
    t1 = time.monotonic_ns()
    p.kill()
    p.wait()
    t.ok(d is not None and d["process"]["end"] == "flush", "flush: a flushed document with the first nap")
    if d:
        m = main_thread(d)
        nap = region(m, "nap")
        t.ok(nap["wall_ns"]["inclusive"] >= 30000000,
             "flush: nap wall inclusive >= the 30 ms sleep (%r)" % nap["wall_ns"]["inclusive"])
        t.eq((nap["calls"], nap["per_call_wall_ns"]["calls"]), (1, 1),
             "flush: the copied record consistent (calls == per-call wall calls)")
        t.ok(nap["wall_ns"]["inclusive"] <= m["wall_ns"] <= d["process"]["wall_ns"] <= t1 - t0,
             "flush: region %r <= thread %r <= process %r <= the test's %r"
             % (nap["wall_ns"]["inclusive"], m["wall_ns"], d["process"]["wall_ns"], t1 - t0))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

# ---- merge: the job's wall statistics equal those of the files ------------
MERGE = os.path.join(BUILD, "hpcshim-merge")


def stats(vals):
    """The job statistics (aggregate/job.c) of one value over the ranks."""
    n = len(vals)
    s = sorted(vals)
    mean = sum(vals) / n
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"n": n, "sum": sum(vals), "mean": mean, "min": s[0], "max": s[-1],
            "median": med, "sd": math.sqrt(sum((v - mean) ** 2 for v in vals) / n),
            "imbalance": s[-1] / mean - 1 if mean else 0.0}


def same_stats(got, want, desc):
    ok = got is not None and all(
        k in got and (got[k] == want[k] if k in ("n", "sum", "min", "max", "median")
                      else math.isclose(got[k], want[k], rel_tol=1e-12, abs_tol=1e-9))
        for k in want)
    t.ok(ok, "%s: %r == %r" % (desc, got, want))


tmp = tempfile.mkdtemp(prefix="hpcshim-wall-")
try:
    docs = []
    for rk in range(3):
        res = wall("nest", 1, 1 + 2 * rk, "nap", 5 * (3 - rk), outdir=tmp,
                   env={"OMPI_COMM_WORLD_RANK": str(rk), "OMPI_COMM_WORLD_SIZE": "3"})
        t.eq(res.rc, 0, "merge: rank %d ran" % rk)
    for f in sorted(os.listdir(tmp)):
        if f.endswith(".json"):
            with open(os.path.join(tmp, f)) as fh:
                docs.append(json.load(fh))
    docs.sort(key=lambda d: d["process"]["rank"])
    p = subprocess.run([MERGE, tmp], capture_output=True, encoding="utf-8")
    t.eq(p.returncode, 0, "merge: exit code")
    jd = json.loads(p.stdout)
    for name in ("n_outer", "n_a", "nap"):
        jr = next((x for x in jd["regions"] if x["name"] == name), None)
        for kind in ("inclusive", "exclusive"):
            vals = [proc_region(d, name)["wall_ns"][kind] for d in docs]
            want = stats(vals)
            got = jr and jr["wall_ns"][kind]
            same_stats(got, want, "merge: %s wall %s statistics" % (name, kind))
            lo, hi = vals.index(want["min"]), vals.index(want["max"])
            t.ok(got and got["min_at"]["rank"] == lo and got["max_at"]["rank"] == hi
                 and got["max_at"]["pid"] == docs[hi]["process"]["pid"],
                 "merge: %s wall %s min_at/max_at name ranks %d/%d" % (name, kind, lo, hi))
    t.eq([r.get("wall_ns") for r in jd["ranks"]], [d["process"]["wall_ns"] for d in docs],
         "merge: ranks[].wall_ns == each file's process wall_ns")
    same_stats(jd.get("wall_ns"), stats([d["process"]["wall_ns"] for d in docs]),
               "merge: the processes' wall_ns statistics")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

t.done()
