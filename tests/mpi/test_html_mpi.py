"""hpcshim run under real MPI launchers, and the HTML report of the real
MPI+OpenMP sample.

samples/hybrid_work.c, built with each MPI's compiler wrapper and
-fopenmp: OpenMP thread t of rank r touches (r+1) x (t+1) x UNIT fresh
pages in region omp_work (one page fault each), inside region rank_work
on the master thread.  `mpirun -np 4 hpcshim run -- ./app` (Open MPI) and
`mpiexec.mpich -n 4 hpcshim run -- ./app` (MPICH): exactly one file per
rank, all from the program (none from hpcshim, the launcher or its
daemons), each OpenMP thread's exact faults, the region tree in the files
(omp_work under rank_work on the master thread, at the top on the
worker: the summary lists both parents).  Then `hpcshim html` of the
Open MPI job (else the MPICH one), opened in headless Chromium: it
renders, a screenshot is written, no console message, no network request;
the tree's rows, the flat regions, the per-rank bars (imbalance, the rank
that was max) and the OpenMP labels of the thread bars are the JSON's."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, HERE, OPENMPI_ENV, Tap, Work, CHROMIUM, chrome, named  # noqa: E402

t = Tap()
SRC = os.path.dirname(HERE)
HPCSHIM = os.path.join(BUILD, "hpcshim")
NP, UNIT = 4, 200
work = tempfile.mkdtemp(prefix="hpcshim-htmlmpi-")
os.chmod(work, 0o755)
FOREIGN = ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "SLURM_", "PALS_", "ALPS_",
           "MV2_", "MPIRUN_", "FLUX_", "PRTE_", "MAKE", "MFLAGS", "OMP_")
ENV = dict(OPENMPI_ENV, HOME=work, TMPDIR=work,
           # The tree asked for is the annotated regions' own: the OpenMP
           # construct regions around omp_work are tests/shim/test_openmp.py's.
           HPCSHIM_OPENMP="off")
MPIS = [
    ("Open MPI", "mpicc.openmpi", ["mpirun.openmpi", "-np", str(NP), "--oversubscribe"]),
    ("MPICH", "mpicc.mpich", ["mpiexec.mpich", "-n", str(NP)]),
]


runner = Work(t, work, ENV, FOREIGN, timeout=240)
launch = runner.run


openmp = subprocess.run(["gcc", "-fopenmp", "-E", "-x", "c", "/dev/null"],
                        capture_output=True).returncode == 0
jobs = []
for name, cc, launcher in MPIS:
    gone = [x for x in (cc, launcher[0]) if not shutil.which(x)]
    if gone or not openmp:
        t.skip("%s: hpcshim run under the launcher" % name,
               "%s not installed" % (", ".join(gone) or "OpenMP"))
        continue
    prog = os.path.join(work, "hybrid_" + cc.split(".")[1])
    p = subprocess.run([cc, "-O2", "-fopenmp", "-I", SRC, "-o", prog,
                        os.path.join(SRC, "samples", "hybrid_work.c")],
                       capture_output=True, encoding="utf-8")
    if not t.ok(p.returncode == 0, "%s: hybrid_work builds" % name, p.stderr[-2000:]):
        continue
    out = os.path.join(work, "out-" + cc.split(".")[1])
    os.mkdir(out)
    bare = launch(launcher + [prog, str(UNIT)])
    p = launch(launcher + [HPCSHIM, "run", "-q", "-o", out, "-e", "page-faults,task-clock",
                           "--", prog, str(UNIT)])
    t.eq((p.returncode, p.stdout), (bare.returncode, bare.stdout),
         "%s: %s -np %d hpcshim run: the job's exit status and stdout" % (name, launcher[0], NP))
    files = sorted(glob.glob(os.path.join(out, "hpcshim-*.json")))
    docs = [json.load(open(f, encoding="utf-8")) for f in files]
    # the job's own document (preload/mpi/, at MPI_Finalize) is beside them
    t.eq(sum(1 for d in docs if d["schema"].startswith("hpcshim-job/")), 1,
         "%s: one job document beside the rank files" % name)
    docs = [d for d in docs if d["schema"].startswith("hpcshim/")]
    progs = sorted({os.path.basename(d["process"]["command"][0]) for d in docs})
    t.eq(progs, [os.path.basename(prog)],
         "%s: every file is the program's (none from hpcshim or the launcher)" % name)
    t.eq(sorted(d["process"]["rank"] for d in docs), list(range(NP)),
         "%s: one file per rank (%d files)" % (name, len(docs)))
    faults, tree_ok = [], True
    for d in docs:
        r = d["process"]["rank"]
        for th in d["threads"]:
            g = named(th["regions"], "omp_work")
            if th.get("omp_thread") is None or th["omp_thread"] < 0:
                continue
            k = th["omp_thread"]
            faults.append((r, k, g and g["inclusive"]["page-faults"], (r + 1) * (k + 1) * UNIT))
            main = th["tid"] == d["process"]["pid"]
            tree_ok &= g is not None and g["parent"] == ("rank_work" if main else None)
        s = named(d["regions"], "omp_work")
        tree_ok &= s is not None and s["parent"] is None and s.get("parents") == ["rank_work", None]
    t.ok(len(faults) == 2 * NP and all(a == b for _, _, a, b in faults),
         "%s: every OpenMP thread of every rank has its exact faults in omp_work" % name, faults)
    t.ok(tree_ok, "%s: omp_work's parent is rank_work on the master thread, none on the worker; "
         "the summary lists both" % name)
    if len(docs) == NP:
        jobs.append((name, out, docs))

if not jobs:
    t.skip("html of the MPI+OpenMP job", "no MPI job ran")
    t.done()
    sys.exit(0)

name, job, docs = jobs[0]
html = os.path.join(work, "report.html")
p = subprocess.run([HPCSHIM, "html", "-o", html, job], capture_output=True, encoding="utf-8")
t.eq(p.returncode, 0, "hpcshim html of the %s job exits 0" % name)
page = open(html, encoding="utf-8").read()
t.ok(not re.search(r"<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import", page, re.I),
     "self-contained: no script, link, image, src, href or url()")
t.eq(re.search(r"id=ranks>(\d+)<", page).group(1), str(NP), "header: %d ranks" % NP)

# The tree: per path, the per-thread records summed (calls, threads,
# inclusive and exclusive page faults, wall time).
want = {}
for d in docs:
    for th in d["threads"]:
        regs = {g["name"]: g for g in th["regions"]}
        for g in th["regions"]:
            path, u = [g["name"]], g
            while u["parent"]:
                u = regs[u["parent"]]
                path.insert(0, u["name"])
            w = want.setdefault("/".join(path), [0, 0, 0, 0, 0])
            w[0] += g["calls"]
            w[1] += 1
            w[2] += g["inclusive"]["page-faults"]
            w[3] += g["exclusive"]["page-faults"]
            w[4] += g["wall_ns"]["inclusive"]
got = {}
for m in re.finditer(r'<tr class=node data-depth=(\d+) data-path="([^"]+)">(.*?)</tr>', page):
    cells = re.findall(r"<td[^>]*>", m.group(3))
    vals = [re.search(r'data-value="([^"]+)"', c) for c in cells]
    nums = re.findall(r"<td>(\d+)</td>", m.group(3))
    # calls, threads, ranks; wall incl, excl; page-faults incl, excl
    got[m.group(2)] = [int(nums[0]), int(nums[1]), float(vals[6].group(1)),
                       float(vals[7].group(1)), float(vals[4].group(1))]
t.eq(sorted(got), ["omp_work", "rank_work", "rank_work/omp_work"],
     "tree: rank_work, omp_work inside it (master threads), omp_work at the top (workers)")
t.eq(got, {k: [v[0], v[1], float(v[2]), float(v[3]), float(v[4])] for k, v in want.items()},
     "tree: calls, threads, page faults inclusive/exclusive, wall = the files' records summed")
t.eq(got.get("rank_work/omp_work", [0, 0, 0])[2], float(sum((r + 1) * UNIT for r in range(NP))),
     "tree: omp_work under rank_work has the master threads' exact faults")
depth = re.findall(r'data-depth=(\d+) data-path="([^"]+)"', page)
t.eq(sorted((v, int(k)) for k, v in depth),
     [("omp_work", 0), ("rank_work", 0), ("rank_work/omp_work", 1)], "tree: depths")

vals = {d["process"]["rank"]: d["totals"]["page-faults"] for d in docs}
imb = float(re.search(r"id=rankbars-imbalance data-value=\"([^\"]+)\"", page).group(1))
mean = sum(vals.values()) / NP
t.ok(abs(imb - (max(vals.values()) / mean - 1)) < 1e-9,
     "rank bars: imbalance = max/mean - 1 of the ranks' page-faults totals (%r)" % imb)
top = max(vals, key=vals.get)
t.eq(top, NP - 1, "the last rank touched the most pages")
t.ok("max: rank %d (" % top in page, "rank bars: the rank that was max is named")
bars = re.search(r"<svg id=rankbars.*?</svg>", page, re.S).group(0)
t.eq(sorted(float(v) for v in re.findall(r'data-value="([^"]+)"', bars)),
     sorted(float(v) for v in vals.values()), "rank bars: one bar per rank, the files' totals")
labels = re.findall(r"<text x=0 y=\d+>r(\d+) tid \d+ omp (\d+)</text>",
                    re.search(r"<svg id=threadbars.*?</svg>", page, re.S).group(0))
t.eq(sorted((int(r), int(k)) for r, k in labels), [(r, k) for r in range(NP) for k in range(2)],
     "thread bars: the OpenMP threads of every rank labelled omp 0 and omp 1")

chromium = CHROMIUM
if not chromium:
    t.skip("headless Chromium", "chromium not installed (tools/setup.sh tests installs it)")
    t.done()
    sys.exit(0)
p, urls, console = chrome("file://" + html, work, "--dump-dom")
t.ok(p.returncode == 0 and "<h2>Region tree</h2>" in p.stdout, "Chromium renders the report (DOM dumped)")
t.eq(console, [], "no console messages")
t.eq(urls, set(), "no network requests from the page")
t.eq(sorted(re.findall(r'data-path="([^"]+)"', p.stdout)), sorted(want),
     "the rendered DOM has the tree's paths")
shot = os.path.join(work, "report.png")
p, urls, console = chrome("file://" + html, work, "--screenshot=" + shot, "--window-size=1100,1600")
t.ok(os.path.exists(shot) and open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
     and os.path.getsize(shot) > 10000, "a screenshot is written (PNG)")
if os.environ.get("HPCSHIM_SCREENSHOT"):
    shutil.copy(shot, os.environ["HPCSHIM_SCREENSHOT"])
shutil.rmtree(work, ignore_errors=True)
t.done()
