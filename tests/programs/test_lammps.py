"""LAMMPS under `hpcshim run --profile` (issue 31): the classic 3d
Lennard-Jones melt on 2 ranks, its own "MPI task timing breakdown" against
hpcshim's split of each rank's time.

What LAMMPS times (src/timer.cpp, src/finish.cpp): the run's loop, per
section, with MPI_Wtime: Pair and Neigh (force and neighbour lists: no MPI
call), Comm (the halo exchange: MPI_Send/Irecv/Wait, and packing and
unpacking the atoms it sends and gets), Output (thermo: MPI_Allreduce),
Modify (fix nve: no MPI), Other (the loop less the sections).  Outside the
loop: the input's commands broadcast from rank 0, the set-up (atoms
created and counted, velocities, the first exchange and forces, the first
thermo), and the statistics printed at the end (MPI_Allreduce), besides
MPI_Init and MPI_Finalize.

So hpcshim's MPI time of rank r, less MPI_Init and MPI_Finalize (its
`init_finalize` kind), lies within

  lower = Comm_min - 4 x bytes_sent_r / (1 GB/s) - off_cpu_r
  upper = Comm_max + Output_max + Modify_max + Other_r + outside_r

- lower: Comm's time that is not MPI is the packing and unpacking (each
  sent and each received byte copied twice; the halo is symmetric, so
  received = sent, hpcshim's bytes_sent of the rank; 1 GB/s is below any
  copy loop's rate) and time the rank was descheduled in that code (at
  most its whole time off the CPU);
- upper: every section that may call MPI, at its slowest rank; Other_r at
  most the loop less the other sections' minima; outside_r the rank's
  wall time outside the loop, less its MPI_Init and MPI_Finalize (all of
  it may be MPI: the broadcast of the input, the set-up's collectives).

And each rank's six parts add up to its wall time (1%), its compute and
time off the CPU cover Pair and Neigh (their minima).

Debian's lmp is linked against one MPI (Open MPI in bookworm): the test
runs it under that one, and says so for the other.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, OPENMPI_ENV, Tap, Work  # noqa: E402

t = Tap()
HPCSHIM = os.path.join(BUILD, "hpcshim")
LMP = shutil.which("lmp")
NP = 2
MELT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "in.melt")
STEPS = 250
COPY_RATE = 1e9  # bytes/s: below any copy loop's


def linked_mpi(path):
    p = subprocess.run(["ldd", path], capture_output=True, encoding="utf-8")
    if "libmpi.so.40" in p.stdout:
        return "Open MPI"
    if "libmpich" in p.stdout or "libmpi.so.12" in p.stdout:
        return "MPICH"
    return None


def breakdown(text):
    """LAMMPS's loop time and {section: (min, avg, max)} in ns."""
    loop = re.search(r"Loop time of ([0-9.eE+-]+) on (\d+) procs", text)
    sec = {}
    for m in re.finditer(r"^(Pair|Neigh|Comm|Output|Modify|Other)\s*\|([^|]*)\|([^|]*)\|([^|]*)\|",
                         text, re.M):
        vals = [float(x) * 1e9 if x.strip() else None for x in m.groups()[1:]]
        sec[m.group(1)] = vals
    return (float(loop.group(1)) * 1e9 if loop else None, int(loop.group(2)) if loop else None,
            sec)


if not LMP:
    t.skip("LAMMPS", "lmp not installed (tools/setup.sh tests installs Debian's lammps)")
    t.done()
mpi = linked_mpi(os.path.realpath(LMP))
work = tempfile.mkdtemp(prefix="hpcshim-lammps-")
runner = Work(t, work, dict(OPENMPI_ENV, TMPDIR=work, OMP_NUM_THREADS="1"),
              ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "MAKE", "MFLAGS"), timeout=300)
LAUNCH = {"Open MPI": ["mpirun.openmpi", "-np", str(NP), "--mca", "btl", "self,vader"],
          "MPICH": ["mpiexec.mpich", "-n", str(NP)]}
for name in ("Open MPI", "MPICH"):
    if name != mpi:
        t.skip("LAMMPS under %s" % name, "Debian's lmp is linked against %s" % mpi)
        continue
    if not shutil.which(LAUNCH[name][0]):
        t.skip("LAMMPS under %s" % name, "%s not installed" % LAUNCH[name][0])
        continue
    out = runner.outdir()
    p, _ = runner.launch(LAUNCH[name] + [HPCSHIM, "run", "--profile", "-q", "-o", out, "--", LMP,
                                         "-in", MELT, "-var", "steps", str(STEPS), "-log", "none"], outdir=False)
    if not t.ok(p.returncode == 0, "%s: lmp -in in.melt on %d ranks under --profile" % (name, NP),
                p.stdout[-2000:] + p.stderr[-2000:]):
        continue
    loop, procs, sec = breakdown(p.stdout)
    if not t.ok(loop and procs == NP and {"Pair", "Neigh", "Comm", "Output", "Modify",
                                          "Other"} <= set(sec),
                "%s: LAMMPS printed its MPI task timing breakdown on %d procs" % (name, NP),
                p.stdout[-3000:]):
        continue
    q = subprocess.run([HPCSHIM, "report", "--view", "profile", "--format", "json", out],
                       capture_output=True, encoding="utf-8")
    if not t.ok(q.returncode == 0, "%s: report --view profile" % name, q.stderr):
        continue
    pr = json.loads(q.stdout)["profile"]
    t.eq(sorted(r["rank"] for r in pr["ranks"]), list(range(NP)), "%s: %d ranks" % (name, NP))
    other_max = loop - sum(sec[s][0] for s in ("Pair", "Neigh", "Comm", "Output", "Modify"))
    t.diag("LAMMPS: loop %.1f ms; Comm min/avg/max %.1f/%.1f/%.1f ms; Output max %.1f ms; "
           "Modify max %.1f ms; Other avg %.1f ms, at most %.1f ms"
           % (loop / 1e6, sec["Comm"][0] / 1e6, sec["Comm"][1] / 1e6, sec["Comm"][2] / 1e6,
              sec["Output"][2] / 1e6, sec["Modify"][2] / 1e6, sec["Other"][1] / 1e6,
              other_max / 1e6))
    for r in pr["ranks"]:
        tn = r["time_ns"]
        start = tn["mpi_by_kind"]["init_finalize"]
        mpi_r = tn["mpi"] - start
        # the rank's bytes sent: its own, from its file's wrap part (the
        # profile's tables give the statistics over the ranks)
        path = [os.path.join(out, f) for f in os.listdir(out)
                if f.startswith("hpcshim-") and f.endswith("-r%d.json" % r["rank"])]
        d = json.load(open(path[0])) if path else {}
        sent = sum(w.get("bytes", 0) or 0 for w in d.get("wrap", [])
                   if w.get("set") == "mpi")
        outside = r["wall_ns"] - loop - start
        lower = sec["Comm"][0] - 4 * sent / COPY_RATE * 1e9 - tn["off_cpu"]
        upper = sec["Comm"][2] + sec["Output"][2] + sec["Modify"][2] + other_max + outside
        t.ok(lower <= mpi_r <= upper,
             "%s rank %d: MPI %.1f ms (less MPI_Init/Finalize %.1f ms) within LAMMPS's Comm "
             "%.1f..%.1f ms and its margin: [%.1f, %.1f] ms (bytes sent %d, off CPU %.1f ms, "
             "outside the loop %.1f ms)"
             % (name, r["rank"], mpi_r / 1e6, start / 1e6, sec["Comm"][0] / 1e6,
                sec["Comm"][2] / 1e6, lower / 1e6, upper / 1e6, sent, tn["off_cpu"] / 1e6,
                outside / 1e6))
        parts = sum(tn[k] for k in ("compute", "mpi", "io", "openmp_wait", "off_cpu", "measurement"))
        t.ok(abs(parts - r["wall_ns"]) <= 0.01 * r["wall_ns"],
             "%s rank %d: the six parts add up to its wall %.1f ms (%.1f ms)"
             % (name, r["rank"], r["wall_ns"] / 1e6, parts / 1e6))
        t.ok(tn["compute"] + tn["off_cpu"] >= sec["Pair"][0] + sec["Neigh"][0],
             "%s rank %d: compute + off CPU %.1f ms cover Pair + Neigh (minima) %.1f ms"
             % (name, r["rank"], (tn["compute"] + tn["off_cpu"]) / 1e6,
                (sec["Pair"][0] + sec["Neigh"][0]) / 1e6))
    # OpenMP labels: the melt runs no OpenMP team (lmp -sf omp is not
    # asked for), so no thread of lmp has an omp_thread, not the main
    # threads nor the MPI library's (omp_get_thread_num() says 0 there).
    docs = [json.load(open(os.path.join(out, f))) for f in sorted(os.listdir(out))
            if f.startswith("hpcshim-") and re.search(r"-r\d+\.json$", f)]
    labels = [(th["tid"], th.get("omp_thread")) for d in docs for th in d["threads"]]
    teams = sum(len((d.get("openmp") or {}).get("constructs") or []) for d in docs)
    t.ok(len(docs) == NP and teams == 0 and labels and
         all(v is None for _, v in labels),
         "%s: no OpenMP team ran, no thread of the %d ranks has an omp_thread"
         % (name, NP), (teams, labels))
    # The HTML's thread balance: over the ranks' main threads, the MPI
    # library's helper threads apart.
    page = os.path.join(work, "lammps.html")
    q = subprocess.run([HPCSHIM, "html", "-o", page, out], capture_output=True,
                       encoding="utf-8")
    text = open(page, encoding="utf-8").read() if q.returncode == 0 else ""
    m = re.search(r"id=threadbars-imbalance data-value=\"([^\"]+)\" data-n=(\d+)", text)
    h = re.search(r"id=threadbars-helpers data-n=(\d+)", text)
    nthreads = sum(len(r["threads"]) for r in pr["ranks"])
    t.ok(m and int(m.group(2)) == NP and h and int(h.group(1)) == nthreads - NP,
         "%s: html's thread balance over the %d main threads, the other %d threads (the MPI "
         "library's) apart" % (name, NP, nthreads - NP), (m and m.groups(), h and h.groups()))
shutil.rmtree(work, ignore_errors=True)
t.done()
