"""hpcshim html with profile data (issues 31 and 29), against the JSON of
`hpcshim report --view profile --format json` and `--view openmp`, for
jobs of known shape, and in headless Chromium:

- a 4-rank job under `hpcshim run --profile` with four counted events
  (tests/programs/mpi_profile.c: rank r burns (r+1) x T, then
  MPI_Barrier, K MPI_Allreduce, W writes, R ring exchanges) under Open
  MPI and MPICH: the page opens with the job's parts (one stacked bar,
  each segment the JSON's ns), one bar per rank (each the JSON's parts,
  sorted by the time in MPI calls, the first marked: the last to arrive
  at the barrier by the program's own clocks, rank 3, which burns
  4 x T, when the machine lets it arrive last), the findings (the JSON's, in order), the MPI and I/O tables
  (calls and time sums the JSON's); thread imbalance over the ranks' main
  threads only, the MPI library's helper threads counted apart; at
  1280 px no horizontal scroll (document and every table), no console
  message, no network request;
- a balanced 4-rank job (tests/programs/mpi_balanced.c): the thread
  imbalance is small, while over every thread, helpers included, it is
  above 100% (the figure the report used to show);
- an OpenMP team of known imbalance (tests/programs/omp_imbalance.c,
  gcc, 2 threads): each construct's imbalance, waiting share, slowest
  thread and per-thread calls, work and wait are `report --view openmp`'s;
  the slowest is omp thread 1 (it burns twice thread 0's work);
- dropped events: each reason said once, the events that share it named
  together; no "Time series" heading without a series.
"""
import glob
import html as htmlmod
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, HERE, CHROMIUM, OPENMPI_ENV, Tap, Work, chrome, run, MPI_FOREIGN, mpi_launchers  # noqa: E402

t = Tap()
HPCSHIM = os.path.join(BUILD, "hpcshim")
PROGS = os.path.join(HERE, "programs")
NP, T_MS, K, N, BYTES, W, R = 4, 60, 20, 1000, 100000, 10, 15
EVENTS = "task-clock,page-faults,context-switches,cpu-migrations"
CATS = ("compute", "mpi", "io", "openmp_wait", "off_cpu", "measurement")
work = tempfile.mkdtemp(prefix="hpcshim-html-profile-")
FOREIGN = MPI_FOREIGN
runner = Work(t, work, dict(OPENMPI_ENV, TMPDIR=work), FOREIGN, timeout=300)
MPIS = mpi_launchers(NP)


def near(a, b, tol=1.0):
    return a is not None and b is not None and abs(float(a) - float(b)) <= tol


def report_json(view, out):
    p = subprocess.run([HPCSHIM, "report", "--view", view, "--format", "json", out],
                       capture_output=True, encoding="utf-8")
    return json.loads(p.stdout) if p.returncode == 0 else None


def page_of(out, what):
    path = os.path.join(work, re.sub(r"\W+", "_", what) + ".html")
    p = subprocess.run([HPCSHIM, "html", "-o", path, out], capture_output=True, encoding="utf-8")
    if not t.ok(p.returncode == 0, "%s: hpcshim html exits 0" % what, p.stderr):
        return None, None
    page = open(path, encoding="utf-8").read()
    t.ok(not re.search(r"<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import", page, re.I),
         "%s: self-contained (no script, link, image, src, href, url())" % what)
    return path, page


def segs(fragment):
    """{part: ns} of the stacked bar's segments in an HTML fragment."""
    return {c: float(v) for c, v in re.findall(
        r"<rect class=seg data-cat=(\w+) [^>]*data-value=\"([^\"]+)\"", fragment)}


def measure(path, what):
    """In Chromium at 1280 px: the document's scroll width against the
    window's, the tables wider than their box, the console lines and the
    page's network requests.  The page is opened as it is for the console
    and the network; a copy with a probe script (the page has none) is
    opened for the widths."""
    p, urls, console = chrome("file://" + path, work, "--dump-dom", "--window-size=1280,900")
    t.ok(p.returncode == 0 and re.search(r"<h2 id=\"?profile\"?>", p.stdout),
         "%s: Chromium renders it (DOM dumped)" % what)
    t.eq(console, [], "%s: no console messages" % what)
    t.eq(urls, set(), "%s: no network requests" % what)
    probe = ("<script>addEventListener('load',function(){var d=document.documentElement,"
             "bad=[];document.querySelectorAll('.wide').forEach(function(e){"
             "if(e.scrollWidth>e.clientWidth)bad.push(e.firstElementChild.id+' '+e.scrollWidth+"
             "'>'+e.clientWidth)});document.body.setAttribute('data-measure',JSON.stringify("
             "{sw:d.scrollWidth,iw:innerWidth,bad:bad}))})</script>")
    copy = path + ".probe.html"
    open(copy, "w", encoding="utf-8").write(open(path, encoding="utf-8").read()
                                            .replace("</body>", probe + "</body>"))
    p, _, _ = chrome("file://" + copy, work, "--dump-dom", "--window-size=1280,900")
    m = re.search(r"data-measure=\"([^\"]*)\"", p.stdout)
    if not t.ok(m, "%s: the probe measured the page" % what, p.stdout[-500:]):
        return
    got = json.loads(htmlmod.unescape(m.group(1)))
    t.ok(got["iw"] == 1280 and got["sw"] <= got["iw"],
         "%s: at 1280 px no horizontal scroll (scrollWidth %d <= innerWidth %d)"
         % (what, got["sw"], got["iw"]))
    t.eq(got["bad"], [], "%s: every table fits its box at 1280 px" % what)


def check_profile_page(page, pr, what):
    """The profile section's numbers against the JSON."""
    job = pr["job"]
    m = re.search(r"id=jobwall data-value=\"([^\"]+)\"", page)
    t.ok(m and near(m.group(1), job["wall_ns"]), "%s: the job's wall = the JSON's" % what)
    bar = re.search(r"<svg id=jobbar.*?</svg>", page, re.S)
    got = segs(bar.group(0)) if bar else {}
    t.ok(set(got) == set(CATS) and all(near(got[c], job["time_ns"][c]) for c in CATS),
         "%s: the job's stacked bar = the JSON's parts" % what, (got, job["time_ns"]))
    ranks = re.findall(r"<g class=\"rank( culprit)?\" data-rank=(\d+) [^>]*>(.*?)</g>", page, re.S)
    byrank = {r["rank"]: r for r in pr["ranks"]}
    bad = [(int(rk), segs(body), byrank.get(int(rk), {}).get("time_ns"))
           for _, rk, body in ranks
           if not all(near(segs(body).get(c), byrank.get(int(rk), {}).get("time_ns", {}).get(c))
                      for c in CATS)]
    t.ok(len(ranks) == len(pr["ranks"]) and not bad,
         "%s: one bar per rank, its parts the JSON's" % what, bad)
    inmpi = {r["rank"]: r["time_ns"]["mpi"] - r["time_ns"]["mpi_by_kind"]["init_finalize"]
             for r in pr["ranks"]}
    order = [int(rk) for _, rk, _ in ranks]
    t.eq(order, sorted(inmpi, key=lambda r: (inmpi[r], r)),
         "%s: ranks sorted by their time in MPI calls (less MPI_Init/Finalize), least first"
         % what)
    culprit = [int(rk) for c, rk, _ in ranks if c]
    t.eq(culprit, [min(inmpi, key=inmpi.get)] if len(inmpi) > 1 and sum(inmpi.values()) else [],
         "%s: the first marked, once (of ranks that made MPI calls)" % what)
    found = [htmlmod.unescape(x) for x in
             re.findall(r"<li>(.*?)</li>", re.search(r"<ul id=findings>(.*?)</ul>", page,
                                                      re.S).group(1))]
    t.eq(found, [f["text"] for f in pr["findings"]], "%s: the findings are the JSON's" % what)
    for table, key in (("mpifuncs", "mpi"), ("iofuncs", "io")):
        m = re.search(r"<table id=%s>(.*?)</table>" % table, page, re.S)
        rows = re.findall(r"<tr><td>([^<]+)</td><td>\w+</td><td data-value=\"([^\"]+)\">"
                          r"[^<]*</td><td data-value=\"([^\"]+)\"", m.group(1)) if m else []
        got = {htmlmod.unescape(n): (float(c), float(v)) for n, c, v in rows}
        want = {f["function"]: (f["calls"]["sum"], f["time_ns"]["sum"]) for f in pr[key]}
        t.ok(set(got) == set(want) and all(got[n][0] == want[n][0] and near(got[n][1], want[n][1])
                                           for n in want),
             "%s: the %s table's calls and time = the JSON's" % (what, key.upper()), (got, want))


def thread_balance(out, page, what, nworkers):
    """The thread imbalance is over the workers: recomputed from the rank
    files' main threads' task-clock; returns the imbalance over all
    threads (helpers included) from the same files."""
    main, every = [], []
    for f in glob.glob(os.path.join(out, "hpcshim-*.json")):
        d = json.load(open(f))
        if d.get("schema", "").startswith("hpcshim-job"):
            continue
        for th in d["threads"]:
            v = th.get("totals", {}).get("task-clock")
            v = v.get("value") if isinstance(v, dict) else v
            every.append(v)
            if th["tid"] == d["process"]["pid"]:
                main.append(v)
    m = re.search(r"id=threadbars-imbalance data-value=\"([^\"]+)\" data-n=(\d+)", page)
    want = max(main) / (sum(main) / len(main)) - 1
    t.ok(m and int(m.group(2)) == nworkers and len(main) == nworkers and
         abs(float(m.group(1)) - want) < 1e-9,
         "%s: thread imbalance over the %d main threads (%.3f), as the files give it"
         % (what, nworkers, want), m and m.groups())
    h = re.search(r"id=threadbars-helpers data-n=(\d+)", page)
    t.ok(h and int(h.group(1)) == len(every) - nworkers and page.count(" class=helper") ==
         len(every) - nworkers,
         "%s: the MPI library's %d helper threads drawn apart" % (what, len(every) - nworkers))
    return max(every) / (sum(every) / len(every)) - 1, float(m.group(1)) if m else None


if CHROMIUM:  # the probe can fail: a page wider than the window is caught
    wide = os.path.join(work, "wide.html")
    open(wide, "w").write("<!DOCTYPE html><html><body><h2 id=profile>x</h2>"
                          "<div class=wide><table id=w><tr><td style='min-width:3000px'>x"
                          "</td></tr></table></div><div style='width:2000px'>x</div>"
                          "</body></html>")
    CONTROL = []
    _ok = t.ok

    def _catch(cond, desc, detail=None):
        if "1280 px" in desc:
            CONTROL.append(bool(cond))
            return cond
        return _ok(cond, desc, detail)
    t.ok = _catch
    measure(wide, "control")
    t.ok = _ok
    t.ok(CONTROL == [False, False], "control: a page and a table wider than 1280 px are caught",
         CONTROL)

# ---- the 4-rank profile job, both MPIs ---------------------------------------
for name, cc, launcher, env_opt in MPIS:
    if not shutil.which(cc) or not shutil.which(launcher[0]):
        t.skip("%s: profile job" % name, "%s not installed" % cc)
        continue
    prog = os.path.join(work, "mpi_profile-" + cc)
    bal = os.path.join(work, "mpi_balanced-" + cc)
    if not (runner.build("%s mpi_profile" % name, [cc, "-O1", "-o", prog,
                                                    os.path.join(PROGS, "mpi_profile.c")]) and
            runner.build("%s mpi_balanced" % name, [cc, "-O1", "-o", bal,
                                                     os.path.join(PROGS, "mpi_balanced.c")])):
        continue
    out = runner.outdir()
    argv = launcher + env_opt("HPCSHIM_EVENTS", EVENTS) + [
        HPCSHIM, "run", "--profile", "-q", "-o", out, "--", prog, str(T_MS), str(K), str(N),
        str(BYTES), str(W), work, str(R)]
    p, _ = runner.launch(argv, outdir=False)
    if not t.ok(p.returncode == 0, "%s: the profile job runs" % name, p.stderr[-2000:]):
        continue
    pr = report_json("profile", out)["profile"]
    path, page = page_of(out, name + " profile job")
    if not page:
        continue
    t.ok(page.index("<h2 id=profile>") < page.index("<h2>Region tree</h2>"),
         "%s: the profile comes first, before the region tree" % name)
    check_profile_page(page, pr, name)
    # The last to arrive at the barrier by the program's own clocks (its
    # wait there the shortest), unless the runner-up's is within 20 ms:
    # the other MPI calls (20 Allreduce, 15 ring exchanges) took under
    # 15 ms a rank in these runs, so closer arrivals may swap.
    wait = {int(m.group(1)): int(m.group(2)) for m in
            re.finditer(r"rank (\d+) barrier_ns (\d+)", p.stdout)}
    last = sorted(wait, key=wait.get)
    culprit = int(re.search(r"<p id=culprit data-rank=(\d+)", page).group(1))
    t.ok(len(last) == NP and (culprit == last[0] or (
        culprit == last[1] and wait[last[1]] - wait[last[0]] < 20e6)),
         "%s: the rank the others wait for, %d, arrived last at the barrier by its own clock "
         "(waits %s ns)" % (name, culprit, wait))
    thread_balance(out, page, name + " profile job", NP)
    t.ok("<h2>Time series</h2>" not in page, "%s: no Time series heading without a series" % name)
    if CHROMIUM:
        measure(path, name + " profile job, 4 events")
    # A balanced job: the threads that did the work are balanced; with
    # the helpers it reads as the report used to show it.
    out = runner.outdir()
    p, _ = runner.launch(launcher + [HPCSHIM, "run", "--profile", "-q", "-o", out, "--", bal,
                                     "150", "2"], outdir=False)
    if t.ok(p.returncode == 0, "%s: the balanced job runs" % name, p.stderr[-2000:]):
        _, page = page_of(out, name + " balanced job")
        if page:
            every, shown = thread_balance(out, page, name + " balanced job", NP)
            # The workers' own balance depends on the machine's load (a
            # rank that waits longer at a barrier spins longer in it); what
            # holds under any load: the helpers, idle, only ever add to it.
            t.ok(shown is not None and shown < every,
                 "%s balanced job: imbalance %.1f%% over the workers, below the %.0f%% over "
                 "every thread (the helpers' near-zero times pulled the mean down)"
                 % (name, 100 * (shown or 0), 100 * every))

# ---- an OpenMP team of known imbalance ---------------------------------------
omp = os.path.join(work, "omp_imbalance")
if runner.build("omp_imbalance", ["gcc", "-O2", "-g", "-fopenmp", "-o", omp,
                                  os.path.join(PROGS, "omp_imbalance.c")]):
    out = runner.outdir()
    r = run([HPCSHIM, "run", "--profile", "-q", "-o", out, "--", omp, "30", "4"], preload=False,
            env={"OMP_NUM_THREADS": "2"})
    t.eq(r.rc, 0, "OpenMP: the program runs under --profile")
    path, page = page_of(out, "OpenMP")
    cons = report_json("openmp", out)
    pr = report_json("profile", out)
    if page and cons and pr:
        check_profile_page(page, pr["profile"], "OpenMP")
        divs = re.findall(r"<div class=construct id=omp\d+ data-rank=-?\d+><h3>(.*?)</h3>"
                          r"(.*?)</div>", page, re.S)
        t.eq([htmlmod.unescape(h) for h, _ in divs], [c["region"] for c in cons],
             "OpenMP: one section per construct, the JSON's")
        bad = []
        for (_, body), c in zip(divs, cons):
            imb = re.search(r"class=imbalance data-value=\"([^\"]+)\"", body)
            ws = re.search(r"class=waitshare data-value=\"([^\"]+)\"", body)
            slow = re.search(r"class=\"slowest culprit\" data-omp=(-?\d+)", body)
            got_t = {int(o): (int(calls), int(wk), int(wt)) for o, calls, wk, wt in re.findall(
                r"<g class=share data-omp=(\d+) data-tid=\d+ data-calls=(\d+)>.*?"
                r"class=work [^>]*data-value=(\d+)>.*?class=wait [^>]*data-value=(\d+)>", body,
                re.S)}
            want_t = {x["omp_thread"]: (x["calls"], x["work_ns"], x["wait_ns"])
                      for x in c["per_thread"]}
            if not (imb and near(imb.group(1), c["imbalance"], 1e-12) and ws and
                    near(ws.group(1), c["wait_share"], 1e-12) and slow and
                    int(slow.group(1)) == c["slowest_omp_thread"] and got_t == want_t):
                bad.append((c["region"], body[:300]))
        t.ok(divs and not bad, "OpenMP: imbalance, waiting share, slowest thread and each "
             "thread's calls, work and wait = report --view openmp's", bad)
        t.ok(cons and all(c["slowest_omp_thread"] == 1 for c in cons if c["region"] and
                          "omp_imbalance.c" in c["region"]),
             "OpenMP: the slowest is omp thread 1 (twice thread 0's work)",
             [(c["region"], c["slowest_omp_thread"]) for c in cons])
        if CHROMIUM:
            measure(path, "OpenMP")

# ---- dropped events, each reason once ----------------------------------------
out = runner.outdir()
r = run([HPCSHIM, "run", "-q", "-e", "task-clock,cycles,instructions,branch-misses", "-o", out,
         "--", "/bin/true"], preload=False)
docs = [json.load(open(f)) for f in glob.glob(os.path.join(out, "hpcshim-*.json"))]
_, page = page_of(out, "dropped events")
if docs and page:
    dropped = [e for e in docs[0]["events"] if e["status"] == "dropped"]
    dd = htmlmod.unescape(re.sub(r"<[^>]+>", "", re.search(r"<dd id=dropped>(.*?)</dd>",
                                                             page, re.S).group(1)))
    if not dropped:
        t.eq(dd, "none", "dropped: none on a host that counts every event")
    else:
        # The file's own reasons, grouped in the order of the events: a
        # reason that starts with its error name is said alone.
        groups = {}
        for e in dropped:
            why = e.get("reason") or e["error"]
            if e.get("reason") and e.get("error") and not why.startswith(e["error"]):
                why = "%s (%s)" % (e["error"], e["reason"])
            groups.setdefault(why, []).append(e["name"])
        want = "; ".join("%s: %s" % (", ".join(n), why) for why, n in groups.items())
        t.eq(dd, want, "dropped: %d events, each named once, each of %d reasons said once"
             % (len(dropped), len(groups)))
shutil.rmtree(work, ignore_errors=True)
t.done()
