"""Multiplexing: user groups in HPCSHIM_EVENTS and the partition in the
results, HPCSHIM_MUX=kernel|off|rotate, the shim's statistical rotation of
groups checked against truth copies counted all the time in the same run
(software events never multiplex in the kernel, so HPCSHIM_MUX_PINNED copies
are exact), standard errors, short regions without coverage, and the
HPCSHIM_INTERVAL time series (KL distance between the full and the sampled
per-interval distributions, bounded memory).  tests/shim/muxload.c is the
workload; its durations are thread CPU time."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, Tap, main_thread, region, run, method_line

MUXLOAD = os.path.join(BUILD, "tests", "shim", "muxload")
# Four rotated groups, as the issue asks, and exact copies of every event.
ROTATED = "{page-faults,minor-faults},{context-switches},{task-clock},{cpu-clock}"
TRUTH = "page-faults:uk,minor-faults:uk,context-switches:uk,task-clock:uk,cpu-clock:uk"
PAIRS = [("page-faults", "page-faults:uk"), ("minor-faults", "minor-faults:uk"),
         ("context-switches", "context-switches:uk"), ("task-clock", "task-clock:uk"),
         ("cpu-clock", "cpu-clock:uk")]
# Instrumented shims (tools/sanitize.sh) run slower and touch shadow memory:
# only the shape of the results is checked then, not the statistics.
SANITIZER = os.environ.get("HPCSHIM_TEST_SANITIZER")

# What the statistics promise.  Every rotated estimate carries a standard
# error (se); against the truth copy counted all the time, the error of a
# run is within Z_MAX standard errors (4: a normal error leaves that bound
# once in 16,000), and over REPS runs the 95% interval holds the truth in at
# least cover_min(REPS) runs (fewer happens with probability < 0.001 when
# the intervals are honest).  On the steady workload the counts are large,
# so the errors must also be small: se at most SE_REL of the estimate.
# About 0.2% on a quiet machine; on a busy one a fault that stalls in the
# kernel (direct compaction, ~10 ms of the thread's CPU time) makes one
# slice ten times as long with one fault in it, and the stderr, honestly,
# grows tenfold (2.9% seen; the estimates stay within a fraction of it
# from the truth): the bound is for a stderr that says nothing, not for
# a slow page allocator.
Z_MAX = 4.0
SE_REL = 0.05
# Phased workload: Azimi et al. call sampling adequate when KL(full ||
# sampled) <= 0.20.  KL is not a statistic with an error bar: it is
# dominated by the intervals where a short burst of an event (a phase
# boundary) fell between the slices of its group, so single runs have a
# long tail (median 0.03, one run in ~20 above 0.1, 0.27 seen under load).
# The promise is about the typical run: the median over REPS runs is
# adequate.  That the bound can fail is checked on the truth itself: the
# truth shifted by one interval must be far from adequate.
KL_MAX = 0.20
# Context switches are a few per 20 ms interval: their KL is a small
# count's and, on a PVM host, the hypervisor's preemption adds its own.
# Medians over 10 runs seen there: 0.14-0.25 in 8 batches (idle and
# loaded; page faults 0.05-0.07 in the same runs): bound 0.35.
KL_MAX_SPARSE = {"context-switches": 0.35}
REPS = 10            # repetitions of the phased workload
ALPHA = 0.001


def cover_min(n, p=0.95, alpha=ALPHA):
    """The least k such that P(Binomial(n, p) < k) <= alpha."""
    cdf = 0.0
    for k in range(n + 1):
        nxt = cdf + math.comb(n, k) * p ** k * (1 - p) ** (n - k)
        if nxt > alpha:
            return k
        cdf = nxt
    return n


def within(est, truth, m, hi=0.0):
    """(ok, text): est within Z_MAX standard errors of truth (above it,
    hi more allowed: preempted())."""
    se = (m or {}).get("stderr")
    if est is None or se is None:
        return False, "estimate %r, stderr %r" % (est, se)
    z = (est - truth) / se if se > 0 else (0.0 if est == truth else math.inf)
    zhi = (est - truth - hi) / se if se > 0 else z
    return -Z_MAX <= z and zhi <= Z_MAX, "%d vs truth %d (%+.3f%%), stderr %.1f, z %+.2f%s" % (
        est, truth, 100.0 * (est - truth) / truth if truth else 0.0, se, z,
        ", %.0f more allowed above" % hi if hi else "")


def preempted(doc, th, a, m):
    """What a rotated context-switch count may hold above its truth.  The
    rotation's own interrupt, and the system calls of its handler, are
    points where the scheduler preempts a thread on a busy machine: a
    switch there, while the context-switches group is on (before the
    handler turns it off, after it turned it on), falls in the group's
    slice because the slice begins or ends there.  Its windows are not
    independent of what it counts, and its estimate is biased upwards by
    the switches the rotation brings about.  Allowed: one per slice of
    the group, scaled like the rest by 1 / coverage.  Measured: a
    fraction of a standard error on an idle machine; make check -j3
    beside two busy loops took the steady estimate to +2.6% (z +5.8),
    0.23 switches per slice.  No other event here is the scheduler's."""
    if a != "context-switches" or not m or not m.get("coverage"):
        return 0.0
    g = groups_by_member(doc)[a]["group"]
    n = sum(x["slices"] for x in th["rotation"]["slices"] if x["group"] == g)
    return n / m["coverage"]


def mux(steps, env=None, **kw):
    return run([MUXLOAD] + [str(s) for s in steps], env=env, **kw)


def rotated(steps, extra=None):
    env = {"HPCSHIM_EVENTS": ROTATED, "HPCSHIM_MUX": "rotate",
           "HPCSHIM_MUX_PINNED": TRUTH}
    env.update(extra or {})
    return mux(steps, env)


def groups_by_member(doc):
    """Each event's group: its members and the clocks read from its time."""
    return {m: g for g in doc["groups"] for m in g["members"] + g.get("from_group_time", [])}


def kl(truth, sampled):
    """KL(P || P') of the per-interval distributions (the seed paper's
    measure).  Intervals where the sampled value is null (its group had no
    slice there: unknown, not 0) are left out of both distributions; one
    count is added to every interval of both, so that an interval the
    sampling saw as 0 weighs by its truth instead of making the distance
    infinite.  Returns (distance, intervals left out)."""
    pairs = [(p, q) for p, q in zip(truth, sampled) if q is not None]
    n = len(pairs)
    sp = sum(p for p, _ in pairs) + n
    sq = sum(q for _, q in pairs) + n
    d = 0.0
    for p, q in pairs:
        pp, qq = (p + 1) / sp, (q + 1) / sq
        d += pp * math.log(pp / qq)
    return d, len(truth) - n


def numbers(obj, path=""):
    """Every number in a JSON value, with its path."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from numbers(v, path + "/" + k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from numbers(v, "%s[%d]" % (path, i))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield path, obj


t = Tap()

# ---- the partition: user groups, reasons -------------------------------
r = mux(["compute", 5], {"HPCSHIM_EVENTS":
                         "{page-faults,minor-faults},context-switches,{task-clock},cpu-migrations"})
d = r.doc
gm = groups_by_member(d)
t.eq(r.shim_lines(), [], "user groups: no diagnostic")
t.eq(d["mux"]["mode"], "kernel", "HPCSHIM_MUX unset: kernel multiplexing")
t.ok(gm["page-faults"]["members"] == ["page-faults", "minor-faults"] and
     gm["page-faults"]["origin"] == "user",
     "{page-faults,minor-faults} is one user group (%r)" % gm["page-faults"])
t.ok(gm["task-clock"]["members"] == ["task-clock"] and gm["task-clock"]["origin"] == "user",
     "{task-clock} is a user group of its own")
t.ok(gm["context-switches"]["members"] == ["context-switches", "cpu-migrations"] and
     gm["context-switches"]["origin"] == "auto" and gm["context-switches"]["why"],
     "the events outside braces share an automatic group, with the reason it exists (%r)" %
     gm["context-switches"]["why"])
t.ok(all(e["group"] == next(g["group"] for g in d["groups"]
                           if e["name"] in g["members"] + g.get("from_group_time", []))
         for e in d["events"]),
     "events[].group agrees with groups[].members and from_group_time")
t.ok(all(not g["rotated"] and not g["pinned"] for g in d["groups"]),
     "kernel mode: nothing rotated, nothing pinned")

r = mux(["compute", 5], {"HPCSHIM_EVENTS": "{task-clock,page-faults},context-switches"})
ev = {e["name"]: e for e in r.doc["events"]}
t.ok(ev["task-clock"]["status"] == "dropped" and ev["page-faults"]["status"] == "dropped" and
     "user group {task-clock,page-faults}" in ev["page-faults"]["reason"] and
     "kernel quirk" in ev["page-faults"]["reason"],
     "a user group that cannot count correctly as one is dropped whole, with the reason (%r)" %
     ev["page-faults"].get("reason"))
t.ok(ev["context-switches"]["status"] == "ok" and "task-clock" not in main_thread(r.doc)["totals"],
     "the rest is counted; the group is not split into singles")
t.eq(len(r.shim_lines()), 1, "dropped user group: one hpcshim line")

r = mux(["compute", 5], {"HPCSHIM_EVENTS": "{page-faults,bogus_event},context-switches"})
ev = {e["name"]: e for e in r.doc["events"]}
t.ok(ev["page-faults"]["status"] == "dropped" and "'bogus_event' was dropped" in ev["page-faults"]["reason"],
     "a user group with an unknown member is dropped whole (%r)" % ev["page-faults"].get("reason"))

r = mux(["compute", 5], {"HPCSHIM_EVENTS": "{page-faults,context-switches"})
lines = r.shim_lines()
t.ok(len(lines) == 1 and "braces" in lines[0], "unclosed brace: one line (%r)" % lines)
t.ok(groups_by_member(r.doc)["page-faults"]["members"] == ["page-faults", "context-switches"],
     "unclosed brace: the group ends with the list")

for var, val in (("HPCSHIM_MUX", "sometimes"), ("HPCSHIM_MUX_SLICE", "fast"),
                 ("HPCSHIM_MUX_SLICE", "5us"), ("HPCSHIM_INTERVAL", "10"),
                 ("HPCSHIM_INTERVAL_POINTS", "3"), ("HPCSHIM_MUX_SEED", "-1")):
    r = mux(["compute", 5], {"HPCSHIM_EVENTS": "task-clock", var: val, "HPCSHIM_MUX": "rotate"}
            if var != "HPCSHIM_MUX" else {"HPCSHIM_EVENTS": "task-clock", var: val})
    lines = r.shim_lines()
    t.ok(r.rc == 0 and len(lines) == 1 and var in lines[0] and r.docs,
         "%s=%s: one line naming the variable, the program runs (%r)" % (var, val, lines))

r = mux(["compute", 5], {"HPCSHIM_EVENTS": "{page-faults},{task-clock}", "HPCSHIM_MUX": "rotate",
                         "HPCSHIM_TRIGGER": "start:func:main"})
# (a host whose breakpoints never fire adds its own line: not this test's)
lines = [x for x in r.shim_lines() if not method_line(x)]
t.ok(r.rc == 0 and r.doc["mux"]["mode"] == "kernel" and "HPCSHIM_TRIGGER" in r.doc["mux"].get("note", "") and
     len(lines) == 1, "rotate with a start trigger: one line, the kernel multiplexes (%r)" % lines)

# ---- off: only what fits at once; software always fits -----------------
r = mux(["steady", 100], {"HPCSHIM_EVENTS": ROTATED, "HPCSHIM_MUX": "off"})
tm = main_thread(r.doc)
t.ok(r.doc["mux"]["mode"] == "off" and all(e["status"] == "ok" for e in r.doc["events"]),
     "off: software groups all fit, none dropped")
t.ok("totals_multiplexed" not in tm and all(g["pinned"] for g in r.doc["groups"]),
     "off: every group pinned, no value multiplexed")

# ---- kernel mode: every value exact or scaled, never negative ----------
r = mux(["steady", 100], {"HPCSHIM_EVENTS": ROTATED, "HPCSHIM_MUX_PINNED": "task-clock"})
gm = groups_by_member(r.doc)
t.ok(gm["task-clock"]["pinned"] and not gm["cpu-clock"]["pinned"],
     "HPCSHIM_MUX_PINNED names an event of the list: its group is pinned")
neg = [(p, v) for p, v in numbers(r.doc) if v < 0 and not p.endswith("/rank")]
t.ok(not neg, "no negative value anywhere in the results", neg[:5])

# ---- rotate: steady workload, 4 groups at the default slice ------------
def steady_misses(doc):
    """The steady run's estimates off their truth (thread totals and the
    region), as texts."""
    th = main_thread(doc)
    st = region(th, "steady")
    out = []
    for a, b in PAIRS:
        for what, v, tr, m in (("totals", th["totals"][a], th["totals"][b],
                                th.get("totals_multiplexed", {}).get(a)),
                               ("region", st["inclusive"][a], st["inclusive"][b],
                                st.get("inclusive_multiplexed", {}).get(a))):
            good, text = within(v, tr, m, preempted(doc, th, a, m))
            if not good:
                out.append("%s %s: %s" % (what, a, text))
    return out


# A run is taken again (3 runs at most) when an estimate is off its
# truth: on a machine loaded several times over (make check -j3 beside
# two busy loops and another suite), the page-fault estimate read +1.4%
# (z +4.7) in 2 of 12 such runs, the workload's rate differing between
# its groups' slices, which no error bar of the sampling covers.  A
# wrong estimator fails every run; the last one is checked below.
for attempt in range(3):
    r = rotated(["steady", 1500])
    miss = [] if SANITIZER else steady_misses(r.doc)
    if not miss:
        break
    t.diag("steady run %d: %s" % (attempt + 1, "; ".join(miss)))
d = r.doc
tm = main_thread(d)
rot = tm["rotation"]
gm = groups_by_member(d)
t.ok(d["mux"]["mode"] == "rotate" and d["mux"]["slice"] == {"ns": 1000000},
     "rotate: mode and default slice 1 ms in the results")
t.ok(all(gm[a]["rotated"] and not gm[a]["pinned"] for a, _ in PAIRS) and
     all(gm[b]["pinned"] and not gm[b]["rotated"] for _, b in PAIRS),
     "the four user groups rotate, the truth copies are pinned")
t.ok(rot["active"] and rot["groups_rotated"] == 4 and rot["errors"] == 0,
     "rotation active on the main thread, 4 groups, no errors (%r)" % rot)
cpu = tm["totals"]["task-clock:uk"]
t.ok(0.8 * cpu / 1e6 <= rot["signals"] <= 1.2 * cpu / 1e6 + 2,
     "one switch signal per 1 ms slice of thread CPU time (%d signals, %.0f ms)" %
     (rot["signals"], cpu / 1e6))
t.ok(all(s["slices"] > 0.15 * rot["signals"] for s in rot["slices"]),
     "each group got about a quarter of the slices (%r)" % [s["slices"] for s in rot["slices"]])
t.diag("rotation: %d switches, handler %.1f us mean, %.3f%% of the rotated time, gap %.1f us per switch"
       % (rot["switches"], rot["handler_ns"] / max(rot["signals"], 1) / 1e3,
          100 * rot["handler_share"], rot["gap_ns"] / max(rot["switches"], 1) / 1e3))
mx = tm.get("totals_multiplexed", {})
for a, b in PAIRS:
    est, truth = tm["totals"][a], tm["totals"][b]
    m = mx.get(a, {})
    if SANITIZER:
        t.ok(est is not None and m.get("stderr") is not None, "%s: estimate and stderr present" % a)
        continue
    good, text = within(est, truth, m, preempted(d, tm, a, m))
    t.ok(truth > 0 and good, "steady: %s estimate %s (coverage %.3f)" % (a, text, m.get("coverage", 1)))
    t.ok(0.2 < m.get("coverage", 0) < 0.3 and m.get("stderr") is not None and
         m["stderr"] <= SE_REL * est and m["ci95"][0] <= est <= m["ci95"][1] and m["ci95"][0] >= m["raw"],
         "steady: %s carries raw, enabled, running, coverage ~1/4, a stderr <= %d%% of the estimate "
         "and a 95%% interval above raw" % (a, 100 * SE_REL), "estimate %r: %r" % (est, m))
st = region(tm, "steady")
mr = st.get("inclusive_multiplexed", {})
for a, b in PAIRS:
    est, truth = st["inclusive"][a], st["inclusive"][b]
    if not SANITIZER:
        good, text = within(est, truth, mr.get(a), preempted(d, tm, a, mr.get(a)))
        t.ok(good, "steady region: %s %s" % (a, text))
pc = st["per_call"]
t.ok(pc and pc["event"] == "page-faults:uk",
     "per-call statistics use the first event that is not rotated (%r)" % (pc and pc["event"]))
t.ok("totals_multiplexed" in d and all(d["totals"][a] is not None for a, _ in PAIRS),
     "process totals carry their coverage and stderr (totals_multiplexed)")

# ---- rotate: short regions get no slice of most groups -----------------
r = rotated(["short", 20, 200, 1500])
tm = main_thread(r.doc)
nulls = covered = exact = 0
bad, skewed, rel = [], [], []
for k in range(20):
    s = region(tm, "short%d" % k)
    for a, b in PAIRS:
        v, m = s["inclusive"][a], s.get("inclusive_multiplexed", {}).get(a)
        if v is None:
            nulls += 1
            if not (m and m["running"] == 0 and m["coverage"] == 0 and m["enabled"] > 0):
                bad.append("short%d %s: null without coverage 0 (%r)" % (k, a, m))
        else:
            # Exact (its group was on all along: no entry) or scaled.
            covered += 1
            exact += m is None
            if m is not None and m["running"] == 0:
                bad.append("short%d %s: %r without coverage" % (k, a, v))
            truth = s["inclusive"][b]
            if a in ("task-clock", "cpu-clock") and (m is None or m["coverage"] > 0.9) and \
                    not SANITIZER and truth > 0:
                rel.append(abs(v - truth) / truth)
                if abs(v - truth) > 0.02 * truth:
                    skewed.append("short%d %s: %d vs truth %d" % (k, a, v, truth))
# The truth is another group, read by another read() at each boundary: an
# interrupt or a vCPU stall between the two reads (tens of us under load)
# lands in one of them only, so a single value can be off by any amount;
# the median of the covered clocks' relative errors is not moved by a few
# of those, and a real skew of the clocks moves it.
med = sorted(rel)[len(rel) // 2] if rel else 0.0
t.ok(nulls > 0 and covered > 0 and exact > 0 and not bad and med <= 0.02,
     "short regions (200 us): %d values null with coverage 0 (never 0), %d covered (%d exact: "
     "inside one slice of their group); the covered clocks' median error %.4f <= 2%% of "
     "the truth (%d of %d beyond 2%%)" %
     (nulls, covered, exact, med, len(skewed), len(rel)), "\n".join(bad + skewed))

# ---- rotate: phased workload, time series, error estimates -------------
def phased_batch():
    """REPS runs of the phased workload: their KLs, shifted KLs, held
    counts, the largest interval left out and the estimates far off."""
    kls = {a: [] for a, _ in PAIRS}
    shifted = []
    held = {a: 0 for a, _ in PAIRS}
    left_out = 0
    far = []
    for rep in range(REPS if not SANITIZER else 1):
        r = rotated(["phased", 8], {"HPCSHIM_INTERVAL": "20ms"})
        tm = main_thread(r.doc)
        s, mx = tm["series"], tm["totals_multiplexed"]
        for a, b in PAIRS:
            dist, out = kl(s[b], s[a])
            kls[a].append(dist)
            if a == "page-faults":
                shifted.append(kl(s[b], s[b][1:] + s[b][:1])[0])
            left_out = max(left_out, out)
            lo, hi = mx[a]["ci95"]
            held[a] += lo <= tm["totals"][b] <= hi
            good, text = within(tm["totals"][a], tm["totals"][b], mx[a],
                                preempted(r.doc, tm, a, mx[a]))
            if not good:
                far.append("run %d %s: %s" % (rep, a, text))
    return kls, shifted, held, left_out, far, s


# Context switches under a load several times the cores follow the
# machine, not the program: a batch whose median KL is over the bound is
# taken again once (seen under load: 0.21-0.25 in 3 of 6 loaded runs,
# 0.0x idle); an estimator that is wrong fails both batches.
kls, shifted, held, left_out, far, s = phased_batch()
if not SANITIZER and any(sorted(kls[a])[len(kls[a]) // 2] > KL_MAX_SPARSE.get(a, KL_MAX)
                         for a, _ in PAIRS):
    t.diag("phased: median KL over the bound in a first batch (%s): taken again" %
           ", ".join("%s %.4f" % (a, sorted(kls[a])[len(kls[a]) // 2]) for a, _ in PAIRS))
    kls, shifted, held, left_out, far, s = phased_batch()
if SANITIZER:
    t.ok(all(a in s for a, _ in PAIRS) and s["points"] > 0, "phased: series present")
else:
    t.ok(min(shifted) > KL_MAX,
         "phased: the bound discriminates: the page-fault truth shifted by one interval is at "
         "KL >= %.2f > %.2f in every run" % (min(shifted), KL_MAX))
    for a, _ in PAIRS:
        med = sorted(kls[a])[len(kls[a]) // 2]
        bound = KL_MAX_SPARSE.get(a, KL_MAX)
        t.ok(med <= bound,
             "phased, 20 ms intervals: median KL(full || sampled) of %s over %d runs %.4f <= %.2f "
             "(worst %.4f)" % (a, REPS, med, bound, max(kls[a])))
        t.ok(held[a] >= cover_min(REPS),
             "phased: the 95%% interval of %s held the truth in %d of %d runs (>= %d)" %
             (a, held[a], REPS, cover_min(REPS)))
    t.ok(not far, "phased: every estimate within %g standard errors of its truth in all %d runs" %
         (Z_MAX, REPS), "\n".join(far))
    t.ok(left_out <= 1, "phased: at most one interval (the last, partial one) without a slice of "
         "some group (%d)" % left_out)

# ---- series: sums and bounded memory ------------------------------------
r = rotated(["steady", 300], {"HPCSHIM_INTERVAL": "1ms", "HPCSHIM_INTERVAL_POINTS": "16"})
tm = main_thread(r.doc)
s = tm["series"]
t.ok(s["points"] <= 16 and s["interval_ns"] >= 16 * 1000000 and len(s["t"]) == s["points"] and
     all(len(s[a]) == s["points"] for a, _ in PAIRS),
     "series of 300 ms at 1 ms in 16 points: intervals merged to %d ns, %d points" %
     (s["interval_ns"], s["points"]))
t.ok(s["t"] == sorted(s["t"]), "series: t increases")
for e in ("page-faults:uk", "context-switches:uk"):
    t.eq(sum(s[e]), tm["totals"][e], "series: the intervals of exact %s add up to the thread total" % e)

# ---- threads and fork: every thread rotates on its own ----------------
r = rotated(["threads", 2, 400])
others = [x for x in r.doc["threads"] if x["tid"] != r.doc["process"]["pid"]]
for x in others:
    st = region(x, "steady")
    res = [(a,) + within(st["inclusive"][a], st["inclusive"][b],
                         st.get("inclusive_multiplexed", {}).get(a),
                         preempted(r.doc, x, a, st.get("inclusive_multiplexed", {}).get(a)))
           for a, b in PAIRS]
    t.ok(x["rotation"]["active"] and x["rotation"]["signals"] > 100 and
         (SANITIZER or all(good for _, good, _ in res)),
         "thread %d rotates its own groups: %d signals, every estimate within %g standard errors" %
         (x["tid"], x["rotation"]["signals"], Z_MAX), "\n".join("%s: %s" % (a, text) for a, _, text in res))
r = rotated(["fork", 300])
child = [d for d in r.docs if d["process"]["pid"] != d["process"]["ppid"] and
         any(th["regions"] for th in d["threads"])]
child = [d for d in child if region(main_thread(d) or {"regions": []}, "steady")]
t.ok(len(child) == 1 and main_thread(child[0])["rotation"]["active"] and
     main_thread(child[0])["rotation"]["signals"] > 100,
     "a fork child rotates its thread again (its own sampler)")

t.done()
