"""A rank that never reaches MPI_Finalize holds nobody (issue 30): the
in-job reduction's waits end at HPCSHIM_MPI_WAIT per level of the tree
(preload/mpi/plugin/hpcshim-mpi.c), then rank 0 writes the job document
naming the missing rank.  Real Open MPI and MPICH jobs of 4 oversubscribed
ranks (tests/programs/mpi_job.c "hang"): rank r touches (r+1) x 1000 pages
in region `work`; after the job's last collective the last rank (3) blocks
opening a FIFO this test holds.  The test waits for rank 0's own line
saying the document was written (HPCSHIM_VERBOSE=1: an event, not a
sleep), only then releases rank 3, which reaches MPI_Finalize late: its
parent gave up on it, so it falls back to its own file, and the job ends
normally.  Checked:

- the document was written while rank 3 was still blocked, and says so:
  missing_ranks [3], missing_count 1, job ranks 3 of size 4, and work's
  page faults over the three ranks that came: n 3, sum 6000, min 1000 at
  rank 0, max 3000 at rank 2; rank 0's one `hpcshim:` line;
- with HPCSHIM_MPI_FILES=job the ranks the document holds write no file,
  and rank 3, whose results are not in it, keeps its own: complete, its
  work's page faults exactly 4000;
- the job exits 0 with the program's own stdout; nothing hangs (a timeout
  on the whole run fails the test);
- HPCSHIM_MPI_WAIT malformed: one `hpcshim:` line naming the default, and
  the program runs on unchanged.

Skipped (TAP skip) only when an MPI's compiler or launcher is missing."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, HERE, LIB, BUILD, OPENMPI_ENV, PRELOAD, Work, proc_region, MPI_FOREIGN, mpi_launchers, installed_mpis

t = Tap()
PROGS = os.path.join(HERE, "programs")
SRC = os.path.dirname(HERE)
work = tempfile.mkdtemp(prefix="hpcshim-mpiwait-")
NP, PAGES, WAIT = 4, 1000, "2s"
SHIM = PRELOAD.format(lib=LIB)
FOREIGN = MPI_FOREIGN
MPIS = mpi_launchers(NP)
runner = Work(t, work, dict(OPENMPI_ENV, TMPDIR=work), FOREIGN, timeout=240)
WRITTEN = "job document of %d of %d ranks written to" % (NP - 1, NP)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def release(fifo):
    """Rank 3's open of the FIFO returns and its read sees the end."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        return True
    except OSError:  # no reader: rank 3 is not (or no longer) there
        return False


def hang_job(name, launcher, option, prog):
    outdir = runner.outdir()
    fifo = os.path.join(work, "fifo%d" % runner.runs)
    os.mkfifo(fifo)
    argv = list(launcher)
    for k, v in [("LD_PRELOAD", SHIM), ("HPCSHIM_OUTPUT", outdir), ("HPCSHIM_MPI_WAIT", WAIT),
                 ("HPCSHIM_MPI_FILES", "job"), ("HPCSHIM_VERBOSE", "1")]:
        argv += option(k, v)
    argv += [prog, str(PAGES), "0", "hang", fifo]
    p = subprocess.Popen(argv, env=runner.environment(), cwd=work, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, encoding="utf-8", errors="replace",
                         start_new_session=True)
    err, written = [], threading.Event()

    def read_err():
        for line in p.stderr:
            err.append(line)
            if WRITTEN in line:
                written.set()
    reader = threading.Thread(target=read_err)
    reader.start()
    # rank 0's line comes while rank 3 is still blocked on the FIFO
    came = written.wait(timeout=180)
    t.ok(came, "%s: rank 0 wrote the job document while rank 3 had not reached "
         "MPI_Finalize" % name, "".join(err)[-3000:])
    jobs_then = glob.glob(os.path.join(outdir, "hpcshim-job-*.json"))
    released = release(fifo)
    t.ok(released, "%s: rank 3 was still blocked when the document was written" % name)
    try:
        out, _ = p.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
        t.ok(False, "%s: the job ends once rank 3 is released (hung)" % name)
        return
    reader.join()
    t.eq(p.returncode, 0, "%s: the job exits 0" % name)
    t.eq(out, "ranks %d pages %d\n" % (NP, PAGES * NP * (NP + 1) // 2),
         "%s: the program's own stdout" % name)
    t.eq(len(jobs_then), 1, "%s: one job document, there before rank 3 went on" % name)
    lines = [l for l in err if "did not reach the job document" in l]
    t.ok(len(lines) == 1 and lines[0].startswith("hpcshim: MPI: 1 of 4 ranks"),
         "%s: rank 0 says it in one hpcshim: line" % name, "".join(err)[-3000:])
    if not jobs_then:
        return
    doc = load(jobs_then[0])
    t.eq((doc["missing_ranks"], doc["missing_count"], doc["job"]["ranks"], doc["job"]["size"]),
         ([NP - 1], 1, NP - 1, NP), "%s: the document names rank 3 missing" % name)
    t.eq(sorted(e["rank"] for e in doc["ranks"]), list(range(NP - 1)),
         "%s: ranks[] lists the three that came" % name)
    w = proc_region(doc, "work")
    pf = w and w["inclusive"].get("page-faults")
    if t.ok(pf is not None, "%s: work has page-faults statistics" % name):
        t.eq((pf["n"], pf["sum"], pf["min"], pf["min_at"]["rank"], pf["max"],
              pf["max_at"]["rank"]), (3, 6000, 1000, 0, 3000, 2),
             "%s: work's page faults over ranks 0-2: n, sum, min at 0, max at 2" % name)
    files = sorted(os.listdir(outdir))
    own = [f for f in files if f.startswith("hpcshim-") and not f.startswith("hpcshim-job-")]
    t.eq(len(own), 1, "%s: HPCSHIM_MPI_FILES=job: one rank file, rank 3's (%s)" % (name, files))
    if len(own) == 1:
        r3 = load(os.path.join(outdir, own[0]))
        t.eq((r3["process"]["rank"], r3["process"]["complete"]), (NP - 1, True),
             "%s: rank 3's own file, complete" % name)
        wr = proc_region(r3, "work")
        t.eq(wr and wr["inclusive"]["page-faults"]["sum"], PAGES * NP,
             "%s: rank 3's work page faults exactly %d" % (name, PAGES * NP))


for name, cc, launcher, option, impl in installed_mpis(t, MPIS):
    if not os.path.exists(os.path.join(BUILD, "preload", "mpi", "hpcshim-mpi-%s.so" % impl)):
        t.ok(False, "%s: the plugin hpcshim-mpi-%s.so was built" % (name, impl))
        continue
    prog = os.path.join(work, "mpi_job_" + impl)
    if runner.build("%s program" % name, [cc, "-O2", "-I", os.path.join(SRC, "annotate"),
                                          "-o", prog, os.path.join(PROGS, "mpi_job.c")]):
        hang_job(name, launcher, option, prog)

# a malformed wait: one line naming the default, the program unchanged
p, _ = runner.launch(["/bin/echo", "unchanged"], shim=True, outdir=False,
                     env={"HPCSHIM_MPI_WAIT": "soon"})
t.eq((p.returncode, p.stdout), (0, "unchanged\n"), "HPCSHIM_MPI_WAIT=soon: the program runs on")
bad = [l for l in p.stderr.splitlines() if "HPCSHIM_MPI_WAIT" in l]
t.ok(len(bad) == 1 and bad[0].startswith("hpcshim: HPCSHIM_MPI_WAIT='soon'")
     and "using 60s" in bad[0], "HPCSHIM_MPI_WAIT=soon: one hpcshim: line naming the default",
     p.stderr)

shutil.rmtree(work, ignore_errors=True)
t.done()
