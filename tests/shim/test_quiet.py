"""Quiet processes: the environment an exec'd program sees is exactly what
its parent passed; exec generations still number the files of one pid; an
image that execs without measurable work leaves no file; HPCSHIM_PROGRAMS
and the dormant launchers; no file claims a rank its process does not
have; real MPI launchers with LD_PRELOAD exported to them."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, BUILD, LIB, PRELOAD, WORKLOAD, run, workload, main_thread, region

t = Tap()
SPAWNER = os.path.join(BUILD, "tests", "shim", "spawner")
PRELOAD_VALUE = PRELOAD.format(lib=LIB)


def entries(out):
    return out.split("\0")


def files(outdir):
    return sorted(os.listdir(outdir))


def cmd_name(doc):
    return os.path.basename(doc["process"]["command"][0])


def touched(doc):
    r = region(main_thread(doc), "touch")
    return r["inclusive"]["page-faults"] if r else None


# ---- the environment --------------------------------------------------------
# env -0 at the end of each chain, with and without the shim, in one output
# directory (its name is in the environment).  Under the shim the parent
# passes LD_PRELOAD itself; that entry apart, the lists are identical.
d = tempfile.mkdtemp(prefix="hpcshim-test-")
os.chmod(d, 0o1777)
CHAINS = {
    "fork+exec": ["fork", "env", "-0"],
    "exec": ["exec", "env", "-0"],
    "failed exec, then exec": ["badexec", "env", "-0"],
    "posix_spawn": ["spawn", "env", "-0"],
    "system()": ["system", "env", "-0"],
    "vfork+exec": ["vfork", "env", "-0"],
    "exec, fork+exec, exec": ["exec", SPAWNER, "fork", SPAWNER, "exec", "env", "-0"],
    "3 execs in one pid": ["exec", SPAWNER, "exec", SPAWNER, "exec", "env", "-0"],
}
for name, chain in CHAINS.items():
    bare = run([SPAWNER] + chain, preload=False, outdir=d)
    shim = run([SPAWNER] + chain, outdir=d)
    got = entries(shim.out)
    want = entries(bare.out)
    t.ok(("LD_PRELOAD=" + PRELOAD_VALUE) in got, "env, %s: LD_PRELOAD as the parent passed it" % name)
    got = [e for e in got if e != "LD_PRELOAD=" + PRELOAD_VALUE]
    t.ok(bare.rc == 0 and got == want, "env, %s: the exec'd program's environment is its parent's" % name,
         "\n".join(sorted(set(got) ^ set(want))))
    t.ok(not [e for e in shim.out.split("\0") if e.startswith("HPCSHIM_EXEC_GENERATION=")],
         "env, %s: no HPCSHIM_EXEC_GENERATION" % name)

# Variables the program sets itself, ours included, pass unchanged.
OWN = ["HPCSHIM_EXEC_GENERATION=1:1", "HPCSHIM_SOMETHING=x", "LD_PRELOAD=%s " % PRELOAD_VALUE]
for mode in ("fork", "exec", "spawn"):
    argv = [SPAWNER]
    for kv in OWN:
        argv += ["-s", kv]
    r = run(argv + [mode, "env", "-0"], outdir=d)
    got = entries(r.out)
    t.ok(all(kv in got for kv in OWN), "env, %s: what the program set (LD_PRELOAD, HPCSHIM_*) passes as set" % mode,
         [e for e in got if e.startswith(("HPCSHIM_", "LD_PRELOAD"))])
shutil.rmtree(d, ignore_errors=True)

# ---- exec generations -------------------------------------------------------
r = workload("touch", 10, "exec", "touch", 20, "exec", "touch", 30, "exec", "touch", 40)
gens = sorted((d["process"]["exec_generation"], d["process"]["end"], touched(d)) for d in r.docs)
t.eq(gens, [(0, "exec", 10), (1, "exec", 20), (2, "exec", 30), (3, "exit", 40)],
     "3 execs in one pid: generations 0-3, each image's own counts")
t.eq(len({d["process"]["pid"] for d in r.docs}), 1, "3 execs: one pid")

# An image that only execs takes no generation: the files of a pid are
# numbered without gaps.  No marker is left behind.
d = tempfile.mkdtemp(prefix="hpcshim-test-")
os.chmod(d, 0o1777)
r = workload("touch", 10, "exec", "exec", "exec", "touch", 30, "exec", "touch", 40, outdir=d)
gens = sorted((d_["process"]["exec_generation"], touched(d_)) for d_ in r.docs)
t.eq(gens, [(0, 10), (1, 30), (2, 40)], "images with nothing measured in between: generations 0, 1, 2")
t.eq([f for f in files(d) if not f.endswith(".json")], [], "no marker left in the output directory")
if r.docs:
    base = "hpcshim-%s-%d" % (r.docs[0]["process"]["host"], r.docs[0]["process"]["pid"])
    t.eq(files(d), sorted([base + ".json", base + "-x1.json", base + "-x2.json"]),
         "file names: <pid>.json, then -x1, -x2")
shutil.rmtree(d, ignore_errors=True)

# A failed exec: image 0 written at the attempt, the next one is 1.
r = workload("touch", 4, "badexec", "touch", 6, "exec", "touch", 8)
gens = sorted((d["process"]["exec_generation"], touched(d)) for d in r.docs)
t.eq(gens, [(0, 4), (1, 8)], "failed exec: generations 0 and 1")

# ---- no stubs ---------------------------------------------------------------
# bash forks and execs each command (dash vforks: no fork handler runs).
SH20 = "i=0; while [ $i -lt 20 ]; do /bin/true; i=$((i+1)); done"
r = run(["bash", "-c", SH20])
t.eq(r.rc, 0, "bash forking 20 children: status")
t.eq(len(r.docs), 21, "bash forking 20 children: 21 files (the shell and 20 true), no fork stubs")
t.eq([d for d in r.docs if d["process"]["end"] == "exec"], [], "... none ended by exec")
t.eq(sorted(cmd_name(d) for d in r.docs).count("true"), 20, "... 20 of them the children")

# A fork child that works before exec keeps its file (2000 pages, above the
# floor); the same without work writes none.
r = run([SPAWNER, "-w", "2000", "fork", "/bin/true"])
ends = sorted((d["process"]["end"], cmd_name(d)) for d in r.docs)
t.eq(len(ends), 3, "fork child that touched 2000 pages before exec: parent, child and true write files")
child = [d for d in r.docs if d["process"]["end"] == "exec"]
if t.ok(len(child) == 1, "... the child's file ends by exec"):
    pf = main_thread(child[0])["totals"]["page-faults"]
    t.ok(pf is not None and pf >= 2000, "... and holds its 2000 page faults (%r)" % pf)
r = run([SPAWNER, "-n", "5", "fork", "/bin/true"])
t.eq(sorted(d["process"]["end"] for d in r.docs), ["exit"] * 6, "5 idle fork+exec: 6 files, no stub")

# ---- HPCSHIM_PROGRAMS ---------------------------------------------------------
bare = workload("touch", 10, preload=False)
r = workload("touch", 10, env={"HPCSHIM_PROGRAMS": "nomatch*,other"})
t.eq((r.rc, r.out, r.err), (bare.rc, bare.out, bare.err), "dormant: status, stdout, stderr unchanged")
t.eq(r.docs, [], "dormant: no file")
r = workload("touch", 10, env={"HPCSHIM_PROGRAMS": "nomatch", "HPCSHIM_VERBOSE": "1"})
lines = r.shim_lines()
t.ok(len(lines) == 1 and "dormant" in lines[0] and "workload" in lines[0],
     "dormant, verbose 1: one line naming the program", lines)
bare = run([SPAWNER, "status"], preload=False)
r = run([SPAWNER, "status"], env={"HPCSHIM_PROGRAMS": "nomatch"})
t.eq(r.out, bare.out, "dormant: signal dispositions and descriptors those of the bare program")
counted = run([SPAWNER, "status"])
t.ok(counted.out != bare.out, "(counted, the same check sees the shim's handlers and counters)")

for globs, want, desc in (
    ("workload", 1, "the executable's name"),
    ("work*", 1, "a glob"),
    ("x,[w]orkload", 1, "the second glob of a list"),
    ("spawner", 0, "another program's name"),
):
    r = workload("touch", 10, env={"HPCSHIM_PROGRAMS": globs})
    t.eq(len(r.docs), want, "HPCSHIM_PROGRAMS=%s: %s, %d file" % (globs, desc, want))

# argv[0] counts as well as /proc/self/exe: a symlink with another name.
d = tempfile.mkdtemp(prefix="hpcshim-test-")
link = os.path.join(d, "mysolver")
os.symlink(WORKLOAD, link)
r = run([link, "touch", "10"], env={"HPCSHIM_PROGRAMS": "mysolver"})
t.eq(len(r.docs), 1, "HPCSHIM_PROGRAMS matches argv[0]'s name (a symlink)")
shutil.rmtree(d, ignore_errors=True)

for bad in ("a[b", "bin/workload", "x\\"):
    r = workload("touch", 10, env={"HPCSHIM_PROGRAMS": bad + ",workload"})
    lines = r.shim_lines()
    t.ok(len(lines) == 1 and "HPCSHIM_PROGRAMS" in lines[0] and "ignored" in lines[0],
         "bad glob %r: one line" % bad, lines)
    t.eq((r.rc, len(r.docs)), (0, 1), "bad glob %r: the rest of the list applies" % bad)
r = workload("touch", 10, env={"HPCSHIM_PROGRAMS": "a["})
t.eq((len(r.shim_lines()), len(r.docs)), (1, 1), "only a bad glob: one line, the default applies (counted)")

# HPCSHIM_PROGRAMS selects inside a tree: sh -> 20 x true counted as true only.
r = run(["bash", "-c", SH20], env={"HPCSHIM_PROGRAMS": "true"})
t.eq(sorted(cmd_name(d) for d in r.docs), ["true"] * 20, "HPCSHIM_PROGRAMS=true: the 20 children only")

# ---- make -j2 ---------------------------------------------------------------
def make_project(d):
    for i in range(9):
        with open(os.path.join(d, "f%d.c" % i), "w") as f:
            f.write("int f%d(int x) { return x * %d; }\n" % (i, i))
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write("int main(void) { return 0; }\n")
    with open(os.path.join(d, "Makefile"), "w") as f:
        f.write("OBJS = $(patsubst %.c,%.o,$(wildcard *.c))\n"
                "prog: $(OBJS)\n\t$(CC) -o $@ $^\n"
                "%.o: %.c\n\t$(CC) -O1 -c $< -o $@\n")


# Under `make check` the calling make's variables would make this make print
# "Entering directory" lines with the (different) temp directory of each run.
for k in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES"):
    os.environ.pop(k, None)
if shutil.which("make") and shutil.which("cc"):
    outs = []
    for env in (None, {"HPCSHIM_PROGRAMS": "cc1"}):
        src = tempfile.mkdtemp(prefix="hpcshim-make-")
        make_project(src)
        r = run(["make", "-s", "-j2", "-C", src], env=env, preload=env is not None)
        outs.append((r.rc, r.out.replace(src, "SRC"), os.path.exists(os.path.join(src, "prog"))))
        shutil.rmtree(src, ignore_errors=True)
    t.eq(outs[1], outs[0], "make -j2 under the shim: status, output and program as without it")
    t.eq(outs[1][0], 0, "make -j2 succeeded")
    src = tempfile.mkdtemp(prefix="hpcshim-make-")
    make_project(src)
    r = run(["make", "-s", "-j2", "-C", src], env={"HPCSHIM_PROGRAMS": "cc1"})
    t.eq(sorted(cmd_name(d) for d in r.docs), ["cc1"] * 10, "make -j2, HPCSHIM_PROGRAMS=cc1: one file per source, 10")
    shutil.rmtree(src, ignore_errors=True)
    src = tempfile.mkdtemp(prefix="hpcshim-make-")
    make_project(src)
    r = run(["make", "-s", "-j2", "-C", src])
    t.diag("make -j2 of 10 files, no filter: %d files" % len(r.docs))
    t.eq([d for d in r.docs if d["process"]["end"] == "exec" and not main_thread(d)["regions"]
          and (main_thread(d)["totals"].get("task-clock") or 0) < 1e6], [],
         "make -j2, no filter: no stub (an exec'd image under 1 ms without regions)")
    shutil.rmtree(src, ignore_errors=True)
else:
    t.skip("make -j2 under the shim", "make or cc missing")

# ---- launchers --------------------------------------------------------------
d = tempfile.mkdtemp(prefix="hpcshim-launch-")


def launcher(name):
    path = os.path.join(d, name)
    shutil.copy(SPAWNER, path)
    return path


for name in ("mpirun", "hydra_pmi_proxy", "orted", "srun"):
    # The helper sets the rank in its fork child, which works (2000 pages)
    # and execs the rank program.
    r = run([launcher(name), "-c", "PMI_RANK=5", "-w", "2000", "fork", WORKLOAD, "touch", "7"],
            env={"PMI_SIZE": "8"})
    t.eq(r.rc, 0, "fake %s: status" % name)
    t.eq([(cmd_name(x), x["process"]["rank"]) for x in r.docs], [("workload", 5)],
         "fake %s: dormant, its fork child too; one file, the rank program's, rank 5" % name)

# Launchers by default, even with no launcher variable; HPCSHIM_PROGRAMS
# given explicitly overrides the default.
r = run([launcher("mpiexec.hydra"), "-w", "2000", "exec", "/bin/true"])
t.eq([cmd_name(x) for x in r.docs], ["true"], "mpiexec.hydra: dormant by its name (the program it execs counted)")
r = run([launcher("mpirun"), "-w", "2000", "exec", "/bin/true"], env={"HPCSHIM_PROGRAMS": "mpirun"})
t.eq(sorted(cmd_name(x) for x in r.docs), ["mpirun"], "HPCSHIM_PROGRAMS=mpirun: counts the launcher, only it")

# A helper the table does not know: its fork child that works before exec
# writes a file, but claims no rank; the rank program does.
r = run([launcher("mylauncher"), "-c", "PMI_RANK=3", "-w", "2000", "fork", WORKLOAD, "touch", "7"],
        env={"PMI_SIZE": "8"})
ranks = sorted((cmd_name(x), x["process"]["end"], x["process"]["rank"]) for x in r.docs)
t.eq(ranks, [("mylauncher", "exec", None), ("mylauncher", "exit", None), ("workload", "exit", 3)],
     "unknown launcher: the fork child's file claims no rank; the rank program's does")

# The rank comes from the start environment: set later by the program, it is not claimed.
r = run([SPAWNER, "-c", "OMPI_COMM_WORLD_RANK=2", "-w", "2000", "exec", "/bin/true"])
ranks = sorted((cmd_name(x), x["process"]["rank"]) for x in r.docs)
t.eq(ranks, [("spawner", None), ("true", 2)], "a rank variable set before exec: the exec'd image has it, the setter not")

# Shells between a launcher and a rank: dormant under a launcher's variables.
SH = "%s touch 7; true" % WORKLOAD
for shell in ("sh", "bash"):
    r = run([launcher("mpirun"), "-c", "PMI_RANK=1", "fork", shell, "-c", SH], env={"PMI_SIZE": "2"})
    t.eq([(cmd_name(x), x["process"]["rank"]) for x in r.docs], [("workload", 1)],
         "mpirun -> %s -c -> program: the shell dormant, the program rank 1" % shell)
    r = run([shell, "-c", SH])
    t.eq(sorted(cmd_name(x) for x in r.docs), sorted([shell, "workload"]),
         "the same %s -c without a launcher: counted" % shell)
shutil.rmtree(d, ignore_errors=True)

# ---- real MPI launchers ---------------------------------------------------------
def installed(pkg):
    return subprocess.run(["dpkg", "-s", pkg], capture_output=True).returncode == 0


MPI = (
    ("MPICH mpiexec.mpich", "mpich", ["mpiexec.mpich", "-n", "2"], {}),
    ("Open MPI mpirun.openmpi", "openmpi-bin", ["mpirun.openmpi", "--oversubscribe", "-n", "2"],
     {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_plm_rsh_agent": ""}),
)
for desc, pkg, argv, env in MPI:
    if not installed(pkg) or not shutil.which(argv[0]):
        t.skip("%s -n 2 with LD_PRELOAD exported" % desc, "%s not installed" % pkg)
        continue
    bare = run(argv + [WORKLOAD, "touch", "10"], env=env, preload=False, timeout=120)
    r = run(argv + [WORKLOAD, "touch", "10"], env=env, timeout=120)
    if not t.eq((r.rc, sorted(r.out.splitlines())), (bare.rc, sorted(bare.out.splitlines())),
                "%s: status and output unchanged" % desc):
        t.diag("with the shim: %s\nwithout: %s" % (r.err[-1500:], bare.err[-1500:]))
    got = sorted(((cmd_name(x), x["process"]["rank"], touched(x)) for x in r.docs), key=repr)
    t.eq(got, [("workload", 0, 10), ("workload", 1, 10)],
         "%s -n 2, LD_PRELOAD exported: exactly 2 files, ranks 0 and 1, none from the launcher" % desc)
t.done()
