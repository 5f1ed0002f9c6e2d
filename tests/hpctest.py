"""hpctest - helpers for hpcshim's integration tests (TAP output).

Each test file runs real programs under LD_PRELOAD=libhpcshim.so, reads the
JSON they leave and checks it against known truths (exact page faults,
context switches, thread CPU time, perf stat).
"""
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("HPCSHIM_SRCDIR", os.path.dirname(HERE))
BUILD = os.environ.get("HPCSHIM_BUILDDIR", os.path.dirname(HERE))
LIB = os.environ.get("HPCSHIM_LIB", os.path.join(BUILD, ".libs", "libhpcshim.so"))
WORKLOAD = os.path.join(BUILD, "tests", "shim", "workload")
ANNOT = os.path.join(BUILD, "tests", "shim", "annot")
# LD_PRELOAD for runs under the shim; "{lib}" stands for the shim.  Sanitizer
# runs put their runtime next to it (tools/sanitize.sh).
PRELOAD = os.environ.get("HPCSHIM_TEST_PRELOAD", "{lib}")


class Tap:
    """TAP producer: one line per assertion, plan at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, detail=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, desc))
        if not cond and detail is not None:
            for line in str(detail).splitlines():
                print("# " + line)
        sys.stdout.flush()
        return cond

    def eq(self, got, want, desc):
        return self.ok(got == want, "%s (got %r, want %r)" % (desc, got, want))

    def within(self, got, want, rel, desc):
        good = got is not None and abs(got - want) <= rel * abs(want)
        return self.ok(good, "%s (got %r, want %r +- %g%%)" % (desc, got, want, rel * 100))

    def diag(self, text):
        for line in str(text).splitlines():
            print("# " + line)
        sys.stdout.flush()

    def skip(self, desc, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, desc, why))

    def done(self):
        print("1..%d" % self.n)
        sys.exit(0)


class Run:
    def __init__(self, rc, out, err, docs, outdir):
        self.rc, self.out, self.err, self.docs, self.outdir = rc, out, err, docs, outdir

    @property
    def doc(self):
        assert len(self.docs) == 1, "expected one result file, got %d" % len(self.docs)
        return self.docs[0]

    def shim_lines(self):
        return [l for l in self.err.splitlines() if l.startswith("hpcshim:")]


def environ(outdir, preload=True, extra=None):
    """The environment of a run: ours less LD_PRELOAD and the HPCSHIM_*
    variables (but the build's paths), the results to outdir, the shim
    preloaded (unless not preload), then extra."""
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("HPCSHIM_") and k not in ("HPCSHIM_LIB", "HPCSHIM_BUILDDIR", "HPCSHIM_SRCDIR"):
            del e[k]
    e.pop("LD_PRELOAD", None)
    e["HPCSHIM_OUTPUT"] = outdir
    e["TMPDIR"] = outdir  # where results go when HPCSHIM_OUTPUT cannot take them
    if preload:
        e["LD_PRELOAD"] = PRELOAD.format(lib=LIB)
    e.update(extra or {})
    return e


def run(argv, env=None, preload=True, outdir=None, timeout=300, user=None, nofile=None,
        cores=False):
    """Runs argv (optionally under the shim) with a fresh output directory."""
    own = outdir is None
    if own:
        outdir = tempfile.mkdtemp(prefix="hpcshim-test-")
        os.chmod(outdir, 0o1777)
    e = environ(outdir, preload, env)
    def pre():
        # Crash tests must not litter core files (unless a test asks for
        # them; they land in the run's own directory, removed after).
        if not cores:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        if user is not None:
            os.setgid(user[1])
            os.setgroups([])
            os.setuid(user[0])
    p = subprocess.run(argv, env=e, capture_output=True, encoding="utf-8",
                       errors="replace", timeout=timeout,
                       preexec_fn=pre, cwd=outdir)  # results for "." land there too
    docs, jobs = [], []
    for f in sorted(glob.glob(os.path.join(outdir, "hpcshim-*.json"))):
        with open(f, encoding="utf-8", errors="strict") as fh:
            d = json.load(fh)
        # an MPI job's document (preload/mpi/) lands beside the rank files
        (jobs if str(d.get("schema", "")).startswith("hpcshim-job/") else docs).append(d)
    r = Run(p.returncode, p.stdout, p.stderr, docs, outdir)
    r.jobs = jobs
    if own:
        shutil.rmtree(outdir, ignore_errors=True)
    return r


def workload(*steps, **kw):
    return run([WORKLOAD] + [str(s) for s in steps], **kw)


def exact_faults(t, steps, want, thread=None):
    """Runs the workload's steps and returns (run, {region: (inclusive,
    exclusive) page faults} of thread(doc) (default the main thread), what
    earlier runs saw).  Memory compaction (kcompactd; proactive on these
    machines, about 90 pages migrated a second when idle) moves pages, and
    a page already touched, a code, stack or TLS page, faults again at its
    next use: now and then a region counts one or two faults more than its
    touches, and the kernel counted them too (WORKLOAD_FAULTS: getrusage
    just inside the region, in the message).  Such a run (about 1 in 100
    with compaction forced) is tried again, up to 3 runs; any other
    difference fails at once, and a shim that miscounts fails all three."""
    thread = thread or main_thread
    tries = []
    for _ in range(3):
        r = workload(*steps, env={"WORKLOAD_FAULTS": "1"})
        th = thread(r.doc) if r.docs else None
        got = {}
        for n in want:
            g = region(th, n) if th else None
            got[n] = (g["inclusive"]["page-faults"], g["exclusive"]["page-faults"]) if g else None
        if got == want:
            break
        tries.append((got, [l for l in r.err.splitlines() if l.startswith("faults ")]))
        if not all(got[n] and 0 < got[n][0] - want[n][0] <= 2 for n in want if got[n] != want[n]):
            break
    got = {n: got[n] or (None, None) for n in want}
    return r, got, ("; earlier runs (shim, kernel inside): %r" % tries if tries else "")


def named(items, name):
    """The entry of items (regions, nodes, ...) with that "name", or None."""
    return next((r for r in items if r["name"] == name), None)


def region(thread, name):
    """A thread's region entry by name, or None."""
    return named(thread["regions"], name)


def proc_region(doc, name):
    """The process summary of a region by name, or None."""
    return named(doc["regions"], name)


def main_thread(doc):
    for t in doc["threads"]:
        if t["tid"] == doc["process"]["pid"]:
            return t
    return None


# ---- launchers, compilers and real programs (MPI, Slurm, runtimes) --------
# Open MPI as root, in containers without cross-process memory attach, more
# ranks than cores.
OPENMPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
}
# What a test's own launches drop from os.environ (Work): the shim's, the
# launchers' and the calling make's variables.
MPI_FOREIGN = ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "MAKE", "MFLAGS")


def mpi_launchers(np):
    """Both MPIs as (name, C compiler, launcher argv for np ranks, the
    launcher's option passing one variable: (k, v) -> argv)."""
    return [
        ("Open MPI", "mpicc.openmpi",
         ["mpirun.openmpi", "-np", str(np), "--mca", "btl", "self,vader"],
         lambda k, v: ["-x", "%s=%s" % (k, v)]),
        ("MPICH", "mpicc.mpich", ["mpiexec.mpich", "-n", str(np)],
         lambda k, v: ["-genv", k, v]),
    ]


def installed_mpis(t, mpis, what="jobs"):
    """Of mpis (mpi_launchers), those whose compiler and launcher are
    installed, each with its implementation ("openmpi", "mpich"); the
    others a TAP skip saying what is missing."""
    for name, cc, launcher, option in mpis:
        why = [x for x in (cc, launcher[0]) if not shutil.which(x)]
        if why:
            t.skip("%s %s" % (name, what), "%s not installed (tools/setup.sh tests installs it)"
                   % ", ".join(why))
            continue
        yield name, cc, launcher, option, cc.split(".")[1]


class Work:
    """A test's work directory for launchers, compilers and programs it
    runs itself: each with os.environ less LD_PRELOAD and less every
    variable starting with one of `foreign` (a launcher's, a batch
    system's, the calling make's: make check itself may run in a Slurm
    job), plus `env`; in the work directory, no core files.  `runs` counts
    the fresh output directories, work/out1, out2, ..."""

    def __init__(self, t, path, env=None, foreign=(), timeout=180):
        self.t, self.path, self.env, self.foreign = t, path, env or {}, tuple(foreign)
        self.timeout = timeout
        self.runs = 0

    def environment(self):
        e = {k: v for k, v in os.environ.items()
             if not k.startswith(self.foreign) and k != "LD_PRELOAD"}
        e.update(self.env)
        return e

    def outdir(self):
        """A fresh output directory."""
        self.runs += 1
        d = os.path.join(self.path, "out%d" % self.runs)
        os.mkdir(d)
        return d

    def run(self, argv, env=None, timeout=None, cwd=None, **kw):
        """argv with the environment env (default: environment())."""
        return subprocess.run(argv, env=env or self.environment(), cwd=cwd or self.path,
                              capture_output=True, encoding="utf-8", errors="replace",
                              timeout=timeout or self.timeout,
                              preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)),
                              **kw)

    def launch(self, argv, shim=False, env=None, outdir=None, cwd=None, timeout=None):
        """argv with HPCSHIM_OUTPUT a fresh output directory (or outdir;
        none when outdir is False), LD_PRELOAD the shim when shim (else
        a launcher's option in argv passes it to the ranks, or no shim),
        then env.  Returns (the completed process, the output directory)."""
        if outdir is None:
            outdir = self.outdir()
        e = self.environment()
        if outdir:
            e["HPCSHIM_OUTPUT"] = outdir
        if shim:
            e["LD_PRELOAD"] = PRELOAD.format(lib=LIB)
        e.update(env or {})
        return self.run(argv, e, timeout, cwd), outdir

    def build(self, what, argv, cwd=None):
        """Builds a program (no shim); a failed build is a failure, not a skip."""
        p = self.run(argv, timeout=300, cwd=cwd)
        return self.t.ok(p.returncode == 0, "%s: builds" % what,
                         p.stdout[-2000:] + p.stderr[-3000:])


# ---- drill-down: Jarp 2002's crafty counts on the Itanium 2 tree -----------
# Sections 2.1-2.3, 3.2, 3.4, counts in 1e9, keyed by the tree's input
# names (data/presets/itanium2.tree; its event specs are these upper-case):
# tests/drill/test_drilldown.py reproduces Jarp's figures from them,
# test_html_drill.py and test_job_drill.py feed them to the report and
# the merge.
CRAFTY = {
    "cpu_cycles": 164.4, "ia64_inst_retired_this": 272.9, "nops_retired": 52.8,
    "back_end_bubble_all": 85.2,
    "be_flush_bubble_all": 11.6, "be_flush_bubble_bru": 11.6, "be_flush_bubble_xpn": 0.0,
    "be_l1d_fpu_bubble_all": 15.3, "be_l1d_fpu_bubble_l1d": 15.30, "be_l1d_fpu_bubble_fpu": 0.0,
    "be_l1d_fpu_bubble_l1d_dcurecir": 12.27, "be_l1d_fpu_bubble_l1d_tlb": 2.64,
    "be_l1d_fpu_bubble_l1d_stbufrecir": 0.23, "be_l1d_fpu_bubble_l1d_fullstbuf": 0.07,
    "be_l1d_fpu_bubble_l1d_l2bpress": 0.03,
    "be_exe_bubble_all": 35.2, "be_exe_bubble_grall": 28.2, "be_exe_bubble_frall": 7.0,
    "be_exe_bubble_grgr": 0.95, "be_exe_bubble_arcr_pr_cancel_bank": 0.03,
    "be_rse_bubble_all": 7.5, "be_rse_bubble_overflow": 3.56, "be_rse_bubble_underflow": 3.96,
    "back_end_bubble_fe": 15.6, "fe_bubble_allbut_ibfull": 50.2,
    "fe_bubble_imiss": 31.5, "fe_bubble_bubble": 12.1, "fe_bubble_branch": 4.74,
    "fe_bubble_feflush": 1.93,
    # "did not have an impact on our example"
    "fe_bubble_tlbmiss": 0, "fe_bubble_fill_recir": 0,
    "l2_references": 29.8, "l2_misses": 0.13, "l2_data_references_l2_all": 20.2,
    # printed "- -": too small to matter (3.4: the formula "degenerates")
    "l3_misses": 0, "l2dtlb_misses": 0,
}


NOBODY = (65534, 65534)


def unprivileged_skip(*paths):
    """Why the unprivileged cases cannot run here, or None.

    They run the build's programs as uid 65534 with the shim preloaded, so
    that user must reach the library and the programs: a tree cloned under
    a private home (/root is 0700) is not.  Asked of the kernel, as that
    user, not worked out from modes."""
    if os.geteuid() != 0:
        return "needs root (to run a program as uid 65534)"
    paths = paths or (LIB, WORKLOAD)
    # /bin/sh, not this python: it may live under a private home too
    probe = 'for p; do [ -r "$p" ] || exit 1; done'

    def pre():
        os.setgid(NOBODY[1])
        os.setgroups([])
        os.setuid(NOBODY[0])
    p = subprocess.run(["/bin/sh", "-c", probe, "sh", *paths], preexec_fn=pre,
                       capture_output=True, cwd="/")
    if p.returncode != 0:
        return ("uid 65534 cannot read the build (%s): the unprivileged cases need a tree "
                "others can enter" % os.path.dirname(paths[0]))
    return None


_POINT_METHODS = {}


def point_method_why(method):
    """None when the shim can watch checkpoints and triggers with method
    ("breakpoint" or "uprobe") here, else the shim's reason.  Asked of the
    shim itself, with that method forced: the check it makes before it arms
    any point (a point on a function of its own, executed once, must count
    1).  Hosts differ (a hypervisor that accepts breakpoints and never
    fires them; uprobes need CAP_SYS_ADMIN), the check does not."""
    if method not in _POINT_METHODS:
        r = workload("exit", 0, env={"HPCSHIM_RANGE_METHOD": method,
                                     "HPCSHIM_CHECKPOINT": "func:main"})
        rg = r.doc["ranges"] if r.docs else {}
        _POINT_METHODS[method] = (None if rg.get("point_method") == method else
                                  rg.get("point_method_note") or "no result: %r" % r.err)
    return _POINT_METHODS[method]


def method_line(line):
    """The shim's one line saying that checkpoints and triggers fell back
    from breakpoints that do not fire to uprobes (a host's, not a test's)."""
    return line.startswith("hpcshim: checkpoints and triggers: ") and line.endswith(
        "uprobes used (exact, per thread)")


def can_open_hardware():
    """True when this host has a hardware PMU (cycles opens)."""
    r = run([WORKLOAD], env={"HPCSHIM_EVENTS": "cycles"})
    return bool(r.docs) and r.docs[0]["events"][0]["status"] == "ok"


# ---- headless Chromium (the HTML report's tests) ---------------------------
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Chromium's own services (updates, time, accounts) may call home even so:
# those are not the page's.
_CHROME_OWN = re.compile(r"^https?://([a-z0-9-]+\.)*(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)/")


def chrome(url, workdir, *extra):
    """Opens url in headless Chromium (profile and net log in workdir):
    (the completed process, the URLs the page requested other than
    file:// and data: ones, or None if the log is unreadable, the console
    lines)."""
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run",
             "--disable-default-apps", "--enable-logging=stderr", "--v=0",
             "--user-data-dir=" + os.path.join(workdir, "profile")]
    log = os.path.join(workdir, "net.json")
    p = subprocess.run([CHROMIUM] + flags + ["--log-net-log=" + log] + list(extra) + [url],
                       capture_output=True, encoding="utf-8", errors="replace", timeout=300)
    urls = set()
    try:
        for e in json.load(open(log))["events"]:
            u = e.get("params", {}).get("url")
            if u and not _CHROME_OWN.match(u) and not u.startswith(("file://", "data:")):
                urls.add(u)
    except (OSError, ValueError):
        urls = None
    return p, urls, [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
