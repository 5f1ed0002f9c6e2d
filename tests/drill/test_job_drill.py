"""The job document's drill-down (hpcshim-merge and the in-job reduction at
MPI_Finalize; docs/drilldown.md, "Per job"): ranks run with
HPCSHIM_PRESET=topdown carry `*_drilldown`; the job document evaluates the
same tree on the job's summed counts, for the totals and each region
inclusive and exclusive.

Truth: Jarp's crafty counts (Itanium 2 tree, tests/drill/test_drilldown.py) split
unevenly over two rank files (each event its own split).  The job's nodes
must equal `hpcshim drilldown --model itanium2 --counts` on the sums, and
so reproduce Jarp's printed CPI, UCPUI and stall share; their errors must
equal the tool's on one thread carrying the summed counts and the ranks'
standard errors combined as independent (sqrt of the sum of squares, as the
job's sums do).  An event one rank has no number for makes exactly the
nodes over it null with that rank's reason (never 0); ranks of two CPU
models, or a model without a tree, give null nodes with the reason.  Real
ranks under the shim (forced skx on this PMU-less VM): every node null with
the drop reason; an Open MPI job's in-job document has the same drill-down
as the merge of its rank files."""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import SRC, BUILD, CRAFTY, HERE, LIB, PRELOAD, WORKLOAD, Tap, run

t = Tap()
DATA = os.path.join(SRC, "data", "presets")
MERGE = os.path.join(BUILD, "hpcshim-merge")
TOOL = os.path.join(BUILD, "hpcshim-drilldown")
TMP = tempfile.mkdtemp(prefix="hpcshim-jobdrill-")
ENV = dict(os.environ, HPCSHIM_PRESET_PATH=DATA)

# Jarp 2.1-3.4, crafty, counts in 1e9 (hpctest.CRAFTY), keyed by the Itanium 2 tree's specs.
CRAFTY = {k.upper(): v for k, v in CRAFTY.items()}
EVENTS = sorted(CRAFTY)


def split(counts, salt):
    """Two rank shares of each count, a different fraction per event."""
    a, b = {}, {}
    for i, k in enumerate(EVENTS):
        f = 0.15 + 0.7 * (((i + salt) * 37) % 11) / 10
        a[k] = counts[k] * f
        b[k] = counts[k] - a[k]
    return a, b


def rank_file(d, rank, totals, regions, model="itanium2", tree="topdown", se=None,
              null=None):
    """A process result as the shim writes it, for what the merge reads.
    se: {event: per-thread stderr} (two threads, each with it); regions:
    [(name, inclusive, exclusive, inclusive stderr or None)]."""
    def drill():
        return {"tree": tree, "nodes": [], "bottleneck": None, "next": None}

    tot = dict(totals)
    doc = {
        "schema": "hpcshim/1", "tool": "test",
        "process": {"pid": 1000 + rank, "host": "h", "rank": rank, "size": 2, "job": None,
                    "start_ns": 1, "end_ns": 2, "wall_ns": 1, "complete": True,
                    "end": "exit", "exec_generation": 0},
        "presets": {"model": model, "sets": [{"kind": "preset", "name": tree}]},
        "events": [{"name": k, "status": "ok"} for k in EVENTS],
        "totals": tot, "totals_drilldown": drill(),
        "threads": [], "regions": [],
    }
    for n in range(2):
        th = {"tid": 2000 + 10 * rank + n, "totals": {k: v / 2 for k, v in tot.items()},
              "regions": []}
        if se:
            th["totals_multiplexed"] = {k: {"raw": 1, "enabled": 2, "running": 1,
                                            "coverage": 0.5, "stderr": s}
                                        for k, s in se.items()}
        doc["threads"].append(th)
    if null:
        tot[null] = None
        doc["threads"][0].setdefault("totals_multiplexed", {})[null] = {
            "raw": 0, "enabled": 5, "running": 0, "coverage": 0}
    for name, inc, exc, inc_se in regions:
        r = {"name": name, "parent": None, "calls": 1, "threads": 1,
             "inclusive": inc, "exclusive": exc,
             "inclusive_drilldown": drill(), "exclusive_drilldown": drill()}
        if inc_se:
            r["inclusive_multiplexed"] = {k: {"raw": 1, "enabled": 2, "running": 1,
                                              "coverage": 0.5, "stderr": s}
                                          for k, s in inc_se.items()}
        doc["regions"].append(r)
    path = os.path.join(d, "hpcshim-h-%d.json" % (1000 + rank))
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def merge(d, env=ENV):
    p = subprocess.run([MERGE, d], capture_output=True, encoding="utf-8", env=env)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else None), p.stderr


def tool_counts(counts):
    f = os.path.join(TMP, "counts.json")
    with open(f, "w") as fh:
        json.dump(counts, fh)
    p = subprocess.run([TOOL, "--json", "--model", "itanium2", "--counts", f],
                       capture_output=True, encoding="utf-8", env=ENV)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["scopes"][0]


def tool_thread(counts, se):
    """The tool on a result file whose one thread has counts with stderr
    se: its "thread totals" scope carries the propagated errors."""
    doc = {"schema": "hpcshim/1", "presets": {"model": "itanium2"}, "totals": counts,
           "threads": [{"tid": 1, "totals": counts,
                        "totals_multiplexed": {k: {"stderr": s} for k, s in se.items()},
                        "regions": []}]}
    f = os.path.join(TMP, "result.json")
    with open(f, "w") as fh:
        json.dump(doc, fh)
    p = subprocess.run([TOOL, "--json", f], capture_output=True, encoding="utf-8", env=ENV)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["scopes"][1]


def close(a, b, rel=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def agrees(what, job, ref, errors=False):
    """Every node of the job's drill-down equals the tool's."""
    if not t.ok(job is not None and job.get("nodes"), "%s: a drill-down with nodes" % what):
        return
    got = {n["id"]: n for n in job["nodes"]}
    want = {n["id"]: n for n in ref["nodes"]}
    t.ok(list(got) == list(want), "%s: the tree's nodes in file order (%d)" % (what, len(want)),
         "got %r" % list(got))
    bad = [k for k in want if k in got and not (
        close(got[k]["value"], want[k]["value"]) and
        got[k].get("over") == want[k].get("over"))]
    t.ok(not bad, "%s: every value and over equals the tool's on the sums" % what,
         "differ: %r" % [(k, got[k], want[k]) for k in bad[:4]])
    if errors:
        bad = [k for k in want if k in got and not close(got[k].get("error"), want[k].get("error"))]
        t.ok(not bad, "%s: every node's error equals the tool's on the combined errors" % what,
             "differ: %r" % [(k, got[k], want[k]) for k in bad[:4]])
    b = ref["bottleneck"]
    t.eq(job["bottleneck"], b and b["id"], "%s: the same bottleneck" % what)
    if b:
        t.eq(job["next"], {"why": b["next_step"], "setting": b["run_next"] or ""},
             "%s: the same next step" % what)


def val(job, k):
    return next(n for n in job["nodes"] if n["id"] == k)["value"]


try:
    # ---- crafty over two ranks: totals with errors, a region --------------
    d = os.path.join(TMP, "crafty")
    os.mkdir(d)
    r0, r1 = split(CRAFTY, 0)
    i0, i1 = split({k: v / 4 for k, v in CRAFTY.items()}, 3)  # region "kernel"
    se0 = {k: 0.01 * v / 2 + 1e-4 for k, v in r0.items()}  # per thread
    se1 = {k: 0.02 * v / 2 + 1e-4 for k, v in r1.items()}
    ise0 = {k: 0.03 * v + 1e-4 for k, v in i0.items()}
    rank_file(d, 0, r0, [("kernel", i0, i0, ise0)], se=se0)
    rank_file(d, 1, r1, [("kernel", i1, i1, None), ("solo", i1, i1, None)], se=se1)
    sums = {k: r0[k] + r1[k] for k in EVENTS}
    rc, doc, err = merge(d)
    t.ok(rc == 0 and doc and err == "", "crafty over 2 ranks merges (exit %d, %r)" % (rc, err))
    job = doc["totals_drilldown"]
    t.eq(job["tree"], "topdown", "job totals_drilldown: tree as the ranks name it")
    t.ok(all(close(doc["totals"][k]["sum"], sums[k], 1e-15) for k in EVENTS if sums[k]),
         "the job's totals are the ranks' sums")
    # each thread's stderr twice per rank: the rank's is sqrt(2) x, the job's
    # sqrt(sum over ranks) -- as job.c combines the ranks' errors
    comb = {k: math.sqrt(2 * se0[k] ** 2 + 2 * se1[k] ** 2) for k in EVENTS}
    agrees("totals", job, tool_thread(sums, comb), errors=True)
    agrees("totals vs --counts", job, tool_counts(sums))
    for k, printed in (("cpi", "0.60"), ("ucpui", "0.36"), ("cpui", "0.75"), ("fe_rf", "0.31")):
        t.ok(abs(val(job, k) - float(printed)) <= 0.005 + 1e-9,
             "job %s = Jarp's %s (got %r)" % (k, printed, val(job, k)))
    t.ok(job["bottleneck"] is not None, "the job has a bottleneck (%r)" % job["bottleneck"])

    reg = next(r for r in doc["regions"] if r["name"] == "kernel")
    isum = {k: i0[k] + i1[k] for k in EVENTS}
    agrees("region kernel inclusive", reg.get("inclusive_drilldown"),
           tool_thread(isum, {k: ise0[k] for k in EVENTS}), errors=True)
    ex = reg.get("exclusive_drilldown")
    agrees("region kernel exclusive", ex, tool_counts(isum))
    t.ok(all(n.get("error") == 0 for n in ex["nodes"] if n["value"] is not None),
         "region kernel exclusive: exact counts, every error 0")
    solo = next(r for r in doc["regions"] if r["name"] == "solo")
    agrees("region solo (rank 1 only)", solo.get("inclusive_drilldown"), tool_counts(i1))

    # ---- an event rank 1 has no number for --------------------------------
    d = os.path.join(TMP, "null")
    os.mkdir(d)
    rank_file(d, 0, r0, [])
    rank_file(d, 1, r1, [], null="L2_MISSES")
    rc, doc, err = merge(d)
    job = doc["totals_drilldown"]
    ref = tool_counts({k: v for k, v in sums.items() if k != "L2_MISSES"})
    known = {n["id"] for n in tool_counts(sums)["nodes"] if n["value"] is not None}
    nulls = [n["id"] for n in ref["nodes"] if n["value"] is None and n["id"] in known]
    got = [n["id"] for n in job["nodes"] if n["value"] is None and n["id"] in known]
    t.ok(nulls and got == nulls, "L2_MISSES null in rank 1: exactly the nodes over it are null (%s)"
         % got)
    reasons = {n["reason"] for n in job["nodes"] if n["id"] in got}
    t.eq(reasons, {"rank 1: event 'L2_MISSES' multiplexed out (never on a counter)"},
         "their reason names the rank and why")
    agrees("the other nodes", job, ref)

    # ---- ranks of two models; a model without a tree; no drill-down -------
    d = os.path.join(TMP, "models")
    os.mkdir(d)
    rank_file(d, 0, r0, [])
    rank_file(d, 1, r1, [], model="skx")
    rc, doc, err = merge(d)
    job = doc["totals_drilldown"]
    t.ok(rc == 0 and job["nodes"] is None and job["bottleneck"] is None and
         "different CPU models ('itanium2' in rank 0, 'skx' in rank 1)" in job["reason"],
         "two models: no nodes, the reason (%r)" % job)
    t.ok(err.count("\n") == 1 and err.startswith("hpcshim-merge: job drill-down: "),
         "two models: one line on stderr (%r)" % err)
    d = os.path.join(TMP, "notree")
    os.mkdir(d)
    rank_file(d, 0, r0, [("kernel", i0, i0, None)], model="nosuchcpu")
    rc, doc, err = merge(d)
    t.ok(rc == 0 and doc["totals_drilldown"]["nodes"] is None and
         "no stall tree 'topdown' for CPU model 'nosuchcpu'" in doc["totals_drilldown"]["reason"]
         and doc["regions"][0]["inclusive_drilldown"]["nodes"] is None,
         "a model without a tree: null nodes with the reason, totals and regions")
    d = os.path.join(TMP, "plain")
    os.mkdir(d)
    for r, c in ((0, r0), (1, r1)):
        p = rank_file(d, r, c, [("kernel", i0, i0, None)])
        x = json.load(open(p))
        del x["totals_drilldown"]
        json.dump(x, open(p, "w"))
    rc, doc, err = merge(d)
    t.ok(rc == 0 and "totals_drilldown" not in doc and
         "inclusive_drilldown" not in doc["regions"][0],
         "ranks without a drill-down: none in the job document")

    # ---- real ranks under the shim, forced skx: null with the drop reason -
    d = os.path.join(TMP, "shim")
    os.mkdir(d)
    for r in range(2):
        res = run([WORKLOAD, "touch", "100"], outdir=d,
                  env={"HPCSHIM_PRESET": "topdown", "LIBPFM_FORCE_PMU": "skx",
                       "OMPI_COMM_WORLD_RANK": str(r), "OMPI_COMM_WORLD_SIZE": "2"})
        assert res.rc == 0, res.err
    rc, doc, err = merge(d)
    job = doc and doc.get("totals_drilldown")
    inc = doc and next(r for r in doc["regions"] if r["name"] == "touch").get("inclusive_drilldown")
    t.ok(rc == 0 and job and inc and job["nodes"] and
         all(n["value"] is None and n["reason"].startswith("rank 0: event '") and
             " dropped: " in n["reason"] for n in job["nodes"] + inc["nodes"]) and
         job["bottleneck"] is None and job["next"] is None,
         "real ranks, forced skx: every job node null with rank 0's drop reason")

    # ---- the in-job reduction at MPI_Finalize (Open MPI) ------------------
    if not shutil.which("mpicc.openmpi"):
        t.skip("in-job drill-down", "Open MPI's compiler not installed")
    else:
        work = os.path.join(TMP, "mpi")
        os.makedirs(os.path.join(work, "out"))
        exe = os.path.join(work, "mpi_job")
        p = subprocess.run(["mpicc.openmpi", "-O1", "-o", exe,
                            os.path.join(HERE, "programs", "mpi_job.c"),
                            "-I" + os.path.join(SRC, "annotate")],
                           capture_output=True, encoding="utf-8")
        t.ok(p.returncode == 0, "mpi_job builds", p.stderr[-2000:])
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("HPCSHIM_", "OMPI_", "PMIX_")) and k != "LD_PRELOAD"}
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_btl_vader_single_copy_mechanism="none",
                   OMPI_MCA_rmaps_base_oversubscribe="1", TMPDIR=work)
        argv = ["mpirun.openmpi", "-np", "2", "--mca", "btl", "self,vader"]
        for k, v in (("LD_PRELOAD", PRELOAD.format(lib=LIB)), ("HPCSHIM_PRESET", "topdown"),
                     ("LIBPFM_FORCE_PMU", "skx"), ("HPCSHIM_PRESET_PATH", DATA),
                     ("HPCSHIM_OUTPUT", os.path.join(work, "out"))):
            argv += ["-x", "%s=%s" % (k, v)]
        p = subprocess.run(argv + [exe, "1000"], env=env, cwd=work, capture_output=True,
                           encoding="utf-8", errors="replace", timeout=240)
        out = os.path.join(work, "out")
        jobs = [os.path.join(out, f) for f in os.listdir(out) if f.startswith("hpcshim-job-")]
        ranks = [os.path.join(out, f) for f in os.listdir(out)
                 if f.startswith("hpcshim-") and f not in [os.path.basename(j) for j in jobs]]
        if t.ok(p.returncode == 0 and len(jobs) == 1 and len(ranks) == 2,
                "Open MPI job of 2 ranks: rank files and one job document (%s)"
                % os.listdir(out), p.stderr[-2000:]):
            injob = json.load(open(jobs[0]))
            q = subprocess.run([MERGE] + ranks, capture_output=True, encoding="utf-8", env=ENV)
            off = json.loads(q.stdout)
            t.ok(injob.get("totals_drilldown") and injob["totals_drilldown"]["nodes"] and
                 injob["totals_drilldown"] == off["totals_drilldown"] and
                 [r.get("inclusive_drilldown") for r in injob["regions"]] ==
                 [r.get("inclusive_drilldown") for r in off["regions"]],
                 "in-job document: the same drill-down as the merge of the rank files")
finally:
    shutil.rmtree(TMP, ignore_errors=True)
t.done()
