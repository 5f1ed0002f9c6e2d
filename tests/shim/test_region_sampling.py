"""HPCSHIM_REGION_SAMPLE: a sampled region counts every call exactly and
measures one call at random in each block of N; its counts are scaled
estimates whose standard errors cover the truth as promised.  Truths:
page faults of first-touched pages (tests/shim/sampled.c)."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, Tap, run, region, main_thread

PROG = os.path.join(BUILD, "tests", "shim", "sampled")
t = Tap()


def sampled(env, *args):
    e = {"HPCSHIM_EVENTS": "page-faults"}
    e.update(env)
    return run([PROG] + [str(a) for a in args], env=e)


# ---- constant per-call counts: the estimate is exact, its error 0 -------
C, K, N = 2000, 3, 10
r = sampled({"HPCSHIM_REGION_SAMPLE": "fixed:%d" % N}, "fixed", C, K)
t.eq(r.rc, 0, "fixed: exit status")
th = main_thread(r.doc)
fx, pl = region(th, "fixed"), region(th, "plain")
t.eq(fx["calls"], C, "fixed: calls counted exactly, measured or not")
t.eq(fx["sample"]["every"], N, "fixed: sample.every")
t.eq(fx["sample"]["measured"], C // N, "fixed: one call measured in each block of %d" % N)
t.eq(fx["per_call"]["calls"], C // N, "fixed: per_call over the measured calls")
t.eq((fx["per_call"]["min"], fx["per_call"]["max"]), (K, K),
     "fixed: each measured call touched exactly %d pages" % K)
t.eq(fx["inclusive"]["page-faults"], C * K, "fixed: scaled inclusive = calls x %d pages exactly" % K)
t.eq(fx["exclusive"]["page-faults"], C * K, "fixed: scaled exclusive")
t.eq(fx["sample"]["stderr"]["inclusive"]["page-faults"], 0.0,
     "fixed: stderr 0 when every call counts the same")
t.ok(fx["sample"]["stderr"]["wall_ns"]["inclusive"] is not None,
     "fixed: the wall time's standard error is known")
t.ok("sample" not in pl, "plain: a region not named is not sampled")
t.eq((pl["calls"], pl["inclusive"]["page-faults"]), (C, C), "plain: exact beside a sampled region")
t.ok(fx["wall_ns"]["inclusive"] > 0 and
     fx["wall_ns"]["inclusive"] == round(fx["per_call_wall_ns"]["mean"] * C),
     "fixed: wall time scaled from the measured calls' (%r)" % fx["wall_ns"]["inclusive"])

# ---- varying counts: the error bars' coverage over 100 regions ---------
R, C, N = 100, 400, 8
r = sampled({"HPCSHIM_REGION_SAMPLE": str(N)}, "vary", R, C)
t.eq(r.rc, 0, "vary: exit status")
truth = dict((l.split()[0], int(l.split()[1])) for l in r.out.split("\n") if l.strip())
th = main_thread(r.doc)
inside, dev, var, exact_calls = 0, 0.0, 0.0, 0
for i in range(R):
    g = region(th, "v%d" % i)
    est = g["inclusive"]["page-faults"]
    se = g["sample"]["stderr"]["inclusive"]["page-faults"]
    exact_calls += g["calls"] == C and g["sample"]["measured"] == C // N
    inside += abs(est - truth["v%d" % i]) <= 1.96 * se + 0.5  # estimates are rounded
    dev += est - truth["v%d" % i]
    var += se * se
t.eq(exact_calls, R, "vary: every region has %d calls and %d measured" % (C, C // N))
# 95% intervals with 50 of 400 calls measured: 93.1 of 100 held the truth
# on average over 20 runs here (87..96; the normal approximation on 50
# skewed values); fewer than 82 then has probability below 1e-4, while
# errors off by a factor of 1.5 would give about 80.
t.ok(inside >= 82, "vary: %d of %d 95%% intervals hold the true page faults (>= 82)" % (inside, R))
z = dev / math.sqrt(var) if var else float("inf")
t.ok(abs(z) < 4.5, "vary: the summed estimate is unbiased within its error (z = %.2f)" % z)

# ---- settings: per name, 1, bad items ----------------------------------
r = sampled({"HPCSHIM_REGION_SAMPLE": "4,plain:1,outer:1"}, "fixed", 400, 1)
th = main_thread(r.doc)
t.eq(region(th, "fixed")["sample"]["every"], 4, "N,name:M: the default applies to other names")
t.ok("sample" not in region(th, "plain") and "sample" not in region(th, "outer"),
     "name:1 measures every call of that name")
base = sampled({}, "fixed", 50, 1)
bad = sampled({"HPCSHIM_REGION_SAMPLE": "fixed:0,abc,:5,x:-2"}, "fixed", 50, 1)
lines = [l for l in bad.err.splitlines() if l.startswith("hpcshim:")]
t.eq(len(lines), 4, "bad items: one hpcshim: line each (%r)" % lines)
t.ok(all("HPCSHIM_REGION_SAMPLE" in l and "ignored" in l for l in lines),
     "bad items: the lines name the variable and say ignored")
t.eq((bad.rc, bad.out), (base.rc, base.out), "bad items: exit status and output unchanged")
t.ok("sample" not in region(main_thread(bad.doc), "fixed"), "bad items: nothing sampled")
t.done()
