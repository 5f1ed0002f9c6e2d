"""hpcshim-merge at many ranks (issue 30): the job document from mergeable
summaries, streamed.

Synthetic rank files (the layout the shim writes, what the merge reads)
with known values: per rank, process totals and regions whose names differ
between ranks (joined by name).  Checked against the exact figures of the
files: n, sum, min, max and their holders exactly; the median and every
percentile within the sketch's stated error (quantiles.rel_error, from its level)
of the exact order statistic
(and exactly, with "exact": true, at 16 ranks and below); ranks[] lists
every rank up to 256 and beyond only the ranks the document names (the
holders of extremes); per thread role (main, OpenMP) the same statistics; missing ranks; the merge's peak memory does not grow
with the number of rank files beyond their list."""
import json
import math
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, Tap, named

MERGE = os.path.join(BUILD, "hpcshim-merge")
EVENTS = ["cycles", "instructions"]


def values(p, seed):
    """Rank r's values: lognormal cycles, instructions = 2 x cycles + r."""
    rng = random.Random(seed)
    return [(float(int(math.exp(rng.gauss(15, 0.4)))),) for _ in range(p)]


def rank_file(d, rank, size, cyc, skip=()):
    tot = {"cycles": cyc, "instructions": 2 * cyc + rank}
    regs = [{"name": "work", "parent": None, "calls": rank + 1, "threads": 1,
             "inclusive": {"cycles": cyc / 2, "instructions": cyc},
             "exclusive": {"cycles": cyc / 4, "instructions": cyc / 2}},
            {"name": "only%d" % (rank % 3), "parent": None, "calls": 1, "threads": 1,
             "inclusive": {"cycles": rank}, "exclusive": {"cycles": rank}}]
    doc = {"schema": "hpcshim/1", "tool": "test",
           "process": {"pid": 100000 + rank, "host": "n%d" % (rank // 64), "rank": rank,
                       "size": size, "job": "77.0", "start_ns": 1, "end_ns": 2,
                       "wall_ns": 1000 + rank, "complete": True, "end": "exit",
                       "exec_generation": 0},
           "events": [{"name": k, "status": "ok"} for k in EVENTS],
           "totals": tot,
           "threads": [{"tid": 100000 + rank, "totals": tot,
                        "regions": [dict(r) for r in regs]},
                       {"tid": 200000 + rank, "omp_thread": 1, "totals": {"cycles": rank},
                        "regions": [{"name": "work", "parent": None, "calls": 1,
                                     "threads": 1, "inclusive": {"cycles": 3 * rank},
                                     "exclusive": {"cycles": 3 * rank}}]}],
           "regions": regs}
    with open(os.path.join(d, "hpcshim-n-%d-j77.0-r%d.json" % (100000 + rank, rank)), "w") as f:
        json.dump(doc, f)


def make_job(d, p, seed=1, skip=()):
    os.makedirs(d)
    cyc = [v[0] for v in values(p, seed)]
    for r in range(p):
        if r not in skip:
            rank_file(d, r, p, cyc[r])
    return {r: c for r, c in enumerate(cyc) if r not in skip}


def merge(d):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run([MERGE, d], capture_output=True, encoding="utf-8")
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    doc = json.loads(p.stdout) if p.stdout.strip() else None
    return p.returncode, doc, p.stderr, max(rss, before)


def exact_order(vals, q):
    s = sorted(vals)
    return s[int(math.floor(q * (len(s) - 1)))]


def exact_median(vals):
    s = sorted(vals)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def check_stat(t, what, st, vals, holders):
    """st: a statistic of the document; vals: {rank: value}."""
    v = list(vals.values())
    lo = min(vals, key=lambda r: (vals[r], r))
    hi = min(vals, key=lambda r: (-vals[r], r))
    t.eq((st["n"], st["sum"], st["min"], st["max"]), (len(v), sum(v), vals[lo], vals[hi]),
         "%s: n, sum, min, max exact" % what)
    t.eq((st["min_at"]["rank"], st["max_at"]["rank"]), (lo, hi),
         "%s: holders of the min and max" % what)
    holders.update((lo, hi))
    q = st["quantiles"]
    exact = len(v) <= 16
    # the sketch's level: the lowest at which the spread fits 64 buckets
    lg0 = math.log(1.01 / 0.99)
    pos = [x for x in v if x > 0]  # zeros have a count of their own
    spread = math.log(max(pos) / min(pos)) if pos else 0
    level = 0
    while spread / (lg0 * 2 ** level) >= 63:
        level += 1
    g = math.exp(lg0 * 2 ** level)
    stated = (g - 1) / (g + 1)
    t.ok(q["exact"] == exact and (q["rel_error"] == 0 if exact else
                                  abs(q["rel_error"] - stated) < 1e-12 or q["rel_error"] < stated),
         "%s: quantiles %s (rel_error %s; a spread of %.1f allows %.4f)"
         % (what, "exact" if exact else "from the sketch", q["rel_error"], math.exp(spread), stated))
    bound = 0 if exact else q["rel_error"] * (1 + 1e-9)
    bad = [(k, q[k], exact_order(v, float(k[1:]) / 100)) for k in ("p10", "p25", "p75", "p90", "p99")
           if abs(q[k] - exact_order(v, float(k[1:]) / 100)) > bound * abs(exact_order(v, float(k[1:]) / 100))]
    med = exact_median(v)
    t.ok(not bad and abs(st["median"] - med) <= bound * abs(med),
         "%s: median %s vs exact %s, percentiles within the bound %s" % (what, st["median"], med, bad))


def main():
    t = Tap()
    tmp = tempfile.mkdtemp(prefix="hpcshim-merge-scale-")
    try:
        rss = {}
        for p in (12, 1000):
            d = os.path.join(tmp, "p%d" % p)
            vals = make_job(d, p)
            rc, doc, err, rss[p] = merge(d)
            if not t.ok(rc == 0 and doc, "%d rank files merge (exit %d, %r)" % (p, rc, err[:300])):
                continue
            holders = set()
            check_stat(t, "%d ranks, totals cycles" % p, doc["totals"]["cycles"], vals, holders)
            check_stat(t, "%d ranks, totals instructions" % p, doc["totals"]["instructions"],
                       {r: 2 * c + r for r, c in vals.items()}, holders)
            work = named(doc["regions"], "work")
            check_stat(t, "%d ranks, work inclusive cycles" % p, work["inclusive"]["cycles"],
                       {r: c / 2 for r, c in vals.items()}, holders)
            check_stat(t, "%d ranks, work calls" % p, work["calls"],
                       {r: r + 1 for r in vals}, holders)
            t.eq(sorted(r["name"] for r in doc["regions"]), ["only0", "only1", "only2", "work"],
                 "%d ranks: regions joined by name" % p)
            t.eq(named(doc["regions"], "only1")["ranks"], len([r for r in vals if r % 3 == 1]),
                 "%d ranks: only1 in every third rank" % p)
            th = work["threads"]["cycles"]
            top = max(vals, key=lambda r: (vals[r], -r))
            t.eq((th["n"], th["max_at"]["rank"], th["max_at"]["tid"]),
                 (2 * p, top, 100000 + top), "%d ranks: thread extremes with rank and tid" % p)
            roles = work["thread_roles"]
            t.eq(sorted(roles), ["main", "openmp"], "%d ranks: thread roles main and openmp" % p)
            check_stat(t, "%d ranks, work cycles of the main threads" % p, roles["main"]["cycles"],
                       {r: c / 2 for r, c in vals.items()}, holders)
            check_stat(t, "%d ranks, work cycles of the OpenMP threads" % p,
                       roles["openmp"]["cycles"], {r: 3 * r for r in vals}, holders)
            t.eq((roles["openmp"]["cycles"]["max_at"]["tid"], roles["main"]["cycles"]["max_at"]["tid"]),
                 (200000 + p - 1, 100000 + top), "%d ranks: the roles' holders with their tids" % p)
            listed = [r["rank"] for r in doc["ranks"]]
            if p <= 256:
                t.eq((doc["job"]["ranks_listed"], listed), ("all", list(range(p))),
                     "%d ranks: every rank listed" % p)
            else:
                t.ok(doc["job"]["ranks_listed"] == "named" and holders <= set(listed) and
                     len(listed) <= 64 and listed == sorted(listed),
                     "%d ranks: ranks[] lists the %d named ranks, the holders among them (%s)"
                     % (p, len(listed), sorted(holders)))
            t.eq((doc["job"]["ranks"], doc["job"]["size"], doc["missing_ranks"]), (p, p, []),
                 "%d ranks: all there" % p)
        # the same files in another directory order give the same document
        d = os.path.join(tmp, "gaps")
        vals = make_job(d, 300, seed=2, skip=(7, 150, 151, 299))
        rc, doc, err, _ = merge(d)
        t.ok(rc == 0 and doc["missing_ranks"] == [7, 150, 151, 299] and doc["missing_count"] == 4,
             "missing ranks below the size listed (%r)" % (doc and doc["missing_ranks"]))
        # memory: 4000 rank files against 1000
        d = os.path.join(tmp, "p4000")
        make_job(d, 4000, seed=3)
        rc, doc, err, rss[4000] = merge(d)
        t.ok(rc == 0 and doc and doc["job"]["ranks"] == 4000, "4000 rank files merge")
        t.ok(rss[4000] - rss[1000] < 8 * 1024,
             "peak memory of the merge: %d KB at 1000 files, %d KB at 4000 (streamed: < +8 MB)"
             % (rss[1000], rss[4000]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
