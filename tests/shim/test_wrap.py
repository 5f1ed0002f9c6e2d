"""HPCSHIM_WRAP (docs/wrapping.md) against known truths.

The programs under tests/wrap/ are built here (several link variants of
the same sources): a library function touching k fresh pages called n
times through the PLT gives a region with n calls and exactly n*k page
faults, nested right inside an annotated region; wrapped calls return
exactly what unwrapped calls do (cos bit for bit over 10^6 calls, a struct
by value, ten mixed arguments); full RELRO and -fno-plt builds; a library
dlopen'ed after start and a pointer from dlsym; 8 threads calling while a
dlopen patches again; libraries dlopen'ed one by one, before and after
the wrapped function's own, one closed and opened again: every call
counted, each load walked once; a longjmp and a C++ exception out of a wrapped call
leave the region stack right; what cannot be wrapped says so once and is
listed with its status.  Real libraries (OpenBLAS from C and Fortran,
numpy, MPI) follow with the shipped sets.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, Work, run, main_thread, region, HERE, LIB, PRELOAD, mpi_launchers, installed_mpis

t = Tap()
SRC = os.path.join(HERE, "wrap")
ANNOT = os.path.join(os.path.dirname(HERE), "annotate")
work = tempfile.mkdtemp(prefix="hpcshim-wrap-")
os.chmod(work, 0o755)
PF = {"HPCSHIM_EVENTS": "page-faults"}
SIG = ("wl_touch=void(pointer,long),wl_pair=struct{double,long,int}(int,double),"
       "wl_small=struct{double,double}(double),"
       "wl_mix=double(int,double,long,float,short,double,unsigned,double,char,double),"
       "wl_recurse=long(int),wl_jump=void(pointer,int),"
       "wl_many=double(int,long,short,char,unsigned,long,int,long,"
       "double,double,double,double,double,double,double,double,double,float),"
       "wl_reg14=double(long,long,long,long,long,long,"
       "double,double,double,double,double,double,double,double),"
       "wl_int7=double(long,long,long,long,long,long,long,"
       "double,double,double,double,double,double,double,double),"
       "wl_dbl9=double(long,long,long,long,long,long,"
       "double,double,double,double,double,double,double,double,double),"
       "wl_flt=float(float,double,float,int),"
       "wl_ext=long(int,short,signed char,unsigned,unsigned short),"
       "wl_neg=int(int,int,int,int,int,int,int,short,signed char,unsigned),"
       "wl_ptr=pointer(pointer,long)")
# How each of them is called (docs/wrapping.md, "path" in the JSON): on
# x86-64 6 integer and 8 floating-point arguments travel in registers.
PATHS = {"wl_touch": "registers", "wl_mix": "registers", "wl_recurse": "registers",
         "wl_reg14": "registers", "wl_flt": "registers", "wl_ext": "registers",
         "wl_ptr": "registers", "wl_int7": "closure", "wl_dbl9": "closure",
         "wl_many": "closure", "wl_neg": "closure", "wl_pair": "ffi_call",
         "wl_small": "ffi_call"}


build = Work(t, work).build


def variant(name, flags, ldflags):
    """libwraplib + libwrapdl + wrapprog built with flags into work/name."""
    d = os.path.join(work, name)
    os.mkdir(d)
    rp = ["-Wl,-rpath," + d]
    ok = build("%s library" % name, ["gcc", "-O0", "-fPIC",
                                     "-shared"] + flags + ldflags +
               ["-o", os.path.join(d, "libwraplib.so"), os.path.join(SRC, "wraplib.c")])
    ok = ok and build("%s dlopen library" % name,
                      ["gcc", "-O2", "-fPIC", "-shared"] + flags + ldflags +
                      ["-o", os.path.join(d, "libwrapdl.so"), os.path.join(SRC, "wrapdl.c"),
                       "-L" + d, "-lwraplib"] + rp)
    ok = ok and build("%s program" % name,
                      ["gcc", "-O2", "-I" + ANNOT] + flags + ldflags +
                      ["-o", os.path.join(d, "wrapprog"), os.path.join(SRC, "wrapprog.c"),
                       "-L" + d, "-lwraplib", "-lm", "-ldl", "-lpthread"] + rp)
    return os.path.join(d, "wrapprog") if ok else None


def wrapped(prog, args, wrap, events=PF, **kw):
    env = dict(events)
    env["HPCSHIM_WRAP"] = wrap
    return run([prog] + [str(a) for a in args], env=env, **kw)


def plain(prog, args):
    return run([prog] + [str(a) for a in args], preload=False)


def same(what, bare, shim):
    t.eq(shim.rc, bare.rc, "%s: same exit status" % what)
    t.ok(shim.out == bare.out, "%s: same stdout" % what,
         "with:\n%s\nwithout:\n%s" % (shim.out[-1000:], bare.out[-1000:]))


def wrap_entry(doc, name):
    return next((w for w in doc.get("wrap", []) if w["name"] == name), None)


def reg(doc, name):
    m = main_thread(doc)
    return m and region(m, name)


def touch_checks(what, prog):
    N, K = 50, 7
    r = wrapped(prog, ["touch", N, K], SIG)
    t.eq(r.rc, 0, "%s: touch: exit code" % what)
    t.eq(r.shim_lines(), [], "%s: touch: no hpcshim line" % what)
    g = reg(r.doc, "wl_touch")
    t.eq(g and g["calls"], N, "%s: wl_touch region: %d calls" % (what, N))
    t.eq(g and g["inclusive"]["page-faults"], N * K,
         "%s: wl_touch: exactly n*k = %d page faults" % (what, N * K))
    w = wrap_entry(r.doc, "wl_touch")
    t.ok(w and w["status"] == "wrapped" and w["slots"] >= 1,
         "%s: wrap entry: wrapped, slots patched" % what, w)
    r = wrapped(prog, ["touch", N, K, "outer"], SIG)
    o, g = reg(r.doc, "outer"), reg(r.doc, "wl_touch")
    t.eq((o and o["inclusive"]["page-faults"], o and o["exclusive"]["page-faults"]),
         (N * K + K, K), "%s: annotated outer: inclusive n*k+k, exclusive k" % what)
    t.eq((g and g["inclusive"]["page-faults"], g and g["exclusive"]["page-faults"]),
         (N * K, N * K), "%s: nested wl_touch: inclusive = exclusive = n*k" % what)
    w = g and g.get("wall_ns")
    ow = o and o.get("wall_ns")
    t.ok(w and ow and 0 < w["inclusive"] <= ow["inclusive"] - ow["exclusive"]
         and g["per_call_wall_ns"]["calls"] == N,
         "%s: wrapped calls have wall time like any region, within outer's children" % what,
         (w, ow))


# ---- the exact tests, three link variants -------------------------------------
progs = {}
for name, flags, ldflags in (("plain", [], []),
                             ("relro_now", [], ["-Wl,-z,relro,-z,now"]),
                             ("noplt", ["-fno-plt"], ["-Wl,-z,relro,-z,now"])):
    progs[name] = variant(name, flags, ldflags)
    if progs[name]:
        touch_checks(name, progs[name])

prog = progs["plain"]
if prog:
    # cos: 10^6 results bit-identical (the program prints a hash of the bits).
    bare = plain(prog, ["cos", 1000000])
    shim = wrapped(prog, ["cos", 1000000], "cos")
    same("cos wrapped, 10^6 calls", bare, shim)
    g = reg(shim.doc, "cos")
    t.eq(g and g["calls"], 1000000, "cos: 10^6 calls")
    w = wrap_entry(shim.doc, "cos")
    t.eq(w and (w["status"], w["signature"]), ("wrapped", "double(double)"),
         "cos: signature from the shipped libm set")

    # Struct by value (in memory and in registers), ten mixed arguments,
    # recursion through the library's own PLT slot.
    bare = plain(prog, ["abi"])
    shim = wrapped(prog, ["abi"], SIG)
    same("struct returns, 10 and 18 mixed arguments (stack ones too), recursion, "
         "the register limits, floats, narrow signed integers, a pointer result",
         bare, shim)
    for f in ("wl_pair", "wl_small", "wl_mix", "wl_many", "wl_reg14", "wl_int7", "wl_dbl9",
              "wl_flt", "wl_ext", "wl_neg", "wl_ptr"):
        g = reg(shim.doc, f)
        t.eq(g and g["calls"], 1, "abi: %s called once, wrapped" % f)
    if os.uname().machine == "x86_64":
        got = {f: (wrap_entry(shim.doc, f) or {}).get("path") for f in PATHS}
        t.eq(got, PATHS, "abi: each signature takes its path (registers, closure, ffi_call)")
    else:
        t.skip("abi: the paths taken", "the register limits stated are x86-64's")
    g = reg(shim.doc, "wl_recurse")
    t.eq(g and g["calls"], 6, "abi: wl_recurse(5): 6 calls (recursion through the PLT)")

for name in ("plain", "noplt"):
    prog = progs[name]
    if not prog:
        continue
    # dlopen after start (its PLT patched at load) and a pointer from dlsym.
    N, K = 20, 3
    bare = plain(prog, ["dlopen", N, K])
    shim = wrapped(prog, ["dlopen", N, K], SIG)
    same("%s: dlopen + dlsym" % name, bare, shim)
    g = reg(shim.doc, "wl_touch")
    t.eq(g and (g["calls"], g["inclusive"]["page-faults"]), (2 * N, 2 * N * K),
         "%s: wl_touch via the dlopen'ed library and via dlsym: 2n calls, 2nk faults" % name)
    w = wrap_entry(shim.doc, "wl_touch")
    t.ok(w and w["dlsym"] == 1 and w["slots"] >= 2,
         "%s: dlsym answered with the wrapper once, the new library's slot patched" % name, w)

    # 8 threads calling while a dlopen patches.
    N = 20000
    bare = plain(prog, ["threads", N])
    shim = wrapped(prog, ["threads", N], SIG)
    same("%s: 8 threads calling while dlopen patches" % name, bare, shim)
    if shim.docs:
        calls = sum(region(th, "wl_recurse")["calls"] for th in shim.doc["threads"]
                    if region(th, "wl_recurse"))
        t.eq(calls, 8 * N * 2, "%s: wl_recurse(1) x %d x 8 threads: every call counted" % (name, N))

# ---- libraries dlopen'ed one by one: each walked once ----------------------------
# wrapmany dlopens libwrapuse0 (before wn_hit's own library: its slot
# unresolvable until then), libwrapdef (the definition, RTLD_GLOBAL), then
# libwrapuse1..N-1 one by one (lazy PLT, bound PLT, one -fno-plt GLOB_DAT),
# each called before the next is loaded; then libwrapuse0; then closes
# libwrapuse1 and opens it again (glibc gives it the same link map at the
# same address) and calls it.  Every call is counted, each library's slot
# is patched once per load, and each dlopen walks exactly the one object
# it loaded (HPCSHIM_VERBOSE=2 says what each pass walked).
d = os.path.join(work, "many")
os.mkdir(d)
NLIB, CALLS = 6, 1000
ok = build("wn_hit's library", ["gcc", "-O2", "-fPIC", "-shared", "-o",
                                os.path.join(d, "libwrapdef.so"), os.path.join(SRC, "wrapdef.c")])
for i in range(NLIB):
    ok = ok and build("caller library %d" % i,
                      ["gcc", "-O2", "-fPIC", "-shared"] + (["-fno-plt"] if i == 2 else []) +
                      ["-o", os.path.join(d, "libwrapuse%d.so" % i), os.path.join(SRC, "wrapuse.c")])
ok = ok and build("the program dlopening them", ["gcc", "-O2", "-o", os.path.join(d, "wrapmany"),
                                                 os.path.join(SRC, "wrapmany.c"), "-ldl"])
if ok:
    prog = os.path.join(d, "wrapmany")
    bare = plain(prog, [d, NLIB, CALLS])
    shim = wrapped(prog, [d, NLIB, CALLS], "wn_hit=int(int)",
                   dict(PF, HPCSHIM_VERBOSE="2"))
    same("%d libraries dlopen'ed one by one, one closed and opened again" % NLIB, bare, shim)
    t.eq(bare.out.count(": %d\n" % (CALLS * CALLS)), NLIB + 1,
         "wrapmany: every library's calls returned wn_hit's results (sum %d each)" % (CALLS * CALLS))
    g = reg(shim.doc, "wn_hit")
    t.eq(g and g["calls"], (NLIB + 1) * CALLS,
         "wn_hit: %d libraries x %d calls and the reloaded one's %d: every call counted"
         % (NLIB, CALLS, CALLS))
    w = wrap_entry(shim.doc, "wn_hit")
    t.eq(w and (w["status"], w["slots"]), ("wrapped", NLIB + 1),
         "wn_hit: one slot patched per library load (%d), none twice" % (NLIB + 1))
    passes = [l for l in shim.err.splitlines() if l.startswith("hpcshim: HPCSHIM_WRAP: dlopen: ")]
    walked = [tuple(int(x) for x in re.match(r".*: (\d+) new objects? walked, (\d+) walked again",
                                             l).groups()) for l in passes]
    reused = "reload same" in shim.out
    t.ok(sum(n + a for n, a in walked) == NLIB + 2 and len(walked) == NLIB + 2,
         "wrapmany: %d dlopens, each walks the one object it loaded, no other"
         % (NLIB + 2), "\n".join(passes))
    t.eq(sum(a for _, a in walked), 1 if reused else 0,
         "wrapmany: the library loaded again at the same link map (%s here) is walked again"
         % ("the same" if reused else "not the same"))

prog = progs["plain"]
if prog:
    # longjmp out of a wrapped call.
    N, K = 100, 9
    bare = plain(prog, ["jump", N, K])
    shim = wrapped(prog, ["jump", N, K], SIG)
    same("longjmp out of wl_jump", bare, shim)
    g, a = reg(shim.doc, "wl_jump"), reg(shim.doc, "after")
    t.eq(g and g["calls"], N, "longjmp: wl_jump %d calls" % N)
    t.eq(a and (a["calls"], a["inclusive"]["page-faults"], a["exclusive"]["page-faults"]),
         (1, K, K), "longjmp: the later region is right (k faults, top level)")
    t.eq(g and g["inclusive"] == g["exclusive"], True,
         "longjmp: the later region is not nested in a gone wl_jump frame")
    t.eq(shim.shim_lines(), [], "longjmp: no hpcshim line")

    # What cannot be wrapped: one line each, listed with the status.
    r = wrapped(prog, ["inside"], "wl_printf=int(pointer,...),close,setjmp,"
                "nothere=int(int),wl_inside=int(int),vec=__m256(__m256),malloc=pointer(long)")
    t.eq(r.rc, 0, "refusals: the program runs")
    t.eq(r.out, "inside 10\n", "refusals: same stdout")
    want = {"wl_printf": "variadic", "close": "refused: interposed by the shim",
            "setjmp": "refused: returns twice or never returns",
            "nothere": "not found", "wl_inside": "no PLT/GOT slot found",
            "vec": "vector args", "malloc": "refused: used by the shim"}
    got = {w["name"]: w["status"] for w in r.doc.get("wrap", [])}
    t.eq(got, want, "refusals: each listed with its status")
    lines = r.shim_lines()
    t.eq(sorted(next((n for n in want if (" %s " % n) in (" " + l.split(": ", 2)[-1])), l)
                for l in lines), sorted(want),
         "refusals: one hpcshim line each")

# ---- C++ exception through a wrapped function -----------------------------------
if shutil.which("g++"):
    d = os.path.join(work, "cxx")
    os.mkdir(d)
    if build("C++ library", ["g++", "-O2", "-fPIC", "-shared", "-o",
                             os.path.join(d, "libwrapxx.so"), os.path.join(SRC, "wrapxxlib.cpp")]) \
            and build("C++ program", ["g++", "-O2", "-I" + ANNOT, "-o", os.path.join(d, "wrapxx"),
                                      os.path.join(SRC, "wrapxx.cpp"), "-L" + d, "-lwrapxx",
                                      "-Wl,-rpath," + d]):
        prog = os.path.join(d, "wrapxx")
        bare = plain(prog, [50])
        shim = wrapped(prog, [50], "wx_throw=int(int)")
        same("C++ exception through wx_throw", bare, shim)
        t.eq(shim.out, "caught 50\n", "C++: every exception caught")
        g, a = reg(shim.doc, "wx_throw"), reg(shim.doc, "after")
        t.eq(g and g["calls"], 50, "C++: wx_throw 50 calls")
        t.eq(a and (a["inclusive"]["page-faults"], a["exclusive"]["page-faults"]), (5, 5),
             "C++: the later region is right")
        t.eq(g and g["inclusive"] == g["exclusive"], True,
             "C++: the later region is not nested in a gone wx_throw frame")
else:
    t.skip("C++ exception", "g++ not installed")

# ---- real libraries with the shipped sets ----------------------------------------
def regions(doc):
    return {g["name"]: g["calls"] for g in doc["regions"]}


blas = subprocess.run(["gcc", "-print-file-name=libopenblas.so"], capture_output=True,
                      encoding="utf-8").stdout.strip()
if not os.path.isabs(blas):
    t.skip("OpenBLAS", "libopenblas-dev not installed (tools/setup.sh tests installs it)")
else:
    prog = os.path.join(work, "blas_calls")
    if build("C program on OpenBLAS", ["gcc", "-O2", "-o", prog,
                                        os.path.join(SRC, "blas_calls.c"), "-lopenblas"]):
        bare = plain(prog, [17, 5])
        shim = wrapped(prog, [17, 5], "@blas", dict(PF, OPENBLAS_NUM_THREADS="2"))
        same("C on OpenBLAS, @blas", bare, shim)
        got = regions(shim.doc)
        t.eq((got.get("dgemm_"), got.get("cblas_dgemm")), (17, 5),
             "C on OpenBLAS: dgemm_ 17 calls, cblas_dgemm 5 calls, exactly")
        t.eq(shim.shim_lines(), [], "C on OpenBLAS: no hpcshim line (a set's misses are in the JSON)")
    prog = os.path.join(work, "blas_f")
    if not shutil.which("gfortran"):
        t.skip("Fortran on OpenBLAS", "gfortran not installed")
    elif build("Fortran program on OpenBLAS", ["gfortran", "-O2", "-o", prog,
                                                os.path.join(SRC, "blas_calls.f90"),
                                                "-lopenblas"]):
        bare = plain(prog, [23])
        shim = wrapped(prog, [23], "@blas")
        same("Fortran on OpenBLAS, @blas", bare, shim)
        t.eq(regions(shim.doc).get("dgemm_"), 23, "Fortran on OpenBLAS: dgemm_ 23 calls, exactly")

if not os.path.exists("/usr/bin/python3") or subprocess.run(
        ["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode:
    t.skip("numpy", "python3-numpy not installed (tools/setup.sh tests installs it)")
else:
    code = ("import numpy as np\n"
            "a = np.arange(40000.0).reshape(200, 200) % 7; b = a.T.copy()\n"
            "s = 0\n"
            "for i in range(6): s += int((a @ b).sum())\n"
            "print(s)\n")
    bare = plain("/usr/bin/python3", ["-c", code])
    shim = wrapped("/usr/bin/python3", ["-c", code], "@blas",
                   dict(PF, OPENBLAS_NUM_THREADS="2"))
    same("numpy matmul, @blas", bare, shim)
    got = regions(shim.doc) if len(shim.docs) == 1 else {}
    t.eq(got.get("cblas_dgemm"), 6, "numpy: the cblas_dgemm region with its 6 calls")

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}
NP, CALLS = 3, 200
for name, cc, launcher, opt, impl in installed_mpis(t, mpi_launchers(NP), "with @mpi"):
    prog = os.path.join(work, "mpi_" + impl)
    if not build("%s program" % name, [cc, "-O2", "-o", prog,
                                       os.path.join(SRC, "mpi_allreduce.c")]):
        continue
    out = tempfile.mkdtemp(prefix="hpcshim-wrap-mpi-")
    os.chmod(out, 0o1777)
    argv = list(launcher)
    for k, v in (("LD_PRELOAD", PRELOAD.format(lib=LIB)),
                 ("HPCSHIM_WRAP", "@mpi"), ("HPCSHIM_EVENTS", "task-clock"),
                 ("HPCSHIM_OUTPUT", out)):
        argv += opt(k, v)
    r = run(argv + [prog, str(CALLS)], env=MPI_ENV, preload=False, outdir=out)
    t.eq((r.rc, r.out), (0, "ranks %d calls %d total %d\n"
                         % (NP, CALLS, sum(NP * i + NP * (NP - 1) // 2 for i in range(CALLS)))),
         "%s with @mpi: the job runs unchanged" % name)
    ranked = sorted((d["process"]["rank"], regions(d).get("MPI_Allreduce"),
                     regions(d).get("MPI_Barrier")) for d in r.docs
                    if d["process"]["rank"] is not None)
    t.eq(ranked, [(i, CALLS, 1) for i in range(NP)],
         "%s: per rank, MPI_Allreduce %d calls and MPI_Barrier 1" % (name, CALLS))
    tc = [proc["inclusive"]["task-clock"]["sum"] for d in r.docs for proc in d["regions"]
          if proc["name"] == "MPI_Allreduce"]
    t.ok(len(tc) == NP and all(v > 0 for v in tc),
         "%s: per-rank time inside MPI_Allreduce (%s ns)" % (name, tc))
    shutil.rmtree(out, ignore_errors=True)

shutil.rmtree(work, ignore_errors=True)
t.done()
