"""The in-job reduction at MPI_Finalize (preload/mpi/, issue 14), with
real Open MPI and MPICH jobs of 4 oversubscribed ranks, launched the way
tests/programs/test_programs.py launches them (LD_PRELOAD by the launcher's option):

- rank r touches (r+1) x 1000 pages in region `work`: the job document
  rank 0 writes has sum 10000, min 1000 at rank 0, max 4000 at rank 3,
  imbalance 0.6, and the same statistics for every region and event as
  hpcshim-merge of the ranks' own files;
- a Fortran program (whose finalize never calls the C MPI_Finalize under
  Open MPI) gets a job document;
- MPI_Abort in rank 1, and rank 1 killed by SIGKILL: no hang, every rank
  has a file (the flush at MPI_Init), the merge lists the incomplete ones;
- HPCSHIM_MPI_FILES=job leaves the job document only, =all both;
- a program without MPI: the same output, and its dlsym(RTLD_DEFAULT)
  probes for MPI answer as without the shim; RTLD_NEXT from a library
  preloaded after the shim still means "after the caller";
- stdout and exit status are those of the job without the shim.

Skipped (TAP skip) only when an MPI's compilers are not installed
(tools/setup.sh tests installs them).  Timeouts on the jobs are a safety
net: a hang fails the test."""
import glob
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
work = tempfile.mkdtemp(prefix="hpcshim-mpijob-")
NP, PAGES = 4, 1000
SHIM = PRELOAD.format(lib=LIB)
MERGE = os.path.join(BUILD, "hpcshim-merge")
ENV = dict(OPENMPI_ENV, TMPDIR=work)
FOREIGN = ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "MAKE", "MFLAGS")
MPIS = [
    # name, C compiler, Fortran compiler, launcher, option giving the ranks env
    ("Open MPI", "mpicc.openmpi", "mpif90.openmpi",
     ["mpirun.openmpi", "-np", str(NP), "--mca", "btl", "self,vader"],
     lambda k, v: ["-x", "%s=%s" % (k, v)]),
    ("MPICH", "mpicc.mpich", "mpif90.mpich", ["mpiexec.mpich", "-n", str(NP)],
     lambda k, v: ["-genv", k, v]),
]
runner = Work(t, work, ENV, FOREIGN, timeout=240)
build = runner.build


class Result:
    def __init__(self, p, outdir):
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr
        self.outdir = outdir
        self.files = sorted(os.listdir(outdir))
        self.jobs = [os.path.join(outdir, f) for f in self.files if f.startswith("hpcshim-job-")]
        self.ranks = [os.path.join(outdir, f) for f in self.files
                      if f.startswith("hpcshim-") and not f.startswith("hpcshim-job-")]


def launch(argv, shim_env=None, env=None):
    """argv with a fresh output directory; shim_env: the variables the
    launcher's option passes to the ranks (LD_PRELOAD among them), or None
    for the job without the shim."""
    return Result(*runner.launch(argv, env=env))


def job_argv(launcher, option, shim, extra, prog):
    argv = list(launcher)
    if shim:
        for k, v in [("LD_PRELOAD", SHIM)] + list(extra.items()):
            argv += option(k, v)
    return argv + prog


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def merge(files):
    out = os.path.join(work, "merged%d.json" % runner.runs)
    p = subprocess.run([MERGE, "-o", out] + files, capture_output=True, encoding="utf-8")
    return load(out) if p.returncode in (0, 1) and os.path.exists(out) else None


def same(what, bare, shim):
    t.eq(shim.rc, bare.rc, "%s: same exit status" % what)
    t.ok(shim.out == bare.out, "%s: same stdout" % what,
         "with the shim:\n%s\nwithout:\n%s" % (shim.out[-2000:], bare.out[-2000:]))


def stats_only(regions):
    """A job document's regions less who/where (pids differ run to run,
    never between the two documents of one run)."""
    return json.dumps(regions, sort_keys=True)


def check_job(what, r):
    if not t.eq(len(r.jobs), 1, "%s: one job document (%s)" % (what, r.files)):
        return None
    doc = load(r.jobs[0])
    t.eq(doc["schema"], "hpcshim-job/1", "%s: the job document's schema" % what)
    t.eq((doc["job"]["ranks"], doc["job"]["size"], doc["missing_ranks"],
          doc["incomplete_ranks"]), (NP, NP, [], []),
         "%s: %d ranks, none missing or incomplete" % (what, NP))
    return doc


def check_work(what, doc):
    w = proc_region(doc, "work")
    pf = w and w["inclusive"].get("page-faults")
    if not t.ok(pf is not None, "%s: region work has page-faults statistics" % what):
        return
    t.eq((pf["n"], pf["sum"], pf["min"], pf["min_at"]["rank"], pf["max"],
          pf["max_at"]["rank"]), (NP, 10000, 1000, 0, 4000, 3),
         "%s: work's page faults: n, sum, min at rank 0, max at rank 3" % what)
    t.ok(abs(pf["imbalance"] - 0.6) < 1e-12, "%s: imbalance 0.6 (got %r)"
         % (what, pf["imbalance"]))


for name, cc, fc, launcher, option in MPIS:
    why = [x for x in (cc, fc, launcher[0]) if not shutil.which(x)]
    if why:
        t.skip("%s jobs" % name, "%s not installed (tools/setup.sh tests installs it)"
               % ", ".join(why))
        continue
    impl = cc.split(".")[1]
    if not os.path.exists(os.path.join(BUILD, "preload", "mpi", "hpcshim-mpi-%s.so" % impl)):
        t.ok(False, "%s: the plugin hpcshim-mpi-%s.so was built (configure found %s)"
             % (name, impl, cc))
        continue
    prog = os.path.join(work, "mpi_job_" + impl)
    fprog = os.path.join(work, "mpi_job_f_" + impl)
    if not (build("%s C program" % name, [cc, "-O2", "-I", os.path.join(SRC, "annotate"),
                                           "-o", prog, os.path.join(PROGS, "mpi_job.c")])
            and build("%s Fortran program" % name,
                      [fc, "-o", fprog, os.path.join(PROGS, "mpi_job.f90")])):
        continue

    # The known work, in the job and offline.
    bare = launch(launcher + [prog, str(PAGES), "3"])
    t.eq((bare.rc, bare.out), (0, "ranks %d pages %d\n" % (NP, 10000)),
         "%s: the job runs without the shim" % name)
    shim = launch(job_argv(launcher, option, True, {}, [prog, str(PAGES), "3"]))
    what = "%s, HPCSHIM_MPI_FILES unset (all)" % name
    same(what, bare, shim)
    t.eq(len(shim.ranks), NP, "%s: one file per rank besides (%s)" % (what, shim.files))
    doc = check_job(what, shim)
    if doc:
        check_work(what + ", in the job", doc)
        off = merge(shim.ranks)
        if t.ok(off is not None, "%s: the rank files merge" % what):
            check_work(what + ", offline", off)
            t.eq(doc["events"], off["events"], "%s: the same events in both" % what)
            t.eq([r["name"] for r in doc["regions"]], [r["name"] for r in off["regions"]],
                 "%s: the same regions in both" % what)
            t.ok(stats_only(doc["regions"]) == stats_only(off["regions"]),
                 "%s: every region's statistics, every event, identical in the job "
                 "document and the offline merge" % what,
                 "in the job:\n%s\noffline:\n%s" % (stats_only(doc["regions"])[:3000],
                                                   stats_only(off["regions"])[:3000]))

    what = "%s, HPCSHIM_MPI_FILES=job" % name
    shim = launch(job_argv(launcher, option, True, {"HPCSHIM_MPI_FILES": "job"},
                           [prog, str(PAGES), "3"]))
    same(what, bare, shim)
    t.eq(shim.ranks, [], "%s: no rank file (%s)" % (what, shim.files))
    doc = check_job(what, shim)
    if doc:
        check_work(what, doc)

    what = "%s, Fortran" % name
    fbare = launch(launcher + [fprog])
    shim = launch(job_argv(launcher, option, True, {}, [fprog]))
    t.eq((fbare.rc, fbare.out), (0, "ranks %d sum %d\n" % (NP, NP * (NP + 1) // 2)),
         "%s: the job runs without the shim" % what)
    same(what, fbare, shim)
    check_job(what, shim)

    # Rank 1 aborts or dies; the others are killed by the launcher.
    for mode in ("abort", "kill"):
        what = "%s, rank 1 %s" % (name, "calls MPI_Abort" if mode == "abort" else
                                  "killed by SIGKILL")
        abare = launch(launcher + [prog, str(PAGES), "0", mode])
        shim = launch(job_argv(launcher, option, True, {}, [prog, str(PAGES), "0", mode]))
        t.eq(shim.rc, abare.rc, "%s: same exit status (%d), no hang" % (what, abare.rc))
        t.eq(shim.jobs, [], "%s: no job document" % what)
        off = merge(shim.ranks) if shim.ranks else None
        if t.ok(off is not None, "%s: the rank files that exist merge (%s)"
                % (what, shim.files)):
            t.eq(off["missing_ranks"], [], "%s: every rank left a file" % what)
            want = {0, 2, 3} if mode == "abort" else {1}
            t.ok(want <= set(off["incomplete_ranks"]),
                 "%s: ranks %s listed incomplete (%s)"
                 % (what, sorted(want), off["incomplete_ranks"]))

# A program without MPI.
probe = os.path.join(work, "mpi_probe")
nextlib = os.path.join(work, "next_lib.so")
if build("probe program", ["gcc", "-O2", "-o", probe, os.path.join(PROGS, "mpi_probe.c")]) \
        and build("RTLD_NEXT interposer", ["gcc", "-O2", "-shared", "-fPIC", "-o", nextlib,
                                           os.path.join(PROGS, "next_lib.c")]):
    bare = launch([probe])
    shim = launch([probe], env={"LD_PRELOAD": SHIM})
    t.ok("MPI_Init absent" in bare.out, "no MPI: the probe finds no MPI without the shim",
         bare.out)
    same("no MPI: dlsym(RTLD_DEFAULT) of the MPI names", bare, shim)
    t.eq(len(glob.glob(os.path.join(shim.outdir, "hpcshim-*.json"))), 1,
         "no MPI: the program's own result file, no job document")
    bare = launch([probe, "next"], env={"LD_PRELOAD": nextlib})
    shim = launch([probe, "next"], env={"LD_PRELOAD": SHIM + " " + nextlib})
    t.ok("getppid right" in bare.out, "RTLD_NEXT interposer works without the shim", bare.out)
    same("RTLD_NEXT from a library preloaded after the shim", bare, shim)

t.done()
