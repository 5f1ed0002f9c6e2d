"""GROMACS (Debian's `gromacs`, built with gcc and libgomp) under the shim,
unannotated (issue 29): `gmx mdrun` of a tiny system made here with gmx's
own tools (a 2 nm box of water: `gmx solvate`, `gmx grompp` of a minimal
.mdp of NSTEPS steps), one rank and 2 OpenMP threads (`-ntmpi 1 -ntomp 2
-nb cpu -reprod`), with and without the shim:

- the program is unchanged: exit status 0 both ways, its final coordinates
  (md.gro) and energies (md.edr) byte for byte the same (-reprod: the same
  thread count gives the same floating-point order), no hpcshim: line;
- its parallel constructs are recorded through libgomp's entry points:
  each named (Debian's libgromacs is stripped: its file and the offset,
  the same from run to run), each a region of each thread with the calls
  the openmp record has; for 2 threads each thread's work and wait;
  calls per thread equal across the team; the constructs run once per MD
  step run NSTEPS + 1 times per thread (steps 0 to NSTEPS).

Skipped, with the reason, when gmx is not installed (tools/setup.sh
installs gromacs with the tests' packages), or when mdrun fails bare on
this host (gmx's own error line; the shim must then fail it the same way)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import Tap, run, region  # noqa: E402

t = Tap()
GMX = shutil.which("gmx")
NSTEPS = 200
TOP = """#include "oplsaa.ff/forcefield.itp"
#include "oplsaa.ff/spce.itp"

[ system ]
water

[ molecules ]
"""
MDP = """integrator     = md
nsteps         = %d
dt             = 0.002
cutoff-scheme  = Verlet
nstlist        = 10
coulombtype    = reaction-field
rcoulomb       = 0.8
rvdw           = 0.8
constraints    = h-bonds
tcoupl         = no
nstxout        = 0
nstvout        = 0
nstenergy      = 50
nstlog         = 50
gen-vel        = yes
gen-temp       = 300
gen-seed       = 1
""" % NSTEPS

if not GMX:
    t.skip("gmx mdrun under the shim", "gmx not installed (Debian package gromacs)")
    t.done()

work = tempfile.mkdtemp(prefix="hpcshim-gromacs-")
os.chmod(work, 0o755)
ENV = {"HOME": work, "GMX_MAXBACKUP": "-1", "OMP_NUM_THREADS": "2"}


def gmx(args, what):
    p = subprocess.run([GMX, "-quiet"] + args, cwd=work, capture_output=True,
                       encoding="utf-8", errors="replace", timeout=120,
                       env=dict(os.environ, **ENV))
    return t.ok(p.returncode == 0, "inputs: gmx %s" % what, p.stderr[-2000:])


with open(os.path.join(work, "topol.top"), "w") as f:
    f.write(TOP)
with open(os.path.join(work, "md.mdp"), "w") as f:
    f.write(MDP)
ok = (gmx(["solvate", "-cs", "spc216.gro", "-box", "2", "2", "2", "-o", "conf.gro", "-p",
           "topol.top"], "solvate: a 2 nm box of water") and
      gmx(["grompp", "-f", "md.mdp", "-c", "conf.gro", "-p", "topol.top", "-o", "md.tpr"],
          "grompp: %d steps" % NSTEPS))
if not ok:
    shutil.rmtree(work, ignore_errors=True)
    t.done()

TPR = os.path.join(work, "md.tpr")
ARGV = [GMX, "-quiet", "mdrun", "-ntmpi", "1", "-ntomp", "2", "-nb", "cpu", "-reprod",
        "-s", TPR, "-deffnm", "md"]
runs = {}
for how, pre in (("bare", False), ("shim", True)):
    out = os.path.join(work, how)
    os.mkdir(out)
    os.chmod(out, 0o1777)
    runs[how] = run(ARGV, env=ENV, preload=pre, outdir=out, timeout=120)
bare, shim = runs["bare"], runs["shim"]


def fatal_line(err):
    """gmx's own reason: the first line after its "Fatal error:"."""
    lines = err.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Fatal error:") and i + 1 < len(lines):
            return lines[i + 1].strip()
    return (lines or ["exit status %d" % bare.rc])[-1]


# A host that cannot run the program at all (Debian's build needs the
# rdtscp instruction, which some hypervisors' CPUs do not expose): what is
# left to check is that it fails the same way under the shim.
if bare.rc != 0:
    why = fatal_line(bare.err)
    t.eq((shim.rc, fatal_line(shim.err)), (bare.rc, why),
         "mdrun fails bare on this host; the same status and error under the shim")
    for _ in range(12):
        t.skip("mdrun under the shim", "gmx mdrun fails here without the shim: %s" % why)
    shutil.rmtree(work, ignore_errors=True)
    t.done()


def content(r, name):
    try:
        with open(os.path.join(r.outdir, name), "rb") as f:
            return f.read()
    except OSError:
        return None


t.eq((shim.rc, bare.rc), (0, 0), "mdrun: exit status 0 with and without the shim")
t.eq(shim.shim_lines(), [], "mdrun: no hpcshim: line")
for name in ("md.gro", "md.edr"):
    a, b = content(bare, name), content(shim, name)
    t.ok(a is not None and a == b, "mdrun: %s byte for byte the same with the shim" % name,
         "sizes %r, %r" % (a and len(a), b and len(b)))

if len(shim.docs) != 1:
    t.ok(False, "mdrun: one result file", len(shim.docs))
    shutil.rmtree(work, ignore_errors=True)
    t.done()
d = shim.doc
o = d.get("openmp") or {}
t.eq((o.get("runtime"), o.get("source"), o.get("recorded")), ("libgomp", "GOMP", True),
     "mdrun: libgomp's constructs recorded through its entry points")
cs = o.get("constructs") or []
two = [c for c in cs if c["team_max"] == 2]
t.ok(len(two) >= 5, "mdrun: its parallel constructs of 2 threads recorded (%d)" % len(two),
     [c["region"] for c in cs])
NAME = re.compile(r"^omp parallel(?: for| sections)? @ (\S+\.c(?:pp)?:\d+|"
                  r"libgromacs\S*\+0x[0-9a-f]+|\S+)$")
t.ok(cs and all(NAME.match(c["region"]) and not re.search(r"@ 0x", c["region"]) for c in cs),
     "mdrun: each construct named by its line, or its object and offset (no bare address)",
     [c["region"] for c in cs])
t.eq([c["region"] for c in cs if "libgromacs" not in c["region"] and ".c" not in c["region"]],
     [], "mdrun: every construct is libgromacs's")
t.ok(all(sorted(p["omp_thread"] for p in c["per_thread"]) == [0, 1] and
         all(p["work_ns"] > 0 for p in c["per_thread"]) for c in two),
     "mdrun: each 2-thread construct has both threads' work",
     [(c["region"], [(p["omp_thread"], p["work_ns"]) for p in c["per_thread"]]) for c in two])
t.ok(all(sum(p["wait_ns"] for p in c["per_thread"]) > 0 and
         sum(p["last"] for p in c["per_thread"]) == c["teams"] for c in two),
     "mdrun: each 2-thread construct has its threads' waits, one last arrival per team",
     [(c["region"], c["teams"], [(p["wait_ns"], p["last"]) for p in c["per_thread"]])
      for c in two])
t.eq([c["region"] for c in two if len({p["calls"] for p in c["per_thread"]}) != 1], [],
     "mdrun: calls per thread equal across the team")
ths = {th["tid"]: th for th in d["threads"]}
t.eq([(c["region"], p["omp_thread"]) for c in cs for p in c["per_thread"]
      if (region(ths.get(p["tid"], {"regions": []}), c["region"]) or {}).get("calls")
      != p["calls"]], [],
     "mdrun: each thread's region of each construct has the calls of its openmp record")
steps = [c["region"] for c in two if all(p["calls"] == NSTEPS + 1 for p in c["per_thread"])]
t.ok(len(steps) >= 1, "mdrun: constructs run once per step: %d calls per thread (steps 0 to "
     "%d)" % (NSTEPS + 1, NSTEPS), [(c["region"], c["teams"]) for c in two])

shutil.rmtree(work, ignore_errors=True)
t.done()
