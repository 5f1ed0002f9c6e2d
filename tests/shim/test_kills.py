"""Kills: every default-terminating signal that can be caught writes the
results so far (complete false, the signal named) and the process dies of
it exactly as without the shim; the periodic flush (HPCSHIM_FLUSH) leaves a
file when nothing can be caught: SIGKILL, a raw exit_group (Go), a launcher
killing the ranks of an aborted MPI job.  No temporary file is ever left.

The programs say when they are ready (a line on stdout, a file); the test
waits for that, or for the flushed file to appear, never for a time."""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, BUILD, environ, main_thread, region

t = Tap()
KILLPROG = os.path.join(BUILD, "tests", "shim", "killprog")
PAGES = 64
THREADS = 3
REGIONS = 5


def no_core():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def start(argv, outdir, preload=True, extra=None, **kw):
    return subprocess.Popen(argv, env=environ(outdir, preload, extra), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=no_core, cwd=outdir, **kw)


def results(outdir):
    return sorted(glob.glob(os.path.join(outdir, "hpcshim-*.json")))


def leftovers(outdir):
    """Temporary files of the shim: hidden names, or anything *.tmp."""
    return [f for f in os.listdir(outdir) if f.startswith(".") or f.endswith(".tmp")]


def wait_for(cond, what, limit=120):
    """Waits for a condition the program brings about (a file appears);
    the limit only turns a hang into a failure."""
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.005)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def killprog(sig, preload=True, flush="off", mode="idle", end="return"):
    """Runs killprog, sends sig in the middle of region "wait"; returns
    (status, docs, leftover temporaries, stderr)."""
    outdir = tempfile.mkdtemp(prefix="hpcshim-test-")
    p = start([KILLPROG, str(THREADS), str(REGIONS), str(PAGES), mode, end], outdir, preload,
              {"HPCSHIM_FLUSH": flush})
    ready = p.stdout.readline()
    assert ready.startswith("ready"), ready
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    docs = [load(f) for f in results(outdir)]
    left = leftovers(outdir)
    shutil.rmtree(outdir, ignore_errors=True)
    return p.returncode, docs, left, err


def pf(counts):
    return counts.get("page-faults")


# ---- every newly covered signal, and SIGTERM ----------------------------
SIGS = ["SIGTERM", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGPIPE",
        "SIGXCPU", "SIGXFSZ", "SIGSTKFLT", "SIGPWR", "SIGSYS", "SIGTRAP", "SIGIO"]
cases = [(getattr(signal, n), n[3:]) for n in SIGS if hasattr(signal, n)]
cases += [(signal.SIGRTMIN, None), (signal.SIGRTMIN + 5, None), (signal.SIGRTMAX, None)]
for sig, name in cases:
    desc = name or "SIGRTMIN+%d" % (sig - signal.SIGRTMIN)
    rc, docs, left, err = killprog(sig)
    brc, _, _, _ = killprog(sig, preload=False)
    t.eq(rc, brc, "%s: exit status as without the shim (%d)" % (desc, brc))
    t.eq(rc, -sig, "%s: killed by the same signal" % desc)
    t.eq(left, [], "%s: no temporary file left" % desc)
    if not t.eq(len(docs), 1, "%s: one result file" % desc):
        t.diag(err)
        continue
    d = docs[0]
    p = d["process"]
    t.eq((p["complete"], p["end"], p["signal"]), (False, "signal", int(sig)),
         "%s: complete false, end signal, the signal's number" % desc)
    if name:
        # glibc names 29 POLL (SIGIO == SIGPOLL).
        t.ok(p["signal_name"] in ({name, "POLL"} if name == "IO" else {name}),
             "%s: signal_name %s (%s)" % (desc, name, p["signal_name"]))
    m = main_thread(d)
    t.eq(pf(region(m, "touch")["inclusive"]), PAGES,
         "%s: the closed region's page faults, exact" % desc)
    t.eq((region(m, "wait")["calls"], m["warnings"]["auto_closed"]), (1, 1),
         "%s: the region under way closed by the signal" % desc)
    t.eq(d["thread_count"], THREADS + 1, "%s: every thread in the file" % desc)

# ---- HPCSHIM_FLUSH: SIGKILL loses at most one period ---------------------
def flushed_since(outdir, ns):
    """A flush document collected at or after ns (CLOCK_REALTIME)."""
    for f in results(outdir):
        try:
            if load(f)["process"]["end_ns"] >= ns:
                return True
        except (OSError, ValueError, KeyError):
            pass  # replaced while read: the next look sees the new one
    return False


def minflt(pid, tid):
    with open("/proc/%d/task/%d/stat" % (pid, tid)) as f:
        return int(f.read().rsplit(")", 1)[1].split()[7])


for mode in ("idle", "spin"):
    outdir = tempfile.mkdtemp(prefix="hpcshim-test-")
    p = start([KILLPROG, str(THREADS), str(REGIONS), str(PAGES), mode, "return"], outdir,
              extra={"HPCSHIM_FLUSH": "50ms"})
    pid = int(p.stdout.readline().split()[1])
    # "ready": every worker has started.  A flush from before it may have
    # caught a worker the kernel had made but the shim not yet counted, so
    # wait for one taken after it.
    ready_ns = time.time_ns()
    wait_for(lambda: flushed_since(outdir, ready_ns), "a flush after ready")
    truth = minflt(pid, pid)
    p.kill()
    p.communicate(timeout=120)
    files = results(outdir)
    t.eq((p.returncode, len(files)), (-9, 1), "SIGKILL (%s workers): one file, from the flush" % mode)
    t.eq(leftovers(outdir), [], "SIGKILL (%s workers): no temporary file" % mode)
    d = load(files[0])
    pr = d["process"]
    t.eq((pr["complete"], pr["end"]), (False, "flush"), "flushed file: complete false, end flush")
    m = main_thread(d)
    t.eq(pf(region(m, "touch")["inclusive"]), PAGES, "flushed file: closed region exact")
    t.ok(pf(m["totals"]) <= truth,
         "flushed main-thread page faults %d <= the kernel's %d at the kill" % (pf(m["totals"]), truth))
    t.eq((d["thread_count"], d["uncovered_threads"]), (THREADS + 1, []),
         "flushed file: the program's threads, the flusher not among them")
    torn = [(th["tid"], r["name"]) for th in d["threads"] for r in th["regions"]
            if r["calls"] and (r["per_call"] or {}).get("calls") != r["calls"]]
    t.eq(torn, [], "every flushed region consistent: per-call count == calls (%s workers)" % mode)
    workers = [th for th in d["threads"] if th["tid"] != pid]
    t.ok(all(region(th, "w%d" % k)["calls"] >= 1 for th in workers for k in range(REGIONS)),
         "flushed file: every worker's regions")
    shutil.rmtree(outdir, ignore_errors=True)

# ---- a raw exit_group (Go's way out) keeps the last flush -------------------
for end, want in (("exit_group", (False, "flush")), ("return", (True, "exit"))):
    outdir = tempfile.mkdtemp(prefix="hpcshim-test-")
    p = start([KILLPROG, "1", "2", str(PAGES), "idle", end], outdir, extra={"HPCSHIM_FLUSH": "50ms"})
    p.stdout.readline()
    wait_for(lambda: results(outdir), "the first flush")
    out, err = p.communicate("go\n", timeout=120)
    files = results(outdir)
    t.eq((p.returncode, len(files)), (0, 1), "%s after a flush: status 0, one file" % end)
    t.eq(leftovers(outdir), [], "%s: no temporary file" % end)
    if files:
        d = load(files[0])
        t.eq((d["process"]["complete"], d["process"]["end"]), want,
             "%s: %s" % (end, "the last flush" if end == "exit_group" else "the end replaced the flush"))
        t.eq(pf(region(main_thread(d), "touch")["inclusive"]), PAGES, "%s: closed region exact" % end)
    shutil.rmtree(outdir, ignore_errors=True)

# ---- HPCSHIM_FLUSH values -------------------------------------------------
for val in ("1", "fast", "-1s", "5ms"):
    outdir = tempfile.mkdtemp(prefix="hpcshim-test-")
    p = start([KILLPROG, "0", "1", "1", "idle", "return"], outdir, extra={"HPCSHIM_FLUSH": val})
    out, err = p.communicate("go\n", timeout=120)
    lines = [l for l in err.splitlines() if l.startswith("hpcshim:")]
    t.ok(p.returncode == 0 and len(lines) == 1 and "HPCSHIM_FLUSH" in lines[0],
         "HPCSHIM_FLUSH=%s: one diagnostic line, the program runs on (%s)" % (val, lines))
    shutil.rmtree(outdir, ignore_errors=True)

# ---- Go with cgo: leaves through a raw exit_group -------------------------
GO_SRC = r'''package main

/*
static int twice(int x) { return 2 * x; }
*/
import "C"

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	fmt.Println("ready", int(C.twice(21)))
	bufio.NewReader(os.Stdin).ReadString('\n')
}
'''
# Under a sanitizer (tools/sanitize.sh) the third-party runtimes are left
# out: TSan does not follow Go's runtime nor the launchers' forks.
SANITIZER = os.environ.get("HPCSHIM_TEST_SANITIZER")
gobin = shutil.which("go")
if SANITIZER:
    t.skip("Go with cgo leaves a file", "under " + SANITIZER)
elif not gobin:
    t.skip("Go with cgo leaves a file", "go not installed")
else:
    work = tempfile.mkdtemp(prefix="hpcshim-go-")
    with open(os.path.join(work, "main.go"), "w") as f:
        f.write(GO_SRC)
    env = dict(os.environ, GOCACHE=os.path.join(work, "cache"), GOPATH=os.path.join(work, "gopath"),
               CGO_ENABLED="1", GO111MODULE="off")
    env.pop("LD_PRELOAD", None)
    b = subprocess.run([gobin, "build", "-o", "cgoprog", "main.go"], cwd=work, env=env,
                       capture_output=True, text=True)
    if b.returncode != 0:
        t.skip("Go with cgo leaves a file", "go build failed: " + b.stderr[-200:])
    else:
        outdir = tempfile.mkdtemp(prefix="hpcshim-test-")
        p = start([os.path.join(work, "cgoprog")], outdir, extra={"HPCSHIM_FLUSH": "50ms"})
        t.eq(p.stdout.readline().strip(), "ready 42", "cgo program runs under the shim")
        wait_for(lambda: results(outdir), "the Go program's first flush")
        out, err = p.communicate("go\n", timeout=120)
        files = results(outdir)
        t.eq((p.returncode, len(files)), (0, 1), "Go (cgo) program: status 0, one result file")
        if files:
            d = load(files[0])
            t.eq((d["process"]["complete"], d["process"]["end"]), (False, "flush"),
                 "Go (cgo) program: the last flush, complete false")
        t.eq(leftovers(outdir), [], "Go (cgo): no temporary file")
        shutil.rmtree(outdir, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)

# ---- MPI_Abort under both launchers: a file for every rank ----------------
MPI_SRC = r'''#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int rank;
	char *p = malloc(64 * 4096);
	struct timespec ts = { 0, 1000000 };
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	memset(p, 1, 64 * 4096);
	MPI_Barrier(MPI_COMM_WORLD);
	/* The test creates "go" once every rank has a flushed file. */
	while (access("go", F_OK) != 0)
		nanosleep(&ts, NULL);
	if (rank == 0)
		MPI_Abort(MPI_COMM_WORLD, 3);
	for (;;)
		pause();
}
'''


def installed(pkg):
    return subprocess.run(["dpkg", "-s", pkg], capture_output=True).returncode == 0


for name, pkg, cc, launch in (
        ("MPICH (hydra)", "mpich", "mpicc.mpich", ["mpiexec.mpich", "-n", "2"]),
        ("Open MPI", "openmpi-bin", "mpicc.openmpi",
         ["mpirun.openmpi", "--oversubscribe", "-n", "2"])):
    if SANITIZER:
        t.skip("%s: MPI_Abort keeps a file per rank" % name, "under " + SANITIZER)
        continue
    if not installed(pkg) or not shutil.which(cc) or not shutil.which(launch[0]):
        t.skip("%s: MPI_Abort keeps a file per rank" % name, "%s not installed" % pkg)
        continue
    work = tempfile.mkdtemp(prefix="hpcshim-mpi-")
    os.chmod(work, 0o1777)
    src = os.path.join(work, "abort.c")
    with open(src, "w") as f:
        f.write(MPI_SRC)
    prog = os.path.join(work, "abort_" + pkg.split("-")[0])
    b = subprocess.run([cc, "-o", prog, src], capture_output=True, text=True)
    if b.returncode != 0:
        t.skip("%s: MPI_Abort keeps a file per rank" % name, "build failed: " + b.stderr[-200:])
        continue
    extra = {"HPCSHIM_FLUSH": "50ms", "OMPI_ALLOW_RUN_AS_ROOT": "1",
             "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1"}

    def rank_files():
        out = {}
        for f in results(work):
            try:
                d = load(f)
            except ValueError:
                continue
            if d["process"]["command"][:1] == [prog] and d["process"]["rank"] is not None:
                out[d["process"]["rank"]] = d
        return out

    p = start(launch + [prog], work, extra=extra)
    try:
        wait_for(lambda: len(rank_files()) == 2, "a flushed file from each rank", limit=60)
        open(os.path.join(work, "go"), "w").close()
        out, err = p.communicate(timeout=120)
        ranks = rank_files()
        t.eq(sorted(ranks), [0, 1], "%s: MPI_Abort of 2 ranks keeps a file for every rank" % name)
        # Rank 0 ends in MPI_Abort itself (Open MPI: _exit), the other
        # is killed: its file is partial.
        t.ok(not ranks[1]["process"]["complete"],
             "%s: the killed rank's file is partial (%s)" % (
                 name, [(r, d["process"]["end"]) for r, d in sorted(ranks.items())]))
    except AssertionError as e:
        p.kill()
        out, err = p.communicate()
        t.ok(False, "%s: %s (%s)" % (name, e, err[-300:]))
    t.eq([f for f in leftovers(work) if f != "go"], [], "%s: no temporary file" % name)
    shutil.rmtree(work, ignore_errors=True)

t.done()
