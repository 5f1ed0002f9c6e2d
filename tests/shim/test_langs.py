"""The annotation forms of C, C++ and Fortran against known truths: exact
page faults and call counts of regions left by break/continue/return/goto
(HPC_REGION) and by exceptions (HPC_SCOPE), HPC_FUNCTION names, runtime
names, a position-dependent program (dlsym lookup), HPC_THREAD_NAME, the
Fortran module, and every program unchanged without the shim."""
import ctypes
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, BUILD, run, region, main_thread

t = Tap()

# Transparent huge pages off for the programs run here (inherited through
# fork and exec): the Fortran allocation cannot be madvised, and one fault
# must mean one 4 KiB page.
PR_SET_THP_DISABLE = 41
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)


def prog(*parts):
    return os.path.join(BUILD, *parts)


def quiet(r, what):
    t.eq(r.shim_lines(), [], "%s: no hpcshim: line" % what)


def no_warnings(doc, what):
    bad = [(th["tid"], k, v) for th in doc["threads"]
           for k, v in th["warnings"].items() if v]
    t.eq(bad, [], "%s: no warning on any thread" % what)


def faults(th, name, kind="inclusive"):
    reg = region(th, name)
    return reg and reg[kind]["page-faults"]


def calls(th, name):
    reg = region(th, name)
    return reg and reg["calls"]


def bare(argv, what, want_out=None):
    """Runs argv without the shim: exit 0, no result file."""
    r = run(argv, preload=False)
    t.eq(r.rc, 0, "%s without the shim: exit code 0" % what)
    t.eq(r.docs, [], "%s without the shim: no result file" % what)
    if want_out is not None:
        t.eq(r.out, want_out, "%s without the shim: same output" % what)
    return r


# ---- C: HPC_REGION left by break, continue, return, goto ----------------
N = 10
for build in ("scoped", "scoped_dyn"):
    argv = [prog("tests", "shim", build), "exits", str(N)]
    r = run(argv)
    what = "%s exits" % build
    t.eq(r.rc, 0, "%s: exit code 0" % what)
    out = "after brk=%d cont=%d ret=%d goto=%d\n" % ((N + 1,) * 4)
    t.eq(r.out, out, "%s: break/continue leave the region block only" % what)
    quiet(r, what)
    no_warnings(r.doc, what)
    m = main_thread(r.doc)
    for name, pages in (("brk", 3 * N // 2 + 2), ("cont", 3 * N // 2 + 2), ("ret", N + 1),
                        ("goto", N + 1)):
        t.eq(calls(m, name), N + 1, "%s: %s ended each time" % (what, name))
        t.eq(faults(m, name), pages, "%s: %s page faults exact" % (what, name))
    t.eq(faults(m, "outer"), 6 * N, "%s: outer inclusive" % what)
    t.eq(faults(m, "outer", "exclusive"), N, "%s: outer exclusive (its own pages)" % what)
    bare(argv, what, out)

# HPCSHIM_DISABLE: HPC_REGION is still a one-pass block, so break and
# continue in it behave exactly as with the annotations on.
argv = [prog("tests", "shim", "scoped_off"), "exits", str(N)]
r = run(argv)
t.eq((r.rc, r.out), (0, "after brk=%d cont=%d ret=%d goto=%d\n" % ((N + 1,) * 4)),
     "scoped_off (HPCSHIM_DISABLE) exits: same control flow and output")
t.eq(main_thread(r.doc)["regions"], [], "scoped_off: no region recorded")

# ---- HPC_THREAD_NAME (threads[].name) -------------------------------------
for build in ("scoped", "scoped_dyn"):
    argv = [prog("tests", "shim", build), "tname"]
    r = run(argv)
    what = "%s tname" % build
    t.eq((r.rc, r.out), (0, "active 1\n"), "%s: exit 0, HPC_ACTIVE() 1 under the shim" % what)
    quiet(r, what)
    m = main_thread(r.doc)
    others = [th for th in r.doc["threads"] if th is not m]
    t.eq(m and m.get("name"), "main-thread", "%s: main thread named" % what)
    t.eq([th.get("name") for th in others], ["worker-1"],
         "%s: worker named at run time, the last name wins" % what)
    bare(argv, what, "active 0\n")

# ---- C, position-dependent: the header's dlsym() lookup -------------------
argv = [prog("tests", "shim", "nopie"), "100", "200"]
with open(argv[0], "rb") as f:
    e_type = int.from_bytes(f.read(18)[16:18], "little")
t.eq(e_type, 2, "nopie: the program is position-dependent (ET_EXEC)")
r = run(argv)
t.eq((r.rc, r.out), (0, "active 1\n"), "nopie: exit 0, HPC_ACTIVE() 1 under the shim")
quiet(r, "nopie")
no_warnings(r.doc, "nopie")
m = main_thread(r.doc)
t.eq((calls(m, "np_lit"), faults(m, "np_lit")), (1, 100), "nopie: literal name region, exact faults")
t.eq((calls(m, "np_dyn"), faults(m, "np_dyn")), (1, 200), "nopie: runtime name region, exact faults")
t.eq(m.get("name"), "nopie", "nopie: HPC_THREAD_NAME through dlsym")
bare(argv, "nopie", "active 0\n")

# ---- C++: scopes unwound by exceptions, names, nesting --------------------
if os.path.exists(prog("tests", "shim", "cxx_scope")):
    R, NP, M = 5, 10, 7
    for build in ("cxx_scope", "cxx_scope_dyn"):
        argv = [prog("tests", "shim", build), "unwind", str(R), str(NP), str(M)]
        r = run(argv)
        what = "%s unwind" % build
        t.eq((r.rc, r.out), (0, "caught %d\n" % R), "%s: exit 0, every exception caught" % what)
        quiet(r, what)
        no_warnings(r.doc, what)
        m = main_thread(r.doc)
        t.eq(calls(m, "thrower"), R + 1, "%s: thrower scope ended by each unwind" % what)
        t.eq(faults(m, "thrower"), 2 * NP * R, "%s: thrower inclusive" % what)
        t.eq(faults(m, "thrower", "exclusive"), NP * R, "%s: thrower exclusive" % what)
        t.eq(calls(m, "deep"), R + 1, "%s: HPC_FUNCTION region named deep" % what)
        t.eq((faults(m, "deep"), faults(m, "deep", "exclusive")), (NP * R, NP * R),
             "%s: deep inclusive and exclusive" % what)
        t.eq(calls(m, "outer"), 1, "%s: outer scope intact" % what)
        t.eq(faults(m, "outer"), M + 2 * NP * R, "%s: outer inclusive" % what)
        t.eq(faults(m, "outer", "exclusive"), M, "%s: outer exclusive" % what)
        bare(argv, what, r.out)

        argv = [prog("tests", "shim", build), "names"]
        r = run(argv)
        what = "%s names" % build
        t.eq((r.rc, r.out), (0, "names\n"), "%s: exit code 0" % what)
        quiet(r, what)
        no_warnings(r.doc, what)
        m = main_thread(r.doc)
        got = [(x["name"], x["calls"], x["inclusive"]["page-faults"]) for x in m["regions"]
               if x["name"] != "warm"]
        want = [("same2", 2, 4), ("tfunc", 2, 3), ("run", 1, 5), ("direct", 1, 3), ("dyn_0", 1, 1),
                ("dyn_1", 1, 2), ("dyn_2", 1, 3), ("str_scope", 1, 2), ("same1", 1, 4)]
        t.eq(got, want, "%s: regions, calls and exact faults" % what)
        t.eq(faults(m, "same1", "exclusive"), 0, "%s: two scopes on one line nest" % what)
        bare(argv, what, r.out)

    # HPCSHIM_DISABLE: nothing left to call, nothing recorded.
    off = prog("tests", "shim", "cxx_scope_off")
    nm = subprocess.run(["nm", off], capture_output=True, text=True)
    refs = sorted({l.split()[-1] for l in nm.stdout.splitlines()
                   if l.split()[-1].startswith("hpcshim_")})
    t.ok(nm.returncode == 0 and refs == [],
         "HPCSHIM_DISABLE: no hpcshim_ symbol in the program (got %r)" % refs)
    r = run([off, "unwind", str(R), str(NP), str(M)])
    t.eq((r.rc, r.out), (0, "caught %d\n" % R), "HPCSHIM_DISABLE: program unchanged")
    t.eq(main_thread(r.doc)["regions"], [], "HPCSHIM_DISABLE: no region recorded")

    # The C++ sample: its last sweep leaves by an exception.
    argv = [prog("samples", "cxx_work"), "48"]
    r = run(argv)
    t.eq(r.rc, 0, "cxx_work: exit code 0")
    quiet(r, "cxx_work")
    no_warnings(r.doc, "cxx_work")
    m = main_thread(r.doc)
    sweeps = int(r.out.split()[1]) if r.out.startswith("sweeps ") else None
    t.eq(calls(m, "sweep"), sweeps, "cxx_work: one sweep region per printed sweep")
    t.eq((calls(m, "relax"), calls(m, "init")), (1, 1), "cxx_work: relax (HPC_FUNCTION) and init")
    t.eq(m.get("name"), "cxx-main", "cxx_work: HPC_THREAD_NAME")
    bare(argv, "cxx_work", r.out)
else:
    t.skip("C++ scopes", "no C++ compiler at configure time")

# ---- Fortran: module hpcshim over libhpcshim_fortran ----------------------
if os.path.exists(prog("samples", "fortran_work")):
    for pages, steps in ((1000, 4), (3000, 2)):
        argv = [prog("samples", "fortran_work"), str(pages), str(steps)]
        r = run(argv)
        what = "fortran_work %d %d" % (pages, steps)
        t.eq(r.rc, 0, "%s: exit code 0" % what)
        lines = r.out.splitlines()
        t.eq(lines[:1], ["hpcshim: counting this thread"], "%s: hpc_active() true under the shim" % what)
        quiet(r, what)
        no_warnings(r.doc, what)
        m = main_thread(r.doc)
        t.eq((calls(m, "touch"), faults(m, "touch")), (1, pages),
             "%s: touch region, one fault per 4 KiB page" % what)
        t.eq([x["name"] for x in m["regions"]], ["total", "touch", "compute", "step"],
             "%s: regions (blank-padded 'compute' trimmed)" % what)
        t.eq(calls(m, "step"), steps, "%s: nested step calls" % what)
        tc = lambda n, k="inclusive": region(m, n)[k]["task-clock"]
        t.ok(tc("step") <= tc("compute") <= tc("total"),
             "%s: step <= compute <= total task-clock" % what)
        t.eq(tc("compute", "exclusive"), tc("compute") - tc("step"), "%s: compute exclusive" % what)
        t.ok(faults(m, "total") >= pages, "%s: total covers touch" % what)
        t.eq(m.get("name"), "fortran-main", "%s: hpc_thread_name" % what)
        nb = bare(argv, what)
        t.eq(nb.out.splitlines()[:1], ["hpcshim: not loaded"], "%s: hpc_active() false without" % what)
        t.eq(nb.out.splitlines()[1:], lines[1:], "%s: same results without the shim" % what)

    argv = [prog("tests", "shim", "fortran_names")]
    r = run(argv)
    t.eq((r.rc, r.out), (0, "T\n"), "fortran_names: exit 0, hpc_active() true")
    quiet(r, "fortran_names")
    no_warnings(r.doc, "fortran_names")
    m = main_thread(r.doc)
    short = lambda s: "x*%d" % len(s) if len(s) > 16 and s == "x" * len(s) else s
    got = [(short(x["name"]), x["calls"]) for x in m["regions"]]
    want = [("padded", 1), ("  lead", 1), ("", 1)] + [("x*%d" % n, 1) for n in (255, 256, 257, 1000)]
    t.eq(got, want, "fortran_names: trailing blanks trimmed, leading kept, 255..1000 bytes whole")
    t.eq(m.get("name"), "second", "fortran_names: last thread name wins, trimmed")
    bare(argv, "fortran_names", "F\n")
else:
    t.skip("Fortran module", "no gfortran at configure time")

t.done()
