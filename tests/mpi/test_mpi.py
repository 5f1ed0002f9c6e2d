"""MPI jobs under the shim, per rank and merged offline (issue 14: rank and
job identity, samples, the offline path).

Real Open MPI and MPICH jobs from Debian, 4 ranks oversubscribed on the 2
CPUs, both launch styles: LD_PRELOAD given to the ranks by the launcher's
option (-x / -genv), and exported to the launcher itself (the launcher and
its daemons then load the shim and must stay dormant).  The program is
samples/mpi_work.c, built here with each MPI's compiler wrapper: rank r
touches (r+1) x 1000 fresh pages in region "work" (exactly one page fault
each) and sleeps 50 ms in region "wait".  Checked: each rank's file has
its exact faults, process.size and process.job (equal across the ranks of
a job, different between two jobs run into one directory), the file name
carries the job; hpcshim-merge gives sum 10000, min 1000 at rank 0, max
4000 at rank 3, imbalance 0.6 exactly, job.id and job.size, refuses a
directory of two jobs and merges either one with -j.  The hybrid sample
(2 OpenMP threads per rank) lists both labelled threads of every rank with
their exact faults.  No launcher leaves a file, stdout and exit status are
those of the bare job, a failing rank included.  Without any launcher,
the variables of Slurm, Cray PALS/ALPS, MVAPICH, PMIx, PMI and Flux set by
the test on a plain program give the right rank, size and job."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, HERE, LIB, OPENMPI_ENV, PRELOAD, WORKLOAD, Tap, Work, named, proc_region

t = Tap()
SRC = os.path.dirname(HERE)
MERGE = os.path.join(BUILD, "hpcshim-merge")
SHIM = PRELOAD.format(lib=LIB)
NP, UNIT, SLEEP_MS = 4, 1000, 50
work = tempfile.mkdtemp(prefix="hpcshim-mpi-")
os.chmod(work, 0o755)
# Variables of any launcher or batch system: none reaches a run from the
# test's own environment (make check itself may run in a Slurm job).
FOREIGN = ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "SLURM_", "PALS_", "ALPS_",
           "MV2_", "MPIRUN_", "FLUX_", "PRTE_", "MAKE", "MFLAGS")
ENV = dict(OPENMPI_ENV, HOME=work, TMPDIR=work)
runner = Work(t, work, ENV, FOREIGN, timeout=180)
build = runner.build
LAUNCHERS = {"mpirun", "mpirun.openmpi", "mpiexec", "mpiexec.openmpi", "mpiexec.mpich",
             "mpiexec.hydra", "orterun", "orted", "prted", "prterun", "hydra_pmi_proxy",
             "bash", "sh"}


class Result:
    def __init__(self, p, outdir):
        self.rc, self.out, self.err, self.outdir = p.returncode, p.stdout, p.stderr, outdir
        # the rank files; the in-job document (hpcshim-job-*, preload/mpi/)
        # is test_mpi_job.py's
        self.jobs = sorted(glob.glob(os.path.join(outdir, "hpcshim-job-*.json")))
        self.files = sorted(f for f in glob.glob(os.path.join(outdir, "hpcshim-*.json"))
                            if f not in self.jobs)
        self.docs = [json.load(open(f, encoding="utf-8")) for f in self.files]

    def err_less_ours(self):
        return "".join(l for l in self.err.splitlines(True) if not l.startswith("hpcshim:"))


def launch(argv, shim=True, export=True, env=None, outdir=None):
    """Runs argv with a clean environment; shim: LD_PRELOAD exported to
    argv[0] (export) or only HPCSHIM_OUTPUT set (the launcher's option in
    argv passes LD_PRELOAD).  A fresh output directory unless given."""
    return Result(*runner.launch(argv, shim and export, env, outdir))


def merge(*args):
    p = subprocess.run([MERGE] + list(args), capture_output=True, encoding="utf-8")
    return p.returncode, json.loads(p.stdout) if p.stdout.strip() else None, p.stderr


def base(doc):
    c = doc["process"]["command"]
    return os.path.basename(c[0]) if c else ""


def name_job(job):
    """The job id as the file name spells it (aggregate/json.c)."""
    return re.sub(r"[^A-Za-z0-9.+]", "_", job)[:64]


def same(what, bare, shim):
    t.eq(shim.rc, bare.rc, "%s: same exit status (%d)" % (what, bare.rc))
    t.ok(shim.out == bare.out, "%s: same stdout" % what,
         "with the shim:\n%s\nwithout:\n%s" % (shim.out[-2000:], bare.out[-2000:]))


def ranks_files(what, res, prog):
    """One file per rank, all from the rank program, same size and job;
    returns the job id (or None)."""
    bad = ["%s rank=%s" % (base(d), d["process"]["rank"]) for d in res.docs
           if base(d) in LAUNCHERS or base(d) != prog]
    t.eq(bad, [], "%s: no file from a launcher, daemon or shell" % what)
    t.eq(sorted(d["process"]["rank"] for d in res.docs), list(range(NP)),
         "%s: exactly one file per rank (%d files)" % (what, len(res.docs)))
    t.eq(sorted({d["process"]["size"] for d in res.docs}), [NP],
         "%s: process.size is %d in every file" % (what, NP))
    jobs = {d["process"]["job"] for d in res.docs}
    job = jobs.pop() if len(jobs) == 1 else None
    t.ok(job, "%s: one process.job shared by the ranks (%r)" % (what, jobs or job))
    names = [os.path.basename(f) for f in res.files]
    want = ["hpcshim-%s-%d-j%s-r%d.json" % (d["process"]["host"], d["process"]["pid"],
                                            name_job(job or "?"), d["process"]["rank"])
            for d in res.docs]
    t.eq(names, want, "%s: file names hpcshim-<host>-<pid>-j<job>-r<rank>.json" % what)
    return job


def work_exact(what, res):
    for d in sorted(res.docs, key=lambda d: d["process"]["rank"]):
        r = d["process"]["rank"]
        reg = proc_region(d, "work")
        t.eq(reg and reg["inclusive"]["page-faults"]["sum"], (r + 1) * UNIT,
             "%s: rank %d's region work has exactly %d page faults" % (what, r, (r + 1) * UNIT))


def wait_wall(what, res):
    """Region wait sleeps SLEEP_MS: its wall time is at least that, and it
    holds almost no CPU time (a sleep, not a computation: under a tenth of
    its wall time)."""
    out = []
    for d in res.docs:
        reg = proc_region(d, "wait")
        wall = reg and reg.get("wall_ns", {}).get("inclusive")
        tc = reg and reg["inclusive"]["task-clock"]["sum"]
        out.append((d["process"]["rank"], wall, tc))
    t.ok(all(w is not None and w >= SLEEP_MS * 1e6 for _, w, _ in out),
         "%s: region wait has >= %d ms wall time in every rank %r" % (what, SLEEP_MS, out))
    t.ok(all(w and c is not None and c < w / 10 for _, w, c in out),
         "%s: region wait holds ~0 task-clock (< wall / 10) in every rank %r" % (what, out))


def merged(what, job, rc, doc, err):
    t.ok(rc == 0 and doc, "%s: hpcshim-merge succeeds (exit %d, %s)" % (what, rc, err.strip()))
    if not doc:
        return
    t.eq((doc["job"]["id"], doc["job"]["size"], doc["job"]["ranks"]), (job, NP, NP),
         "%s: job.id, job.size, job.ranks" % what)
    pf = named(doc["regions"], "work")["inclusive"]["page-faults"]
    t.eq((pf["n"], pf["sum"], pf["min"], pf["max"], pf["min_at"]["rank"], pf["max_at"]["rank"]),
         (NP, 10 * UNIT, UNIT, 4 * UNIT, 0, 3),
         "%s: work page-faults sum 10000, min 1000 at rank 0, max 4000 at rank 3" % what)
    t.ok(pf["imbalance"] == 0.6, "%s: imbalance 0.6 exactly (%r)" % (what, pf["imbalance"]))
    t.eq((doc["missing_ranks"], doc["incomplete_ranks"]), ([], []),
         "%s: no rank missing or incomplete" % what)


MPIS = [
    # name, compiler, launcher argv, the launcher's option giving the ranks LD_PRELOAD
    ("Open MPI", "mpicc.openmpi", ["mpirun.openmpi", "-np", str(NP), "--oversubscribe"],
     ["-x", "LD_PRELOAD=" + SHIM]),
    ("MPICH", "mpicc.mpich", ["mpiexec.mpich", "-n", str(NP)], ["-genv", "LD_PRELOAD", SHIM]),
]
openmp = subprocess.run(["gcc", "-fopenmp", "-E", "-x", "c", "/dev/null"],
                        capture_output=True).returncode == 0

for name, cc, launcher, option in MPIS:
    gone = [x for x in (cc, launcher[0]) if not shutil.which(x)]
    if gone:
        t.skip("%s jobs" % name, "%s not installed (tools/setup.sh installs it)" % ", ".join(gone))
        continue
    tag = cc.split(".")[1]
    prog = "mpi_work_" + tag
    if not build("%s mpi_work" % name, [cc, "-O2", "-I", SRC, "-o", os.path.join(work, prog),
                                        os.path.join(SRC, "samples", "mpi_work.c")]):
        continue
    job_argv = [os.path.join(work, prog), str(UNIT), str(SLEEP_MS)]
    bare = launch(launcher + job_argv, shim=False)
    t.eq((bare.rc, bare.out), (0, "mpi_work ranks %d pages %d\n" % (NP, 10 * UNIT)),
         "%s: the job runs without the shim" % name)
    jobs = []
    shared = os.path.join(work, "shared_" + tag)
    os.mkdir(shared)
    for style, argv, export in (("LD_PRELOAD by " + option[0], launcher + option + job_argv, False),
                                ("LD_PRELOAD exported to the launcher", launcher + job_argv, True)):
        what = "%s, %s" % (name, style)
        shim = launch(argv, export=export)
        same(what, bare, shim)
        job = ranks_files(what, shim, prog)
        work_exact(what, shim)
        wait_wall(what, shim)
        merged(what + ", merged", job, *merge(shim.outdir))
        jobs.append(job)
        for f in shim.files:  # both jobs' files into one directory
            shutil.copy(f, shared)
    t.ok(jobs[0] and jobs[1] and jobs[0] != jobs[1],
         "%s: two jobs have different job ids (%r)" % (name, jobs))
    # A directory holding both jobs: nothing merged, both listed; -j picks.
    rc, doc, err = merge(shared)
    t.ok(rc == 2 and doc is None and "2 jobs" in err and all("-j %s " % j in err for j in jobs if j),
         "%s: merging a directory of two jobs lists both and asks for -j (exit %d: %s)"
         % (name, rc, err.strip()))
    for j in jobs:
        rc, doc, err = merge("-j", j, shared)
        merged("%s, -j %s of the two" % (name, j), j, rc, doc, err)
        t.eq(sorted(x["why"] for x in (doc or {}).get("ignored_files", [])),
             ["another job (%s)" % x for x in jobs if x != j] * NP,
             "%s, -j %s: the other job's %d files listed as ignored" % (name, j, NP))
    # A rank failing with status 3: the launcher's status and output are
    # those of the bare job, and every rank still has its file.
    what = "%s, rank 2 exits with status 3" % name
    fail_argv = job_argv + ["2"]
    bare_fail = launch(launcher + fail_argv, shim=False)
    t.ok(bare_fail.rc != 0, "%s: the bare job fails (exit %d)" % (what, bare_fail.rc))
    shim = launch(launcher + fail_argv)
    same(what, bare_fail, shim)
    t.eq(sorted(d["process"]["rank"] for d in shim.docs), list(range(NP)),
         "%s: a file per rank, none from a launcher (%s)" % (what, [base(d) for d in shim.docs]))
    # Shells a launcher starts: one that execs the rank, one that forks it
    # (a job script): neither leaves a file, the rank's files are exact.
    for script in ('exec "$@"', '"$@"; exit $?'):
        what = "%s, LD_PRELOAD exported, bash -c '%s' between launcher and rank" % (name, script)
        shim = launch(launcher + ["bash", "-c", script, "job"] + job_argv)
        same(what, bare, shim)
        ranks_files(what, shim, prog)
        work_exact(what, shim)
    # The launchers say they stay dormant at HPCSHIM_VERBOSE=1.
    shim = launch(launcher + job_argv, env={"HPCSHIM_VERBOSE": "1"})
    said = sorted(set(re.findall(r"hpcshim: dormant in (\S+) ", shim.err)))
    want = ["orterun"] if tag == "openmpi" else ["hydra_pmi_proxy", "mpiexec.hydra"]
    t.eq(said, want, "%s: HPCSHIM_VERBOSE=1: the launcher processes say they are dormant" % name)

    # ---- hybrid: 2 OpenMP threads per rank --------------------------------
    if not openmp:
        t.skip("%s hybrid" % name, "no OpenMP compiler")
        continue
    hprog = "hybrid_work_" + tag
    if not build("%s hybrid_work" % name, [cc, "-O2", "-fopenmp", "-I", SRC, "-o",
                                           os.path.join(work, hprog),
                                           os.path.join(SRC, "samples", "hybrid_work.c")]):
        continue
    hargv = launcher + [os.path.join(work, hprog), "500"]
    bare = launch(hargv, shim=False)
    what = "%s hybrid, LD_PRELOAD exported" % name
    shim = launch(hargv)
    same(what, bare, shim)
    t.eq(sorted(d["process"]["rank"] for d in shim.docs), list(range(NP)),
         "%s: one file per rank" % what)
    for d in sorted(shim.docs, key=lambda d: d["process"]["rank"]):
        r = d["process"]["rank"]
        omp = sorted((th["omp_thread"], next((g["inclusive"]["page-faults"] for g in th["regions"]
                                              if g["name"] == "omp_work"), None))
                     for th in d["threads"] if th.get("omp_thread") is not None)
        t.eq(omp, [(0, (r + 1) * 500), (1, (r + 1) * 2 * 500)],
             "%s: rank %d lists its 2 OpenMP threads, labelled omp_thread 0 and 1, "
             "with their exact omp_work faults" % (what, r))
    # the job documents, of the rank files (hpcshim merge) and the one
    # built in the job at MPI_Finalize: the construct per OpenMP thread
    # over the ranks (each rank's team ran it once, before MPI_Finalize:
    # calls exact), held by the ranks' threads, and report --view openmp
    # on each alone
    rc, merged_job, err = merge(*shim.files)
    jpath = os.path.join(shim.outdir, "merged-job.json")
    with open(jpath, "w", encoding="utf-8") as f:
        json.dump(merged_job, f)
    jobs = [("merged", merged_job, jpath)]
    if t.eq(len(shim.jobs), 1, "%s: one in-job document" % what):
        with open(shim.jobs[0], encoding="utf-8") as f:
            jobs.append(("in-job", json.load(f), shim.jobs[0]))
    for jname, job, jpath in jobs:
        jwhat = "%s, %s" % (what, jname)
        cons = (job or {}).get("openmp", {}).get("constructs", [])
        if not (t.eq(len(cons), 1, "%s: the job document has the one OpenMP construct" % jwhat)
                and t.ok(cons[0]["region"].startswith("omp parallel @ "),
                         "%s: named by its region" % jwhat, cons[0]["region"])):
            continue
        c = cons[0]
        per = {x["omp_thread"]: x for x in c["per_thread"]}
        tids = {d["process"]["rank"]: {th["omp_thread"]: th["tid"] for th in d["threads"]
                                       if th.get("omp_thread") is not None} for d in shim.docs}
        t.eq((c["ranks"], c["teams"], c["threads"], sorted(per)), (NP, NP, 2, [0, 1]),
             "%s: the construct over %d ranks, one team each, OpenMP threads 0 and 1" % (jwhat, NP))
        t.eq([(per[o]["calls"]["n"], per[o]["calls"]["sum"], per[o]["calls"]["min"],
               per[o]["calls"]["max"]) for o in (0, 1)], [(NP, NP, 1, 1)] * 2,
             "%s: each OpenMP thread of each rank: exactly 1 call" % jwhat)
        files = {d["process"]["rank"]: next(x for x in d["openmp"]["constructs"]
                                            if x["region"] == c["region"]) for d in shim.docs}
        for o in (0, 1):
            wk = {r: next(x["work_ns"] for x in f["per_thread"] if x["omp_thread"] == o)
                  for r, f in files.items()}
            w = per[o]["work_ns"]
            lo, hi = min(wk, key=lambda r: (wk[r], r)), max(wk, key=lambda r: (wk[r], -r))
            t.eq((w["sum"], w["min"], w["max"], w["min_at"]["rank"], w["max_at"]["rank"],
                  w["max_at"]["tid"]),
                 (sum(wk.values()), wk[lo], wk[hi], lo, hi, tids[hi][o]),
                 "%s: OpenMP thread %d's work over the ranks: the files' sum, min, max and "
                 "holders (rank, tid)" % (jwhat, o))
        rep = subprocess.run([os.path.join(BUILD, "hpcshim"), "report", "--view", "openmp",
                              "--format", "json", jpath], capture_output=True, encoding="utf-8")
        try:
            rj = json.loads(rep.stdout)
        except ValueError:
            rj = None
        got = sorted((x["omp_thread"], x["calls"], x["work_ns"]) for k in rj
                     for x in k["per_thread"]) if isinstance(rj, list) else None
        if not t.eq(got, [(o, NP, per[o]["work_ns"]["sum"]) for o in (0, 1)],
                    "%s: report --view openmp on the job document alone: per OpenMP thread "
                    "%d calls, the ranks' work summed" % (jwhat, NP)):
            t.diag(rep.stdout[-1500:] + rep.stderr)

# ---- identity from each launcher's variables, without the launcher ------
# (rank, size, process.job, process.mpi_job): inside a Slurm step the step
# names the job of any rank (srun's PMIx and PMI-2, hydra's proxies started
# by srun) and the launcher's own id is mpi_job; not under Open MPI's
# mpirun, MVAPICH's or a Flux job (tests/mpi/test_slurm.py: the real thing).
SLURM_STEP = {"SLURM_PROCID": "0", "SLURM_NTASKS": "1", "SLURM_JOB_ID": "9",
              "SLURM_STEP_ID": "2"}
CASES = [
    ("Slurm step", {"SLURM_PROCID": "2", "SLURM_NTASKS": "4", "SLURM_JOB_ID": "777",
                    "SLURM_STEP_ID": "3"}, (2, 4, "777.3", None)),
    ("Slurm, SLURM_NPROCS and SLURM_JOBID", {"SLURM_PROCID": "1", "SLURM_NPROCS": "2",
                                             "SLURM_JOBID": "778", "SLURM_STEP_ID": "0"},
     (1, 2, "778.0", None)),
    ("Slurm batch script (no step): no rank", {"SLURM_PROCID": "0", "SLURM_NTASKS": "4",
                                                "SLURM_JOB_ID": "777"}, (None, None, None, None)),
    ("Open MPI inside a Slurm step: Open MPI's (mpirun's own node has no step)", dict(
        SLURM_STEP, OMPI_COMM_WORLD_RANK="1", OMPI_COMM_WORLD_SIZE="2",
        OMPI_MCA_ess_base_jobid="55"), (1, 2, "55", "55")),
    ("Open MPI 5 (PRRTE namespace)", {"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "3",
                                      "PMIX_RANK": "0", "PMIX_NAMESPACE": "prterun-vm-12@1"},
     (0, 3, "prterun-vm-12@1", "prterun-vm-12@1")),
    ("Open MPI 5 (PRRTE) inside a Slurm step: its namespace", dict(
        SLURM_STEP, OMPI_COMM_WORLD_RANK="0", OMPI_COMM_WORLD_SIZE="3", PMIX_RANK="0",
        PMIX_NAMESPACE="prterun-vm-12@1"), (0, 3, "prterun-vm-12@1", "prterun-vm-12@1")),
    ("PMIx only", {"PMIX_RANK": "3", "PMIX_NAMESPACE": "slurm.pmix.12.0"},
     (3, None, "slurm.pmix.12.0", "slurm.pmix.12.0")),
    ("srun --mpi=pmix (PMIx in its Slurm step): the step", {
        "PMIX_RANK": "3", "PMIX_NAMESPACE": "slurm.pmix.12.0", "SLURM_PROCID": "3",
        "SLURM_NTASKS": "4", "SLURM_JOB_ID": "12", "SLURM_STEP_ID": "0"},
     (3, None, "12.0", "slurm.pmix.12.0")),
    ("Cray PALS", {"PALS_RANKID": "5", "PALS_APID": "3f2a-77"}, (5, None, "3f2a-77", "3f2a-77")),
    ("Cray ALPS", {"ALPS_APP_PE": "3", "ALPS_APP_ID": "4242"}, (3, None, "4242", "4242")),
    ("MVAPICH", {"MV2_COMM_WORLD_RANK": "1", "MV2_COMM_WORLD_SIZE": "3", "MPIRUN_ID": "999"},
     (1, 3, "999", "999")),
    ("MVAPICH inside a Slurm step: MVAPICH's", dict(
        SLURM_STEP, MV2_COMM_WORLD_RANK="1", MV2_COMM_WORLD_SIZE="3", MPIRUN_ID="999"),
     (1, 3, "999", "999")),
    ("MVAPICH mpirun_rsh", {"MPIRUN_RANK": "2", "MPIRUN_NPROCS": "4", "MPIRUN_ID": "998"},
     (2, 4, "998", "998")),
    ("Flux", {"FLUX_TASK_RANK": "0", "FLUX_JOB_SIZE": "2", "FLUX_JOB_ID": "f2Ab3"},
     (0, 2, "f2Ab3", "f2Ab3")),
    ("PMIx of a Flux job in a Flux instance srun started: Flux's, not the step", dict(
        SLURM_STEP, PMIX_RANK="1", PMIX_NAMESPACE="f2Ab4", FLUX_TASK_RANK="1",
        FLUX_JOB_SIZE="2", FLUX_JOB_ID="f2Ab4"), (1, None, "f2Ab4", "f2Ab4")),
    ("PMI-2 of srun (PMI_JOBID)", {"PMI_RANK": "1", "PMI_SIZE": "2", "PMI_JOBID": "kvs_5"},
     (1, 2, "kvs_5", "kvs_5")),
    ("srun --mpi=pmi2 (PMI-2 in its Slurm step): the step", {
        "PMI_RANK": "1", "PMI_SIZE": "2", "PMI_JOBID": "5.1", "SLURM_PROCID": "1",
        "SLURM_NTASKS": "2", "SLURM_JOB_ID": "5", "SLURM_STEP_ID": "1"}, (1, 2, "5.1", "5.1")),
    ("PMI without hydra above: rank and size, no job", {"PMI_RANK": "1", "PMI_SIZE": "2"},
     (1, 2, None, None)),
    ("PMI ranks in a Slurm step (hydra's proxies started by srun): the step", dict(
        SLURM_STEP, PMI_RANK="2", PMI_SIZE="4"), (2, 4, "9.2", None)),
    ("PMI in a Slurm allocation without a step: PMI's", {
        "PMI_RANK": "1", "PMI_SIZE": "2", "PMI_JOBID": "kvs_7", "SLURM_PROCID": "0",
        "SLURM_JOB_ID": "9"}, (1, 2, "kvs_7", "kvs_7")),
    ("an invalid rank falls through to the next launcher", {
        "OMPI_COMM_WORLD_RANK": "x1", "OMPI_MCA_ess_base_jobid": "1", "PMI_RANK": "2",
        "PMI_SIZE": "4", "PMI_JOBID": "kvs_6"}, (2, 4, "kvs_6", "kvs_6")),
    ("a rank beyond the size keeps the rank, not the size", {
        "MV2_COMM_WORLD_RANK": "5", "MV2_COMM_WORLD_SIZE": "4"}, (5, None, None, None)),
]
for what, env, want in CASES:
    res = launch([WORKLOAD, "touch", "10"], env=env)
    got = [(d["process"]["rank"], d["process"]["size"], d["process"]["job"],
            d["process"]["mpi_job"]) for d in res.docs]
    t.eq(got, [want], "variables of %s: rank, size, job, mpi_job %r" % (what, want))
    if len(res.docs) == 1:
        d, (r, _, j, _) = res.docs[0], want
        name = "hpcshim-%s-%d%s%s.json" % (d["process"]["host"], d["process"]["pid"],
                                          "-j" + name_job(j) if j else "",
                                          "-r%d" % r if r is not None else "")
        t.eq(os.path.basename(res.files[0]), name, "variables of %s: file %s" % (what, name))

# The file names of runs without a launcher are unchanged.
res = launch([WORKLOAD, "touch", "10"])
t.ok(len(res.files) == 1 and re.fullmatch(r"hpcshim-[^/]+-\d+\.json", os.path.basename(res.files[0])),
     "no launcher: hpcshim-<host>-<pid>.json (%s)" % [os.path.basename(f) for f in res.files])

shutil.rmtree(work, ignore_errors=True)
t.done()
