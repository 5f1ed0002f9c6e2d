"""HPCSHIM_MPI_FILES=auto above its threshold, and the in-job reduction
with more ranks than the sketch keeps exactly (issue 30).

A real Open MPI job of 20 oversubscribed ranks (tests/programs/mpi_job.c:
rank r touches (r+1) x 1000 pages in region `work`, then opens regions):

- HPCSHIM_MPI_FILES unset (auto) with HPCSHIM_MPI_FILES_RANKS=8: the job
  document and only the files of the ranks it names (the holders of the
  extremes, listed in its ranks[]); its figures exact (sum, min at rank 0,
  max at rank 19), the median within the sketch's stated error; hpcshim report,
  html and merge work on that directory (report and html read the job
  document, merge the named ranks' files);
- HPCSHIM_MPI_FILES=all: every rank's file, and the job document's regions
  identical to hpcshim merge of the files, the sketches included (20 > 16
  ranks: the buckets, not the values).

Skipped when Open MPI's compiler is not installed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, HERE, LIB, BUILD, OPENMPI_ENV, PRELOAD, Work, proc_region

t = Tap()
SRC = os.path.dirname(HERE)
PROGS = os.path.join(HERE, "programs")
work = tempfile.mkdtemp(prefix="hpcshim-mpifiles-")
NP, PAGES, THRESHOLD = 20, 1000, 8
SHIM = PRELOAD.format(lib=LIB)
HPCSHIM = os.path.join(BUILD, "hpcshim")
MERGE = os.path.join(BUILD, "hpcshim-merge")
ENV = dict(OPENMPI_ENV, TMPDIR=work)
FOREIGN = ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "MAKE", "MFLAGS")
LAUNCHER = ["mpirun.openmpi", "-np", str(NP), "--oversubscribe", "--mca", "btl", "self,vader"]
runner = Work(t, work, ENV, FOREIGN, timeout=300)


def files(outdir):
    names = sorted(os.listdir(outdir))
    jobs = [os.path.join(outdir, f) for f in names if f.startswith("hpcshim-job-")]
    ranks = [os.path.join(outdir, f) for f in names
             if f.startswith("hpcshim-") and not f.startswith("hpcshim-job-")]
    return jobs, ranks


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def launch(extra):
    argv = list(LAUNCHER)
    for k, v in [("LD_PRELOAD", SHIM)] + list(extra.items()):
        argv += ["-x", "%s=%s" % (k, v)]
    p, outdir = runner.launch(argv + [prog, str(PAGES), "5"])
    return p, outdir


def check_work(what, doc):
    pf = proc_region(doc, "work")["inclusive"]["page-faults"]
    vals = sorted((r + 1) * PAGES for r in range(NP))
    med = (vals[NP // 2 - 1] + vals[NP // 2]) / 2
    t.eq((pf["n"], pf["sum"], pf["min"], pf["min_at"]["rank"], pf["max"], pf["max_at"]["rank"]),
         (NP, sum(vals), PAGES, 0, NP * PAGES, NP - 1),
         "%s: work's page faults: n, sum, min at rank 0, max at rank %d, exact" % (what, NP - 1))
    err = pf["quantiles"]["rel_error"]
    t.ok(abs(pf["median"] - med) <= err * med and not pf["quantiles"]["exact"] and
         0 < err <= 0.04,
         "%s: median %s within the sketch's stated %s of %s (a spread of 20: 4%% at most)"
         % (what, pf["median"], err, med))
    return pf


if not shutil.which("mpicc.openmpi") or not shutil.which("mpirun.openmpi"):
    t.skip("Open MPI jobs", "mpicc.openmpi not installed (tools/setup.sh tests installs it)")
    t.done()
prog = os.path.join(work, "mpi_job")
if not runner.build("Open MPI C program", ["mpicc.openmpi", "-O2", "-I",
                                           os.path.join(SRC, "annotate"), "-o", prog,
                                           os.path.join(PROGS, "mpi_job.c")]):
    t.done()

# ---- auto above the threshold -------------------------------------------
p, outdir = launch({"HPCSHIM_MPI_FILES_RANKS": str(THRESHOLD)})
jobs, ranks = files(outdir)
t.eq(p.returncode, 0, "auto, %d ranks: the job runs" % NP)
if t.eq(len(jobs), 1, "auto above %d ranks: one job document" % THRESHOLD):
    doc = load(jobs[0])
    check_work("auto", doc)
    named = doc["named_ranks"]
    on_disk = sorted(load(f)["process"]["rank"] for f in ranks)
    t.ok(0 < len(ranks) < NP and on_disk == named and {0, NP - 1} <= set(on_disk),
         "auto above the threshold: only the files of the ranks the document names "
         "(%s; named_ranks %s), rank 0 and %d among them" % (on_disk, named, NP - 1))
    holders = set()
    for st in list(doc["totals"].values()) + [doc["wall_ns"]]:
        holders |= {st["min_at"]["rank"], st["max_at"]["rank"]}
    t.ok(holders <= set(named), "auto: the holders of the process extremes are named (%s)"
         % sorted(holders))
    t.eq((doc["job"]["ranks"], doc["missing_ranks"]), (NP, []),
         "auto: the job document covers all %d ranks" % NP)
    # the tools on that directory
    rep = subprocess.run([HPCSHIM, "report", outdir], capture_output=True, encoding="utf-8")
    t.ok(rep.returncode == 0 and "work" in rep.stdout,
         "hpcshim report on the directory reads the job document (exit %d, %r)"
         % (rep.returncode, rep.stderr[-300:]))
    html = os.path.join(work, "job.html")
    h = subprocess.run([HPCSHIM, "html", "-o", html, outdir], capture_output=True,
                       encoding="utf-8")
    t.ok(h.returncode == 0 and os.path.getsize(html) > 0,
         "hpcshim html on the directory (exit %d, %r)" % (h.returncode, h.stderr[-300:]))
    m = subprocess.run([MERGE, outdir], capture_output=True, encoding="utf-8")
    off = json.loads(m.stdout) if m.stdout.strip() else None
    t.ok(m.returncode == 0 and off and off["job"]["ranks"] == len(ranks) and
         off["missing_count"] == NP - len(ranks),
         "hpcshim merge on the directory merges the named ranks' files, the others "
         "listed missing (exit %d, %r)" % (m.returncode, m.stderr[-300:]))

# ---- all: in the job = offline, sketches included ------------------------
p, outdir = launch({"HPCSHIM_MPI_FILES": "all"})
jobs, ranks = files(outdir)
if t.eq((len(jobs), len(ranks)), (1, NP), "all: the job document and %d rank files" % NP):
    doc = load(jobs[0])
    check_work("all, in the job", doc)
    out = os.path.join(work, "merged.json")
    m = subprocess.run([MERGE, "-o", out] + ranks, capture_output=True, encoding="utf-8")
    off = load(out) if m.returncode == 0 else None
    if t.ok(off is not None, "all: the rank files merge (%r)" % m.stderr[-300:]):
        check_work("all, offline", off)
        a = json.dumps(doc["regions"], sort_keys=True)
        b = json.dumps(off["regions"], sort_keys=True)
        t.ok(a == b, "all: every region's statistics identical in the job document and the "
             "offline merge, medians and quantiles from the sketch included",
             "in the job:\n%s\noffline:\n%s" % (a[:2000], b[:2000]))
shutil.rmtree(work, ignore_errors=True)
t.done()
