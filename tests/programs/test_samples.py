"""The samples run under the shim with unchanged output and leave the
regions they annotate; hpcshim-report summarises their JSON."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, BUILD, run, proc_region

t = Tap()
REPORT = os.path.join(BUILD, "hpcshim-report")


def sample(name, args=(), env=None):
    argv = [os.path.join(BUILD, "samples", name)] + [str(a) for a in args]
    shim = run(argv, env=env, outdir=tempfile.mkdtemp(prefix="hpcshim-sample-"))
    bare = run(argv, env=env, preload=False)
    t.eq(shim.rc, 0, "%s: exit code 0 under the shim" % name)
    t.eq(shim.out, bare.out, "%s: stdout identical with and without the shim" % name)
    t.eq(len(shim.docs), 1, "%s: one result file" % name)
    return shim


r = sample("matmul", (192, 32))
for reg in ("init", "matmul_naive", "matmul_blocked"):
    t.ok(proc_region(r.doc, reg) is not None, "matmul: region %s recorded" % reg)
naive = proc_region(r.doc, "matmul_naive")["inclusive"]["task-clock"]["sum"]
t.ok(naive > 0, "matmul: naive kernel took measurable task-clock")
rep = subprocess.run([REPORT] + [os.path.join(r.outdir, f) for f in os.listdir(r.outdir)
                                 if f.endswith(".json")], capture_output=True, text=True)
t.eq(rep.returncode, 0, "hpcshim-report: exit code 0")
t.ok("matmul_blocked" in rep.stdout and "task-clock" in rep.stdout,
     "hpcshim-report: lists regions and events", rep.stdout + rep.stderr)

bad = subprocess.run([REPORT, "/nonexistent.json"], capture_output=True, text=True)
t.eq(bad.returncode, 1, "hpcshim-report: unreadable file -> exit 1")
t.ok(bad.stderr.startswith("hpcshim-report: /nonexistent.json"), "hpcshim-report: names the file")

r = sample("pthreads_work", (4,))
comp = proc_region(r.doc, "compute")
alloc = proc_region(r.doc, "alloc")
t.eq((comp["threads"], comp["calls"]), (4, 4), "pthreads: compute in 4 threads")
t.eq(alloc["inclusive"]["page-faults"]["sum"], 256 * (1 + 2 + 3 + 4), "pthreads: alloc faults exact")
t.eq(alloc["inclusive"]["page-faults"]["max"], 4 * 256, "pthreads: largest worker's faults")
tc = comp["inclusive"]["task-clock"]
t.within(tc["max"] / tc["min"], 4.0, 0.1, "pthreads: 4x work -> 4x task-clock")

if os.path.exists(os.path.join(BUILD, "samples", "openmp_work")):
    r = sample("openmp_work", env={"OMP_NUM_THREADS": "4"})
    loop = proc_region(r.doc, "omp_loop")
    t.eq(loop["threads"], 4, "openmp: omp_loop in 4 threads")
    t.eq(len(r.doc["threads"]), 4, "openmp: pool threads counted (main + 3)")
    # Work is proportional to the thread number; the time is not exactly
    # (shared caches on a busy 2-CPU VM): check the order and the range.
    by_num = sorted((th.get("omp_thread"), [x for x in th["regions"] if x["name"] == "omp_loop"])
                    for th in r.doc["threads"])
    times = [regs[0]["inclusive"]["task-clock"] for _, regs in by_num if regs]
    t.ok(len(times) == 4 and times == sorted(times),
         "openmp: task-clock grows with the OpenMP thread number: %r" % times)
    t.ok(len(times) == 4 and 2.5 <= times[-1] / times[0] <= 6.0,
         "openmp: thread 3 (4 units) vs thread 0 (1 unit): ratio %.2f in [2.5, 6]"
         % (times[-1] / times[0] if times and times[0] else 0))
    t.eq(sorted(th.get("omp_thread") for th in r.doc["threads"]), [0, 1, 2, 3],
         "openmp: threads labelled with their OpenMP thread numbers")
else:
    t.skip("openmp sample", "compiler without OpenMP")
t.done()
