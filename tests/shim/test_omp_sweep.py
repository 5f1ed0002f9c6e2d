"""Every OpenMP runtime entry point the shim stands in front of, each mode
of tests/shim/omp_sweep.c run bare and under the shim (docs/openmp.md, "Entry
points and how each is tested"):

- gcc -fopenmp, libgomp's GOMP_* entry points: every GOMP_* name the shim
  exports is one the program calls (its undefined symbols), so each wrapper
  runs in some mode;
- clang -fopenmp, LLVM 14's libomp through the OMPT callbacks the shim
  registers;
- gcc's program (GOMP ABI up to 5.0) on LLVM's libomp standing in for
  libgomp: the GOMP wrappers with the other runtime behind them.

Each mode, each build: the exit status and stdout as the bare run's, no
hpcshim: line, and each thread's figures as the program counts them ("fig
LINE NAME T V" on its stderr) in the results of the construct at that line;
a figure the source of events does not see (loop iterations under OMPT,
whose LLVM 14 makes no dispatch callback; a taskloop's tasks one by one
under GOMP) is 0 there."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import Tap, HERE, LIB, run  # noqa: E402

t = Tap()
SRC = os.path.join(HERE, "shim", "omp_sweep.c")
LIBOMP = "/usr/lib/llvm-14/lib/libomp.so.5"
work = tempfile.mkdtemp(prefix="hpcshim-ompsweep-")
os.chmod(work, 0o755)
# 3 threads on 2 cores; schedule(runtime) dynamic; cancel constructs that
# cancel; priority clauses that order
ENV = {"OMP_NUM_THREADS": "3", "OMP_SCHEDULE": "dynamic,2", "OMP_CANCELLATION": "true",
       "OMP_MAX_TASK_PRIORITY": "2"}
# What each source of events does not see: 0 there.  The abi mode calls
# GOMP_loop_* by hand: the shim's wrappers count its chunks in a clang
# program's (OMPT) construct too.
UNSEEN = {
    "GOMP": {"taskloop_tasks", "locks"},
    "OMPT": {"iterations", "chunks", "atomics", "taskloops"},
}


def unseen(source, mode):
    return set() if mode == "abi" else UNSEEN[source]


def build(argv, what):
    p = subprocess.run(argv, capture_output=True, encoding="utf-8", errors="replace")
    if p.returncode != 0:
        t.diag(p.stderr)
    return t.ok(p.returncode == 0, "build: %s" % what)


def figs(err):
    """{(line, name): {thread: value}} from the program's fig lines."""
    out = {}
    for l in err.splitlines():
        f = l.split()
        if len(f) == 5 and f[0] == "fig":
            out.setdefault((int(f[1]), f[2]), {})[int(f[3])] = int(f[4])
    return out


def construct(doc, line):
    """The construct whose directive is at omp_sweep.c:line, or None."""
    for c in (doc.get("openmp") or {}).get("constructs", []):
        if c["region"].endswith("@ omp_sweep.c:%d" % line):
            return c
    return None


def got(c, name, source, want):
    """The results' figure for the program's name, per thread of want."""
    per = {p["omp_thread"]: p for p in c["per_thread"]} if c else {}
    val = lambda u, k: per.get(u, {}).get(k, 0)  # noqa: E731
    if name == "calls_total":
        return {0: sum(p["calls"] for p in per.values())}
    if name == "locks":
        return {u: val(u, "criticals") for u in want}
    if name == "taskloop_tasks":
        return {u: val(u, "tasks_run") for u in want}
    return {u: val(u, name) for u in want}


def check(mode, prog, tag, source, with_figs=True):
    bare = run([prog, mode], preload=False, env=ENV)
    r = run([prog, mode], env=ENV)
    what = "%s %s" % (tag, mode)
    ok = t.eq((r.rc, r.out, r.shim_lines()), (bare.rc, bare.out, []),
              "%s: exit status and output as bare, no hpcshim: line" % what)
    if bare.rc != 0:
        t.diag(bare.err)
    if not with_figs or not ok or len(r.docs) != 1:
        return
    want_all = figs(r.err)
    bad = []
    for (line, name), want in sorted(want_all.items()):
        c = construct(r.doc, line)
        exp = {u: 0 for u in want} if name in unseen(source, mode) else want
        g = got(c, name, source, want)
        if c is None or g != exp:
            bad.append("line %d %s: got %r, want %r%s" % (line, name, g, exp,
                                                         "" if c else " (no construct)"))
    t.ok(not bad, "%s: each thread's figures as the program counts them (%d)"
         % (what, len(want_all)), "\n".join(bad))


def modes(prog):
    p = subprocess.run([prog, "list"], capture_output=True, encoding="utf-8")
    return p.stdout.split()


def shim_gomp_names():
    p = subprocess.run(["nm", "-D", "--defined-only", LIB], capture_output=True,
                       encoding="utf-8")
    return {l.split()[-1] for l in p.stdout.splitlines() if " GOMP_" in l}


def called_gomp_names(prog):
    p = subprocess.run(["nm", "-u", prog], capture_output=True, encoding="utf-8")
    return {l.split()[-1].split("@")[0] for l in p.stdout.splitlines() if "GOMP_" in l}


# ---- gcc: libgomp's entry points --------------------------------------------------
gcc_prog = os.path.join(work, "sweep_gcc")
if build(["gcc", "-std=gnu11", "-g", "-O2", "-fopenmp", SRC, "-o", gcc_prog],
         "omp_sweep.c with gcc -fopenmp"):
    wrapped = shim_gomp_names()
    t.eq(sorted(wrapped - called_gomp_names(gcc_prog)), [],
         "gcc: every GOMP_* entry point the shim wraps (%d) is called by the program"
         % len(wrapped))
    for m in modes(gcc_prog):
        check(m, gcc_prog, "gcc:", "GOMP")

# ---- clang: libomp's OMPT ----------------------------------------------------------
clang_prog = os.path.join(work, "sweep_clang")
if not (shutil.which("clang") and os.path.exists(LIBOMP)):
    t.skip("clang, OMPT", "no clang or no %s (libomp-dev)" % LIBOMP)
elif build(["clang", "-std=gnu11", "-g", "-O2", "-fopenmp", SRC, "-o", clang_prog,
            "-latomic"], "omp_sweep.c with clang -fopenmp"):
    for m in modes(clang_prog):
        check(m, clang_prog, "clang, OMPT:", "OMPT")

# ---- gcc's program on libomp: the GOMP wrappers in front of LLVM's runtime ----------
# Its GOMP_* figures are gcc's own tests' (above): here, the program's exit
# and output with the other runtime behind the same wrappers.
gomp50 = os.path.join(work, "sweep_gcc50")
if not os.path.exists(LIBOMP):
    t.skip("gcc on libomp", "no %s (libomp-dev)" % LIBOMP)
elif build(["gcc", "-std=gnu11", "-g", "-O2", "-fopenmp", "-DSWEEP_GOMP50", SRC, "-o",
            gomp50], "omp_sweep.c with gcc -fopenmp -DSWEEP_GOMP50"):
    stand = os.path.join(work, "llvm")
    os.makedirs(stand, exist_ok=True)
    os.symlink(LIBOMP, os.path.join(stand, "libgomp.so.1"))
    ENV["LD_LIBRARY_PATH"] = stand
    for m in modes(gomp50):
        check(m, gomp50, "gcc on libomp:", "GOMP", with_figs=False)
    del ENV["LD_LIBRARY_PATH"]

shutil.rmtree(work, ignore_errors=True)
t.done()
