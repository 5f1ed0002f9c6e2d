"""Real programs and runtimes nobody here wrote, run with and without the
shim (issue 13): an MPI job under Open MPI's mpirun and MPICH's hydra
(LD_PRELOAD given to the ranks by the launcher's option, and exported to
the launcher as users do), a C program and numpy on OpenBLAS threads, Java
with threads, node with worker threads, a Go program built with cgo, and
make -j2 of a small C project.  Each must give the same stdout, stderr
(less our `hpcshim:` lines) and exit status, and leave a result file for
every process that should have one and for no other: one per MPI rank and
none from a launcher, every thread of the runtime counted (none listed as
uncovered), no stub from a fork child that only execs.

The programs are in tests/programs/ and are built here, in a temporary
directory (Go's caches and HOME too: nothing leaks).  The runtimes come
from Debian (tools/setup.sh installs them); a missing one is a TAP skip.
Known work (pages touched by each rank) is checked in the rank's file.
Two checks use variables of issue 13: HPCSHIM_FLUSH (the periodic flush
that gives a Go program, which leaves through a raw exit_group, its file)
and HPCSHIM_PROGRAMS (the process filter: a build yields the files a user
asks for)."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, HERE, LIB, OPENMPI_ENV, PRELOAD, Work

t = Tap()
SRC = os.path.dirname(HERE)
PROGS = os.path.join(HERE, "programs")
work = tempfile.mkdtemp(prefix="hpcshim-programs-")
os.chmod(work, 0o755)
ENV = {
    # Everything a runtime or a build writes stays in the work directory.
    "HOME": os.path.join(work, "home"),
    "TMPDIR": os.path.join(work, "tmp"),
    "GOCACHE": os.path.join(work, "gocache"),
    "GOPATH": os.path.join(work, "gopath"),
    "GOFLAGS": "-modcacherw",
    "GO111MODULE": "off",
    "CGO_ENABLED": "1",
    **OPENMPI_ENV,
    "OPENBLAS_NUM_THREADS": "2",
}
for d in ("home", "tmp"):
    os.mkdir(os.path.join(work, d))
SHIM = PRELOAD.format(lib=LIB)
# What the calling make (make check) passes its children stays out of the
# project's make, and no MPI job's environment reaches ours.
FOREIGN = ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "MAKE", "MFLAGS")
runner = Work(t, work, ENV, FOREIGN, timeout=180)
build = runner.build


class Result:
    def __init__(self, p, outdir):
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr
        self.docs, self.jobs = [], []
        for f in sorted(glob.glob(os.path.join(outdir, "hpcshim-*.json"))):
            with open(f, encoding="utf-8") as fh:
                d = json.load(fh)
            # an MPI job's own document (preload/mpi/) beside the rank files
            (self.jobs if d["schema"].startswith("hpcshim-job/") else self.docs).append(d)
        self.files = sorted(os.listdir(outdir))

    def err_less_ours(self):
        return "".join(l for l in self.err.splitlines(True) if not l.startswith("hpcshim:"))


def launch(argv, shim, env=None, cwd=None, export=True):
    """Runs argv with a fresh output directory.  shim: LD_PRELOAD set in the
    environment of argv[0] (export) or only HPCSHIM_OUTPUT (the launcher
    passes LD_PRELOAD on by its own option, in argv)."""
    return Result(*runner.launch(argv, shim and export, env, cwd=cwd))


def same(what, bare, shim):
    """The program does not notice the shim."""
    t.eq(shim.rc, bare.rc, "%s: same exit status" % what)
    t.ok(shim.out == bare.out, "%s: same stdout" % what,
         "with the shim:\n%s\nwithout:\n%s" % (shim.out[-2000:], bare.out[-2000:]))
    t.ok(shim.err_less_ours() == bare.err, "%s: same stderr less hpcshim: lines" % what,
         "with the shim:\n%s\nwithout:\n%s" % (shim.err[-2000:], bare.err[-2000:]))


def base(doc):
    c = doc["process"]["command"]
    return os.path.basename(c[0]) if c else ""


def describe(docs):
    return ["%s rank=%s end=%s gen=%s" % (base(d), d["process"]["rank"], d["process"]["end"],
                                          d["process"]["exec_generation"]) for d in docs]


def missing(*tools):
    gone = [x for x in tools if not shutil.which(x)]
    return "%s not installed (tools/setup.sh installs it)" % ", ".join(gone) if gone else None


def read_tids(path):
    try:
        with open(path) as f:
            return [int(l) for l in f.read().split()]
    except (OSError, ValueError):
        return []


def threads_counted(what, doc, tids, workers):
    """Every task in tids (the program's own list of its threads) is a
    covered thread of doc, none is uncovered, and the workers ran counted."""
    covered = {th["tid"]: th for th in doc["threads"]}
    # The shim's own flush thread is in /proc/self/task too; the file names it.
    ours = set(doc["process"].get("shim_threads", []))
    tids = [x for x in tids if x not in ours]
    t.ok(len(tids) >= workers + 1, "%s: the program saw its %d worker threads (tids %s)"
         % (what, workers, tids))
    t.eq(sorted(x for x in tids if x not in covered), [],
         "%s: every thread of the program is counted in threads[]" % what)
    t.eq(doc["uncovered_threads"], [], "%s: no uncovered thread" % what)
    pid = doc["process"]["pid"]
    clocks = [covered[x]["totals"].get("task-clock") for x in tids if x in covered and x != pid]
    t.ok(len(clocks) >= workers and all(c for c in clocks),
         "%s: the worker threads' CPU time is in their entries (task-clock %s)" % (what, clocks))


def one_file(what, shim, prog):
    t.eq(describe(shim.docs), ["%s rank=None end=exit gen=0" % prog],
         "%s: one result file, from the program" % what)
    return shim.docs[0] if len(shim.docs) == 1 else None


# ---- MPI: one file per rank under both launchers --------------------------
NP, PAGES = 3, 100
LAUNCHERS = {"mpirun", "mpirun.openmpi", "mpiexec", "mpiexec.openmpi", "mpiexec.mpich",
             "mpiexec.hydra", "orterun", "orted", "prted", "prterun", "hydra_pmi_proxy"}
MPIS = [
    # name, compiler, launcher argv, the launcher's option giving the ranks LD_PRELOAD
    ("Open MPI", "mpicc.openmpi", ["mpirun.openmpi", "-np", str(NP), "--mca", "btl", "self,vader"],
     ["-x", "LD_PRELOAD=" + SHIM]),
    ("MPICH", "mpicc.mpich", ["mpiexec.mpich", "-n", str(NP)], ["-genv", "LD_PRELOAD", SHIM]),
]


def ranks(what, prog, shim):
    """Exactly one file per rank, from the rank's process, with its work."""
    ranked = [d for d in shim.docs if d["process"]["rank"] is not None]
    t.eq(sorted(d["process"]["rank"] for d in ranked), list(range(NP)),
         "%s: exactly one file per rank" % what)
    t.eq(sorted(describe(d for d in ranked if base(d) != os.path.basename(prog))), [],
         "%s: every file claiming a rank is a rank's process" % what)
    t.eq(sorted(describe(d for d in shim.docs if base(d) in LAUNCHERS)), [],
         "%s: no file from a launcher" % what)
    t.eq(len(shim.docs), NP, "%s: %d files in all, no other process's (%s)"
         % (what, NP, describe(shim.docs)))
    for r in range(NP):
        mine = [d for d in ranked
                if d["process"]["rank"] == r and base(d) == os.path.basename(prog)]
        if len(mine) != 1:
            t.ok(False, "%s: rank %d has one file of its own (%d)" % (what, r, len(mine)))
            continue
        doc = mine[0]
        main = next((th for th in doc["threads"] if th["tid"] == doc["process"]["pid"]), None)
        touch = main and next((g for g in main["regions"] if g["name"] == "touch"), None)
        want = (r + 1) * PAGES
        t.ok(doc["process"]["complete"] and (doc["totals"]["page-faults"] or 0) >= want,
             "%s: rank %d's file is complete and has its %d touched pages (page-faults %s)"
             % (what, r, want, doc["totals"]["page-faults"]))
        t.eq(touch and touch["inclusive"]["page-faults"], want,
             "%s: rank %d's region touch has exactly its pages" % (what, r))


for name, cc, launcher, option in MPIS:
    why = missing(cc, launcher[0])
    if why:
        t.skip("%s job" % name, why)
        continue
    prog = os.path.join(work, "mpi_pages_" + cc.split(".")[1])
    if not build("%s program" % name, [cc, "-O2", "-I", os.path.join(SRC, "annotate"),
                                       "-o", prog, os.path.join(PROGS, "mpi_pages.c")]):
        continue
    job = [prog, str(PAGES)]
    bare = launch(launcher + job, False)
    t.eq((bare.rc, bare.out), (0, "ranks %d pages %d\n" % (NP, PAGES * NP * (NP + 1) // 2)),
         "%s: the job runs without the shim" % name)
    what = "%s, LD_PRELOAD by %s" % (name, option[0])
    shim = launch(launcher + option + job, True, export=False)
    same(what, bare, shim)
    ranks(what, prog, shim)
    what = "%s, LD_PRELOAD exported to the launcher" % name
    shim = launch(launcher + job, True)
    same(what, bare, shim)
    ranks(what, prog, shim)
    # A job script between the launcher and the rank: the shell has no
    # rank of its own and is skipped by default like the launchers.
    what = "%s, LD_PRELOAD exported, a shell between launcher and rank" % name
    job = ["bash", "-c", '"$@"; exit $?', "job", prog, str(PAGES)]
    bare = launch(launcher + job, False)
    shim = launch(launcher + job, True)
    same(what, bare, shim)
    ranks(what, prog, shim)

# ---- OpenBLAS threads: a C program and numpy -------------------------------
blas = subprocess.run(["gcc", "-print-file-name=libopenblas.so"], capture_output=True,
                      encoding="utf-8").stdout.strip()
if not os.path.isabs(blas):
    t.skip("C program on OpenBLAS", "libopenblas-dev not installed (tools/setup.sh installs it)")
elif build("C program on OpenBLAS", ["gcc", "-O2", "-o", os.path.join(work, "blas_dgemm"),
                                      os.path.join(PROGS, "blas_dgemm.c"), "-lopenblas"]):
    what = "C program on OpenBLAS (OPENBLAS_NUM_THREADS=2)"
    argv = [os.path.join(work, "blas_dgemm"), "400"]
    bare = launch(argv, False)
    shim = launch(argv + [os.path.join(work, "tids.blas")], True)
    same(what, bare, shim)
    doc = one_file(what, shim, "blas_dgemm")
    if doc:
        threads_counted(what, doc, read_tids(os.path.join(work, "tids.blas")), 1)

if not os.path.exists("/usr/bin/python3") or subprocess.run(
        ["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode:
    t.skip("numpy", "python3-numpy not installed for /usr/bin/python3 (tools/setup.sh installs it)")
else:
    what = "numpy matrix product on 2 OpenBLAS threads"
    argv = ["/usr/bin/python3", os.path.join(PROGS, "numpy_matmul.py")]
    bare = launch(argv, False)
    shim = launch(argv + [os.path.join(work, "tids.numpy")], True)
    same(what, bare, shim)
    doc = one_file(what, shim, "python3")
    if doc:
        threads_counted(what, doc, read_tids(os.path.join(work, "tids.numpy")), 1)

# ---- Java with 4 threads ---------------------------------------------------
why = missing("java", "javac")
if why:
    t.skip("Java", why)
elif build("Java program", ["javac", "-d", os.path.join(work, "java"),
                            os.path.join(PROGS, "Threads.java")]):
    what = "Java with 4 threads"
    argv = ["java", "-XX:-UsePerfData", "-Xmx64m", "-cp", os.path.join(work, "java"), "Threads"]
    bare = launch(argv, False)
    shim = launch(argv + [os.path.join(work, "tids.java")], True)
    same(what, bare, shim)
    doc = one_file(what, shim, "java")
    if doc:
        threads_counted(what, doc, read_tids(os.path.join(work, "tids.java")), 4)

# ---- node with 2 worker threads --------------------------------------------
why = missing("node")
if why:
    t.skip("node", why)
else:
    what = "node with 2 worker_threads"
    argv = ["node", os.path.join(PROGS, "workers.js")]
    bare = launch(argv, False)
    shim = launch(argv + [os.path.join(work, "tids.node")], True)
    same(what, bare, shim)
    doc = one_file(what, shim, "node")
    if doc:
        threads_counted(what, doc, read_tids(os.path.join(work, "tids.node")), 2)

# ---- Go with cgo -------------------------------------------------------------
# The Go runtime ends the process with a raw exit_group, past libc's exit:
# the file comes from the periodic flush (HPCSHIM_FLUSH, issue 13), here
# every 10 ms of a program that computes for a good deal longer.
why = missing("go", "gcc")
if why:
    t.skip("Go with cgo", why)
else:
    gosrc = os.path.join(work, "gosrc")
    os.mkdir(gosrc)
    shutil.copyfile(os.path.join(PROGS, "cgo.go"), os.path.join(gosrc, "cgo.go"))
    if build("Go program with cgo", ["go", "build", "-o", os.path.join(work, "cgoprog"), "cgo.go"],
             cwd=gosrc):
        what = "Go with cgo and goroutines (HPCSHIM_FLUSH=10ms)"
        argv = [os.path.join(work, "cgoprog")]
        flush = {"HPCSHIM_FLUSH": "10ms"}
        bare = launch(argv, False, env=flush)
        shim = launch(argv, True, env=flush)
        same(what, bare, shim)
        t.eq([base(d) for d in shim.docs], ["cgoprog"], "%s: a result file" % what)
        t.eq([f for f in shim.files if not f.endswith(".json")], [],
             "%s: no temporary file left" % what)

# ---- make -j2 of a small C project -----------------------------------------
def project():
    """A fresh writable copy of the project (the sources may be read-only,
    as under make distcheck)."""
    d = os.path.join(work, "proj%d" % runner.runs)
    os.mkdir(d)
    for f in os.listdir(os.path.join(PROGS, "proj")):
        shutil.copyfile(os.path.join(PROGS, "proj", f), os.path.join(d, f))
    return d


SOURCES = sorted(os.path.basename(f) for f in glob.glob(os.path.join(PROGS, "proj", "*.c")))
make = ["make", "-s", "-j2"]
bare = launch(make, False, cwd=project())
t.eq((bare.rc, bare.out), (0, "bapp total 3999988\n"), "make -j2: builds and runs without the shim")
shim = launch(make, True, cwd=project())
same("make -j2", bare, shim)
# A fork child that only execs did nothing measurable: it writes no stub
# (a file ended by exec, with its parent's command, its parent's pid as
# ppid).  GNU make 4.3 starts its jobs with posix_spawn and gcc its passes
# with vfork, so none is written today; the check holds a make that forks.
pids = {(d["process"]["pid"], tuple(d["process"]["command"])) for d in shim.docs}
stubs = [d for d in shim.docs if d["process"]["end"] == "exec"
         and (d["process"]["ppid"], tuple(d["process"]["command"])) in pids]
t.eq(len(stubs), 0, "make -j2: no stub from a fork child that execs (%d files, %d stubs: %s)"
     % (len(shim.docs), len(stubs), sorted(set(describe(stubs)))))
t.eq([d for d in shim.docs if d["process"]["rank"] is not None], [], "make -j2: no file claims a rank")
# HPCSHIM_PROGRAMS (issue 13): the compilers proper and the built program only.
what = "make -j2 with HPCSHIM_PROGRAMS=*cc1,*bapp"
shim = launch(make, True, cwd=project(), env={"HPCSHIM_PROGRAMS": "*cc1,*bapp"})
same(what, bare, shim)
t.eq(sorted(base(d) for d in shim.docs), ["bapp"] + ["cc1"] * len(SOURCES),
     "%s: one file per compiled source and one for the program (%d files: %s)"
     % (what, len(shim.docs), sorted(set(base(d) for d in shim.docs))))
compiled = sorted(x for d in shim.docs if base(d) == "cc1"
                  for x in {os.path.basename(a) for a in d["process"]["command"]
                            if a.endswith(".c") and a != ".c"})
t.eq(compiled, SOURCES, "%s: the cc1 files are one per source" % what)

shutil.rmtree(work, ignore_errors=True)
t.done()
