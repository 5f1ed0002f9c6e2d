"""Automatic points at the clock's price (HPCSHIM_AUTO_SAMPLE,
docs/sampling.md) against known truths: a wrapped library function whose
calls touch 1 to 5 fresh pages each in a pseudo-random pattern
(tests/shim/autosample.c), so every call's page faults are known and the
program prints their total.

- Every call is counted (calls exact) and timed; the first 64 calls are
  all measured, then one in N: the estimate of the page faults must hold
  the truth within its stated standard error, as the statistics promise:
  over 20 runs (20 seeds) the 95% intervals hold the truth in at least 15
  (the chance of fewer with an honest error is below 1e-3), and never
  miss by more than 5 standard errors.
- A region called at most 64 times is exact, with no estimate.
- HPCSHIM_AUTO_SAMPLE=all reads every call: exact, no "sample".
- measurement: N is the calibrated one, and each region's measurement_ns
  is its measured calls at call_ns and its timed calls at timed_call_ns.
- A bad value: one line, the program unchanged."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import Tap, Work, run, main_thread, region, HERE  # noqa: E402

t = Tap()
work = tempfile.mkdtemp(prefix="hpcshim-autosample-")
os.chmod(work, 0o755)
build = Work(t, work).build
LIBSO = os.path.join(work, "libautosample.so")
PROG = os.path.join(work, "autosample")
ok = (build("library", ["gcc", "-O2", "-fPIC", "-shared", "-o", LIBSO,
                        os.path.join(HERE, "shim", "autosample_lib.c")]) and
      build("program", ["gcc", "-O2", "-o", PROG, os.path.join(HERE, "shim", "autosample.c"),
                        "-L" + work, "-lautosample", "-Wl,-rpath," + work]))
if not ok:
    t.done()
ENV = {"HPCSHIM_EVENTS": "page-faults", "HPCSHIM_WRAP": "as_touch=void(pointer,long)"}


def touch(n, seed, **env):
    r = run([PROG, "touch", str(n), str(seed)], env=dict(ENV, **env))
    truth = int(r.out.split()[2]) if r.out.startswith("touched") else None
    g = region(main_thread(r.doc), "as_touch") if r.docs else None
    return r, truth, g


# ---- a sampled estimate against the truth, 20 seeds ----------------------
N = 3000
held, worst, bad = 0, 0.0, []
for seed in range(1, 21):
    r, truth, g = touch(N, seed, HPCSHIM_AUTO_SAMPLE="16")
    if not (g and g.get("sample") and truth):
        bad.append((seed, r.rc, r.err[-300:]))
        continue
    est = g["inclusive"]["page-faults"]
    se = g["sample"]["stderr"]["inclusive"]["page-faults"]
    z = abs(est - truth) / se if se else float("inf")
    held += z <= 1.96
    worst = max(worst, z)
    if seed == 1:
        s = g["sample"]
        t.eq((g["calls"], s["every"], s["exact_first"]), (N, 16, 64),
             "every call counted; the first 64 all measured, then 1 in 16")
        t.ok(64 + (N - 64) // 16 <= s["measured"] <= 64 + (N - 64) // 16 + 1,
             "measured: 64 + one per block of 16 (%d)" % s["measured"])
        t.eq(s["stderr"]["wall_ns"], {"inclusive": 0, "exclusive": 0},
             "wall time: every call timed, exact")
        m = r.doc["measurement"]
        want = round(s["measured"] * m["call_ns"] + (N - s["measured"]) * m["timed_call_ns"])
        t.ok(abs(g["measurement_ns"] - want) <= 1,
             "measurement_ns: measured calls at call_ns, the others at timed_call_ns "
             "(%d, want %d)" % (g["measurement_ns"], want))
t.eq(bad, [], "20 runs: each has its sampled estimate")
t.ok(held >= 15, "the 95%% intervals hold the truth in %d of 20 runs (>= 15)" % held)
t.ok(worst <= 5, "no estimate off by more than 5 standard errors (worst %.2f)" % worst)

# ---- the default: calibrated N; small regions exact -----------------------
r, truth, g = touch(N, 7)
m = r.doc.get("measurement") or {}
t.ok(m.get("auto_sample_from") == "calibration" and m.get("auto_sample", 0) >= 1 and
     m.get("reading_ns", 0) > 0 and m.get("clock_ns", 0) > 0,
     "measurement: a reading's and the clock's cost, N calibrated (%r)" % m)
if m.get("auto_sample", 1) > 1:
    t.eq((g["calls"], g["sample"]["every"]), (N, m["auto_sample"]),
         "default: the calibrated N (%d; a reading %.0f ns)" % (m["auto_sample"], m["reading_ns"]))
else:
    t.ok("sample" not in g and g["inclusive"]["page-faults"] == truth,
         "default: readings cheap here (%.0f ns): every call read, exact" % m["reading_ns"])
r, truth, g = touch(64, 3)
t.eq((g["calls"], g["inclusive"]["page-faults"], g.get("sample", {}).get("measured")),
     (64, truth, 64 if "sample" in g else None), "64 calls: all measured, exact")
r, truth, g = touch(N, 5, HPCSHIM_AUTO_SAMPLE="all")
t.eq((g["calls"], g["inclusive"]["page-faults"], "sample" in g), (N, truth, False),
     "HPCSHIM_AUTO_SAMPLE=all: every call read, exact (%d)" % truth)
t.eq(main_thread(r.doc)["totals"]["page-faults"] >= truth, True, "thread totals cover them")

# ---- bad value -------------------------------------------------------------
ref = run([PROG, "touch", "10", "1"], preload=False)
r = run([PROG, "touch", "10", "1"], env=dict(ENV, HPCSHIM_AUTO_SAMPLE="often"))
t.eq(r.shim_lines(), ["hpcshim: HPCSHIM_AUTO_SAMPLE='often' is not auto, all or N "
                      "(1..1000000); using auto"], "a bad value: one line")
t.eq((r.rc, r.out), (ref.rc, ref.out), "a bad value: the program unchanged")
t.done()
