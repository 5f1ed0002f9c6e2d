"""Regions from the annotations codes already carry (preload/annotations/,
docs/annotations.md "LIKWID and PAPI annotations"): LIKWID's Marker API and
PAPI's high-level regions become hpcshim regions under the shim, the real
library doing nothing, and forward to the real library without it.

- LIKWID's shipped examples (/usr/share/likwid/examples, C and Fortran),
  built unmodified by their own Makefile's rules, with 2 OpenMP threads:
  region "example" on both threads with the examples' calls and sleeps,
  LIKWID_MARKER_GET printing the shim's figures, the rest of the output
  as without the shim; HPCSHIM_ANNOTATIONS=off gives the real library's.
- PAPI's high-level API from C and from Fortran (PAPIF_hl_*): nested
  regions with exact page faults, every call PAPI_OK, read points noted,
  no papi_hl_output directory.
- LIKWID markers and hpcshim annotations nested in one another, and
  LIKWID's contracts: calls before likwid_markerInit, a stop of a region
  never started, a double start, GetRegion and ResetRegion.
- An MPI program with LIKWID markers under Open MPI and MPICH."""
import concurrent.futures
import ctypes
import glob
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, SRC, Work, OPENMPI_ENV, PRELOAD, LIB, region

t = Tap()

# One fault must mean one 4 KiB page (inherited by the programs).
PR_SET_THP_DISABLE = 41
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)

EXAMPLES = "/usr/share/likwid/examples"
HAVE_LIKWID = (os.path.exists(os.path.join(EXAMPLES, "C-markerAPI.c"))
               and os.path.exists("/usr/include/likwid-marker.h"))
HAVE_PAPI = os.path.exists("/usr/include/papi.h")
FC = shutil.which("gfortran")
INC = os.path.join(SRC, "annotate")

work = tempfile.mkdtemp(prefix="hpcshim-markers-")
w = Work(t, work, {"OMP_NUM_THREADS": "2"}, foreign=("HPCSHIM_", "OMPI_", "PMIX_", "SLURM_"),
         timeout=240)
pool = concurrent.futures.ThreadPoolExecutor(max_workers=6)


def docs_of(outdir):
    out = []
    for f in sorted(glob.glob(os.path.join(outdir, "hpcshim-*.json"))):
        with open(f, encoding="utf-8") as fh:
            d = json.load(fh)
        if not str(d.get("schema", "")).startswith("hpcshim-job/"):
            out.append(d)
    return out


def shim(argv, env=None, cwd=None):
    """A future of (completed process, result documents) under the shim."""
    def go():
        p, outdir = w.launch(argv, shim=True, env=env, cwd=cwd)
        return p, docs_of(outdir)
    return pool.submit(go)


def bare(argv, env=None, cwd=None):
    """A future of the completed process without the shim."""
    return pool.submit(w.run, argv, None, None, cwd)


def threads_with(doc, name):
    return [(th, region(th, name)) for th in doc["threads"] if region(th, name)]


def api_of(doc, name):
    return doc.get("annotations", {}).get("regions", {}).get(name, {}).get("api")


GET_LINES = re.compile(r"^(Region example measures|The region was called|Event \d+:)")


def other_lines(out):
    return sorted(l for l in out.splitlines() if not GET_LINES.match(l))


# ---- LIKWID's shipped examples --------------------------------------------
if not HAVE_LIKWID:
    t.skip("LIKWID's examples", "likwid not installed (tools/setup.sh tests)")
else:
    # The Makefile includes ../config.mk and ../make/include_$(COMPILER).mk,
    # which the package leaves out: the two settings it takes from them.
    lk = os.path.join(work, "likwid")
    ex = os.path.join(lk, "examples")
    os.makedirs(os.path.join(lk, "make"))
    shutil.copytree(EXAMPLES, ex)
    with open(os.path.join(lk, "config.mk"), "w") as f:
        f.write("PREFIX = /usr\nCOMPILER = GCC\n")
    with open(os.path.join(lk, "make", "include_GCC.mk"), "w") as f:
        f.write("CC = gcc\nFC = %s\n" % (FC or "/nonexistent"))
    progs = ["C-markerAPI"] + (["F-markerAPI"] if FC else [])
    built = w.build("LIKWID's examples (their Makefile: -DLIKWID_PERFMON ... -llikwid)",
                    ["make"] + progs, cwd=ex)
    if not FC:
        t.skip("LIKWID's Fortran example", "no gfortran")
    runs = {}
    for p in progs if built else []:
        argv = [os.path.join(ex, p)]
        runs[p] = (shim(argv), bare(argv))
    if FC and built:
        runs["off"] = (shim([os.path.join(ex, "F-markerAPI")],
                            {"HPCSHIM_ANNOTATIONS": "off"}), None)

    # C: 10 iterations of a parallel region sleeping 2 s in "example",
    # LIKWID_MARKER_GET after each (printing only when it gave events).
    if "C-markerAPI" in runs:
        (p, docs), b = runs["C-markerAPI"][0].result(), runs["C-markerAPI"][1].result()
        what = "C-markerAPI"
        t.eq((p.returncode, b.returncode), (0, 0), "%s: exit 0 with and without the shim" % what)
        t.eq(len(docs), 1, "%s: one result file" % what)
        if docs:
            d = docs[0]
            got = threads_with(d, "example")
            t.eq(sorted(th.get("omp_thread") for th, _ in got), [0, 1],
                 "%s: region example on both OpenMP threads" % what)
            t.eq([r["calls"] for _, r in got], [10, 10], "%s: 10 calls on each thread" % what)
            t.ok(all(r["per_call_wall_ns"]["min"] >= 2e9 for _, r in got),
                 "%s: every call's wall time >= 2 s (sleep(2))" % what,
                 [r["per_call_wall_ns"] for _, r in got])
            t.ok(all(r["wall_ns"]["inclusive"] >= 20e9 for _, r in got),
                 "%s: >= 20 s in example per thread" % what)
            t.eq(api_of(d, "example"), ["likwid"], "%s: the region noted as LIKWID's" % what)
        counts = sorted(int(x) for x in re.findall(r"The region was called (\d+) times", p.stdout))
        t.eq(counts, sorted(list(range(1, 11)) * 2),
             "%s: LIKWID_MARKER_GET gives the shim's call count, 1..10 on each thread" % what)
        meas = re.findall(r"Region example measures (\d+) events, total measurement time is ([\d.]+)",
                          p.stdout)
        nev = {int(n) for n, _ in meas}
        t.ok(len(meas) == 20 and min(nev) > 0,
             "%s: LIKWID_MARKER_GET gives a non-zero number of events" % what, nev)
        times = sorted(float(x) for _, x in meas)
        t.ok(len(times) == 20 and all(tm >= 2 * c - 0.001 for tm, c in zip(times, counts)),
             "%s: its time is the region's, >= 2 s per call so far" % what, times)
        # The example's loop counter i is shared by the threads (declared
        # outside the parallel region): a thread may print fewer lines.
        nlines = len(re.findall(r"^Event \d+: ", p.stdout, re.M))
        t.ok(0 < nlines <= sum(int(n) for n, _ in meas),
             "%s: Event lines printed (up to one per event)" % what, nlines)
        t.ok(other_lines(p.stdout) == other_lines(b.stdout),
             "%s: the rest of the output as without the shim" % what,
             (p.stdout[-800:], b.stdout[-800:]))
        t.ok("Running without Marker API" in b.stderr
             and "Running without Marker API" not in p.stderr,
             "%s: the real library runs without the shim, not under it" % what,
             (p.stderr[-500:], b.stderr[-500:]))
        t.eq([l for l in p.stderr.splitlines() if l], [], "%s: nothing on stderr" % what)

    # Fortran: one parallel region, each thread one call sleeping 2 s.
    if "F-markerAPI" in runs:
        (p, docs), b = runs["F-markerAPI"][0].result(), runs["F-markerAPI"][1].result()
        what = "F-markerAPI"
        t.eq((p.returncode, b.returncode), (0, 0), "%s: exit 0 with and without the shim" % what)
        if docs:
            d = docs[0]
            got = threads_with(d, "example")
            t.eq(sorted(th.get("omp_thread") for th, _ in got), [0, 1],
                 "%s: region example on both OpenMP threads" % what)
            t.eq([r["calls"] for _, r in got], [1, 1], "%s: one call on each thread" % what)
            t.ok(all(r["per_call_wall_ns"]["min"] >= 2e9 for _, r in got),
                 "%s: the call's wall time >= 2 s (Sleep(2))" % what)
            t.eq(api_of(d, "example"), ["likwid"], "%s: noted as LIKWID's" % what)
        else:
            t.ok(False, "%s: a result file" % what)
        t.eq(re.findall(r"The region was called (\d+) times", p.stdout), ["1", "1"],
             "%s: likwid_markerGetRegion (Fortran) gives 1 call per thread" % what)
        meas = re.findall(r"measures (\d+) events, total measurement time is +([\d.]+)", p.stdout)
        t.ok(len(meas) == 2 and all(int(n) > 0 and float(x) >= 2.0 for n, x in meas),
             "%s: events > 0, time >= 2 s" % what, meas)
        t.ok(other_lines(p.stdout) == other_lines(b.stdout),
             "%s: the rest of the output as without the shim" % what,
             (p.stdout[-800:], b.stdout[-800:]))
        po, dz = runs["off"][0].result()
        t.ok(po.returncode == 0 and "Running without Marker API" in po.stderr
             and re.findall(r"The region was called (\d+) times", po.stdout) == ["0", "0"],
             "HPCSHIM_ANNOTATIONS=off: the real library answers (%s)" % what, po.stderr[-300:])
        t.ok(bool(dz) and not threads_with(dz[0], "example") and "annotations" not in dz[0],
             "HPCSHIM_ANNOTATIONS=off: no region from LIKWID in the results")

# ---- PAPI's high-level API, C and Fortran -----------------------------------
N = 5
if not HAVE_PAPI:
    t.skip("PAPI's high-level API", "libpapi-dev not installed (tools/setup.sh tests)")
else:
    cases = [("C", "papi_hl", ["gcc", "-O2", "-o", "papi_hl",
                               os.path.join(SRC, "tests", "shim", "papi_hl.c"), "-lpapi"],
              ("papi_outer", "papi_inner"), (7, 3))]
    if FC:
        cases.append(("Fortran", "papi_hl_f",
                      ["gfortran", "-O2", "-o", "papi_hl_f",
                       os.path.join(SRC, "tests", "shim", "papi_hl.f90"), "-lpapi"],
                      ("f_outer", "f_inner"), (40, 36)))
    else:
        t.skip("PAPIF_hl_* from Fortran", "no gfortran")
    runs = []
    for lang, exe, cc, names, pages in cases:
        if not w.build("PAPI high-level program (%s)" % lang, cc):
            continue
        argv = [os.path.join(work, exe), str(N)]
        cwd = {}
        for k in ("shim", "bare", "off"):
            cwd[k] = os.path.join(work, "%s.%s" % (exe, k))
            os.mkdir(cwd[k])
        # The bare run's PAPI counts what it can (page faults, if this host's
        # PAPI has a perf_event component).
        runs.append((lang, names, pages, cwd,
                     shim(argv, {"HPCSHIM_EVENTS": "page-faults,task-clock"},
                          cwd=cwd["shim"]),
                     pool.submit(w.run, argv, dict(w.environment(),
                                                   PAPI_EVENTS="perf::PAGE-FAULTS"),
                                 None, cwd["bare"]),
                     shim(argv, {"HPCSHIM_ANNOTATIONS": "likwid",
                                 "PAPI_EVENTS": "perf::PAGE-FAULTS"}, cwd=cwd["off"])))
    for lang, (outer, inner), (po, pi), cwd, fs, fb, foff in runs:
        what = "PAPI high-level (%s)" % lang
        (p, docs), b, (poff, doff) = fs.result(), fb.result(), foff.result()
        t.eq(p.returncode, 0, "%s: exit 0 under the shim" % what)
        t.ok("0 not PAPI_OK" in p.stdout, "%s: every call returns PAPI_OK" % what, p.stdout)
        t.eq(os.listdir(cwd["shim"]), [], "%s: no papi_hl_output written" % what)
        if docs:
            d = docs[0]
            m = [th for th in d["threads"] if region(th, outer)]
            ro = region(m[0], outer) if m else None
            ri = region(m[0], inner) if m else None
            t.ok(ro and ri and ro["calls"] == N and ri["calls"] == N
                 and ri.get("parent") == outer,
                 "%s: %s nested in %s, %d calls each" % (what, inner, outer, N))
            if ro and ri:
                t.eq((ro["inclusive"]["page-faults"], ro["exclusive"]["page-faults"],
                      ri["inclusive"]["page-faults"]),
                     (N * (po + pi), N * po, N * pi), "%s: exact page faults per call" % what)
                t.eq((ro["per_call"]["min"], ro["per_call"]["max"]), (po + pi, po + pi),
                     "%s: every call of %s the same faults" % (what, outer))
            t.eq(d.get("annotations", {}).get("regions", {}).get(inner),
                 {"api": ["papi"], "reads": N},
                 "%s: noted as PAPI's, one read point per call" % what)
        else:
            t.ok(False, "%s: a result file" % what)
        # Off: the real library answers, as it does without the shim.
        t.eq((poff.returncode, poff.stdout), (b.returncode, b.stdout),
             "%s: with HPCSHIM_ANNOTATIONS=likwid the real PAPI answers, as without the shim"
             % what)
        t.eq(sorted(os.listdir(cwd["off"])), sorted(os.listdir(cwd["bare"])),
             "%s: ... and writes what it writes without the shim (%s)"
             % (what, os.listdir(cwd["bare"]) or "nothing: no PAPI component here"))
        t.ok(bool(doff) and not any(region(th, outer) for th in doff[0]["threads"]),
             "%s: HPCSHIM_ANNOTATIONS=likwid: no region from PAPI" % what)

# ---- LIKWID markers and hpcshim annotations nested; LIKWID's contracts -------
M = 4
if not HAVE_LIKWID:
    t.skip("LIKWID markers mixed with hpcshim's", "likwid not installed")
elif w.build("likwid_mixed", ["gcc", "-O2", "-DLIKWID_PERFMON", "-I" + INC, "-o", "likwid_mixed",
                              os.path.join(SRC, "tests", "shim", "likwid_mixed.c"), "-llikwid"]):
    argv = [os.path.join(work, "likwid_mixed"), str(M)]
    fs = shim(argv, {"HPCSHIM_EVENTS": "page-faults,task-clock"})
    fb = bare(argv)
    (p, docs), b = fs.result(), fb.result()
    what = "likwid_mixed"
    t.eq((p.returncode, b.returncode), (0, 0), "%s: exit 0 with and without the shim" % what)
    v = dict(l.split(" ", 1) for l in p.stdout.splitlines() if " " in l)
    t.eq((v.get("early.start"), v.get("early.stop")), ("-14", "-14"),
         "%s: before likwid_markerInit start and stop return -EFAULT, as LIKWID's" % what)
    t.eq(v.get("register"), "0", "%s: RegisterRegion 0" % what)
    t.eq(v.get("unknown.stop"), "-14", "%s: a stop of a region never started: -EFAULT" % what)
    t.ok("WARN: Stopping an unknown/not-started region never" in p.stderr,
         "%s: ... with LIKWID's warning" % what, p.stderr)
    t.eq((v.get("double.start1"), v.get("double.start2"), v.get("double.start3"),
          v.get("double.stop")), ("0", "0", "0", "0"),
         "%s: a double start returns 0 and one stop ends it" % what)
    t.ok("WARN: Region twice was already started" in p.stderr,
         "%s: ... with LIKWID's warning" % what)
    # lk's page faults: 10 a call, and up to one for each name first
    # begun inside it (inner, lk_in: see FIRST below)
    t.ok((v.get("before.count"), v.get("before.nevents")) == (str(M), "2")
         and M * 10 <= int(v.get("before.event0", -1)) <= M * 10 + 2,
         "%s: GetRegion: calls, nevents and the thread's page faults (event 0)" % what,
         (v.get("before.count"), v.get("before.nevents"), v.get("before.event0")))
    t.ok(float(v.get("before.time", "0")) > 0, "%s: GetRegion: time > 0" % what)
    t.eq((v.get("reset"), v.get("reset.count"), v.get("reset.time"), v.get("reset.event0"),
          v.get("reset.event1")), ("0", "0", "0.000000", "0", "0"),
         "%s: ResetRegion zeroes what GetRegion returns" % what)
    t.eq((v.get("after.count"), v.get("after.event0")), ("1", "10"),
         "%s: one call after the reset: 1 call, its 10 page faults" % what)
    # LIKWID 5.2.2 (libperfctr.c; it cannot count on this machine kind to
    # be asked): a stop of a stopped region is -EFAULT with its warning; a
    # reset of a region not stopped, running or never started on the
    # thread (a new entry to it), -EFAULT with "Can only reset stopped
    # regions".
    t.eq(v.get("stop.again"), "-14", "%s: a second stop: -EFAULT" % what)
    t.eq((v.get("reset.running"), v.get("reset.unknown")), ("-14", "-14"),
         "%s: ResetRegion of a running region and of one never started: -EFAULT" % what)
    t.eq(p.stderr.count("ERROR: Can only reset stopped regions"), 2,
         "%s: ... each with LIKWID's error line" % what)
    t.ok("done" in p.stdout.splitlines(), "%s: runs to the end" % what)
    if docs:
        d = docs[0]
        th = d["threads"][0]
        # Pages per call (inclusive, exclusive) and parent.  A name's first
        # call makes the shim's records of it (a few hundred bytes of
        # heap) before its region's reading, so inside the regions around
        # it; as the heap happens to lie that may touch a fresh page: one
        # fault, at most one per name first begun inside (FIRST: within,
        # directly within), and only in the first call.  Every later call
        # is exact: the per-call minimum.
        pages = {"outer": (11, 1, None), "lk": (10, 5, "outer"), "inner": (5, 3, "lk"),
                 "lk_in": (2, 2, "inner")}
        FIRST = {"outer": (3, 1), "lk": (2, 1), "inner": (1, 1), "lk_in": (0, 0)}
        bad = {}
        for n, (inc, exc, parent) in pages.items():
            r = region(th, n) or {}
            k = M + 1
            got = (r.get("calls"), (r.get("inclusive") or {}).get("page-faults", -1),
                   (r.get("exclusive") or {}).get("page-faults", -1), r.get("parent"),
                   (r.get("per_call") or {}).get("min"))
            if not (got[0] == k and got[3] == parent and got[4] == inc
                    and k * inc <= got[1] <= k * inc + FIRST[n][0]
                    and k * exc <= got[2] <= k * exc + FIRST[n][1]):
                bad[n] = got
        t.ok(not bad, "%s: LIKWID and hpcshim regions nested, exact page faults per call "
             "(first calls: + the shim's records of the names begun inside)" % what, bad)
        t.ok(region(th, "early") is None, "%s: no region from calls before Init" % what)
        rt = region(th, "twice") or {}
        t.eq((rt.get("calls"), (rt.get("inclusive") or {}).get("page-faults")), (1, 2),
             "%s: a double start is one call, restarted at the second start as LIKWID's "
             "(1 + 1 pages, not the 2 before); the third, under in_twice, changes nothing" % what)
        t.eq(th["warnings"]["auto_closed"], 0, "%s: no region closed implicitly" % what)
        t.eq(th["warnings"]["unmatched_end"], 2,
             "%s: the unknown stop and the second stop are the shim's unmatched ENDs too" % what)
        t.eq(api_of(d, "lk"), ["likwid"], "%s: lk noted as LIKWID's" % what)
        t.eq(api_of(d, "outer"), None, "%s: outer (HPC_BEGIN) not noted" % what)
    t.ok("Running without Marker API" in b.stderr and "Running without" not in p.stderr,
         "%s: the real library runs only without the shim" % what)
    # HPCSHIM_ANNOTATIONS: papi alone forwards LIKWID's calls; a bad value
    # is one line and the default.
    (pp, dp), (pb, db) = (shim(argv, {"HPCSHIM_ANNOTATIONS": "papi"}).result(),
                          shim(argv, {"HPCSHIM_ANNOTATIONS": "likwid,bogus"}).result())
    t.ok(pp.returncode == 0 and pp.stdout == b.stdout and "Running without Marker API" in pp.stderr
         and bool(dp) and region(dp[0]["threads"][0], "lk") is None
         and region(dp[0]["threads"][0], "outer") is not None,
         "HPCSHIM_ANNOTATIONS=papi: LIKWID's calls go to the real library, HPC_BEGIN counts",
         (pp.stdout[-300:], pp.stderr[-300:]))
    # A dormant shim (a program HPCSHIM_PROGRAMS does not name) forwards
    # every call: the program runs as without it.
    pd, dd = shim(argv, {"HPCSHIM_PROGRAMS": "no-such-program"}).result()
    t.ok(pd.returncode == 0 and pd.stdout == b.stdout and pd.stderr == b.stderr and not dd,
         "dormant shim: LIKWID's calls go to the real library, output as without the shim",
         (pd.stdout[-300:], pd.stderr[-300:]))
    bad = [l for l in pb.stderr.splitlines() if l.startswith("hpcshim:")]
    t.eq(bad, ["hpcshim: HPCSHIM_ANNOTATIONS='likwid,bogus' is not a list of likwid and papi, "
               "nor off; using likwid,papi"], "HPCSHIM_ANNOTATIONS bad value: one line")
    t.ok(bool(db) and (region(db[0]["threads"][0], "lk") or {}).get("calls") == M + 1,
         "HPCSHIM_ANNOTATIONS bad value: the default (LIKWID taken over)")

# ---- many distinct names: each costs the same however many came before -------
# A new LIKWID or PAPI name once cost time proportional to the names seen
# before it (a list walked under one lock): 20000 names of each took 8x and
# 25x the CPU of as many HPC_BEGIN run-time names, a later batch 7x the
# first.  Now a name is found in constant time (preload/annotations/
# notes.c): ~1.3x, a later batch as cheap as the first.  Each figure is a
# loop's thread CPU time in one process (the machine's other load hardly
# counts), the hpc loops on both sides of the marker loops; a missed bound
# is taken again (3 runs at most: a burst of load may hit one loop), a
# quadratic lookup misses it every time.
NAMES = 20000
NAMES_RATIO = 2.0   # marker loop / hpc loop: the target (bench/markers.sh: 1e5 names)
NAMES_LINEAR = 1.5  # the second LIKWID batch (3N names before it) / the first


def names_figures(exe):
    """{api: [CPU ns of each loop]} of one run, or the failed process."""
    p, _ = w.launch([exe, str(NAMES), "hpc", "likwid", "papi", "likwid", "hpc"], shim=True,
                    env={"HPCSHIM_EVENTS": "task-clock"})
    if p.returncode != 0:
        return p
    got = {}
    for line in p.stdout.splitlines():
        api, ns = line.split()
        got.setdefault(api, []).append(int(ns))
    return got


def names_bounds(f):
    hpc = sum(f["hpc"]) / 2
    return {"likwid/hpc": f["likwid"][0] / hpc, "papi/hpc": f["papi"][0] / hpc,
            "likwid later/first": f["likwid"][1] / f["likwid"][0]}


NAMES_LIMIT = {"likwid/hpc": NAMES_RATIO, "papi/hpc": NAMES_RATIO,
               "likwid later/first": NAMES_LINEAR}
if not HAVE_LIKWID or not HAVE_PAPI:
    t.skip("many distinct marker names", "needs likwid and libpapi-dev")
elif w.build("marker_names", ["gcc", "-O2", "-DLIKWID_PERFMON", "-I" + INC, "-o", "marker_names",
                              os.path.join(SRC, "tests", "shim", "marker_names.c"),
                              "-llikwid", "-lpapi", "-lpthread"]):
    exe = os.path.join(work, "marker_names")
    tries = []
    for _ in range(3):
        f = names_figures(exe)
        if not isinstance(f, dict):
            break
        tries.append(names_bounds(f))
        if all(tries[-1][k] <= v for k, v in NAMES_LIMIT.items()):
            break
    t.ok(bool(tries), "%d distinct names per loop: every marker call succeeds" % NAMES,
         None if tries else (f.stdout[-500:], f.stderr[-500:]))
    for k, v in NAMES_LIMIT.items():
        t.ok(bool(tries) and min(x[k] for x in tries) <= v,
             "%d distinct names: CPU %s <= %.1f" % (NAMES, k, v),
             ["%.2f" % x[k] for x in tries])
    if tries:
        t.diag("names: " + "; ".join(", ".join("%s %.2f" % kv for kv in x.items())
                                     for x in tries))
    # Several threads on the same names at once: lookups beside interns.
    NT, NN = 4, 500
    p, outdir = w.launch([exe, "-t", str(NT), str(NN), "likwid", "papi"], shim=True,
                         env={"HPCSHIM_EVENTS": "task-clock", "HPCSHIM_MAX_REGIONS": "100000"})
    docs = docs_of(outdir)
    t.eq(p.returncode, 0, "%d threads x %d shared names: every call succeeds" % (NT, NN))
    if docs:
        d = docs[0]
        per = {}
        for th in d["threads"]:
            for r in th["regions"]:
                per.setdefault(r["name"].split(".")[0], []).append(r["calls"])
        t.eq({k: (len(v), set(v)) for k, v in per.items()},
             {"likwid0": (NT * NN, {1}), "papi1": (NT * NN, {1})},
             "%d threads x %d shared names: each name once on each thread" % (NT, NN))
        notes = d.get("annotations", {}).get("regions", {})
        t.eq((len(notes), {tuple(v["api"]) for k, v in notes.items() if k.startswith("likwid0.")},
              {tuple(v["api"]) for k, v in notes.items() if k.startswith("papi1.")}),
             (2 * NN, {("likwid",)}, {("papi",)}),
             "%d threads x %d shared names: each name noted once, by its API" % (NT, NN))
    else:
        t.ok(False, "%d threads x %d shared names: a result file" % (NT, NN))

# ---- PAPI misused: the shim answers as PAPI 7 does ---------------------------
# Each case's return codes (tests/shim/papi_misuse.c), from PAPI 7.0.0's
# src/high-level/papi_hl.c (papi.h: PAPI_OK 0, EINVAL -1, ENOMEM -2,
# ENOEVNT -7, EMISC -14), and the real library's where it can count (an
# event the program defines itself, libsde: no PMU needed):
PAPI_MISUSE = {
    # an end or a read before the thread began any region: EMISC
    "end_first": [-14, 0, 0],
    "read_first": [-14, 0, 0],
    # a stop with the thread's event set not running: ENOEVNT; a begin
    # starts it again
    "stop_first": [-7, 0, 0, 0],
    "stop_twice": [0, 0, 0, -7, 0, 0, 0],
    # an end of anything but the innermost region: EINVAL, and the API is
    # off for the process: EMISC from then on, the set stopped (ENOEVNT)
    "end_unknown": [0, -1, -14, -14, -14, -7],
    "end_twice": [0, 0, -1, -14],
    "end_outer": [0, 0, -1, -14],
    # a read of anything but the innermost region is ignored: PAPI_OK
    "read_unknown": [0, 0, 0, 0, 0],
    "read_outer": [0, 0, 0, 0, 0],
    # the state is per thread: another thread's end EMISC, its stop
    # ENOEVNT, the API still on for the first
    "thread": [0, -14, -7, 0],
    # 11 regions nested at most: the 12th ENOMEM, and the API is off
    "deep": [0] * 11 + [-2, -14],
}
# A NULL name PAPI 7.0.0 dereferences (strlen, strcmp: SIGSEGV); the shim
# answers PAPI_EINVAL (a begin changes nothing; an end matches nothing,
# which turns the API off as any such end).  (the shim's codes, how many
# the real library gives before it dies)
PAPI_NULL = {"begin_null": ([-1, 0, 0], 0), "end_null": ([0, -1, -14], 1),
             "read_null": ([0, 0, 0], 1)}


def misuse_lines(out):
    return {l.split()[0]: l.split()[1:] for l in out.splitlines() if l.strip()}


if not HAVE_PAPI or not os.path.exists("/usr/include/sde_lib.h"):
    t.skip("PAPI misused", "libpapi-dev (papi.h, sde_lib.h) not installed")
elif w.build("papi_misuse", ["gcc", "-O2", "-o", "papi_misuse",
                             os.path.join(SRC, "tests", "shim", "papi_misuse.c"),
                             "-lpapi", "-lsde", "-lpthread"]):
    exe = os.path.join(work, "papi_misuse")
    rdir = os.path.join(work, "misuse.real")
    os.mkdir(rdir)
    fs = shim([exe])
    real = w.run([exe], dict(w.environment(), PAPI_EVENTS="sde:::papi_misuse::work"), cwd=rdir)
    p, _ = fs.result()
    got = misuse_lines(p.stdout)
    want = dict({k: [str(x) for x in v] for k, v in PAPI_MISUSE.items()},
                **{k: [str(x) for x in v[0]] for k, v in PAPI_NULL.items()})
    for case in want:
        t.eq(got.get(case), want[case], "PAPI misused, %s: the shim's return codes" % case)
    rgot = misuse_lines(real.stdout)
    if rgot.get("stop_twice", [""])[0] != "0":
        t.skip("PAPI misused: the real library's codes",
               "the real PAPI does not count here (%s): the table is from its source"
               % " ".join(rgot.get("stop_twice", ["no output"])))
    else:
        t.eq({k: rgot.get(k) for k in PAPI_MISUSE}, {k: want[k] for k in PAPI_MISUSE},
             "PAPI misused: the real PAPI returns the same codes")
        t.eq({k: rgot.get(k) for k in PAPI_NULL},
             {k: want[k][:n] + ["signal", "11"] for k, (_, n) in PAPI_NULL.items()},
             "PAPI misused: the real PAPI dies of a NULL name where the shim says EINVAL")
    # One case on its own: after the failed end the API begins nothing;
    # the region it left open is closed at the thread's end; one line says so.
    p, outdir = w.launch([exe, "end_unknown"], shim=True, env={"HPCSHIM_EVENTS": "task-clock"})
    docs = docs_of(outdir)
    th = docs[0]["threads"][0] if docs else {}
    ra = region(th, "A") if th else None
    t.ok(bool(ra) and region(th, "C") is None and th["warnings"]["auto_closed"] == 1,
         "PAPI misused: a begin after the API went off opens nothing; A, left open, is "
         "closed at the thread's end", th.get("warnings"))
    said = [l for l in p.stderr.splitlines() if l.startswith("hpcshim:")]
    t.ok(len(said) == 1 and 'PAPI_hl_region_end("B") returns -1' in said[0],
         "PAPI misused: one hpcshim line says the API went off", p.stderr[-600:])

# ---- an MPI program with LIKWID markers, under both MPIs ----------------------
NP = 2
MPIS = [("Open MPI", "mpicc.openmpi", ["mpirun.openmpi", "-np", str(NP), "--oversubscribe"],
         ["-x", "LD_PRELOAD=" + PRELOAD.format(lib=LIB)]),
        ("MPICH", "mpicc.mpich", ["mpiexec.mpich", "-n", str(NP)],
         ["-genv", "LD_PRELOAD", PRELOAD.format(lib=LIB)])]
for name, cc, launcher, option in MPIS:
    if not HAVE_LIKWID or not shutil.which(cc) or not shutil.which(launcher[0]):
        t.skip("LIKWID markers in an MPI job (%s)" % name, "no %s or likwid" % cc)
        continue
    exe = os.path.join(work, "likwid_mpi." + cc)
    if not w.build("likwid_mpi (%s)" % name,
                   [cc, "-O2", "-DLIKWID_PERFMON", "-o", exe,
                    os.path.join(SRC, "tests", "shim", "likwid_mpi.c"), "-llikwid"]):
        continue
    mdir = os.path.join(work, "mpi." + cc)
    os.mkdir(mdir)
    mw = Work(t, mdir, dict(OPENMPI_ENV, HOME=work, TMPDIR=work),
              ("HPCSHIM_", "OMPI_", "PMIX_", "PMI_", "HYDRA_", "SLURM_", "MAKE", "MFLAGS"))
    p, outdir = mw.launch(launcher + option + [exe])
    b = mw.run(launcher + [exe])
    what = "likwid_mpi (%s)" % name
    t.eq((p.returncode, b.returncode), (0, 0), "%s: exit 0 with and without the shim" % what)
    t.eq(sorted(p.stdout.splitlines()), sorted(b.stdout.splitlines()),
         "%s: the same output" % what)
    docs = docs_of(outdir)
    got = {}
    for d in docs:
        for th in d["threads"]:
            r = region(th, "mpi_lk")
            if r:
                got[d["process"].get("rank")] = (r["calls"], r["inclusive"]["page-faults"])
    t.eq(got, {r: (3, 3 * 10 * (r + 1)) for r in range(NP)},
         "%s: region mpi_lk per rank, 3 calls, exact page faults" % what)
    t.ok(all(api_of(d, "mpi_lk") == ["likwid"] for d in docs if d["process"].get("rank") is not None),
         "%s: noted as LIKWID's on every rank" % what)

t.diag("work directory %s" % work)
pool.shutdown()
shutil.rmtree(work, ignore_errors=True)
t.done()
