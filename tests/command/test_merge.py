"""hpcshim-merge: the result files of a job in one job document.

Ranks are real processes under the shim with known work: rank r touches
(r+1) x 1000 fresh pages in region "touch" (exact page faults), started
with the variables a launcher sets (the merge only reads files, so the
launcher itself does not matter here; real mpirun jobs are in
test_programs.py).  The job figures are checked exactly against those
truths, and against the rank files themselves for the parts that are not
known in advance (multiplexing errors, threads)."""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, Tap, WORKLOAD, named, run

MERGE = os.path.join(BUILD, "hpcshim-merge")
MUXLOAD = os.path.join(BUILD, "tests", "shim", "muxload")
PAGES = 1000


def merge(*inputs):
    p = subprocess.run([MERGE] + list(inputs), capture_output=True, encoding="utf-8")
    doc = json.loads(p.stdout) if p.stdout.strip() else None
    return p.returncode, doc, p.stderr


def job(outdir, n, launcher, extra_steps=None):
    """n ranks of the workload, rank r touching (r+1) x PAGES pages."""
    for r in range(n):
        env = {k: v.format(r=r, n=n) for k, v in launcher.items()}
        steps = ["touch", (r + 1) * PAGES, "threads", 2, 50 * (r + 1)] + (extra_steps or [])
        res = run([WORKLOAD] + [str(s) for s in steps], env=env, outdir=outdir)
        assert res.rc == 0, res.err


t = Tap()
tmp = tempfile.mkdtemp(prefix="hpcshim-merge-")
try:
    # ---- four ranks, Open MPI's variables --------------------------------
    d1 = os.path.join(tmp, "ompi")
    os.mkdir(d1)
    job(d1, 4, {"OMPI_COMM_WORLD_RANK": "{r}", "OMPI_COMM_WORLD_SIZE": "{n}"})
    rc, doc, err = merge(d1)
    t.ok(rc == 0 and doc and doc["schema"] == "hpcshim-job/1" and err == "",
         "a directory of 4 rank files merges (exit %d, stderr %r)" % (rc, err))
    t.eq([r["rank"] for r in doc["ranks"]], [0, 1, 2, 3], "ranks 0..3 listed in order")
    t.ok(doc["missing_ranks"] == [] and doc["incomplete_ranks"] == [] and doc["ignored_files"] == [],
         "nothing missing, incomplete or ignored")
    pf = named(doc["regions"], "touch")["inclusive"]["page-faults"]
    t.eq((pf["n"], pf["sum"], pf["min"], pf["max"], pf["median"]), (4, 10 * PAGES, PAGES, 4 * PAGES, 2.5 * PAGES),
         "touch: n, sum, min, max, median of page-faults over the ranks, exact")
    t.ok(pf["min_at"]["rank"] == 0 and pf["max_at"]["rank"] == 3 and
         abs(pf["imbalance"] - 0.6) < 1e-12 and abs(pf["mean"] - 2.5 * PAGES) < 1e-9 and
         abs(pf["sd"] - math.sqrt(sum((PAGES * (k + 1) - 2.5 * PAGES) ** 2 for k in range(4)) / 4)) < 1e-6,
         "touch: min at rank 0, max at rank 3, imbalance max/mean - 1 = 0.6, mean and sd exact (%r)" % pf)
    calls = named(doc["regions"], "touch")["calls"]
    t.eq((calls["sum"], calls["min"], calls["max"]), (4, 1, 1), "touch: one call per rank")
    # threads: rank r's two workers touch 50(r+1) and 100(r+1) pages in "work"
    th = named(doc["regions"], "work")["threads"]["page-faults"]
    t.ok(th["n"] == 8 and th["min"] == 50 and th["max"] == 400 and
         th["min_at"]["rank"] == 0 and th["max_at"]["rank"] == 3 and
         th["max_at"]["tid"] != th["max_at"]["pid"],
         "work: thread extremes over all ranks' threads with rank and tid (%r)" % th)
    wk = named(doc["regions"], "work")["inclusive"]["page-faults"]
    t.eq((wk["sum"], wk["min"], wk["max"]), (150 * 10, 150, 600),
         "work: rank sums of the threads' regions (150 (r+1))")
    # totals: against the files themselves
    files = sorted(os.path.join(d1, f) for f in os.listdir(d1))
    docs = [json.load(open(f)) for f in files]
    tc = doc["totals"]["page-faults"]
    t.eq(tc["sum"], sum(x["totals"]["page-faults"] for x in docs),
         "process totals: the sum of the rank files' totals")
    t.ok(all(r["totals"] == x["totals"] for r, x in zip(doc["ranks"], docs)),
         "per-rank totals carried as they are")

    # ---- a list of files, and the order does not matter ------------------
    rc2, doc2, _ = merge(*reversed(files))
    t.ok(rc2 == 0 and doc2["regions"] == doc["regions"] and doc2["totals"] == doc["totals"],
         "the same files listed in another order give the same document")

    # ---- missing, incomplete, duplicate, broken --------------------------
    d2 = os.path.join(tmp, "holes")
    shutil.copytree(d1, d2)
    os.remove(os.path.join(d2, os.path.basename(files[2])))
    with open(os.path.join(d2, "hpcshim-broken.json"), "w") as f:
        f.write('{"schema": "hpcshim/1", "process": {')
    with open(os.path.join(d2, "other.json"), "w") as f:
        f.write('{"not": "ours"}')
    dup = json.load(open(files[1]))
    dup["process"]["pid"] += 100000
    with open(os.path.join(d2, "hpcshim-zz-dup.json"), "w") as f:
        json.dump(dup, f)
    rc, doc, err = merge(d2)
    t.eq(doc["missing_ranks"], [2], "a rank without a file is listed as missing")
    t.ok(rc == 1 and "hpcshim-broken.json: not valid JSON" in err and "other.json" not in err,
         "a broken result file: one line, exit 1, the rest merged; foreign JSON in the directory left alone (%r)" % err)
    t.ok(len(doc["ignored_files"]) == 1 and doc["ignored_files"][0]["rank"] == 1 and
         "hpcshim-zz-dup.json" in doc["ignored_files"][0]["file"] and "rank 1 also in" in err,
         "a second file claiming rank 1 is ignored, listed and said (%r)" % doc["ignored_files"])
    pf = named(doc["regions"], "touch")["inclusive"]["page-faults"]
    t.eq((pf["n"], pf["sum"], pf["max_at"]["rank"]), (3, 7 * PAGES, 3), "the merged figures cover the 3 ranks present")

    # a rank killed by a signal in the middle of its work: incomplete
    d3 = os.path.join(tmp, "killed")
    os.mkdir(d3)
    job(d3, 2, {"PMI_RANK": "{r}", "PMI_SIZE": "{n}"})
    res = run([WORKLOAD, "touch", "500", "raise", "15"], env={"PMI_RANK": "2", "PMI_SIZE": "3"}, outdir=d3)
    rc, doc, err = merge(d3)
    t.ok(res.rc == -15 and doc["incomplete_ranks"] == [2] and doc["missing_ranks"] == [],
         "MPICH's variables; a rank killed by SIGTERM is merged and listed as incomplete (%r)" %
         doc["incomplete_ranks"])
    t.eq(named(doc["regions"], "touch")["inclusive"]["page-faults"]["sum"], 3 * PAGES + 500,
         "the killed rank's partial results count in the merged figures")

    # files from several hosts: a rank file of another host (same format)
    d4 = os.path.join(tmp, "hosts")
    shutil.copytree(d1, d4)
    other = json.load(open(files[3]))
    other["process"]["host"], other["process"]["rank"] = "node2", 4
    with open(os.path.join(d4, "hpcshim-node2-1-r4.json"), "w") as f:
        json.dump(other, f)
    rc, doc, err = merge(d4)
    pf = named(doc["regions"], "touch")["inclusive"]["page-faults"]
    t.ok(rc == 0 and len(doc["job"]["hosts"]) == 2 and doc["job"]["hosts"][-1] == "node2",
         "ranks from two hosts merge; the hosts are listed (%r)" % doc["job"]["hosts"])
    t.ok(pf["max"] == 4 * PAGES and pf["max_at"]["rank"] == 3 and pf["n"] == 5,
         "ties: the max is held by the lowest rank (%r)" % pf["max_at"])

    # ---- multiplexing errors carried into the merged figures -------------
    d5 = os.path.join(tmp, "mux")
    os.mkdir(d5)
    for r in range(3):
        res = run([MUXLOAD, "steady", "40"], outdir=d5,
                  env={"OMPI_COMM_WORLD_RANK": str(r), "OMPI_COMM_WORLD_SIZE": "3",
                       "HPCSHIM_EVENTS": "{page-faults},{context-switches},{task-clock}",
                       "HPCSHIM_MUX": "rotate"})
        assert res.rc == 0, res.err
    rc, doc, err = merge(d5)
    src = [json.load(open(os.path.join(d5, f))) for f in sorted(os.listdir(d5))]
    st = named(doc["regions"], "steady")["inclusive"]["page-faults"]
    errs = [named(x["regions"], "steady")["inclusive_multiplexed"]["page-faults"]["stderr"] for x in src]
    want = math.sqrt(sum(e * e for e in errs))
    t.ok(rc == 0 and abs(st["sum_stderr"] - want) <= 1e-9 * max(want, 1) and
         abs(st["mean_stderr"] - want / 3) <= 1e-9 * max(want, 1),
         "rotated values: the ranks' standard errors combined into the sum's and the mean's (%.1f, %.1f)" %
         (st.get("sum_stderr", -1), want))
    ex = named(doc["regions"], "touch")
    t.ok(ex is None, "regions of other jobs are not invented")

    # ---- usage errors ----------------------------------------------------
    p = subprocess.run([MERGE], capture_output=True, encoding="utf-8")
    t.ok(p.returncode == 2 and p.stderr.startswith("usage: hpcshim-merge"), "no input: usage, exit 2")
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    p = subprocess.run([MERGE, empty], capture_output=True, encoding="utf-8")
    t.ok(p.returncode == 2 and "no hpcshim result files" in p.stderr and p.stdout == "",
         "nothing to merge: one line, exit 2, no document")
    out = os.path.join(tmp, "job.json")
    p = subprocess.run([MERGE, "-o", out, d1], capture_output=True, encoding="utf-8")
    t.ok(p.returncode == 0 and json.load(open(out))["regions"] and
         not [f for f in os.listdir(tmp) if ".tmp" in f],
         "-o writes the document atomically (no temp file left)")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
t.done()
