#!/usr/bin/env python3
"""Growth with regions and threads (issue 13, items 8 and 9).

Memory per region name and per thread from the child's own maximum RSS
(wait4's rusage, end of the results included), never from a clock; the
result file bounded by HPCSHIM_MAX_REGIONS / HPCSHIM_MAX_THREADS with the
folded summary, its figures checked against known truths (calls, exact
page faults) and against the records written; hpcshim-report linear in
regions (its CPU time for 20k names against 10k).
"""
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, LIB, PRELOAD, Tap  # noqa: E402

GROWTH = os.path.join(BUILD, "tests", "shim", "growth")
REPORT = os.path.join(BUILD, "hpcshim-report")

# Budgets (bytes): a region name costs its record in the shim (~600 B with
# the default ten events, four counted) and a few dozen bytes of the
# summary table at exit; a finished thread keeps its record until exit
# (~1.7 KB with two regions).  Before streaming: ~25 KB and ~21 KB.
REGION_BUDGET = 1024
THREAD_BUDGET = 3072


def run(args, env=None):
    """Runs growth under the shim: (exit code, stdout, the child's max RSS
    in KiB, the results, their size).  The program is started by growth's
    own small "measure" process (see growth.c): the harness's RSS would
    otherwise be inherited into the figure."""
    outdir = tempfile.mkdtemp(prefix="hpcshim-growth-")
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("HPCSHIM_") or k in ("HPCSHIM_LIB", "HPCSHIM_BUILDDIR",
                                                   "HPCSHIM_SRCDIR")}
    e.pop("LD_PRELOAD", None)
    e["HPCSHIM_OUTPUT"] = outdir
    # No flush unless asked: a run that lasts past its first period (as
    # under load) would flush at a point no figure depends on.
    # test_regions measures the budget with flushes under way too.
    e["HPCSHIM_FLUSH"] = "0"
    e.update(env or {})
    try:
        p = subprocess.run([GROWTH, "measure", PRELOAD.format(lib=LIB)] +
                           [str(a) for a in args], env=e, capture_output=True,
                           text=True, cwd=outdir)
        m = re.search(r"^maxrss_kb (\d+)$", p.stdout, re.M)
        files = sorted(glob.glob(os.path.join(outdir, "hpcshim-*.json")))
        docs = [json.load(open(f)) for f in files]
        size = sum(os.path.getsize(f) for f in files)
        return p.returncode, p.stdout, int(m.group(1)) if m else 0, docs, size
    finally:
        shutil.rmtree(outdir, ignore_errors=True)


def main_thread(doc):
    return next(t for t in doc["threads"] if t["tid"] == doc["process"]["pid"])


def by_name(items):
    return {r["name"]: r for r in items}


def test_regions(tap):
    rc1, _, rss1, d1, _ = run(["regions", 1000, 1])
    rc2, _, rss2, d2, size = run(["regions", 100000, 1])
    tap.eq((rc1, rc2), (0, 0), "regions: exit codes")
    per = (rss2 - rss1) * 1024 / 99000
    tap.ok(per < REGION_BUDGET,
           "1e5 region names: %.0f B of max RSS per name (budget %d B; %d -> %d KiB)"
           % (per, REGION_BUDGET, rss1, rss2))
    # The same with the periodic flush writing while every record exists:
    # it reads the live records one at a time (aggregate/view.c), so it
    # adds memory for one record, not a copy of them all (before: ~2x).
    flush = {"HPCSHIM_FLUSH": "10ms"}
    rc3, _, rss3, _, _ = run(["regions", 1000, 1, "flushes", 2], flush)
    rc4, _, rss4, d4, _ = run(["regions", 100000, 1, "flushes", 2], flush)
    tap.eq((rc3, rc4), (0, 0), "regions with flushes: exit codes")
    fper = (rss4 - rss3) * 1024 / 99000
    tap.ok(fper < REGION_BUDGET,
           "1e5 region names, two flushes after the last: %.0f B of max RSS per name "
           "(budget %d B; %d -> %d KiB)" % (fper, REGION_BUDGET, rss3, rss4))
    tap.eq([len(d["regions"]) for d in d4], [1000],
           "with flushes: the end's file replaced the flushed one")
    if len(d2) != 1:
        tap.ok(False, "1e5 region names: one result file")
        return
    doc = d2[0]
    f = doc["folded"]["regions"]
    tap.eq(len(doc["regions"]), 1000, "1e5 names: the default limit writes 1000")
    tap.eq((f["limit"], f["kept"], f["count"]), (1000, 1000, 99000),
           "folded regions: limit, kept, count")
    tap.eq(sum(r["calls"] for r in doc["regions"]) + f["calls"], 100000,
           "calls written + folded == calls made")
    mt = main_thread(doc)
    tap.eq((len(mt["regions"]), mt.get("regions_folded", {}).get("count")),
           (1000, 99000), "the thread's records: 1000 written, 99000 folded")
    tap.ok(set(r["name"] for r in mt["regions"]) == set(r["name"] for r in doc["regions"]),
           "the thread writes the names the summary writes")
    # The largest are kept: every folded key is at most the smallest kept.
    kept = [r["inclusive"]["task-clock"]["sum"] for r in doc["regions"]]
    tap.ok(f["key_folded"]["max"] <= min(kept) and f["key_smallest_kept"] == min(kept),
           "folded are the smallest by inclusive task-clock (folded max %s, kept min %s)"
           % (f["key_folded"]["max"], min(kept)))
    tap.ok(f["key_folded"]["min"] <= f["key_folded"]["median"] <= f["key_folded"]["max"],
           "folded key distribution ordered: %s" % f["key_folded"])
    tap.ok(f["largest"] not in by_name(doc["regions"]) and f["largest"].startswith("r"),
           "largest folded name is a folded name (%s)" % f["largest"])
    excl = sum(r["exclusive"]["task-clock"]["sum"] for r in doc["regions"]) + \
        f["exclusive"]["task-clock"]["sum"]
    tap.ok(excl <= doc["totals"]["task-clock"],
           "exclusive task-clock written + folded within the process total")
    tap.eq(doc["totals"], mt["totals"], "process totals whole (one thread)")
    tap.ok(size < 5 * 1024 * 1024, "1e5 names: result file %d bytes (< 5 MiB)" % size)


def test_exact_fold(tap):
    """Exact page faults: region p<i> takes i % 3.  The sums written plus
    folded equal the truth, folded or not."""
    n = 3000
    truth = sum(i % 3 for i in range(n))
    for limit in ("all", "100"):
        rc, _, _, docs, _ = run(["touch", n], {"HPCSHIM_MAX_REGIONS": limit})
        doc = docs[0]
        f = doc["folded"]["regions"]
        pf = sum(r["inclusive"]["page-faults"]["sum"] for r in doc["regions"])
        calls = sum(r["calls"] for r in doc["regions"])
        if f:
            pf += f["inclusive"]["page-faults"]["sum"]
            calls += f["calls"]
        tap.eq((rc, int(pf), calls), (0, truth, n),
               "HPCSHIM_MAX_REGIONS=%s: page faults and calls written + folded" % limit)
        want = n if limit == "all" else int(limit)
        tap.eq(len(doc["regions"]), want, "HPCSHIM_MAX_REGIONS=%s: names written" % limit)
        if f:
            # Ties (same task-clock) aside, what is kept faulted at least
            # as much time: no kept name is smaller than a folded one.
            tap.ok(min(r["inclusive"]["task-clock"]["sum"] for r in doc["regions"])
                   >= f["key_folded"]["max"], "kept >= folded by the key")


def test_threads(tap):
    n = 20000
    rc1, _, rss1, _, _ = run(["threads", 200])
    rc2, _, rss2, docs, size = run(["threads", n])
    tap.eq((rc1, rc2), (0, 0), "threads: exit codes")
    per = (rss2 - rss1) * 1024 / (n - 200)
    tap.ok(per < THREAD_BUDGET,
           "20,000 short-lived threads: %.0f B of max RSS per thread (budget %d B; %d -> %d KiB)"
           % (per, THREAD_BUDGET, rss1, rss2))
    doc = docs[0]
    f = doc["folded"]["threads"]
    tap.eq((doc["thread_count"], len(doc["threads"])), (1000, 1000),
           "20,001 threads: the default limit writes 1000")
    tap.eq((f["limit"], f["kept"], f["count"]), (1000, 1000, n + 1 - 1000),
           "folded threads: limit, kept, count")
    tap.ok(any(t["tid"] == doc["process"]["pid"] for t in doc["threads"]),
           "the main thread is written")
    regs = by_name(doc["regions"])
    tap.eq((regs["t"]["calls"], regs["t"]["threads"]), (n, n),
           "region t: calls and threads count the folded threads")
    tap.eq(regs["u"]["calls"], sum(i % 5 + 1 for i in range(n)), "region u: calls")
    for ev, total in doc["totals"].items():
        written = sum(t["totals"][ev] for t in doc["threads"])
        tap.eq(written + f["totals"][ev], total,
               "totals whole: %s of written + folded threads" % ev)
    kept = [t["totals"]["task-clock"] for t in doc["threads"]
            if t["tid"] != doc["process"]["pid"]]
    tap.ok(f["key_folded"]["max"] <= min(kept),
           "folded threads are the smallest by task-clock")
    tap.ok(size < 4 * 1024 * 1024, "20,000 threads: result file %d bytes" % size)


def report_cpu(path):
    """CPU seconds of one hpcshim-report run (the best of three)."""
    best = None
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([REPORT, path], stdout=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = cpu if best is None else min(best, cpu)
    return best


def test_report(tap):
    cpu = {}
    for n in (10000, 20000):
        outdir = tempfile.mkdtemp(prefix="hpcshim-growth-")
        try:
            e = dict(os.environ, LD_PRELOAD=PRELOAD.format(lib=LIB),
                     HPCSHIM_OUTPUT=outdir, HPCSHIM_MAX_REGIONS="all")
            subprocess.run([GROWTH, "regions", str(n), "1"], env=e,
                           stdout=subprocess.DEVNULL, check=True)
            path = glob.glob(os.path.join(outdir, "hpcshim-*.json"))[0]
            out = subprocess.run([REPORT, path], capture_output=True, text=True).stdout
            tap.eq(sum(1 for l in out.splitlines() if re.match(r"  r\d+ ", l)), n,
                   "report: %d region rows" % n)
            cpu[n] = report_cpu(path)
        finally:
            shutil.rmtree(outdir, ignore_errors=True)
    ratio = cpu[20000] / max(cpu[10000], 1e-3)
    tap.ok(ratio < 3, "report CPU 20k/10k regions: %.2f (linear ~2, quadratic ~4; %.2f s, %.2f s)"
           % (ratio, cpu[10000], cpu[20000]))


def main():
    tap = Tap()
    test_regions(tap)
    test_exact_fold(tap)
    test_threads(tap)
    test_report(tap)
    tap.done()


if __name__ == "__main__":
    main()
