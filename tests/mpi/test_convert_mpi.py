"""hpcshim convert on real MPI jobs: samples/mpi_work.c, 4 ranks under Open
MPI and under MPICH (Debian, as root, oversubscribed), run with
HPCSHIM_TRACE; each job converted to every format this build has, the
job's ranks in one output: OTF2 (otf2-print -G: a PROCESS group per rank,
an ENTER and a LEAVE per record; the metric at each Leave is the record's
page-faults delta: rank r's "work" exactly (r+1) x 1000), pprof (go tool
pprof: "work"'s flat page-faults 10000, the ranks summed), speedscope and
chrome (a profile, a process per rank)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, HERE, LIB, OPENMPI_ENV, PRELOAD, Tap, Work  # noqa: E402

t = Tap()
SRC = os.path.dirname(HERE)
HPCSHIM = os.path.join(BUILD, "hpcshim")
SHIM = PRELOAD.format(lib=LIB)
NP, UNIT, SLEEP_MS = 4, 1000, 20
work = tempfile.mkdtemp(prefix="hpcshim-convert-mpi-")
os.chmod(work, 0o755)
FOREIGN = ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "SLURM_", "PALS_", "ALPS_",
           "MV2_", "MPIRUN_", "FLUX_", "PRTE_", "MAKE", "MFLAGS")
runner = Work(t, work, dict(OPENMPI_ENV, HOME=work, TMPDIR=work), FOREIGN, timeout=180)
TRACE = {"HPCSHIM_TRACE": "100", "HPCSHIM_EVENTS": "page-faults,task-clock"}
MPIS = [
    ("Open MPI", "mpicc.openmpi", ["mpirun.openmpi", "-np", str(NP), "--oversubscribe"] +
     ["-x", "LD_PRELOAD=" + SHIM] + sum((["-x", "%s=%s" % kv] for kv in TRACE.items()), [])),
    ("MPICH", "mpicc.mpich", ["mpiexec.mpich", "-n", str(NP), "-genv", "LD_PRELOAD", SHIM] +
     sum((["-genv", k, v] for k, v in TRACE.items()), [])),
]
formats = [l.split()[0] for l in subprocess.run([HPCSHIM, "convert", "--help"], capture_output=True,
                                                encoding="utf-8").stdout.splitlines()
           if l.startswith("  ") and "[unavailable" not in l]
t.diag("formats: " + " ".join(formats))


def conv(fmt, out, indir):
    return subprocess.run([HPCSHIM, "convert", "--to", fmt, "-o", out, indir], capture_output=True,
                          encoding="utf-8", errors="replace", timeout=300)


for name, cc, launcher in MPIS:
    gone = [x for x in (cc, launcher[0]) if not shutil.which(x)]
    if gone:
        t.skip("%s job" % name, "%s not installed (tools/setup.sh tests)" % ", ".join(gone))
        continue
    tag = cc.split(".")[1]
    prog = os.path.join(work, "mpi_work_" + tag)
    if not runner.build("%s mpi_work" % name, [cc, "-O2", "-I", SRC, "-o", prog,
                                               os.path.join(SRC, "samples", "mpi_work.c")]):
        continue
    p, outdir = runner.launch(launcher + [prog, str(UNIT), str(SLEEP_MS)])
    files = sorted(f for f in os.listdir(outdir) if f.startswith("hpcshim-") and "-job-" not in f)
    docs = [json.load(open(os.path.join(outdir, f))) for f in files]
    t.ok(p.returncode == 0 and len(docs) == NP, "%s: the job ran, %d rank files" % (name, len(docs)),
         p.stderr[-2000:])
    if len(docs) != NP:
        continue
    records = [r for d in docs for th in d["threads"] for r in th.get("trace", {}).get("records", [])]
    nthreads = sum(len(d["threads"]) for d in docs)
    res = {f: conv(f, os.path.join(work, "%s.%s" % (tag, f)), outdir) for f in formats}
    t.ok(all(q.returncode == 0 for q in res.values()),
         "%s: converted to %s" % (name, " ".join(formats)),
         " ".join(q.stderr for q in res.values()))
    if "otf2" in formats and shutil.which("otf2-print"):
        anchor = os.path.join(work, "%s.otf2" % tag, "traces.otf2")
        g = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, encoding="utf-8")
        groups = sorted(re.findall(r'LOCATION_GROUP\s+\d+\s+Name: "rank (\d+) ', g.stdout))
        q = subprocess.run(["otf2-print", anchor], capture_output=True, encoding="utf-8")
        lines = q.stdout.splitlines()
        t.ok(groups == [str(r) for r in range(NP)] and
             sum(l.startswith("ENTER ") for l in lines) == len(records) ==
             sum(l.startswith("LEAVE ") for l in lines),
             "%s, otf2: a PROCESS group per rank (%s), an ENTER and a LEAVE per record (%d)"
             % (name, groups, len(records)))
        work_pf = sorted(int(v) for v in re.findall(r'"page-faults" <\d+>; INT64; (\d+)\)', q.stdout)
                         if int(v) >= UNIT)
        t.eq(work_pf, [(r + 1) * UNIT for r in range(NP)],
             "%s, otf2: the metric at each work Leave is its rank's exact faults" % name)
    if "pprof" in formats and shutil.which("go"):
        q = subprocess.run(["go", "tool", "pprof", "-top", "-sample_index=page-faults",
                            os.path.join(work, "%s.pprof" % tag)], capture_output=True,
                           encoding="utf-8", timeout=300)
        m = re.search(r"^\s*(\d+)\s.*\swork$", q.stdout, re.M)
        t.ok(m and int(m.group(1)) == 10 * UNIT,
             "%s, pprof: work's flat page-faults is the ranks' sum, 10000" % name, q.stdout[-1500:])
    if "speedscope" in formats:
        ss = json.load(open(os.path.join(work, "%s.speedscope" % tag)))
        t.eq(len(ss["profiles"]), nthreads, "%s, speedscope: a profile per thread" % name)
    if "chrome" in formats:
        ev = json.load(open(os.path.join(work, "%s.chrome" % tag)))["traceEvents"]
        t.eq(len({e["pid"] for e in ev if e["name"] == "process_name"}), NP,
             "%s, chrome: a process per rank" % name)
shutil.rmtree(work, ignore_errors=True)
t.done()
