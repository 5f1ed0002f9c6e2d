"""Each rank's summary at MPI_Finalize from its writer's view (issue 30,
aggregate/jobsrc_view.c) is byte for byte the one from its whole document
(what hpcshim merge reads of a rank file, aggregate/jobsrc_doc.c).

HPCSHIM_MPI_SUMMARY=check: every rank takes one snapshot, written whole
with the view's tap, and summarises it both ways: from the tap's values
with the document cut as the tap cuts it, and from the whole document;
it packs both (agg_jobsum__pack) and says in one line whether they are
identical.  Real jobs of 2 oversubscribed ranks of
tests/programs/mpi_viewsum.c (built with -fopenmp), one per case:

- threads with regions of their own names (disjoint across threads),
  some ended and some alive at MPI_Finalize, an OpenMP loop (constructs,
  OpenMP threads), nested regions;
- regions folded (HPCSHIM_MAX_REGIONS=5), threads folded
  (HPCSHIM_MAX_THREADS=2);
- software events rotated (HPCSHIM_MUX=rotate): multiplexed values with
  standard errors;
- wrapped MPI and I/O functions (HPCSHIM_PROFILE=1);
- no annotated region at all (with and without the profile);
- under MPICH too;
and a rank whose results carry a drill-down (HPCSHIM_PRESET=topdown,
LIBPFM_FORCE_PMU=skx) summarises its whole document: no check line.
What makes each case is checked in the ranks' own files
(HPCSHIM_MPI_FILES=all).  And without the check the summary does come
from the view (HPCSHIM_VERBOSE=2's line), and HPCSHIM_MPI_SUMMARY=doc
from the document.

Skipped (TAP skip) only when an MPI's compilers are not installed."""
import glob
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, HERE, LIB, BUILD, OPENMPI_ENV, PRELOAD, Work, MPI_FOREIGN, mpi_launchers, installed_mpis

t = Tap()
SRC = os.path.dirname(HERE)
PROGS = os.path.join(HERE, "programs")
work = tempfile.mkdtemp(prefix="hpcshim-viewsum-")
NP = 2
SHIM = PRELOAD.format(lib=LIB)
ENV = dict(OPENMPI_ENV, TMPDIR=work)
FOREIGN = MPI_FOREIGN
MPIS = mpi_launchers(NP)
runner = Work(t, work, ENV, FOREIGN, timeout=240)
ANNOTATED = re.compile(r"^(work|shared|steady|omp_body|m\d+|t\d+_r\d+)$")
SOFT = "{page-faults},{context-switches},{task-clock}"
CHECK = re.compile(r"rank (\d+): summary check: the view's and the document's summaries "
                   r"(are identical|DIFFER)")


def job(launcher, option, prog, args, extra):
    argv = list(launcher)
    env = dict({"LD_PRELOAD": SHIM, "HPCSHIM_MPI_FILES": "all", "OMP_NUM_THREADS": "3"},
               **extra)
    for k, v in env.items():
        argv += option(k, v)
    p, outdir = runner.launch(argv + [prog] + [str(a) for a in args])
    ranks, jobs = [], []
    for f in sorted(glob.glob(os.path.join(outdir, "hpcshim-*.json"))):
        with open(f, encoding="utf-8") as fh:
            (jobs if os.path.basename(f).startswith("hpcshim-job-") else ranks).append(
                json.load(fh))
    return p, ranks, jobs


def regions_of(doc):
    return [r for th in doc["threads"] for r in th["regions"]]


def stderrs(doc):
    return sum(1 for r in doc["regions"] + regions_of(doc)
               for k in ("inclusive_multiplexed", "exclusive_multiplexed")
               for v in r.get(k, {}).values() if "stderr" in v)


# name, program arguments, environment, what the rank files must show
CASES = [
    ("threads, disjoint names, OpenMP", [4, 20], {},
     lambda d: (len({th["tid"] for th in d["threads"] if th["regions"]}) >= 3 and
                any(r["name"] == "t1_r3" for r in regions_of(d)) and
                not any(r["name"] == "t1_r3" and th["tid"] == d["process"]["pid"]
                        for th in d["threads"] for r in th["regions"]) and
                bool((d.get("openmp") or {}).get("constructs")) and
                any("omp_thread" in th and th["omp_thread"] > 0 for th in d["threads"]))),
    ("regions folded (HPCSHIM_MAX_REGIONS=5)", [4, 20], {"HPCSHIM_MAX_REGIONS": "5"},
     lambda d: (d["folded"]["regions"] or {}).get("count", 0) > 0),
    ("threads folded (HPCSHIM_MAX_THREADS=2)", [4, 20], {"HPCSHIM_MAX_THREADS": "2"},
     lambda d: (d["folded"]["threads"] or {}).get("count", 0) > 0),
    ("rotated software events (HPCSHIM_MUX=rotate)", [4, 20, 60],
     {"HPCSHIM_EVENTS": SOFT, "HPCSHIM_MUX": "rotate", "HPCSHIM_MUX_SLICE": "1ms"},
     lambda d: stderrs(d) > 0),
    ("wrapped functions (HPCSHIM_PROFILE=1)", [4, 20], {"HPCSHIM_PROFILE": "1"},
     lambda d: (any(r["name"] == "MPI_Allreduce" for r in d["regions"]) and
                any(r["name"] == "write" for r in d["regions"]))),
    ("no region at all", [0, 0], {}, lambda d: d["regions"] == []),
    ("no annotated region, the profile's only", [0, 0], {"HPCSHIM_PROFILE": "1"},
     lambda d: (any(r["name"] == "MPI_Allreduce" for r in d["regions"]) and
                not any(ANNOTATED.match(r["name"]) for r in d["regions"] + regions_of(d)))),
]

for name, cc, launcher, option, impl in installed_mpis(t, MPIS):
    prog = os.path.join(work, "mpi_viewsum_" + impl)
    if not runner.build("%s program" % name,
                        [cc, "-O2", "-fopenmp", "-I", os.path.join(SRC, "annotate"),
                         "-I", os.path.join(SRC, "tests"), "-o", prog,
                         os.path.join(PROGS, "mpi_viewsum.c")]):
        continue
    # every case under Open MPI; the first two and the profile under MPICH
    cases = CASES if impl == "openmpi" else [CASES[0], CASES[1], CASES[4]]
    for what, args, extra, shows in cases:
        desc = "%s, %s" % (name, what)
        p, ranks, _ = job(launcher, option, prog, args,
                       dict(extra, HPCSHIM_MPI_SUMMARY="check"))
        lines = CHECK.findall(p.stderr)
        if not t.eq(p.returncode, 0, "%s: the job runs" % desc):
            t.diag(p.stderr[-3000:])
            continue
        t.eq(sorted(lines), [(str(r), "are identical") for r in range(NP)],
             "%s: every rank's summary from the view is the document's, byte for byte" % desc)
        t.ok(len(ranks) == NP and all(shows(d) for d in ranks),
             "%s: the ranks' files show the case" % desc,
             "\n".join(json.dumps({k: d.get(k) for k in ("folded", "regions")})[:1500]
                       for d in ranks))
    # a drill-down reads every region of the document: the whole one, no
    # check line (forced skx: the preset's tree found, its events dropped)
    if impl == "openmpi":
        p, ranks, jobs = job(launcher, option, prog, [2, 5],
                             {"HPCSHIM_MPI_SUMMARY": "check", "HPCSHIM_VERBOSE": "2",
                              "HPCSHIM_PRESET": "topdown", "LIBPFM_FORCE_PMU": "skx"})
        got = re.findall(r"rank \d+: summarised from its (\w+)", p.stderr)
        t.ok(p.returncode == 0 and got == ["document"] * NP and not CHECK.findall(p.stderr) and
             len(ranks) == NP and all("totals_drilldown" in d for d in ranks) and
             len(jobs) == 1 and "totals_drilldown" in jobs[0],
             "%s, a drill-down (HPCSHIM_PRESET=topdown): each rank summarised from its whole "
             "document (%r), the job document has the drill-down" % (name, got),
             p.stderr[-3000:])
    # without the check: the view, unless told the document
    for mode, source in (("view", "view"), ("doc", "document")):
        p, ranks, jobs = job(launcher, option, prog, [4, 20],
                       {"HPCSHIM_MPI_SUMMARY": mode, "HPCSHIM_VERBOSE": "2"})
        got = re.findall(r"rank \d+: summarised from its (\w+)", p.stderr)
        t.ok(p.returncode == 0 and got == [source] * NP,
             "%s: HPCSHIM_MPI_SUMMARY=%s: each rank summarised from its %s (%r)"
             % (name, mode, source, got), p.stderr[-3000:])
        t.ok(len(jobs) == 1 and jobs[0]["job"]["ranks"] == NP and
             any(r["name"] == "t1_r3" for r in jobs[0]["regions"]),
             "%s: HPCSHIM_MPI_SUMMARY=%s: a job document of %d ranks" % (name, mode, NP))

t.done()
