"""Oversubscribed, busy-yielding workers (issue 13, item 10): more workers
than CPUs pass a token through shared memory and poll it with sched_yield(),
as an oversubscribed MPI job does (bench/oversub.c).  Every switch then
schedules the worker's perf context out and in; what that costs is measured
by `make bench-oversub` (docs/benchmarks.md), not here.  Here: no switch is
lost.  Each worker brackets its region "oversub.spin" with
getrusage(RUSAGE_THREAD); the shim's context-switches of the region must
equal the kernel's count across the bracket, but for a preemption in the
few instructions between a getrusage() and the region boundary (at most
SLACK per worker, never fewer than the kernel's).  Threads (one file) and
forked processes (a file each, as MPI ranks) are both checked, with four
workers on one CPU so that every host is oversubscribed."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import BUILD, Tap, region, run

OVERSUB = os.path.join(BUILD, "bench", "oversub")
WORKERS = 4
PASSES = 4000
SLACK = 2


def kernel_counts(out):
    """{tid: switches across the region} from the -v lines."""
    got = {}
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "worker":
            got[int(f[1])] = int(f[2])
    return got


def shim_counts(docs):
    """{tid: the region's context-switches} from the result files."""
    got = {}
    for d in docs:
        for th in d["threads"]:
            r = region(th, "oversub.spin")
            if r is not None:
                got[th["tid"]] = r["inclusive"]["context-switches"]
    return got


def check(t, mode, args):
    r = run([OVERSUB, "-c", "1", "-p", str(WORKERS), "-n", str(PASSES), "-v"]
            + args, env={"HPCSHIM_EVENTS": "context-switches,task-clock"})
    t.eq(r.rc, 0, "%s: exit status" % mode)
    kern, shim = kernel_counts(r.out), shim_counts(r.docs)
    t.eq(sorted(shim), sorted(kern), "%s: every worker's region is in the results" % mode)
    total = sum(kern.values())
    # A token pass needs its next holder on the CPU: a switch per pass but
    # for the first.
    t.ok(total >= PASSES - 1, "%s: the run switched at least once per pass (%d switches, %d passes)"
         % (mode, total, PASSES))
    bad = {tid: (shim.get(tid), kern[tid]) for tid in kern
           if shim.get(tid) is None or not 0 <= kern[tid] - shim[tid] <= SLACK}
    t.ok(not bad, "%s: the shim's context-switches of each worker equal the kernel's "
         "(RUSAGE_THREAD), less at most %d at the boundaries" % (mode, SLACK),
         "tid: (shim, kernel) %r" % bad)


def main():
    t = Tap()
    if not os.path.exists(OVERSUB):
        t.skip("oversubscribed workers", "bench/oversub not built")
        t.done()
    check(t, "threads", ["-t"])
    check(t, "processes", [])
    t.done()


main()
