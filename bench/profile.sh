#!/bin/sh
# profile.sh - the cost of `hpcshim run --profile` over the shim's default
# (`hpcshim run`), and of the default over no shim, on real programs:
# LAMMPS's Lennard-Jones melt on 2 ranks (Debian lammps, Open MPI), HPCC on
# 2 ranks (Debian hpcc), GROMACS mdrun of a water box on 1 rank x 2 OpenMP
# threads (Debian gromacs; its input made here with gmx solvate and
# grompp), numpy matrix products (Debian python3-numpy, OpenBLAS).  A
# program that is not installed is skipped, and said so.
#
# Usage: make bench-profile   (or: BENCH_BUILDDIR=<build dir> sh bench/profile.sh)
# Environment: BENCH_ROUNDS [7]; BENCH_PROGRAMS [all]: a comma-separated
# list, each program whose name contains one of the words (any case) is run
# (BENCH_PROGRAMS=lammps: LAMMPS only).  Each round runs every program once in each
# mode (none, default, profile), the modes' order rotated from round to
# round; the CPU time (user + system) of the whole command and its
# processes, and its wall time (launcher included), are taken.
# Prints per program the medians and the medians over the rounds of the
# same-round ratios profile/default (target <= 1.03) and default/none.
# Exits non-zero only when it cannot run.  docs/benchmarks.md, "The
# profile's cost".
set -eu
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
ROUNDS=${BENCH_ROUNDS:-7}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
unset HPCSHIM_PROFILE HPCSHIM_EVENTS HPCSHIM_WRAP LD_PRELOAD || true

# LAMMPS: the melt of tests/programs/test_lammps.py, 500 steps
mkdir "$W/lammps" "$W/hpcc" "$W/gmx"
# HPCC: Debian's example input, one problem of N 2000 on a 1 x 2 grid
if [ -r /usr/share/doc/hpcc/examples/_hpccinf.txt ]; then
	sed -e 's/^1000         Ns/2000         Ns/' -e 's/^2            Ps/1            Ps/' \
		/usr/share/doc/hpcc/examples/_hpccinf.txt >"$W/hpcc/hpccinf.txt"
fi
# GROMACS: a 2.5 nm box of SPC/E water, PME, 300 steps
if command -v gmx >"$W/which.log" 2>&1; then
	(
		cd "$W/gmx"
		gmx -quiet solvate -cs spc216.gro -box 2.5 2.5 2.5 -o conf.gro >solvate.log 2>&1
		n=$(($(grep -c SOL conf.gro) / 3))
		printf '#include "oplsaa.ff/forcefield.itp"\n#include "oplsaa.ff/spce.itp"\n[ system ]\nwater\n[ molecules ]\nSOL %d\n' \
			"$n" >topol.top
		printf 'integrator = md\nnsteps = 300\ndt = 0.002\ncutoff-scheme = Verlet\ncoulombtype = PME\nrcoulomb = 1.0\nrvdw = 1.0\ntcoupl = v-rescale\ntc-grps = System\ntau-t = 0.1\nref-t = 300\nconstraints = h-bonds\nnstenergy = 100\nnstlog = 100\n' \
			>md.mdp
		gmx -quiet grompp -f md.mdp -c conf.gro -p topol.top -o topol.tpr >grompp.log 2>&1
	) || echo "profile.sh: GROMACS input could not be made (see $W/gmx); skipped"
fi

${PYTHON3:-python3} - "$BUILDDIR" "$SRCDIR" "$W" "$ROUNDS" <<'PY'
import os, shutil, statistics, subprocess, sys, time
build, src, w, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
hpcshim = os.path.join(build, "hpcshim")
ompi = ["mpirun.openmpi", "-np", "2", "--mca", "btl", "self,vader"]
progs = []   # (name, launcher, argv, cwd, env)
if shutil.which("lmp") and shutil.which("mpirun.openmpi"):
    progs.append(("LAMMPS melt, 2 ranks", ompi, ["lmp", "-in", os.path.join(src, "tests/programs/in.melt"), "-var", "steps", "500", "-log", "none"],
                  os.path.join(w, "lammps"), {"OMP_NUM_THREADS": "1"}))
else:
    print("LAMMPS: lmp or mpirun.openmpi not installed; skipped")
if shutil.which("hpcc") and os.path.exists(os.path.join(w, "hpcc", "hpccinf.txt")):
    progs.append(("HPCC N 2000, 2 ranks", ompi, ["hpcc"], os.path.join(w, "hpcc"),
                  {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}))
else:
    print("HPCC: hpcc not installed; skipped")
if shutil.which("gmx") and os.path.exists(os.path.join(w, "gmx", "topol.tpr")):
    progs.append(("GROMACS mdrun, 1 rank x 2 OpenMP", [],
                  ["gmx", "-quiet", "mdrun", "-ntmpi", "1", "-ntomp", "2", "-s", "topol.tpr",
                   "-nb", "cpu", "-pin", "off", "-g", "md.log", "-e", "ener.edr", "-o", "traj.trr",
                   "-c", "out.gro", "-cpo", "state.cpt"],
                  os.path.join(w, "gmx"), {}))
else:
    print("GROMACS: gmx not installed or its input not made; skipped")
# Debian's python3 and its numpy (python3-numpy): products of 1500 x 1500
# matrices on OpenBLAS's threads, a second or so
MATMUL = ("import numpy as np\n"
          "a = np.arange(1500 * 1500, dtype=np.float64).reshape(1500, 1500) % 7\n"
          "c = a\n"
          "for _ in range(8):\n"
          "    c = (a @ c) % 5\n"
          "print(int(c.sum()))\n")
if os.path.exists("/usr/bin/python3"):
    progs.append(("numpy matmul 1500, OpenBLAS 2 threads", [], ["/usr/bin/python3", "-c", MATMUL],
                  w, {"OPENBLAS_NUM_THREADS": "2"}))
# BENCH_PROGRAMS: only the programs whose name contains one of these
# (comma-separated, any case: "lammps", "hpcc,numpy")
only = [x.strip().lower() for x in os.environ.get("BENCH_PROGRAMS", "").split(",") if x.strip()]
if only:
    progs = [p for p in progs if any(x in p[0].lower() for x in only)]
modes = ("none", "default", "profile")
# Two figures per run: the wall time of the command and the CPU time of it
# and every process it waited for (user + system, os.wait4): on a machine
# shared with other work the wall time moves with the others' load, the
# CPU time far less, and the shim's added work is CPU time.
times = {(p[0], m, k): [] for p in progs for m in modes for k in ("wall", "cpu")}
ratios = {(p[0], k, c): [] for p in progs for k in ("profile/default", "default/none")
          for c in ("wall", "cpu")}
n = 0
for r in range(rounds):
    for name, launcher, argv, cwd, env in progs:
        got = {}
        for i in range(len(modes)):
            m = modes[(i + r) % len(modes)]
            out = os.path.join(w, "out%d" % n)
            n += 1
            shim = {"none": [], "default": [hpcshim, "run", "-q", "-o", out, "--"],
                    "profile": [hpcshim, "run", "--profile", "-q", "-o", out, "--"]}[m]
            e = dict(os.environ, **env)
            log = open(os.path.join(w, "run.log"), "w")
            t0 = time.perf_counter()
            p = subprocess.Popen(launcher + shim + argv, cwd=cwd, env=e, stdout=log,
                                 stderr=subprocess.STDOUT)
            _, status, ru = os.wait4(p.pid, 0)
            dt = time.perf_counter() - t0
            p.returncode = os.waitstatus_to_exitcode(status)
            log.close()
            if p.returncode != 0:
                print("%s (%s): exit %d, see the log:" % (name, m, p.returncode))
                print(open(os.path.join(w, "run.log")).read()[-2000:])
                sys.exit(1)
            shutil.rmtree(out, ignore_errors=True)
            got[m] = {"wall": dt, "cpu": ru.ru_utime + ru.ru_stime}
            for k in ("wall", "cpu"):
                times[(name, m, k)].append(got[m][k])
        for c in ("wall", "cpu"):
            ratios[(name, "profile/default", c)].append(got["profile"][c] / got["default"][c])
            ratios[(name, "default/none", c)].append(got["default"][c] / got["none"][c])
print("%d rounds, modes interleaved (order rotated each round); medians; ratios: the median "
      "of the same-round ratios" % rounds)
for c, what in (("cpu", "CPU time (user + system) of the command and its processes"),
                ("wall", "wall time of the command")):
    print("\n%s" % what)
    print("%-38s %8s %9s %9s %16s %13s" % ("program", "none s", "default s", "profile s",
                                           "profile/default", "default/none"))
    for name, *_ in progs:
        med = {m: statistics.median(times[(name, m, c)]) for m in modes}
        pd = statistics.median(ratios[(name, "profile/default", c)])
        dn = statistics.median(ratios[(name, "default/none", c)])
        print("%-38s %8.3f %9.3f %9.3f %16.3f %13.3f%s" % (name, med["none"], med["default"],
                                                         med["profile"], pd, dn,
                                                         "" if pd <= 1.03 else "  (over 1.03)"))
        print("%-38s   profile/default per round: %s" % (
            "", " ".join("%.3f" % x for x in ratios[(name, "profile/default", c)])))
