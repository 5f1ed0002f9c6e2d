"""hpcshim report --view profile against known truths (issue 31), with real
Open MPI and MPICH jobs of 4 oversubscribed ranks under HPCSHIM_PROFILE=1
(tests/programs/mpi_profile.c):

- rank r burns (r+1) x T of CPU, then MPI_Barrier: rank 0 arrives first
  and waits longest, on an idle machine.  On a loaded one the ranks leave
  MPI_Init at different times and share 2 cores with other work, so the
  order of arrival is what each rank's own clock says: every rank's
  MPI_Barrier time (its rank file) lies within the bracket of its own
  clock reads (and above the bracket less 5 ms), and the max holder of
  MPI_Barrier's time is a rank whose bracket is the longest (within 5 ms);
- K MPI_Allreduce of N doubles per rank: calls and bytes sent exact
  (sum, min, max);
- BYTES in W write() calls per rank: the main thread's write calls exact,
  the process's write bytes BYTES plus the MPI library's helper threads'
  few (outside MPI calls);
- every thread's, rank's and the job's six parts add up to its wall time
  within 1%; compute of rank r's main thread is about (r+1) x T;
- the findings name MPI_Barrier and rank 0;
- R ring exchanges: MPI_Isend and MPI_Irecv point-to-point (Isend's
  bytes exact, Irecv's none: the send side only), MPI_Waitall a wait;
- MPI_Init and MPI_Finalize are regions (init_finalize), the MPI
  library's own I/O inside them is not I/O.

With OpenMP (-fopenmp, 2 threads) the same job: each rank's threads burn
its time in a parallel region; openmp_wait present, parts still add up.
Skipped (TAP skip) only when an MPI's compiler is not installed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, HERE, LIB, BUILD, OPENMPI_ENV, PRELOAD, Work, MPI_FOREIGN, mpi_launchers

t = Tap()
PROGS = os.path.join(HERE, "programs")
work = tempfile.mkdtemp(prefix="hpcshim-profile-")
NP, T_MS, K, N, BYTES, W, R = 4, 60, 20, 1000, 100000, 10, 15
HPCSHIM = os.path.join(BUILD, "hpcshim")
ENV = dict(OPENMPI_ENV, TMPDIR=work)
FOREIGN = MPI_FOREIGN
MPIS = mpi_launchers(NP)
runner = Work(t, work, ENV, FOREIGN, timeout=240)


def parts_add_up(what, wall, times):
    s = sum(times[k] for k in ("compute", "mpi", "io", "openmp_wait", "off_cpu", "measurement"))
    return abs(s - wall) <= 0.01 * wall + 2


def same_as_files(what, pr, jp, snapshot):
    """The profile of a job document alone against the rank files': the
    MPI and I/O tables (calls, bytes, time: sum, min, max and holders),
    each rank's main thread's parts and peak memory, the job's parts.
    The in-job document (snapshot) is taken inside MPI_Finalize: its
    times end there and MPI_Finalize's call is open, so its tables are
    compared without MPI_Finalize, its parts and memory not above the
    files' (the files' end at exit); merge's equal the files' exactly."""
    def table(p, io):
        # cov: a quotient of sums merged in another order (last bits)
        return {f["function"]: {k: ({x: y for x, y in f[k].items() if x != "cov"}
                                    if isinstance(f[k], dict) else f[k])
                                for k in ("kind", "calls", "time_ns", "bytes")}
                for f in p["io" if io else "mpi"]
                if not (snapshot and f["function"] == "MPI_Finalize")}

    def covs(p):
        return {(f["function"], k): f[k]["cov"] for f in p["mpi"] + ([] if snapshot else p["io"])
                for k in ("calls", "time_ns", "bytes")
                if f[k] and not (snapshot and f["function"] == "MPI_Finalize")}
    # MPI: the program's calls, all made before MPI_Finalize; I/O: the
    # MPI library's helper threads read and write in MPI_Finalize too,
    # after the in-job snapshot
    for io in (False, True) if not snapshot else (False,):
        got, want = table(jp, io), table(pr, io)
        t.eq(sorted(got), sorted(want), "%s: the %s functions of the rank files"
             % (what, "I/O" if io else "MPI"))
        diff = [(fn, got.get(fn), want[fn]) for fn in want if got.get(fn) != want[fn]]
        t.ok(not diff, "%s: every %s function's calls, bytes and time (sum, min, max, mean, "
             "holders) those of the rank files" % (what, "I/O" if io else "MPI"), diff[:3])
    if snapshot:
        got, want = table(jp, True), table(pr, True)
        w = got.get("write")
        t.ok(w and w["bytes"] and w["bytes"]["min"] >= BYTES and all(
            fn in want and got[fn]["calls"]["sum"] <= want[fn]["calls"]["sum"] for fn in got),
             "%s: I/O calls not above the files' (their ends come later), write's bytes at "
             "least %d per rank" % (what, BYTES), (got, want))
    gc, wc = covs(jp), covs(pr)
    t.ok(all(abs(gc[k] - wc[k]) <= 1e-9 * max(1, abs(wc[k])) for k in gc if k in wc),
         "%s: the functions' coefficients of variation those of the files (1e-9)" % what,
         [(k, gc[k], wc.get(k)) for k in gc if k in wc and gc[k] != wc[k]][:3])
    ranks = {r["rank"]: r for r in pr["ranks"]}
    bad = []
    for r in jp["ranks"]:
        f = ranks.get(r["rank"])
        if not f or r["time_ns"] is None or r["peak_rss_bytes"] is None:
            bad.append((r["rank"], "missing"))
        elif not snapshot and (r["time_ns"], r["threads_time_ns"], r["wall_ns"],
                               r["peak_rss_bytes"]) != \
                (f["time_ns"], f["threads_time_ns"], f["wall_ns"], f["peak_rss_bytes"]):
            bad.append((r["rank"], r["time_ns"], f["time_ns"], r["threads_time_ns"],
                        f["threads_time_ns"]))
        elif snapshot and not (r["wall_ns"] <= f["wall_ns"]
                               and r["peak_rss_bytes"] <= f["peak_rss_bytes"]
                               and parts_add_up(what, r["wall_ns"], r["time_ns"])):
            bad.append((r["rank"], r["wall_ns"], f["wall_ns"], r["peak_rss_bytes"],
                        f["peak_rss_bytes"]))
    t.ok(len(jp["ranks"]) == NP and not bad, "%s: each rank's main-thread and threads' parts "
         "and peak memory%s" % (what, " (at MPI_Finalize: not above the files')" if snapshot
                       else ", those of its file"), bad)
    keys = ("wall_ns", "time_ns", "share", "threads_time_ns", "cpu_known")
    if snapshot:
        # (the hook's own CPU in MPI_Finalize, whose call is still open,
        # is compute there: only the wall and the sum of parts are checked)
        t.ok(jp["job"]["wall_ns"] <= pr["job"]["wall_ns"]
             and parts_add_up(what, jp["job"]["wall_ns"], jp["job"]["time_ns"]),
             "%s: the job's parts end at MPI_Finalize (not above the files'), add up" % what,
             (jp["job"], pr["job"]))
    else:
        t.eq({k: jp["job"][k] for k in keys}, {k: pr["job"][k] for k in keys},
             "%s: the job's wall, parts, shares and thread time those of the rank files" % what)
        t.eq([x["text"] for x in jp["findings"]], [x["text"] for x in pr["findings"]],
             "%s: the same findings" % what)


def check(name, prog, out, omp):
    what = name + (" + OpenMP" if omp else "")
    files = sorted(f for f in os.listdir(out) if f.startswith("hpcshim-") and
                   not f.startswith("hpcshim-job-"))
    if not t.eq(len(files), NP, "%s: %d rank files" % (what, NP)):
        return
    p = subprocess.run([HPCSHIM, "report", "--view", "profile", "--format", "json", out],
                       capture_output=True, encoding="utf-8")
    if not t.eq(p.returncode, 0, "%s: report --view profile --format json exits 0" % what):
        t.diag(p.stderr)
        return
    pr = json.loads(p.stdout)["profile"]
    ranks = {r["rank"]: r for r in pr["ranks"]}
    t.eq(sorted(ranks), list(range(NP)), "%s: ranks 0..%d" % (what, NP - 1))
    bad = []
    for r in pr["ranks"]:
        if not parts_add_up(what, r["wall_ns"], r["time_ns"]):
            bad.append(("rank", r["rank"], r["wall_ns"], r["time_ns"]))
        for th in r["threads"]:
            if not parts_add_up(what, th["wall_ns"], th["time_ns"]):
                bad.append(("thread", th["tid"], th["wall_ns"], th["time_ns"]))
    if not parts_add_up(what, pr["job"]["wall_ns"], pr["job"]["time_ns"]):
        bad.append(("job", pr["job"]))
    t.ok(not bad, "%s: every thread's, rank's and the job's parts add up to its wall within 1%%"
         % what, bad)
    t.ok(abs(sum(pr["job"]["share"][k] for k in pr["job"]["share"]) - 1) < 0.01,
         "%s: the job's shares add up to 1" % what)
    # compute of rank r's main thread ~ (r+1) T of CPU (each OpenMP
    # thread burns it too: the main thread is one of them).
    comp = [ranks[r]["time_ns"]["compute"] / 1e6 for r in range(NP)]
    t.ok(all((r + 1) * T_MS * 0.9 <= comp[r] <= (r + 1) * T_MS * 1.1 + 60 for r in range(NP)),
         "%s: rank r's compute ~ (r+1) x %d ms (got %s)" % (what, T_MS,
                                                            ["%.1f" % c for c in comp]))
    mpi = {f["function"]: f for f in pr["mpi"]}
    io = {f["function"]: f for f in pr["io"]}
    ar = mpi.get("MPI_Allreduce")
    t.ok(ar and (ar["calls"]["sum"], ar["calls"]["min"], ar["calls"]["max"]) == (NP * K, K, K)
         and ar["kind"] == "collective",
         "%s: MPI_Allreduce calls %d over the ranks, %d each, collective" % (what, NP * K, K), ar)
    t.ok(ar and ar["bytes"] and (ar["bytes"]["sum"], ar["bytes"]["min"], ar["bytes"]["max"]) ==
         (NP * K * N * 8, K * N * 8, K * N * 8),
         "%s: MPI_Allreduce bytes sent: %d x %d doubles x 8 per rank, exact" % (what, K, N),
         ar and ar["bytes"])
    isend, irecv, wall_ = mpi.get("MPI_Isend"), mpi.get("MPI_Irecv"), mpi.get("MPI_Waitall")
    t.ok(isend and irecv and wall_ and isend["kind"] == irecv["kind"] == "point_to_point"
         and wall_["kind"] == "wait"
         and (isend["calls"]["min"], isend["calls"]["max"], irecv["calls"]["sum"],
              wall_["calls"]["sum"]) == (R, R, NP * R, NP * R)
         and isend["bytes"] and isend["bytes"]["min"] == isend["bytes"]["max"] == R * N * 8
         and irecv["bytes"] is None,
         "%s: %d ring exchanges: Isend/Irecv point-to-point, Waitall a wait, Isend's bytes "
         "exact, none for Irecv" % (what, R), [isend, irecv, wall_])
    kinds = ranks[0]["time_ns"]["mpi_by_kind"]
    t.ok(abs(sum(kinds.values()) - ranks[0]["time_ns"]["mpi"]) <= 0.001 * ranks[0]["time_ns"]["mpi"]
         + 5 and kinds["point_to_point"] > 0 and kinds["wait"] > 0 and kinds["collective"] > 0,
         "%s: rank 0's MPI time split by kind adds up to it" % what, kinds)
    b = mpi.get("MPI_Barrier")
    # each rank's barrier: its own file's figure inside the bracket of its
    # own clock reads
    bracket, own = {}, {}
    for line in prog.stdout.splitlines():
        w = line.split()
        if len(w) >= 4 and w[0] == "rank" and w[2] == "barrier_ns":
            bracket[int(w[1])] = int(w[3])
    for f in files:
        d = json.load(open(os.path.join(out, f)))
        own[d["process"]["rank"]] = sum(r["wall_ns"]["inclusive"] for th in d["threads"]
                                        for r in th["regions"] if r["name"] == "MPI_Barrier")
    t.ok(sorted(bracket) == sorted(own) == list(range(NP)) and
         all(bracket[r] - 5e6 <= own[r] <= bracket[r] for r in own),
         "%s: every rank's MPI_Barrier within its own clock's bracket (-5 ms)" % what,
         {r: (own.get(r), bracket.get(r)) for r in range(NP)})
    longest = max(bracket.values()) if bracket else 0
    first = min(bracket, key=bracket.get) if bracket else None
    t.diag("%s: barrier brackets %s ms" % (what, {r: round(v / 1e6, 1)
                                                 for r, v in sorted(bracket.items())}))
    if t.ok(b is not None, "%s: MPI_Barrier in the MPI table" % what):
        at = b["time_ns"]["max_at"]
        t.ok(b["calls"]["sum"] == NP and at in bracket and bracket[at] >= longest - 5e6,
             "%s: MPI_Barrier: %d calls, the longest wait at rank %s, whose own bracket is the "
             "longest (within 5 ms)" % (what, NP, at), bracket)
        t.eq(b["time_ns"]["max"], own.get(at), "%s: MPI_Barrier's max is rank %s's own" % (what, at))
        # uneven as the ranks' own clocks say: the figures' range is at
        # least the brackets' less 5 ms, their mean at most the brackets';
        # n values of range R have a standard deviation of at least
        # R / sqrt(2n), so the coefficient of variation is at least the
        # brackets' spread over sqrt(2n)
        spread = (longest - bracket[first] - 5e6) / (sum(bracket.values()) / NP) if bracket else 0
        t.ok(b["time_ns"]["cov"] > 0 and b["time_ns"]["cov"] >= spread / (2 * NP) ** 0.5 - 1e-9,
             "%s: MPI_Barrier's time uneven (cov %.2f; the brackets' spread %.2f of their mean)"
             % (what, b["time_ns"]["cov"], spread))
    init = mpi.get("MPI_Init") or mpi.get("MPI_Init_thread")
    t.ok(init and init["kind"] == "init_finalize" and init["calls"]["sum"] == NP
         and mpi.get("MPI_Finalize", {}).get("calls", {}).get("sum") == NP,
         "%s: MPI_Init and MPI_Finalize, once per rank, init_finalize" % what, sorted(mpi))
    # the main thread's write() calls: the program's own (rank files)
    calls = {}
    for f in files:
        d = json.load(open(os.path.join(out, f)))
        main = [x for x in d["threads"] if x["tid"] == d["process"]["pid"]][0]
        calls[d["process"]["rank"]] = sum(r["calls"] for r in main["regions"]
                                          if r["name"] == "write")
    t.eq(calls, {r: W for r in range(NP)}, "%s: each main thread's write calls exact" % what)
    t.ok(io.get("write") and io["write"]["calls"]["min"] >= W,
         "%s: write in the I/O table, at least %d calls per rank" % (what, W))
    wb = io.get("write", {}).get("bytes")
    # the process's bytes: the program's BYTES, and the MPI library's
    # helper threads' few wake-up bytes outside MPI calls
    t.ok(wb and BYTES <= wb["min"] and wb["max"] <= BYTES + 4096,
         "%s: write bytes per rank %d (+ the MPI library's helper threads' few)" % (what, BYTES),
         wb)
    text = " ".join(x["text"] for x in pr["findings"])
    holder = b["time_ns"]["max_at"] if b else 0
    t.ok("MPI_Barrier" in text and ("rank %d waits longest in mpi_barrier" % holder) in text.lower(),
         "%s: the findings name MPI_Barrier and rank %d" % (what, holder), text)
    if omp:
        t.ok(any(th.get("omp_thread") == 1 for r in pr["ranks"] for th in r["threads"]),
             "%s: the OpenMP worker threads are listed" % what)
    # the job document rank 0 wrote at MPI_Finalize, read alone
    jobs = [f for f in os.listdir(out) if f.startswith("hpcshim-job-")]
    if t.eq(len(jobs), 1, "%s: one job document" % what):
        p = subprocess.run([HPCSHIM, "report", "--view", "profile", "--format", "json",
                            os.path.join(out, jobs[0])], capture_output=True, encoding="utf-8")
        jp = json.loads(p.stdout)["profile"] if p.returncode == 0 else None
        jm = {f["function"]: f for f in jp["mpi"]} if jp else {}
        t.ok(jp and jp["job"]["source"] == "job document" and len(jp["ranks"]) == NP
             and jm.get("MPI_Allreduce", {}).get("calls", {}).get("sum") == NP * K
             and jm.get("MPI_Barrier", {}).get("time_ns", {}).get("max_at") == holder
             and jp["job"]["time_ns"]["openmp_wait"] is not None
             and parts_add_up(what, jp["job"]["wall_ns"], jp["job"]["time_ns"]),
             "%s: the job document alone: MPI table, rank %d's barrier, job parts" % (what, holder),
             p.stdout[-1500:] + p.stderr)
        if jp:
            same_as_files("%s: the in-job document alone" % what, pr, jp, snapshot=True)
    # hpcshim merge of the rank files, read alone: the rank files' profile
    merged = os.path.join(work, "merged-%s%s.json" % (name.replace(" ", ""), "-omp" if omp else ""))
    p = subprocess.run([HPCSHIM, "merge", "-o", merged] + [os.path.join(out, f) for f in files],
                       capture_output=True, encoding="utf-8")
    p = subprocess.run([HPCSHIM, "report", "--view", "profile", "--format", "json", merged],
                       capture_output=True, encoding="utf-8")
    mp = json.loads(p.stdout)["profile"] if p.returncode == 0 else None
    if t.ok(mp is not None, "%s: the merged document's profile" % what, p.stderr):
        same_as_files("%s: hpcshim merge's document alone" % what, pr, mp, snapshot=False)
    # the text view
    p = subprocess.run([HPCSHIM, "report", "--view", "profile", out], capture_output=True,
                       encoding="utf-8")
    t.ok(p.returncode == 0 and "MPI_Barrier" in p.stdout and "findings" in p.stdout,
         "%s: the text view" % what, p.stdout[-2000:] + p.stderr)


for name, cc, launcher, option in MPIS:
    if not shutil.which(cc):
        t.skip("%s: profile job" % name, "%s not installed" % cc)
        continue
    for omp in (False, True):
        prog = os.path.join(work, "mpi_profile_%s%s" % (cc.split(".")[1], "_omp" if omp else ""))
        if not runner.build("%s mpi_profile%s" % (name, " -fopenmp" if omp else ""),
                            [cc, "-O2"] + (["-fopenmp"] if omp else []) +
                            ["-o", prog, os.path.join(PROGS, "mpi_profile.c")]):
            continue
        argv = list(launcher)
        for k, v in [("LD_PRELOAD", PRELOAD.format(lib=LIB)), ("HPCSHIM_PROFILE", "1")] + \
                ([("OMP_NUM_THREADS", "2")] if omp else []):
            argv += option(k, v)
        argv += [prog, str(T_MS), str(K), str(N), str(BYTES), str(W), work, str(R)]
        p, out = runner.launch(argv)
        if not t.eq(p.returncode, 0, "%s%s: the job exits 0" % (name, " + OpenMP" if omp else "")):
            t.diag(p.stderr[-3000:])
            continue
        check(name, p, out, omp)

shutil.rmtree(work, ignore_errors=True)
t.done()
