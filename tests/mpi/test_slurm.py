"""MPI and plain jobs under a real Slurm (issue 26): a private one-node
Slurm (slurmctld, slurmd, munged with their own key, socket, ports, state,
spool, pid and log files in a temporary directory) started by this test
and stopped by pid at its end, whatever happens.

Per case: one result file per rank, ranks 0..3, each with its exact work
(rank r touches (r+1) x PAGES pages in region "work", then calls regions
r0..r2 once each; the plain program's rank touches (r+1) x PAGES pages in
region "touch"), no file from srun, slurmstepd, slurmd, the shells or
hpcshim run, and process.job = Slurm's JOBID.STEPID (from srun -v, not
from the files), the MPI's own id in process.mpi_job.  The in-job
reduction (preload/mpi/) writes its job document beside the rank files
under srun, for both MPIs.

- srun -n 4 of a plain program, of Open MPI (--mpi=pmix) and MPICH
  (--mpi=pmi2) programs, the shim given three ways: srun
  --export=ALL,LD_PRELOAD=...,HPCSHIM_OUTPUT=..., srun hpcshim run -o DIR
  -- prog, and LD_PRELOAD exported to srun itself;
- sbatch of a script with two steps (Open MPI, then MPICH with twice the
  pages): each step's files carry their own JOBID.STEPID; hpcshim merge of
  the directory refuses to mix them and lists both, -j merges each with
  its own figures;
- salloc + mpirun: MPICH's hydra starts its proxies with srun, its ranks
  are named by that step; Open MPI's mpirun starts the ranks of its own
  node itself (no step) and only the other nodes' through srun: its ranks
  keep its own jobid, also when they do run inside a step
  (ras_base_launch_orted_on_hn).

slurmd runs with the shim preloaded (HPCSHIM_OUTPUT: a directory that
must stay empty): slurmd and the slurmstepds it starts stay dormant.
Skipped (TAP skip) only when not root or when Slurm or munge is not
installed (tools/setup.sh tests installs them); a daemon that does not
start fails.  Timeouts are a safety net only: the node is awaited by
polling sinfo."""
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, HERE, LIB, OPENMPI_ENV, PRELOAD, WORKLOAD, Tap, Work, proc_region

t = Tap()
SRC = os.path.dirname(HERE)
PROGS = os.path.join(HERE, "programs")
SHIM = PRELOAD.format(lib=LIB)
HPCSHIM = os.path.join(BUILD, "hpcshim")
NP, PAGES, NREG = 4, 1000, 3
TOOLS = ["munged", "munge", "slurmctld", "slurmd", "srun", "sbatch", "salloc", "sinfo",
         "squeue", "scancel"]
# Variables of any launcher or batch system: none reaches a run from the
# test's own environment (make check itself may run in a Slurm job).
FOREIGN = ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "SLURM_", "SALLOC_", "SBATCH_",
           "SRUN_", "PALS_", "ALPS_", "MV2_", "MPIRUN_", "FLUX_", "PRTE_", "MAKE", "MFLAGS")
MPIS = {
    # tag: (name, compiler, srun --mpi, mpirun in an allocation)
    "openmpi": ("Open MPI", "mpicc.openmpi", "pmix", ["mpirun.openmpi", "-np", str(NP)]),
    "mpich": ("MPICH", "mpicc.mpich", "pmi2", ["mpiexec.mpich", "-n", str(NP)]),
}


def bail(why):
    t.skip("Slurm jobs", why)
    t.done()


if os.geteuid() != 0:
    bail("not root: the test starts its own slurmctld, slurmd and munged")
gone = [x for x in TOOLS if not shutil.which(x)]
if gone:
    bail("%s not installed (tools/setup.sh tests installs slurm-wlm and munge)" % ", ".join(gone))

work = tempfile.mkdtemp(prefix="hpcshim-slurm-")
os.chmod(work, 0o755)  # munged wants every directory above its socket searchable
# Open MPI as root, without cross-memory attach, its shared memory
runner = Work(t, work, dict(OPENMPI_ENV, TMPDIR=work, SLURM_CONF=os.path.join(work, "slurm.conf"),
                            OMPI_MCA_btl="self,vader"), FOREIGN, timeout=120)
clean_env, cmd, outdir = runner.environment, runner.run, runner.outdir
HOST = socket.gethostname().split(".")[0]
started = []  # (name, Popen): exactly what this test started, stopped by pid


def stop_all():
    """SIGTERM to each process started (by pid), SIGKILL after 30 s;
    returns the names of those that had died before."""
    died = [n for n, p in started if p.poll() is not None]
    for _, p in reversed(started):
        if p.poll() is None:
            p.terminate()
    for name, p in reversed(started):
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            t.diag("%s (pid %d) ignored SIGTERM: SIGKILL" % (name, p.pid))
            p.kill()
            p.wait()
    del started[:]
    return died


def on_signal(signo, _frame):
    raise SystemExit(128 + signo)  # the finally below stops the daemons


for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, on_signal)


def free_ports(n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def start(name, argv, env):
    log = open(os.path.join(work, name + ".out"), "wb")
    p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log,
                         stderr=subprocess.STDOUT)
    log.close()
    started.append((name, p))
    return p


def tail(name, n=15):
    try:
        with open(os.path.join(work, name), errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError as e:
        return str(e)


def until(what, cond, limit):
    """Polls cond() until true, a started daemon died, or limit seconds
    (safety) passed; returns whether cond held."""
    end = time.monotonic() + limit
    while True:
        if cond():
            return True
        dead = [(n, p.returncode) for n, p in started if p.poll() is not None]
        if dead or time.monotonic() > end:
            t.diag("waiting for %s: %s" % (what, "exited: %s" % dead if dead else "timed out"))
            return False
        time.sleep(0.05)


def start_slurm():
    """munged, slurmctld, slurmd; True when the node is idle."""
    mdir = os.path.join(work, "munge")
    os.mkdir(mdir, 0o755)
    key = os.path.join(mdir, "munge.key")
    with open(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
        f.write(os.urandom(1024))
    sock = os.path.join(mdir, "munge.socket")
    env = clean_env()
    start("munged", ["munged", "--foreground", "--key-file=" + key, "--socket=" + sock,
                     "--pid-file=" + os.path.join(mdir, "munged.pid"),
                     "--log-file=" + os.path.join(mdir, "munged.log"),
                     "--seed-file=" + os.path.join(mdir, "munged.seed")], env)
    if not t.ok(until("munged", lambda: cmd(["munge", "-n", "-S", sock], timeout=10)
                      .returncode == 0, 30), "munged starts (its socket gives a credential)",
                tail("munged.out")):
        return False
    ctld_port, slurmd_port = free_ports(2)
    for d in ("state", "spool"):
        os.mkdir(os.path.join(work, d), 0o755)
    conf = """\
ClusterName=hpcshimtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={work}/state
SlurmdSpoolDir={work}/spool
SlurmctldPidFile={work}/slurmctld.pid
SlurmdPidFile={work}/slurmd.pid
SlurmctldLogFile={work}/slurmctld.log
SlurmdLogFile={work}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
""".format(host=HOST, ctld_port=ctld_port, slurmd_port=slurmd_port, sock=sock, work=work)
    with open(os.path.join(work, "slurm.conf"), "w") as f:
        f.write(conf)
    start("slurmctld", ["slurmctld", "-D", "-c"], env)
    # slurmd, and so every slurmstepd, with the shim preloaded: dormant.
    denv = dict(env, LD_PRELOAD=SHIM, HPCSHIM_OUTPUT=DAEMONS)
    start("slurmd", ["slurmd", "-D"], denv)
    state = [None]

    def idle():
        p = cmd(["sinfo", "-h", "-N", "-o", "%T"], timeout=20)
        state[0] = (p.returncode, p.stdout.strip(), p.stderr.strip()[-300:])
        return p.returncode == 0 and p.stdout.strip() == "idle"
    return t.ok(until("the node to be idle", idle, 60),
                "slurmctld and slurmd start, node %s idle (sinfo: %r)" % (HOST, state[0]),
                tail("slurmctld.log") + tail("slurmd.log"))


def build(tag):
    name, cc = MPIS[tag][:2]
    prog = os.path.join(work, "mpi_job_" + tag)
    p = cmd([cc, "-O2", "-I", os.path.join(SRC, "annotate"), "-o", prog,
             os.path.join(PROGS, "mpi_job.c")], timeout=300)
    ok = t.ok(p.returncode == 0, "%s: mpi_job builds" % name, p.stdout[-2000:] + p.stderr[-3000:])
    plugin = os.path.join(BUILD, "preload", "mpi", "hpcshim-mpi-%s.so" % tag)
    ok = t.ok(os.path.exists(plugin), "%s: the plugin %s was built (configure found %s)"
              % (name, os.path.basename(plugin), cc)) and ok
    return prog if ok else None


# ---- results -------------------------------------------------------------
def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Files:
    def __init__(self, d):
        self.dir = d
        self.names = sorted(os.listdir(d))
        self.job_names = [f for f in self.names if f.startswith("hpcshim-job-")]
        self.jobs = [load(os.path.join(d, f)) for f in self.job_names]
        self.ranks = [load(os.path.join(d, f)) for f in self.names
                      if f.startswith("hpcshim-") and not f.startswith("hpcshim-job-")]


def steps_of(text):
    """The steps srun -v says it launched: ["JOB.STEP", ...]."""
    return re.findall(r"launching StepId=(\d+\.\d+) ", text)


def name_job(job):
    """The job id as the file name spells it (aggregate/json.c)."""
    return re.sub(r"[^A-Za-z0-9.+]", "_", job)[:64]


def check_ranks(what, docs, prog, job, mpi_job, size, pages, region="work", nreg=NREG):
    """docs: one rank each, 0..NP-1, all from prog (no launcher, daemon,
    shell or hpcshim run), job and mpi_job as given (mpi_job: a value, a
    regex (re.Pattern) or None), exact work."""
    t.diag("%s: process.job %r, mpi_job %r" % (
        what, sorted({d["process"]["job"] for d in docs}, key=str),
        sorted({d["process"].get("mpi_job") for d in docs}, key=str)))
    cmds = sorted(os.path.basename(d["process"]["command"][0]) for d in docs)
    t.eq(cmds, [prog] * NP, "%s: the files are the %d ranks' (%s), none from srun, "
         "slurmstepd, slurmd, a shell or hpcshim" % (what, NP, prog))
    t.eq(sorted(d["process"]["rank"] for d in docs), list(range(NP)),
         "%s: one file per rank, ranks 0..%d" % (what, NP - 1))
    t.eq(sorted({d["process"]["job"] for d in docs}), [job],
         "%s: process.job is Slurm's JOBID.STEPID %s in every file" % (what, job))
    got = sorted({d["process"].get("mpi_job") for d in docs}, key=str)
    if isinstance(mpi_job, re.Pattern):
        t.ok(len(got) == 1 and isinstance(got[0], str) and mpi_job.fullmatch(got[0]),
             "%s: process.mpi_job is the MPI's own id, one for all ranks (%r ~ %s)"
             % (what, got, mpi_job.pattern))
    else:
        t.eq(got, [mpi_job], "%s: process.mpi_job" % what)
    t.eq(sorted({d["process"]["size"] for d in docs}, key=str), [size],
         "%s: process.size" % what)
    for d in sorted(docs, key=lambda d: d["process"]["rank"]):
        r = d["process"]["rank"]
        reg = proc_region(d, region)
        got = reg and (reg["calls"], reg["inclusive"]["page-faults"]["sum"])
        want = (1, (r + 1) * pages)
        extra = [(n, (proc_region(d, n) or {}).get("calls")) for n in
                 ("r%d" % i for i in range(nreg))]
        t.eq((got, extra), (want, [("r%d" % i, 1) for i in range(nreg)]),
             "%s: rank %d: region %s called once with exactly %d page faults%s"
             % (what, r, region, (r + 1) * pages,
                ", r0..r%d once each" % (nreg - 1) if nreg else ""))


def check_job_doc(what, files, job, mpi_job, pages):
    """The job document of job among files (the in-job reduction's)."""
    mine = [(n, d) for n, d in zip(files.job_names, files.jobs) if d["job"]["id"] == job]
    if not t.eq(len(mine), 1, "%s: the in-job reduction wrote one job document of %s beside "
                "the rank files (%s)" % (what, job, files.names)):
        return
    name, doc = mine[0]
    t.ok(name.endswith("-j%s.json" % name_job(job)),
         "%s: the job document's name carries the job id %s (%s)" % (what, job, name))
    t.eq((doc["job"]["id"], doc["job"].get("mpi_job"), doc["job"]["size"], doc["job"]["ranks"],
          doc["missing_ranks"], doc["incomplete_ranks"]), (job, mpi_job, NP, NP, [], []),
         "%s: the job document: job.id, job.mpi_job, size, ranks, none missing or incomplete"
         % what)
    w = next((r for r in doc["regions"] if r["name"] == "work"), None)
    pf = w and w["inclusive"]["page-faults"]
    t.eq(pf and (pf["n"], pf["sum"], pf["min"], pf["min_at"]["rank"], pf["max"],
                 pf["max_at"]["rank"]), (NP, 10 * pages, pages, 0, 4 * pages, 3),
         "%s: the job document's work page faults: n, sum, min at rank 0, max at rank 3" % what)


def daemons_quiet(what):
    t.eq(sorted(os.listdir(DAEMONS)), [],
         "%s: slurmd and slurmstepd (shim preloaded) wrote no file" % what)


# ---- the cases -----------------------------------------------------------
def srun_cases(progs):
    plain = ["bash", "-c", '"$0" touch $(( (SLURM_PROCID + 1) * %d ))' % PAGES, WORKLOAD]
    apps = [("plain program", None, plain, "workload", "touch", 0, False)]
    for tag, prog in progs.items():
        apps.append((MPIS[tag][0], tag, [prog, str(PAGES), str(NREG)], os.path.basename(prog),
                     "work", NREG, True))
    for name, tag, argv, base, region, nreg, is_mpi in apps:
        mpi = ["--mpi=" + MPIS[tag][2]] if tag else []
        for style in ("--export", "hpcshim run", "exported to srun"):
            what = "srun -n %d %s, shim by %s" % (NP, name, style)
            out = outdir()
            env = clean_env()
            srun = ["srun", "-v", "-n", str(NP), "-O"] + mpi
            if style == "--export":
                argv_ = srun + ["--export=ALL,LD_PRELOAD=%s,HPCSHIM_OUTPUT=%s" % (SHIM, out)] + argv
            elif style == "hpcshim run":
                argv_ = srun + [HPCSHIM, "run", "-q", "-o", out, "--"] + argv
            else:
                env.update(LD_PRELOAD=SHIM, HPCSHIM_OUTPUT=out)
                argv_ = srun + argv
            p = cmd(argv_, env=env)
            steps = steps_of(p.stderr)
            if not t.ok(p.returncode == 0 and len(steps) == 1,
                        "%s: runs (exit %d), srun -v names its step %s"
                        % (what, p.returncode, steps), p.stderr[-3000:]):
                continue
            if is_mpi:
                t.eq(p.stdout, "ranks %d pages %d\n" % (NP, 10 * PAGES), "%s: its output" % what)
            job = steps[0]
            f = Files(out)
            mpi_job = {None: None, "openmpi": "slurm.pmix." + job, "mpich": job}[tag]
            size = None if tag == "openmpi" else NP  # PMIx gives no size variable
            check_ranks(what, f.ranks, base, job, mpi_job, size, PAGES, region, nreg)
            if is_mpi:
                check_job_doc(what, f, job, mpi_job, PAGES)
            else:
                t.eq(f.jobs, [], "%s: no job document (no MPI)" % what)


def sbatch_case(progs):
    """Two steps in one batch job: Open MPI, then MPICH with twice the pages."""
    steps = [(tag, PAGES * (i + 1)) for i, tag in enumerate(t_ for t_ in ("openmpi", "mpich")
                                                              if t_ in progs)]
    if len(steps) < 2:
        t.skip("sbatch of two steps", "needs both MPIs")
        return
    out = outdir()
    script = os.path.join(work, "job.sh")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n")
        for tag, pages in steps:
            f.write("srun -v -n %d -O --mpi=%s %s %d %d\n"
                    % (NP, MPIS[tag][2], progs[tag], pages, NREG))
    log = os.path.join(work, "job.log")
    p = cmd(["sbatch", "--wait", "--parsable", "-n", str(NP), "-O", "-o", log,
             "--export=ALL,LD_PRELOAD=%s,HPCSHIM_OUTPUT=%s" % (SHIM, out), script], timeout=180)
    text = open(log, errors="replace").read() if os.path.exists(log) else ""
    jobid = p.stdout.strip().split(";")[0]
    got = steps_of(text)
    what = "sbatch, two srun steps, LD_PRELOAD exported to the batch script"
    if not t.ok(p.returncode == 0 and got == ["%s.0" % jobid, "%s.1" % jobid],
                "%s: job %s runs, srun -v names steps %s" % (what, jobid, got),
                p.stderr[-2000:] + text[-3000:]):
        return
    t.eq(re.findall(r"^ranks .*$", text, re.M),
         ["ranks %d pages %d" % (NP, 10 * pages) for _, pages in steps], "%s: its output" % what)
    f = Files(out)
    for (tag, pages), job in zip(steps, got):
        w = "%s, step %s (%s)" % (what, job, MPIS[tag][0])
        mine = [d for d in f.ranks if d["process"]["job"] == job]
        check_ranks(w, mine, os.path.basename(progs[tag]), job,
                    "slurm.pmix." + job if tag == "openmpi" else job,
                    None if tag == "openmpi" else NP, pages)
        check_job_doc(w, f, job, "slurm.pmix." + job if tag == "openmpi" else job, pages)
    t.eq((len(f.ranks), len(f.jobs)), (NP * len(steps), len(steps)),
         "%s: no other file (%s)" % (what, f.names))
    # hpcshim merge: never the two steps in one document.
    m = cmd([HPCSHIM, "merge", out])
    t.ok(m.returncode == 2 and not m.stdout.strip() and "2 jobs" in m.stderr
         and all("-j %s " % j in m.stderr for j in got),
         "%s: hpcshim merge of the directory merges nothing and lists both steps (exit %d: %s)"
         % (what, m.returncode, m.stderr.strip()))
    for (tag, pages), job in zip(steps, got):
        m = cmd([HPCSHIM, "merge", "-j", job, out])
        doc = json.loads(m.stdout) if m.returncode == 0 and m.stdout.strip() else None
        if not t.ok(doc, "%s: hpcshim merge -j %s (exit %d: %s)"
                    % (what, job, m.returncode, m.stderr.strip())):
            continue
        pf = next(r for r in doc["regions"] if r["name"] == "work")["inclusive"]["page-faults"]
        t.eq((doc["job"]["id"], doc["job"]["ranks"], pf["n"], pf["sum"], pf["min"], pf["max"]),
             (job, NP, NP, 10 * pages, pages, 4 * pages),
             "%s: merge -j %s: that step's %d ranks and figures only" % (what, job, NP))
        t.eq(sorted(x["why"] for x in doc["ignored_files"]),
             ["another job (%s)" % j for j in got if j != job] * NP,
             "%s: merge -j %s: the other step's files listed as ignored" % (what, job))


def salloc_cases(progs):
    for tag, prog in progs.items():
        name, _, _, mpirun = MPIS[tag]
        out = outdir()
        env = clean_env()
        env.update(LD_PRELOAD=SHIM, HPCSHIM_OUTPUT=out)
        what = "salloc + %s, LD_PRELOAD exported to salloc" % mpirun[0]
        if tag == "mpich":
            env["HYDRA_LAUNCHER_EXTRA_ARGS"] = "-v"  # hydra's srun names its step
        p = cmd(["salloc", "-n", str(NP), "-O"] + mpirun + [prog, str(PAGES), str(NREG)],
                env=env)
        alloc = re.findall(r"Granted job allocation (\d+)", p.stderr)
        if not t.ok(p.returncode == 0 and len(alloc) == 1, "%s: runs (exit %d), allocation %s"
                    % (what, p.returncode, alloc), p.stderr[-3000:]):
            continue
        t.eq(p.stdout, "ranks %d pages %d\n" % (NP, 10 * PAGES), "%s: its output" % what)
        f = Files(out)
        base = os.path.basename(prog)
        if tag == "mpich":
            steps = steps_of(p.stderr)
            t.eq(steps, ["%s.0" % alloc[0]], "%s: hydra started its proxies in one srun step"
                 % what)
            job = steps[0] if steps else "?"
            # hydra's own id: its mpiexec's host:port and the process group
            mpi_job = re.compile(re.escape(HOST) + r":\d+\.0")
            check_ranks(what, f.ranks, base, job, mpi_job, NP, PAGES)
            check_job_doc(what, f, job, f.ranks[0]["process"].get("mpi_job") if f.ranks
                          else None, PAGES)
        else:
            # mpirun started the ranks of its node itself: no step; the job
            # is Open MPI's jobid, as without Slurm
            ids = sorted({d["process"]["job"] for d in f.ranks}, key=str)
            job = ids[0] if len(ids) == 1 and re.fullmatch(r"\d+", str(ids[0])) else "?"
            t.ok(job != "?", "%s: process.job is Open MPI's jobid, one number for all ranks "
                 "(%r): its mpirun ran no Slurm step" % (what, ids))
            check_ranks(what, f.ranks, base, job, job, NP, PAGES)
            check_job_doc(what, f, job, job, PAGES)
    if "openmpi" not in progs:
        return
    # Open MPI with an orted on its own node too: every rank runs inside the
    # orteds' Slurm step, and still carries mpirun's jobid (on several nodes
    # mpirun's own node has no step: one id for the job is mpirun's).
    out = outdir()
    env = clean_env()
    env.update(LD_PRELOAD=SHIM, HPCSHIM_OUTPUT=out)
    what = "salloc + mpirun.openmpi, orted on mpirun's node (in a Slurm step)"
    wrap = ('printf "%s\\n" "$SLURM_JOB_ID.$SLURM_STEP_ID" >"$0.$OMPI_COMM_WORLD_RANK"; '
            'exec "$@"')
    seen = os.path.join(work, "step")
    p = cmd(["salloc", "-n", str(NP), "-O"] + MPIS["openmpi"][3] +
            ["--mca", "ras_base_launch_orted_on_hn", "1", "bash", "-c", wrap, seen,
             progs["openmpi"], str(PAGES), str(NREG)], env=env)
    alloc = re.findall(r"Granted job allocation (\d+)", p.stderr)
    if not t.ok(p.returncode == 0 and len(alloc) == 1, "%s: runs (exit %d), allocation %s"
                % (what, p.returncode, alloc), p.stderr[-3000:]):
        return
    steps = sorted({open(x).read().strip() for x in glob.glob(seen + ".*")})
    t.eq(steps, ["%s.0" % alloc[0]], "%s: the ranks run in Slurm step %s.0" % (what, alloc[0]))
    f = Files(out)
    ids = sorted({d["process"]["job"] for d in f.ranks}, key=str)
    job = ids[0] if len(ids) == 1 and re.fullmatch(r"\d+", str(ids[0])) else "?"
    t.ok(job != "?", "%s: process.job is Open MPI's jobid for all ranks (%r), not the step"
         % (what, ids))
    check_ranks(what, f.ranks, os.path.basename(progs["openmpi"]), job, job, NP, PAGES)


DAEMONS = os.path.join(work, "daemons")
os.mkdir(DAEMONS)
os.chmod(DAEMONS, 0o777)
t0 = time.monotonic()
try:
    if start_slurm():
        t.diag("Slurm up in %.1f s" % (time.monotonic() - t0))
        progs = {}
        for tag, (name, cc, _, mpirun) in MPIS.items():
            why = [x for x in (cc, mpirun[0]) if not shutil.which(x)]
            if why:
                t.skip("%s under Slurm" % name, "%s not installed (tools/setup.sh tests)"
                       % ", ".join(why))
                continue
            prog = build(tag)
            if prog:
                progs[tag] = prog
        srun_cases(progs)
        sbatch_case(progs)
        salloc_cases(progs)
        q = [None]

        def drained():
            p = cmd(["squeue", "-h", "-o", "%i %T"], timeout=20)
            q[0] = p.stdout.strip()
            return p.returncode == 0 and not q[0]
        t.ok(until("the queue to empty", drained, 60), "every job has left the queue (%r)" % q[0])
        daemons_quiet("after the jobs")
finally:
    # A run cut short (a timeout, an exception) may leave jobs: cancel them
    # through this test's own controller (SLURM_CONF: no other cluster's
    # job is reachable), then stop the daemons.
    try:
        if any(n == "slurmctld" and p.poll() is None for n, p in started):
            left = cmd(["squeue", "-h", "-o", "%i"], timeout=20).stdout.split()
            if left:
                t.diag("cancelling jobs left behind: %s" % left)
                cmd(["scancel"] + left, timeout=20)
                until("the cancelled jobs to end", lambda: not cmd(
                    ["squeue", "-h", "-o", "%i"], timeout=20).stdout.split(), 60)
    except (OSError, subprocess.SubprocessError) as e:
        t.diag("cancelling the jobs left: %s" % e)
    died = stop_all()
t.eq(died, [], "no daemon died before the end (each was stopped by its pid)")
daemons_quiet("after slurmd stopped")
t.diag("whole test: %.1f s" % (time.monotonic() - t0))
if t.failed:
    t.diag("kept for its logs: %s" % work)
else:
    shutil.rmtree(work, ignore_errors=True)
t.done()
