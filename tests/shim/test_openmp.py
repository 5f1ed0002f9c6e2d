"""OpenMP constructs without touching the source (preload/openmp/,
docs/openmp.md), against truths the program knows (tests/shim/omp_constructs.c,
built here with gcc -fopenmp):

- N parallel regions, thread t touching (t+1) x K fresh pages in each: the
  construct is a region named by its source line, each thread's work has
  exactly N x K x (t+1) page faults and N calls, the annotated region
  inside nests under it; the thread with less work waits at the implicit
  barrier within the bracket its own clock reads give, the other hardly,
  and it is the one that held the others up; 2 threads and 8 (above the
  core count), under libgomp and under LLVM's libomp standing in for it;
- loops: each thread's iterations and chunks as the program counts them
  (dynamic, and schedule(runtime) with OMP_SCHEDULE=static,4);
- a critical section held a known time: hold and wait within the
  program's own brackets; tasks: created, run (per thread as the program
  counts), their time, the taskwait;
- the program's output and exit unchanged; HPCSHIM_OPENMP=off and
  programs without OpenMP: no "openmp", no construct regions;
- a runtime not recognised, a runtime without GOMP_barrier: one hpcshim:
  line, nothing recorded, the program unchanged;
- thread labels: a team's threads have their omp_thread, 0..n-1 as the
  program reads them, a plain pthread that never joins a team none;
- gfortran: the construct named by its line in the .f90; workshare;
- one region pair per thread per construct by default (no wait region),
  the measured wait region with HPCSHIM_OPENMP=barrier;
- on libgomp and on libomp (OMPT): a named critical, unsigned long long
  loops (iterations per thread), ordered sections (per thread as the
  program counts them), atomic through the runtime's lock, taskloop (its
  wall within the program's clock reads; OMPT: its tasks), host teams;
- detachable tasks (tests/shim/omp_detach.c), gcc and clang: exit status
  and output as bare, each body's event its creator's, the tasks run per
  thread as the program counts them."""
import csv
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import Tap, HERE, BUILD, run, region  # noqa: E402

t = Tap()
SRC = os.path.dirname(HERE)
PR_SET_THP_DISABLE = 41  # one fault per 4 KiB page
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)
work = tempfile.mkdtemp(prefix="hpcshim-openmp-")
os.chmod(work, 0o755)
PROG = os.path.join(work, "omp_constructs")
LIBOMP = "/usr/lib/llvm-14/lib/libomp.so.5"


def build(argv, what):
    p = subprocess.run(argv, capture_output=True, encoding="utf-8", errors="replace")
    if p.returncode != 0:
        t.diag(p.stderr)
    return t.ok(p.returncode == 0, "build: %s" % what)


def pragma_line(src, fn, text):
    """The line of the first `text` after `static int fn(` in src."""
    lines = open(src, encoding="utf-8").read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("static int %s(" % fn))
    return next(i + 1 for i in range(start, len(lines)) if text in lines[i])


def shares(doc):
    """{omp_thread: per_thread entry} of each construct, by region name."""
    out = {}
    for c in (doc.get("openmp") or {}).get("constructs", []):
        out[c["region"]] = (c, {p["omp_thread"]: p for p in c["per_thread"]})
    return out


def stderr_rows(r, key):
    rows = {}
    for l in r.err.splitlines():
        f = l.split()
        if f and f[0] == key:
            rows[int(f[1])] = [int(x) for x in f[2:]]
    return rows


def threads_by_omp(doc):
    return {th["omp_thread"]: th for th in doc["threads"] if th.get("omp_thread") is not None}


ok = build(["gcc", "-std=gnu11", "-g", "-O2", "-fopenmp", "-I" + SRC, "-I" + HERE,
            os.path.join(HERE, "shim", "omp_constructs.c"), "-o", PROG], "omp_constructs.c")
SOURCE = os.path.join(HERE, "shim", "omp_constructs.c")


# ---- pages: work, calls, barrier wait, the slowest thread ----------------
def pages_case(nth, n, k, spin, what, env=None, prog=None, ompt=False):
    """ompt: clang's program on libomp, through OMPT: the construct is
    named by the call that starts its teams (the same line), no wait
    region (a worker's release comes late: its wait is until the last
    arrival).  GOMP: by default one region pair per thread per construct
    (its work; the wait until the last arrival, computed by the master);
    with HPCSHIM_OPENMP=barrier (env) a wait region with its counts."""
    e = {"OMP_NUM_THREADS": str(nth)}
    barrier = (env or {}).get("HPCSHIM_OPENMP") == "barrier"
    e.update(env or {})
    argv = [prog or PROG, "pages", str(n), str(k), str(spin)]
    bare = run(argv, preload=False, env=e)
    r = run(argv, env=e)
    t.eq(r.rc, 0, "%s: exit code 0" % what)
    t.eq(r.out, bare.out, "%s: output unchanged" % what)
    t.eq(r.shim_lines(), [], "%s: no hpcshim: line" % what)
    if len(r.docs) != 1:
        t.ok(False, "%s: one result file" % what)
        return None
    d = r.doc
    line = pragma_line(SOURCE, "pages", "#pragma omp parallel")
    name = "omp parallel @ omp_constructs.c:%d" % line
    sh = shares(d)
    t.ok(name in sh, "%s: the construct is named by its line (%s)" % (what, name),
         sorted(sh))
    if name not in sh:
        return None
    c, per = sh[name]
    t.eq((c["function"], c["source"]), ("main", "OMPT") if ompt else ("pages._omp_fn.0", "GOMP"),
         "%s: its function and the source of its events" % what)
    t.eq((c["teams"], c["team_max"], c["threads"]), (n, nth, nth),
         "%s: teams, largest team, threads" % what)
    ths = threads_by_omp(d)
    faults = {u: (region(ths[u], name) or {}).get("inclusive", {}).get("page-faults")
              for u in range(nth) if u in ths}
    # The kernel's own count around the work (getrusage in the program):
    # N x K x (t+1) touches, and whatever else the kernel did to the
    # thread meanwhile (a page migrated under memory pressure): the same.
    own = {u: v[0] for u, v in stderr_rows(r, "faults").items()}
    t.eq(faults, own, "%s: each thread's work has exactly the page faults the kernel "
         "counted around it" % what)
    t.eq({u: (region(ths[u], "touch") or {}).get("inclusive", {}).get("page-faults")
          for u in ths}, {u: n * k * (u + 1) for u in range(nth)},
         "%s: N x K x (t+1) of them in the annotated region inside" % what)
    t.eq({u: (region(ths[u], name) or {}).get("calls") for u in ths},
         {u: n for u in range(nth)}, "%s: N calls per thread (region records)" % what)
    t.eq({u: p["calls"] for u, p in per.items()}, {u: n for u in range(nth)},
         "%s: N calls per thread (openmp)" % what)
    # The record of "touch" was made by a team before (its parent is that
    # construct): nesting shows in the counts, the work's faults all in it.
    t.eq({u: (region(ths[u], name) or {}).get("exclusive", {}).get("page-faults")
          for u in ths}, {u: own[u] - n * k * (u + 1) for u in range(nth)},
         "%s: the annotated region nests in the construct (its faults are not the "
         "construct's own)" % what)
    wait = {u: region(ths[u], c["wait_region"]) for u in ths} if barrier else {}
    if not barrier:
        # One region pair per thread per construct: the work, and no other
        # region of the construct (OMPT and GOMP by default).
        t.eq((c["wait_region"], [x["name"] for u in ths for x in ths[u]["regions"]
                                 if x["name"].startswith("omp implicit barrier")]),
             (None, []), "%s: one region per thread per construct, no wait region" % what)
    else:
        t.eq({u: w and w["inclusive"].get("page-faults") for u, w in wait.items()},
             {u: 0 for u in range(nth)}, "%s: no page fault in the barrier waits" % what)
    br = stderr_rows(r, "bracket")
    last = nth - 1
    slack = n * 2000000  # the work's end to the outlined function's return
    w0 = per[0]["wait_ns"]
    t.ok(br[0][0] - slack <= w0 <= br[0][1],
         "%s: thread 0's barrier wait within the program's bracket" % what,
         "wait %d, bracket [%d - %d, %d]" % (w0, br[0][0], slack, br[0][1]))
    wl = per[last]["wait_ns"]
    t.ok(wl <= br[last][1], "%s: the slowest thread's wait within its bracket" % what,
         "wait %d, bracket [0, %d]" % (wl, br[last][1]))
    # Every team has one thread that arrived last: the one with the most
    # work, unless the machine took the CPU from another during its work
    # (under load it does). The program's own clock reads at each thread's
    # end of work say which one it was in each team; the shim reads its
    # clock a few instructions later, on the same thread.
    own_last = {u: v[0] for u, v in stderr_rows(r, "last").items()}
    t.eq({u: p["last"] for u, p in per.items()}, own_last,
         "%s: the teams each thread arrived last in, as the program's clocks say" % what)
    most = max(own_last.values())
    t.eq((c["slowest_omp_thread"] in [u for u in own_last if own_last[u] == most],
          sum(p["last"] for p in per.values())), (True, n),
         "%s: the thread that arrived last most often held the others up (%s); one "
         "last per team" % (what, c["slowest_omp_thread"]))
    works = [p["work_ns"] for p in per.values()]
    mean = sum(works) / len(works)
    t.within(c["imbalance"], (max(works) - mean) / mean, 1e-9,
             "%s: imbalance is (max - mean) / mean of the work" % what)
    waits = sum(p["wait_ns"] for p in per.values())
    t.within(c["wait_share"], waits / (waits + sum(works)), 1e-9,
             "%s: the waiting share of the team's time" % what)
    if not barrier:
        return d, c, per
    tc = wait[0]["inclusive"].get("task-clock") if wait[0] else None
    t.ok(tc is not None and 0 <= tc <= wait[0]["wall_ns"]["inclusive"] + 1000000,
         "%s: thread 0's wait has its task-clock (spinning), at most its wall" % what,
         "task-clock %r" % tc)
    return d, c, per


if ok:
    res = pages_case(2, 6, 50, 3, "2 threads")
    if res:
        d = res[0]
        t.eq((d["openmp"]["runtime"], d["openmp"]["recorded"]), ("libgomp", True),
             "2 threads: the runtime is libgomp, recorded")
    pages_case(8, 3, 20, 5, "8 threads on %d cores" % os.cpu_count())
    pages_case(2, 6, 50, 3, "HPCSHIM_OPENMP=barrier, 2 threads",
               env={"HPCSHIM_OPENMP": "barrier"})
    pages_case(8, 3, 20, 5, "HPCSHIM_OPENMP=barrier, 8 threads",
               env={"HPCSHIM_OPENMP": "barrier"})
    if os.path.exists(LIBOMP):
        stand = os.path.join(work, "llvm")
        os.makedirs(stand, exist_ok=True)
        os.symlink(LIBOMP, os.path.join(stand, "libgomp.so.1"))
        res = pages_case(2, 4, 30, 3, "libomp standing in for libgomp",
                         env={"LD_LIBRARY_PATH": stand})
        if res:
            t.eq(res[0]["openmp"]["runtime"], "libomp",
                 "libomp standing in: the runtime is named for the file")
    else:
        t.skip("libomp standing in for libgomp", "no %s (libomp-dev)" % LIBOMP)

# ---- clang and LLVM's libomp: OMPT -----------------------------------------------
CLANG_PROG = os.path.join(work, "omp_constructs_clang")
if shutil.which("clang") and os.path.exists(LIBOMP) and build(
        ["clang", "-std=gnu11", "-g", "-O2", "-fopenmp", "-I" + SRC, "-I" + HERE,
         SOURCE, "-o", CLANG_PROG, "-latomic"], "omp_constructs.c with clang -fopenmp"):
    res = pages_case(2, 4, 30, 3, "clang, OMPT", prog=CLANG_PROG, ompt=True)
    if res:
        t.eq((res[0]["openmp"]["runtime"], res[0]["openmp"]["source"]), ("libomp", "OMPT"),
             "clang, OMPT: the runtime is libomp, the source OMPT")
    e = {"OMP_NUM_THREADS": "2"}
    r = run([CLANG_PROG, "critical", "20"], env=e)
    cr = stderr_rows(r, "critical")
    per = list(shares(r.doc).values())[0][1] if r.docs else {}
    t.ok(r.rc == 0 and r.out.strip() == "entered=2" and
         {u: p["criticals"] for u, p in per.items()} == {0: 1, 1: 1} and
         all(cr[u][1] <= p["critical_held_ns"] <= cr[u][1] + 5000000 and
             cr[u][0] - 5000000 <= p["critical_wait_ns"] <= cr[u][0] for u, p in per.items()),
         "clang, OMPT: each thread's critical entry, hold and wait within the program's",
         [(p["critical_wait_ns"], p["critical_held_ns"], cr.get(u)) for u, p in per.items()])
    r = run([CLANG_PROG, "tasks", "6", "3"], env=e)
    ran = stderr_rows(r, "tasks")
    per = list(shares(r.doc).values())[0][1] if r.docs else {}
    t.ok(r.rc == 0 and sum(p["tasks_created"] for p in per.values()) == 6 and
         {u: p["tasks_run"] for u, p in per.items()} == {u: v[0] for u, v in ran.items()} and
         all(p["task_ns"] >= p["tasks_run"] * 3000000 for p in per.values()),
         "clang, OMPT: tasks created, run per thread as the program counts, their time",
         [(p["tasks_created"], p["tasks_run"], p["task_ns"]) for p in per.values()])
    r = run([CLANG_PROG, "pages", "2", "10", "1"], env={"OMP_NUM_THREADS": "2",
                                                      "HPCSHIM_OPENMP": "off"})
    t.ok(r.rc == 0 and "openmp" not in r.doc, "clang, HPCSHIM_OPENMP=off: no openmp")
else:
    t.skip("clang, OMPT", "no clang or no %s" % LIBOMP)


# ---- more constructs: named critical, unsigned long long loops, ordered,
# atomic, taskloop, teams; on libgomp (GOMP_*) and on libomp (OMPT) ------------
def one_construct(r, fn, text):
    """The construct at the line of `text` in function fn: (record, per)."""
    sh = shares(r.doc) if r.docs else {}
    line = pragma_line(SOURCE, fn, text)
    for name, v in sh.items():
        if name.endswith("@ omp_constructs.c:%d" % line):
            return v
    t.diag("no construct at omp_constructs.c:%d in %s" % (line, sorted(sh)))
    return None, {}


def more_constructs(prog, tag, ompt):
    e = {"OMP_NUM_THREADS": "2"}

    def same(argv, what):
        r = run(argv, env=e)
        t.eq((r.rc, r.out, r.shim_lines()), (0, run(argv, preload=False, env=e).out, []),
             "%s %s: exit 0, output unchanged, no hpcshim: line" % (tag, what))
        return r

    # A named critical section: each entry, its hold and wait within the
    # program's own clock reads.
    HOLD = 20
    r = same([prog, "named", str(HOLD)], "named critical")
    cr = stderr_rows(r, "critical")
    c, per = one_construct(r, "named", "#pragma omp parallel")
    t.ok({u: p["criticals"] for u, p in per.items()} == {0: 1, 1: 1} and
         all(cr[u][1] <= p["critical_held_ns"] <= cr[u][1] + 5000000 and
             cr[u][0] - 5000000 <= p["critical_wait_ns"] <= cr[u][0] for u, p in per.items()),
         "%s named critical: one entry each, hold and wait within the program's" % tag,
         [(p["critical_wait_ns"], p["critical_held_ns"], cr.get(u)) for u, p in per.items()])

    # Loops over unsigned long long (GOMP_loop_ull_*): each thread's
    # iterations as the program counts them; the ordered sections entered.
    M, CH = 600, 5
    r = same([prog, "ull", str(M), str(CH)], "unsigned long long loops")
    it = stderr_rows(r, "ulliters")
    c, per = one_construct(r, "ull_loops", "#pragma omp parallel")
    if not ompt:  # LLVM 14 makes no dispatch callback: no chunks under OMPT
        t.eq({u: p["iterations"] for u, p in per.items()},
             {u: a + b + o for u, (a, b, o, od) in it.items()},
             "%s unsigned long long loops (dynamic up, guided down, ordered): each "
             "thread's iterations" % tag)
    t.eq({u: p["ordered"] for u, p in per.items()}, {u: od for u, (a, b, o, od) in it.items()},
         "%s ordered: each thread's ordered sections as the program counts them" % tag)
    t.ok(all(0 < p["ordered_wait_ns"] <= p["work_ns"] for p in per.values() if p["ordered"]),
         "%s ordered: the wait for each turn, within the work" % tag,
         [(p["ordered_wait_ns"], p["work_ns"]) for p in per.values()])

    # atomic on a long double: libgomp's lock (GOMP_atomic_start); clang
    # calls libatomic, not the runtime, so nothing is the runtime's there.
    N = 2000
    r = same([prog, "atomic", str(N)], "atomic")
    c, per = one_construct(r, "atomic", "#pragma omp parallel")
    own = {u: v[0] for u, v in stderr_rows(r, "atomic").items()}
    if not ompt:
        t.eq({u: p["atomics"] for u, p in per.items()}, own,
             "%s atomic: each thread's atomics through the runtime's lock" % tag)
        t.ok(all(p["atomic_wait_ns"] <= p["work_ns"] for p in per.values()),
             "%s atomic: the wait for the lock within the work" % tag)
    else:
        t.eq({u: p["atomics"] for u, p in per.items()}, {u: 0 for u in own},
             "%s atomic: clang's long double atomic is libatomic's, not the runtime's" % tag)

    # taskloop: 40 iterations of 300 us in 4 tasks, from one thread.
    r = same([prog, "taskloop", "40", "4", "300"], "taskloop")
    c, per = one_construct(r, "taskloop", "#pragma omp parallel")
    wall = stderr_rows(r, "tlwall")
    enc = next(iter(wall), None)
    if not ompt:
        t.eq({u: p["taskloops"] for u, p in per.items()}, {u: int(u == enc) for u in per},
             "%s taskloop: one, on the thread that encountered it" % tag)
        tl = per.get(enc, {}).get("taskloop_ns", -1)
        t.ok(enc is not None and wall[enc][0] - 2000000 <= tl <= wall[enc][0],
             "%s taskloop: its wall within the program's clock reads around it" % tag,
             "taskloop_ns %d, program's %r" % (tl, wall))
    else:
        t.eq((sum(p["tasks_created"] for p in per.values()),
              sum(p["tasks_run"] for p in per.values())), (4, 4),
             "%s taskloop: its 4 tasks created and run (OMPT task callbacks)" % tag)
        t.ok(per.get(enc, {}).get("taskwaits", 0) >= 1,
             "%s taskloop: its taskgroup's wait on the encountering thread" % tag)

    # teams on the host: each team's run a share of "omp teams @ line".
    NT, MS = 2, 5
    r = same([prog, "teams", str(NT), str(MS)], "teams")
    c, per = one_construct(r, "teams", "#pragma omp teams")
    runs = sum(v[0] for v in stderr_rows(r, "team").values())
    t.eq((c and c["kind"], c and c["team_max"], sum(p["calls"] for p in per.values())),
         ("teams", NT, runs), "%s teams: a construct of kind teams, %d teams, each a share"
         % (tag, NT))
    t.ok(all(p["work_ns"] >= p["calls"] * MS * 1000000 for p in per.values()),
         "%s teams: each share's work at least its team's spin" % tag,
         [(p["calls"], p["work_ns"]) for p in per.values()])
    if not ompt:
        t.eq([(u, p["calls"]) for u, p in per.items()], [(0, NT)],
             "%s teams: GCC 12's libgomp runs the teams one after the other on the "
             "encountering thread" % tag)
    else:
        t.eq(sorted((u, p["calls"]) for u, p in per.items()), [(u, 1) for u in range(NT)],
             "%s teams: libomp runs each team on a thread of its own" % tag)


if ok:
    more_constructs(PROG, "gcc:", False)
    # The ordered sections of the loop case (long iterations).
    r = run([PROG, "loop", "200", "3"], env={"OMP_NUM_THREADS": "2"})
    it = stderr_rows(r, "iters")
    c, per = one_construct(r, "loop", "#pragma omp parallel")
    t.eq({u: p["ordered"] for u, p in per.items()}, {u: v[3] for u, v in it.items()},
         "gcc: ordered sections of a long loop, per thread as the program counts them")
    # hpcshim report --view openmp --format json: the new figures as the file has them
    out = os.path.join(work, "report-more")
    os.makedirs(out)
    os.chmod(out, 0o1777)
    r = run([PROG, "ull", "200", "3"], env={"OMP_NUM_THREADS": "2"}, outdir=out)
    p = subprocess.run([os.path.join(BUILD, "hpcshim"), "report", "--view", "openmp",
                        "--format", "json", out], capture_output=True, encoding="utf-8")
    try:
        rows = json.loads(p.stdout)
    except ValueError:
        rows = []
    keys = ("ordered", "ordered_wait_ns", "atomics", "atomic_wait_ns", "taskloops",
            "taskloop_ns")
    t.eq(sorted(tuple(x[k] for k in keys) for row in rows for x in row["per_thread"]),
         sorted(tuple(x[k] for k in keys) for c in r.doc["openmp"]["constructs"]
                for x in c["per_thread"]),
         "report --view openmp --format json: each thread's ordered, atomics and taskloops "
         "as the file has them")
    p = subprocess.run([os.path.join(BUILD, "hpcshim"), "report", "--view", "openmp",
                        "--format", "csv", out], capture_output=True, encoding="utf-8")
    rows = list(csv.reader(p.stdout.splitlines()))
    col = {k: i for i, k in enumerate(rows[0])} if rows else {}
    t.eq(sorted(tuple(int(x[col[k]]) for k in keys) for x in rows[1:])
         if all(k in col for k in keys) else None,
         sorted(tuple(x[k] for k in keys) for c in r.doc["openmp"]["constructs"]
                for x in c["per_thread"]),
         "report --view openmp --format csv: the same figures by their column")
    p = subprocess.run([os.path.join(BUILD, "hpcshim"), "report", "--view", "openmp", out],
                       capture_output=True, encoding="utf-8")
    has_ordered = any(x["ordered"] for c in r.doc["openmp"]["constructs"]
                      for x in c["per_thread"])
    t.eq((" ordered " in p.stdout, " atomics " in p.stdout), (has_ordered, False),
         "report --view openmp (text): a column for ordered sections where some thread had "
         "them, none for atomics where none did")
if os.path.exists(CLANG_PROG):
    more_constructs(CLANG_PROG, "clang, OMPT:", True)

# ---- hpcshim report --view openmp -----------------------------------------------
HPCSHIM = os.path.join(BUILD, "hpcshim")
if ok:
    out = os.path.join(work, "report")
    os.makedirs(out)
    os.chmod(out, 0o1777)
    r = run([PROG, "pages", "3", "20", "5"],
            env={"OMP_NUM_THREADS": "2", "HPCSHIM_OPENMP": "barrier"}, outdir=out)
    d = r.doc
    c = d["openmp"]["constructs"][0]
    p = subprocess.run([HPCSHIM, "report", "--view", "openmp", "--format", "json", out],
                       capture_output=True, encoding="utf-8")
    t.eq(p.returncode, 0, "report --view openmp --format json: exit 0")
    try:
        rows = json.loads(p.stdout)
    except ValueError:
        rows = []
    ths = {th["tid"]: th for th in d["threads"]}
    want = [(x["omp_thread"], x["calls"], x["work_ns"], x["wait_ns"], x["last"],
             region(ths[x["tid"]], c["wait_region"])["inclusive"].get("task-clock"))
            for x in c["per_thread"]]
    got = [(x["omp_thread"], x["calls"], x["work_ns"], x["wait_ns"], x["last"],
            x["wait_task_clock_ns"]) for x in (rows[0]["per_thread"] if rows else [])]
    t.eq(got, want, "report --view openmp: each thread's calls, work, wait, last and the "
         "task-clock of its wait, as the file has them")
    t.eq(rows and (rows[0]["region"], rows[0]["slowest_omp_thread"], rows[0]["imbalance"]),
         (c["region"], c["slowest_omp_thread"], c["imbalance"]),
         "report --view openmp: the construct, its slowest thread, its imbalance")
    p = subprocess.run([HPCSHIM, "report", "--view", "openmp", out], capture_output=True,
                       encoding="utf-8")
    t.ok(p.returncode == 0 and c["region"] in p.stdout and
         "slowest: omp thread %d" % c["slowest_omp_thread"] in p.stdout,
         "report --view openmp (text): the construct and its slowest thread", p.stdout)
    p = subprocess.run([HPCSHIM, "report", "--view", "openmp", "--format", "csv", out],
                       capture_output=True, encoding="utf-8")
    rows = list(csv.reader(p.stdout.splitlines()))
    t.eq([(int(x[2]), int(x[4]), int(x[5]), int(x[6])) for x in rows[1:]
          if x[1] == c["region"]],
         [(x["omp_thread"], x["calls"], x["work_ns"], x["wait_ns"]) for x in c["per_thread"]],
         "report --view openmp --format csv: a line per thread with its calls, work and wait")
    r = run(["/bin/true"], outdir=out)
    p = subprocess.run([HPCSHIM, "report", "--view", "openmp", out], capture_output=True,
                       encoding="utf-8")
    t.ok(p.returncode == 0 and "no OpenMP runtime in" in p.stdout,
         "report --view openmp: a result without OpenMP says so", p.stdout)

# ---- loops ----------------------------------------------------------------
if ok:
    M, CH = 300, 3
    e = {"OMP_NUM_THREADS": "2", "OMP_SCHEDULE": "static,4"}
    argv = [PROG, "loop", str(M), str(CH)]
    r = run(argv, env=e)
    t.eq((r.rc, r.out, r.shim_lines()), (0, run(argv, preload=False, env=e).out, []),
         "loops: exit 0, output unchanged, no hpcshim: line")
    it = stderr_rows(r, "iters")
    sh = shares(r.doc)
    first = "omp parallel @ omp_constructs.c:%d" % pragma_line(SOURCE, "loop", "#pragma omp parallel")
    second = "omp parallel @ omp_constructs.c:%d" % pragma_line(
        SOURCE, "loop", "#pragma omp parallel for")
    if first in sh and second in sh:
        p1, p2 = sh[first][1], sh[second][1]
        t.eq({u: p["iterations"] for u, p in p1.items()},
             {u: a + b + o for u, (a, b, c, o) in it.items()},
             "loops: a dynamic, a runtime (static,4) and an ordered loop: each thread's "
             "iterations")
        t.eq({u: p["chunks"] for u, p in p1.items()},
             {u: -(-a // CH) + -(-b // 4) + -(-o // CH) for u, (a, b, c, o) in it.items()},
             "loops: each thread's chunks (%d, 4 and %d iterations)" % (CH, CH))
        t.eq({u: p["iterations"] for u, p in p2.items()},
             {u: c for u, (a, b, c, o) in it.items()},
             "loops: parallel for dynamic: each thread's iterations")
        t.eq({u: p["barriers"] for u, p in p1.items()}, {0: 3, 1: 3},
             "loops: each thread waited at the three loops' barriers")
    else:
        t.ok(False, "loops: both constructs recorded", sorted(sh))

# ---- critical, tasks ---------------------------------------------------------
if ok:
    HOLD = 30
    e = {"OMP_NUM_THREADS": "2"}
    r = run([PROG, "critical", str(HOLD)], env=e)
    t.eq((r.rc, r.out.strip(), r.shim_lines()), (0, "entered=2", []),
         "critical: exit 0, output unchanged, no hpcshim: line")
    cr = stderr_rows(r, "critical")
    per = list(shares(r.doc).values())[0][1]
    t.eq({u: p["criticals"] for u, p in per.items()}, {0: 1, 1: 1}, "critical: one entry each")
    t.ok(all(cr[u][1] <= p["critical_held_ns"] <= cr[u][1] + 5000000 for u, p in per.items()),
         "critical: each hold within [the program's, + 5 ms]",
         [(p["critical_held_ns"], cr[u][1]) for u, p in per.items()])
    t.ok(all(cr[u][0] - 5000000 <= p["critical_wait_ns"] <= cr[u][0] for u, p in per.items()),
         "critical: each wait within [the program's - 5 ms, the program's]",
         [(p["critical_wait_ns"], cr[u][0]) for u, p in per.items()])

    NT, SPIN = 10, 5
    r = run([PROG, "tasks", str(NT), str(SPIN)], env=e)
    t.eq((r.rc, r.out.strip(), r.shim_lines()), (0, "tasks=%d" % NT, []),
         "tasks: exit 0, output unchanged, no hpcshim: line")
    ran = stderr_rows(r, "tasks")
    per = list(shares(r.doc).values())[0][1]
    t.eq(sum(p["tasks_created"] for p in per.values()), NT, "tasks: created")
    t.eq({u: p["tasks_run"] for u, p in per.items()}, {u: v[0] for u, v in ran.items()},
         "tasks: run per thread as the program counts")
    t.ok(all(p["task_ns"] >= p["tasks_run"] * SPIN * 1000000 for p in per.values()),
         "tasks: each thread's task time at least its tasks' spins",
         [(p["task_ns"], p["tasks_run"]) for p in per.values()])
    t.eq((sum(p["singles"] for p in per.values()), sum(p["taskwaits"] for p in per.values())),
         (1, 1), "tasks: one single executed, one taskwait")

# ---- detachable tasks: task detach(ev), omp_fulfill_event ---------------------------
# libgomp writes a detachable task's event into the first word of the
# task's data, where the program's body reads it: the shim's own data
# around the program's must leave it there.  Fulfilled in the body
# (early), after the body's end (late: under OMPT the task completes at
# the fulfill, on the fulfilling thread), undeferred (if(0)), and copied
# by gcc's copy function (a firstprivate VLA: GOMP_task's cpyfn).
DETACH_SRC = os.path.join(HERE, "shim", "omp_detach.c")


def detach_case(prog, tag):
    e = {"OMP_NUM_THREADS": "4"}
    for mode in ("early", "late", "undeferred", "vla"):
        argv, what = [prog, mode, "8"], "%s detach, %s" % (tag, mode)
        bare = run(argv, preload=False, env=e)
        r = run(argv, env=e)
        t.eq((bare.rc, bare.out), (0, "%s n=8 mismatch=0 sum=36\n" % mode),
             "%s: bare, every body saw its own event" % what)
        t.eq((r.rc, r.out, r.shim_lines()), (bare.rc, bare.out, []),
             "%s: exit status and output as bare, no hpcshim: line" % what)
        ran = {u: v[0] for u, v in stderr_rows(r, "ran").items()}
        sh = shares(r.doc) if r.rc == 0 and len(r.docs) == 1 else {}
        per = next(iter(sh.values()))[1] if len(sh) == 1 else {}
        t.eq((sum(p["tasks_created"] for p in per.values()),
              {u: p["tasks_run"] for u, p in per.items()}), (8, ran),
             "%s: 8 tasks created, each thread's tasks run as the program counts "
             "them" % what)


# Not under ThreadSanitizer (tools/sanitize.sh tsan): a detached task's
# block is freed by libgomp inside omp_fulfill_event, after the task's
# body ended, and TSan, which sees that free from the program's frame
# (libgomp's frames lost), not the program's own release/acquire (the
# program is not instrumented), reports a race with the shim's read of
# the block before the body ran.  Built instrumented, the program's races
# with libgomp's invisible barriers are reported instead (tools/tsan.supp).
# ASan runs them.
TSAN = os.environ.get("HPCSHIM_TEST_SANITIZER") == "tsan"
detach = os.path.join(work, "omp_detach")
if TSAN:
    t.skip("gcc: detach", "under TSan: libgomp's free at the fulfill seen without its ordering")
elif build(["gcc", "-std=gnu11", "-g", "-O2", "-fopenmp", DETACH_SRC, "-o", detach],
           "omp_detach.c"):
    detach_case(detach, "gcc:")
if TSAN:
    t.skip("clang, OMPT: detach", "under TSan: as gcc's")
elif not (shutil.which("clang") and os.path.exists(LIBOMP)):
    t.skip("clang, OMPT: detach", "no clang or no %s" % LIBOMP)
elif build(["clang", "-std=gnu11", "-g", "-O2", "-fopenmp", DETACH_SRC, "-o",
            detach + "_clang"], "omp_detach.c with clang -fopenmp"):
    detach_case(detach + "_clang", "clang, OMPT:")

# ---- off, no OpenMP ----------------------------------------------------------
if ok:
    argv = [PROG, "pages", "2", "10", "1"]
    r = run(argv, env={"OMP_NUM_THREADS": "2", "HPCSHIM_OPENMP": "off"})
    d = r.doc
    t.ok("openmp" not in d and not any(x["name"].startswith("omp ")
                                        for th in d["threads"] for x in th["regions"]),
         "HPCSHIM_OPENMP=off: no openmp, no construct region")
    t.eq(r.out, run(argv, preload=False, env={"OMP_NUM_THREADS": "2"}).out,
         "HPCSHIM_OPENMP=off: output unchanged")
r = run(["/bin/true"])
t.ok(r.rc == 0 and "openmp" not in r.doc and r.shim_lines() == [],
     "a program without OpenMP: no openmp section, no hpcshim: line")

# ---- nested teams, guided loops, sections ---------------------------------------
NEST = r"""
#include <omp.h>
#include <stdio.h>
int main(void)
{
	int s = 0, secs[8] = { 0 };
#pragma omp parallel num_threads(2) reduction(+ : s)
	{
#pragma omp parallel num_threads(2) reduction(+ : s)
		{
			s += 1;
#pragma omp barrier
#pragma omp single
			s += 10;
		}
	}
#pragma omp parallel for schedule(guided) reduction(+ : s)
	for (int i = 0; i < 1000; i++)
		s += 1;
#pragma omp parallel sections reduction(+ : s)
	{
#pragma omp section
		secs[omp_get_thread_num()]++;
#pragma omp section
		secs[omp_get_thread_num()]++;
#pragma omp section
		secs[omp_get_thread_num()]++;
	}
	for (int t = 0; t < 8; t++)
		if (secs[t])
			fprintf(stderr, "sections %d %d\n", t, secs[t]);
	printf("s=%d\n", s);
	return 0;
}
"""
with open(os.path.join(work, "nest.c"), "w") as f:
    f.write(NEST)
nest = os.path.join(work, "nest")
if build(["gcc", "-g", "-O1", "-fopenmp", os.path.join(work, "nest.c"), "-o", nest], "nest.c"):
    e = {"OMP_NUM_THREADS": "2", "OMP_MAX_ACTIVE_LEVELS": "2"}
    r = run([nest], env=e)
    t.eq((r.rc, r.out, r.shim_lines()), (0, run([nest], preload=False, env=e).out, []),
         "nested teams: exit 0, output unchanged, no hpcshim: line")
    lines = NEST.splitlines()
    at = [i + 1 for i, l in enumerate(lines) if l.startswith("#pragma omp parallel")]
    sh = shares(r.doc)
    names = ["omp parallel @ nest.c:%d" % n for n in at]
    t.ok(all(n in sh for n in names), "nested teams: every construct recorded", sorted(sh))
    if all(n in sh for n in names):
        outer, inner, guided, sections = (sh[n] for n in names)
        t.eq((outer[0]["teams"], inner[0]["teams"], inner[0]["team_max"], inner[0]["threads"]),
             (1, 2, 2, 4), "nested teams: the inner construct ran 2 teams of 2, on 4 threads")
        t.eq(sum(p["singles"] for p in inner[0]["per_thread"]), 2,
             "nested teams: one single per inner team")
        t.eq(sum(p["iterations"] for p in guided[1].values()), 1000,
             "guided loop: the iterations over the threads")
        own = {u: v[0] for u, v in stderr_rows(r, "sections").items()}
        t.eq({u: p["iterations"] for u, p in sections[1].items() if p["iterations"]}, own,
             "sections: each thread's sections as the program counts them")

# ---- thread labels: a team's threads only ------------------------------------------
# The main thread has a region before its team, a plain pthread one of its
# own while it never enters a team: the team's threads are labelled 0..n-1
# exactly as omp_get_thread_num() tells each of them, the plain thread not
# at all (outside a team omp_get_thread_num() says 0, which is no label).
LABEL = r"""
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include "annotate/hpcshim.h"
static volatile long sink;
static void *plain(void *arg)
{
	(void)arg;
	HPC_BEGIN("plain");
	for (long i = 0; i < 100000; i++)
		sink += i;
	HPC_END("plain");
	fprintf(stderr, "plain %d\n", (int)gettid());
	return NULL;
}
int main(void)
{
	pthread_t p;
	HPC_BEGIN("before");
	sink = 1;
	HPC_END("before");
	pthread_create(&p, NULL, plain, NULL);
	pthread_join(p, NULL);
#pragma omp parallel num_threads(3)
	{
		HPC_BEGIN("team");
		for (long i = 0; i < 100000; i++)
			sink += i;
		HPC_END("team");
#pragma omp critical
		fprintf(stderr, "team %d %d\n", omp_get_thread_num(), (int)gettid());
	}
	printf("done\n");
	return 0;
}
"""
with open(os.path.join(work, "label.c"), "w") as f:
    f.write(LABEL)
for cc, tag in (("gcc", "gcc (GOMP)"), ("clang", "clang (OMPT)")):
    lprog = os.path.join(work, "label_" + cc)
    if cc == "clang" and not (shutil.which("clang") and os.path.exists(LIBOMP)):
        t.skip("thread labels, %s" % tag, "no clang or no %s" % LIBOMP)
        continue
    if not build([cc, "-g", "-O1", "-fopenmp", "-I" + SRC, os.path.join(work, "label.c"),
                  "-o", lprog, "-lpthread"], "label.c with %s" % cc):
        continue
    # HPCSHIM_OPENMP=off: no construct recorded, the labels the same (the
    # workers' at their first region, inside the team; the master's when
    # its team starts, at libgomp's entry point: gcc's program only).
    for env, what in [({}, tag)] + ([({"HPCSHIM_OPENMP": "off"}, tag + ", HPCSHIM_OPENMP=off")]
                                   if cc == "gcc" else []):
        r = run([lprog], env=env)
        t.eq((r.rc, r.out, r.shim_lines()), (0, "done\n", []),
             "thread labels, %s: exit 0, output unchanged, no hpcshim: line" % what)
        team = {v[0]: u for u, v in stderr_rows(r, "team").items()}  # tid: number
        ptid = next(iter(stderr_rows(r, "plain")), None)
        labels = ({th["tid"]: th.get("omp_thread") for th in r.doc["threads"]}
                  if len(r.docs) == 1 else {})
        t.eq(sorted(team.values()), [0, 1, 2], "thread labels, %s: a team of 3 ran" % what)
        t.eq({u: labels.get(u, "no thread") for u in team}, team,
             "thread labels, %s: each team thread labelled with its omp_get_thread_num()" % what)
        t.ok(ptid in labels and labels[ptid] is None,
             "thread labels, %s: the plain pthread, never in a team, has no omp_thread" % what,
             labels)
        t.eq(sorted(u for u, v in labels.items() if v is not None), sorted(team),
             "thread labels, %s: no other thread labelled" % what)

# ---- a library dlopen'ed RTLD_LOCAL brings the runtime ----------------------------
DLIB = r"""
#include <omp.h>
int dlib_run(int n)
{
	int s = 0;
	for (int r = 0; r < n; r++) {
#pragma omp parallel reduction(+ : s)
		s += omp_get_thread_num() + 1;
	}
	return s;
}
"""
DMAIN = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	int (*f)(int) = h ? (int (*)(int))dlsym(h, "dlib_run") : 0;
	if (!f)
		return 1;
	printf("s=%d\n", f(4));
	return 0;
}
"""
with open(os.path.join(work, "dlib.c"), "w") as f:
    f.write(DLIB)
with open(os.path.join(work, "dmain.c"), "w") as f:
    f.write(DMAIN)
dlib, dmain = os.path.join(work, "libdlib.so"), os.path.join(work, "dmain")
if (build(["gcc", "-g", "-O1", "-fopenmp", "-shared", "-fPIC", os.path.join(work, "dlib.c"),
           "-o", dlib], "libdlib.so (-fopenmp)") and
        build(["gcc", "-g", os.path.join(work, "dmain.c"), "-o", dmain, "-ldl"],
              "dmain (no OpenMP)")):
    r = run([dmain, dlib], env={"OMP_NUM_THREADS": "2"})
    t.eq((r.rc, r.out, r.shim_lines()), (0, "s=12\n", []),
         "dlopen'ed OpenMP library: exit 0, output unchanged, no hpcshim: line")
    o = r.doc.get("openmp") or {}
    sh = shares(r.doc)
    name = "omp parallel @ dlib.c:%d" % (DLIB.splitlines().index("#pragma omp parallel reduction(+ : s)") + 1)
    t.eq((o.get("runtime"), o.get("recorded"), name in sh), ("libgomp", True, True),
         "dlopen'ed OpenMP library: the runtime found, the construct named by its line")
    if name in sh:
        t.eq({u: p["calls"] for u, p in sh[name][1].items()}, {0: 4, 1: 4},
             "dlopen'ed OpenMP library: 4 calls per thread")

# ---- runtimes the shim does not take ------------------------------------------
FAKE = r"""
typedef void (*fn_t)(void *);
void GOMP_parallel(fn_t fn, void *data, unsigned n, unsigned flags)
{ (void)n; (void)flags; fn(data); }
#ifdef WITH_BARRIER
void GOMP_barrier(void) {}
#endif
int omp_get_thread_num(void) { return 0; }
"""
CALLER = r"""
#include <stdio.h>
void GOMP_parallel(void (*)(void *), void *, unsigned, unsigned);
static void body(void *p) { ++*(int *)p; }
int main(void) { int n = 0; GOMP_parallel(body, &n, 0, 0); printf("n=%d\n", n); return 0; }
"""
with open(os.path.join(work, "fake.c"), "w") as f:
    f.write(FAKE)
with open(os.path.join(work, "caller.c"), "w") as f:
    f.write(CALLER)
for soname, defs, why in (("libfakeomp.so", ["-DWITH_BARRIER"], "not a runtime the shim knows"),
                          ("libgomp.so.77", [], "has no GOMP_barrier"),
                          ("libgomp.so.78", ["-DWITH_BARRIER"],
                           "a version of the GOMP ABI the shim does not know")):
    d = os.path.join(work, soname)
    os.makedirs(d, exist_ok=True)
    lib = os.path.join(d, soname)
    exe = os.path.join(d, "caller")
    if not (build(["gcc", "-shared", "-fPIC", "-o", lib, "-Wl,-soname," + soname,
                   os.path.join(work, "fake.c")] + defs, soname) and
            build(["gcc", "-o", exe, os.path.join(work, "caller.c"), lib, "-Wl,-rpath," + d],
                  "a caller of " + soname)):
        continue
    r = run([exe])
    lines = r.shim_lines()
    t.eq((r.rc, r.out), (0, "n=1\n"), "%s: the program unchanged" % soname)
    t.ok(len(lines) == 1 and "HPCSHIM_OPENMP" in lines[0] and why in lines[0],
         "%s: one hpcshim: line: %s" % (soname, why), lines)
    o = r.doc.get("openmp") or {}
    t.eq((o.get("recorded"), o.get("constructs")), (False, []),
         "%s: recorded false, no construct" % soname)

# ---- gfortran ------------------------------------------------------------------
F90 = """program omp_f
  use omp_lib
  implicit none
  integer :: r, s
  s = 0
  do r = 1, 3
!$omp parallel reduction(+:s)
    s = s + omp_get_thread_num() + 1
!$omp end parallel
  end do
  print '(a,i0)', 's=', s
end program omp_f
"""
WS90 = """program ws
  implicit none
  integer :: a(1000), s
  a = 1
  s = 0
!$omp parallel
!$omp workshare
  a = a * 2
  s = sum(a)
!$omp end workshare
!$omp end parallel
  print '(a,i0)', 's=', s
end program ws
"""
if shutil.which("gfortran"):
    fsrc = os.path.join(work, "omp_f.f90")
    with open(fsrc, "w") as f:
        f.write(F90)
    fexe = os.path.join(work, "omp_f")
    if build(["gfortran", "-g", "-O1", "-fopenmp", fsrc, "-o", fexe], "omp_f.f90"):
        e = {"OMP_NUM_THREADS": "2"}
        r = run([fexe], env=e)
        t.eq((r.rc, r.out, r.shim_lines()), (0, "s=9\n", []),
             "gfortran: exit 0, output unchanged, no hpcshim: line")
        line = F90.splitlines().index("!$omp parallel reduction(+:s)") + 1
        sh = shares(r.doc)
        name = "omp parallel @ omp_f.f90:%d" % line
        t.ok(name in sh, "gfortran: the construct is named by its line (%s)" % name, sorted(sh))
        if name in sh:
            t.eq({u: p["calls"] for u, p in sh[name][1].items()}, {0: 3, 1: 3},
                 "gfortran: 3 calls per thread")
        # workshare: gfortran runs its statements in single blocks with a
        # barrier after each (GOMP_single_start, GOMP_barrier).
        wsrc = os.path.join(work, "ws.f90")
        with open(wsrc, "w") as f:
            f.write(WS90)
        wexe = os.path.join(work, "ws")
        if build(["gfortran", "-g", "-O1", "-fopenmp", wsrc, "-o", wexe], "ws.f90"):
            r = run([wexe], env=e)
            t.eq((r.rc, r.out, r.shim_lines()), (0, "s=2000\n", []),
                 "gfortran workshare: exit 0, output unchanged, no hpcshim: line")
            nm = subprocess.run(["nm", wexe], capture_output=True, encoding="utf-8").stdout
            singles = nm.count("GOMP_single_start")
            sh = shares(r.doc)
            name = "omp parallel @ ws.f90:%d" % (WS90.splitlines().index("!$omp parallel") + 1)
            per = sh.get(name, (None, {}))[1]
            t.ok(singles == 1 and sum(p["singles"] for p in per.values()) >= 1 and
                 len({p["barriers"] for p in per.values()}) == 1 and
                 all(p["barriers"] >= 1 for p in per.values()),
                 "gfortran workshare: its single blocks executed, every thread at each "
                 "of its barriers", [(p["singles"], p["barriers"]) for p in per.values()])
else:
    t.skip("gfortran", "no gfortran")

shutil.rmtree(work, ignore_errors=True)
t.done()
