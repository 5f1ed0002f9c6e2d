"""hpcshim: the one command.  run passes stdin, stdout, the exit status and
signals through and its summary shows the JSON's values; report, diff and
merge print the numbers of the files they read; bad input gives one line
naming the file and exit status 2."""
import csv
import glob
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, WORKLOAD, Tap  # noqa: E402

HPCSHIM = os.path.join(BUILD, "hpcshim")
t = Tap()
tmp = tempfile.mkdtemp(prefix="hpcshim-cmd-")


def env():
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("HPCSHIM_"):
            del e[k]
    e.pop("LD_PRELOAD", None)
    return e


def hs(*args, stdin=None, cwd=None):
    return subprocess.run([HPCSHIM] + list(args), env=env(), capture_output=True,
                          encoding="utf-8", errors="replace", input=stdin, cwd=cwd or tmp,
                          timeout=300)


def newdir(name):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    return d


def docs(d):
    return [json.load(open(f)) for f in sorted(glob.glob(os.path.join(d, "hpcshim-*.json")))]


EV = "task-clock,page-faults,context-switches"

# ---- run: pass-through ------------------------------------------------------
d = newdir("stdin")
p = hs("run", "-q", "-o", d, "-e", EV, "--", "cat", stdin="line one\nline two\n")
t.eq(p.stdout, "line one\nline two\n", "run: the program reads our stdin, writes our stdout")
t.eq(p.rc if hasattr(p, "rc") else p.returncode, 0, "run: cat exits 0")
t.eq(p.stderr, "", "run -q: nothing of ours on stderr")
t.eq(len(docs(d)), 1, "run: one result file, the program's (hpcshim itself writes none)")

d = newdir("exit3")
p = hs("run", "-q", "-o", d, "--", "sh", "-c", "echo out; echo err >&2; exit 3")
t.eq(p.returncode, 3, "run: exit status 3 passes through")
t.eq((p.stdout, p.stderr), ("out\n", "err\n"), "run: the program's stdout and stderr unchanged")

d = newdir("sigterm")
p = hs("run", "-q", "-o", d, "--", "sh", "-c", "kill -TERM $$")
t.eq(p.returncode, -signal.SIGTERM, "run: a child killed by SIGTERM kills hpcshim by SIGTERM")
t.eq([x["process"]["end"] for x in docs(d)], ["signal"], "run: the killed child's result says signal")

# A signal sent to hpcshim reaches the program: the program waits for it.
d = newdir("forward")
pr = subprocess.Popen([HPCSHIM, "run", "-q", "-o", d, "--", "sh", "-c",
                       "trap 'echo got-usr1; exit 7' USR1; echo ready; while :; do sleep 0.01; done"],
                      env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8")
t.eq(pr.stdout.readline(), "ready\n", "run: the program started")
pr.send_signal(signal.SIGUSR1)
out, err = pr.communicate(timeout=60)
t.eq((out, pr.returncode), ("got-usr1\n", 7), "run: SIGUSR1 sent to hpcshim is forwarded; exit 7")

p = hs("run", "-q", "--", "no-such-program-hpcshim")
t.eq(p.returncode, 127, "run: a program not found exits 127")
t.ok(p.stderr.strip().endswith("command not found") and p.stderr.count("\n") == 1,
     "run: one line says not found", p.stderr)
notexec = os.path.join(tmp, "notexec")
open(notexec, "w").write("data\n")
os.chmod(notexec, 0o644)
p = hs("run", "-q", "--", notexec)
t.eq(p.returncode, 126, "run: a file that is not executable exits 126")
p = hs("run", "--no-such-option", "true")
t.ok(p.returncode == 2 and "usage: hpcshim run" in p.stderr, "run: unknown option: the usage line", p.stderr)
p = hs("run", "--help")
t.ok(p.returncode == 0 and "--trace" in p.stdout, "run --help")

# ---- run: the summary's values are the JSON's ---------------------------------
d = newdir("summary")
p = hs("run", "-o", d, "-e", EV + ",cycles", "--", WORKLOAD, "touch", "500", "busy", "20")
doc = docs(d)[0]
lines = p.stderr.splitlines()
t.ok(any("Performance counter stats for" in l for l in lines), "run: perf-stat-like summary on stderr", p.stderr)
vals = {}
for l in lines:
    f = l.split()
    if len(f) >= 3 and f[1] == "msec":
        vals[f[2]] = float(f[0])
    elif len(f) >= 2 and f[0].replace(",", "").isdigit():
        vals[f[1]] = int(f[0].replace(",", ""))
tot = doc["totals"]
t.eq(vals.get("page-faults"), tot["page-faults"], "summary page-faults = JSON totals")
t.eq(vals.get("context-switches"), tot["context-switches"], "summary context-switches = JSON totals")
t.eq(vals.get("task-clock"), round(tot["task-clock"] / 1e6, 2), "summary task-clock msec = JSON totals")
t.ok(any("<not supported>" in l and "cycles" in l for l in lines) or "cycles" in tot,
     "summary: a dropped event says <not supported>")

# ---- report ------------------------------------------------------------------------
d = newdir("report")
p = hs("run", "-q", "-o", d, "-e", EV, "--", WORKLOAD, "touch", "300", "nested", "10", "20", "threads", "3", "50")
doc = docs(d)[0]
p = hs("report", "--view", "region", "--format", "json", d)
rep = json.loads(p.stdout)
ok = p.returncode == 0
for row in rep["rows"]:
    r = next(x for x in doc["regions"] if x["name"] == row["region"])
    for ev in ("task-clock", "page-faults"):
        ok &= row["values"][ev]["value"] == r["inclusive"][ev]["sum"]
    ok &= row["calls"] == r["calls"] and row["threads"] == r["threads"]
t.ok(ok and len(rep["rows"]) == len(doc["regions"]), "report --format json: region sums = the JSON's", p.stdout[:500])

walls = {r["name"]: r["wall_ns"]["inclusive"] for r in doc["regions"]}
t.eq({row["region"]: row["wall_ns"] for row in rep["rows"]}, walls,
     "report --view region: wall_ns = the regions' wall_ns.inclusive")

# The tree: per path, the thread records summed (here outer > inner on the
# main thread; every other region at the top).
want = {}
for th in doc["threads"]:
    regs = {g["name"]: g for g in th["regions"]}
    for g in th["regions"]:
        path, u = [g["name"]], g
        while u["parent"]:
            u = regs[u["parent"]]
            path.insert(0, u["name"])
        w = want.setdefault("/".join(path), [0, 0, 0, 0])
        w[0] += g["calls"]
        w[1] += g["exclusive"]["page-faults"]
        w[2] += g["wall_ns"]["exclusive"]
        w[3] = len(path) - 1
for fmt in ("json", "csv"):
    p = hs("report", "--view", "tree", "--exclusive", "--format", fmt, d)
    if fmt == "json":
        got = {"/".join(r["parents"] + [r["region"]]):
               [r["calls"], r["values"]["page-faults"]["value"], r["wall_ns"], r["depth"]]
               for r in json.loads(p.stdout)["rows"]}
    else:
        got = {r[0]: [int(r[1]), int(r[2]), int(r[7]), r[0].count("/")]
               for r in csv.reader(io.StringIO(p.stdout)) if r and r[4] == "page-faults"}
    t.eq(got, want, "report --view tree --exclusive (%s): per path calls, page faults, wall, "
         "depth = the thread records summed" % fmt)
t.ok("outer/inner" in want, "the tree has inner under outer")
p = hs("report", "--view", "tree", d)
t.ok(p.returncode == 0 and "\n    inner " in p.stdout, "report --view tree text: inner indented", p.stdout)

# Metrics (a preset's formulas): each view's are the file's, a ratio of
# the row's sums; n/a with the reason when an input is not shown.
md = newdir("metrics")
hs("run", "-q", "-o", md, "--preset", "software", "--", WORKLOAD, "touch", "300", "nested", "10", "20")
mdoc = docs(md)[0]


def close(a, b):
    return a is None and b is None or a is not None and b is not None and abs(a - b) <= 1e-9 * max(1, abs(b))


def mets(o):
    return {k: v["value"] for k, v in o.items()}


rows = json.loads(hs("report", "--view", "region", "--format", "json", md).stdout)["rows"]
want = {r["name"]: mets(r["inclusive_metrics"]) for r in mdoc["regions"]}
got = {r["region"]: {k: v["value"] for k, v in r["metrics"].items()} for r in rows}
t.ok(want and got.keys() == want.keys() and all(
    got[n].keys() == want[n].keys() and all(close(got[n][k], want[n][k]) for k in want[n]) for n in want),
    "report --view region: metrics = regions[].inclusive_metrics", (got, want))
rows = json.loads(hs("report", "--view", "rank", "--format", "json", md).stdout)["rows"]
want = mets(mdoc["totals_metrics"])
t.ok(len(rows) == 1 and all(close(rows[0]["metrics"][k]["value"], v) for k, v in want.items()),
     "report --view rank: metrics = totals_metrics", (rows[0].get("metrics"), want))
p = hs("report", "--view", "thread", "--format", "csv", md)
got = {(r[3], r[6]): float(r[4]) for r in csv.reader(io.StringIO(p.stdout)) if len(r) > 5 and r[5] == "metric"
       and not r[4].startswith("<")}
want = {(str(th["tid"]), k): v["value"] for th in mdoc["threads"]
        for k, v in th["totals_metrics"].items() if v["value"] is not None}
t.ok(want and got.keys() == want.keys() and all(close(got[k], want[k]) for k in want),
     "report --view thread CSV: metric lines (unit 'metric') = threads[].totals_metrics", (got, want))
rows = json.loads(hs("report", "--view", "region", "-e", "page-faults", "--format", "json", md).stdout)["rows"]
t.eq(rows[0]["metrics"]["faults_per_ms"], {"value": None, "reason": "event 'task-clock' not shown"},
     "report -e page-faults: a metric of task-clock is n/a, saying why")
html = os.path.join(md, "r.html")
hs("html", "-o", html, md)
page = open(html, encoding="utf-8").read()
m = re.search(r'data-path="touch">(.*?)</tr>', page)
t.ok(m and close(float(re.findall(r'class=metric data-value="([^"]+)"', m.group(1))[0]),
                 mdoc["regions"][0]["inclusive_metrics"]["faults_per_ms"]["value"]),
     "html tree: the region's first metric = its inclusive_metrics", m and m.group(1)[-400:])

p = hs("report", "--view", "thread", "--format", "csv", d)
rows = [r for r in csv.reader(io.StringIO(p.stdout)) if r and not r[0].startswith("#")]
want = {(str(th["tid"]), ev): th["totals"][ev] for th in doc["threads"] for ev in EV.split(",")}
got = {(r[3], r[6]): int(r[4]) for r in rows}
t.eq(got, want, "report --view thread CSV: tid, event, value = threads[].totals")

p = hs("report", "--view", "region", "--sort", "page-faults", "--top", "2", "--format", "json", d)
rep = json.loads(p.stdout)
top = sorted(doc["regions"], key=lambda r: -r["inclusive"]["page-faults"]["sum"])[:2]
t.eq([r["region"] for r in rep["rows"]], [r["name"] for r in top], "report --sort page-faults --top 2")

p = hs("report", "--view", "region", "--format", "markdown", d)
t.ok(p.stdout.startswith("| region |") and "| --- |" in p.stdout, "report --format markdown", p.stdout[:200])

p = hs("report", d)
t.ok(p.returncode == 0 and "process totals:" in p.stdout, "report DIR with one result: the summary")

# ---- bad input --------------------------------------------------------------------------
bad = newdir("bad")
shutil.copy(glob.glob(os.path.join(d, "hpcshim-*.json"))[0], bad)
good = glob.glob(os.path.join(bad, "hpcshim-*.json"))[0]
open(os.path.join(bad, "hpcshim-x-1.json"), "w").write(open(good).read()[:200])
open(os.path.join(bad, "hpcshim-x-2.json"), "w").write("not json at all")
open(os.path.join(bad, "hpcshim-x-3.json"), "w").write('{"schema": "other/1"}')
p = hs("report", "--view", "rank", bad)
errs = p.stderr.splitlines()
t.eq(p.returncode, 2, "report: a directory with bad files exits 2")
t.ok(len(errs) == 3 and all(l.startswith("hpcshim report: " + bad + "/hpcshim-x-") for l in errs),
     "report: one line per bad file, naming it", p.stderr)
t.ok("truncated" in p.stderr and "not JSON" in p.stderr and "other/1" in p.stderr,
     "report: says what is wrong (truncated, not JSON, other schema)", p.stderr)
t.ok(p.stdout.count("skipped: ") == 3 and str(doc["process"]["pid"]) in p.stdout,
     "report: the good file reported, the skipped ones listed", p.stdout)
p = hs("report", os.path.join(tmp, "missing.json"))
t.ok(p.returncode == 2 and p.stderr.startswith("hpcshim report: " + os.path.join(tmp, "missing.json") + ": "),
     "report: missing file, exit 2", p.stderr)
newer = os.path.join(tmp, "hpcshim-newer.json")
nd = dict(doc)
nd["schema"] = "hpcshim/9"
json.dump(nd, open(newer, "w"))
p = hs("report", "--view", "rank", "--format", "json", newer)
t.ok(p.returncode == 0 and "hpcshim/9" in p.stderr and json.loads(p.stdout)["rows"][0]["pid"] == doc["process"]["pid"],
     "report: a newer schema is read, with one line saying so", p.stderr)

# ---- merge and list through hpcshim ------------------------------------------------------
p = hs("merge", d)
job = json.loads(p.stdout)
t.eq(job["totals"]["page-faults"]["sum"], doc["totals"]["page-faults"], "hpcshim merge = hpcshim-merge's job document")
p = hs("list")
t.ok(p.returncode == 0 and "software" in p.stdout, "hpcshim list")
p = hs("nonsense")
t.ok(p.returncode == 2 and "usage: hpcshim" in p.stderr, "unknown subcommand: usage, exit 2")
p = hs("drilldown", "--help")
t.ok(p.returncode in (0, 2) and p.stdout + p.stderr, "hpcshim drilldown answers (or says it is not built)")

# ---- diff ------------------------------------------------------------------------------------------
A, A2, B = newdir("A"), newdir("A2"), newdir("B")
for i in range(3):
    for dd, pages in ((A, 1000), (A2, 1000), (B, 2000)):
        hs("run", "-q", "-o", dd, "-e", "task-clock,page-faults", "--", WORKLOAD, "touch", str(pages))


def diffrows(a, b, *opts):
    p = hs("diff", "--all", "--format", "json", *opts, a, b)
    return p, {(r["key"], r["event"]): r for r in json.loads(p.stdout)["rows"]}


p, same = diffrows(A, A2, "-r")
r = same[("touch", "page-faults")]
t.ok(p.returncode == 0 and r["significant"] is False, "diff -r of runs of the same program: page-faults not significant", r)


def welch(a, b):
    """The test's own computation of the verdict for (touch, task-clock)."""
    va = [x["regions"][0]["inclusive"]["task-clock"]["sum"] for x in docs(a)]
    vb = [x["regions"][0]["inclusive"]["task-clock"]["sum"] for x in docs(b)]
    ma, mb = sum(va) / 3, sum(vb) / 3
    sa = sum((x - ma) ** 2 for x in va) / 2
    sb = sum((x - mb) ** 2 for x in vb) / 2
    se = math.sqrt(sa / 3 + sb / 3)
    return mb - ma, se


dlt, se = welch(A, A2)
r = same[("touch", "task-clock")]
t.ok(abs(r["change"] - dlt) <= 1e-6 * max(1, abs(dlt)) and abs(r["stderr"] - se) <= 1e-6 * max(1, se),
     "diff -r: task-clock change and standard error = the test's Welch computation", (r, dlt, se))

p, ch = diffrows(A, B, "-r")
r = ch[("touch", "page-faults")]
t.ok(r["a"] == 1000 and r["b"] == 2000 and r["change"] == 1000 and r["significant"] is True,
     "diff -r 1000 vs 2000 pages: the change, significant", r)
a1, b1 = sorted(glob.glob(A + "/*.json"))[0], sorted(glob.glob(B + "/*.json"))[0]
p, one = diffrows(a1, b1)
r = one[("touch", "page-faults")]
t.ok(r["change"] == 1000 and r["verdict"] == "exact" and r["significant"] is None,
     "diff of single exact runs: the exact difference, flagged (no noise estimate)", r)
p = hs("diff", a1)
t.ok(p.returncode == 2 and "usage: hpcshim diff" in p.stderr, "diff with one input: usage")

# ---- a job document is a whole job: report, html, trace, diff, drilldown ------------------------
jd = newdir("jobdoc")
jobfile = os.path.join(jd, "job.json")
hs("merge", "-o", jobfile, A)
jobdoc = json.load(open(jobfile))
p = hs("report", jobfile)
t.ok(p.returncode == 0 and "regions (inclusive):" in p.stdout and "ranks:" in p.stdout,
     "report of a job document: its regions over the ranks, then its ranks", p.stdout + p.stderr)
p = hs("report", "--view", "region", "--format", "json", jobfile)
rows = {r["region"]: r for r in json.loads(p.stdout)["rows"]} if p.returncode == 0 else {}
want = jobdoc["regions"][0]
t.ok(rows.get(want["name"], {}).get("values", {}).get("page-faults", {}).get("value")
     == want["inclusive"]["page-faults"]["sum"] and rows[want["name"]]["ranks"] == 3
     and rows[want["name"]]["calls"] == want["calls"]["sum"],
     "report --view region of a job document: the ranks' sums, calls and ranks", rows)
p = hs("report", "--view", "rank", "--format", "json", jobfile)
rows = json.loads(p.stdout)["rows"] if p.returncode == 0 else []
t.eq([(r["rank"], r["pid"], r["values"]["page-faults"]["value"]) for r in rows],
     [(r["rank"], r["pid"], r["totals"]["page-faults"]) for r in jobdoc["ranks"]],
     "report --view rank of a job document: each rank's totals")
p = hs("report", "--view", "region", "--format", "json", A)
bydir = {r["region"]: r["values"]["page-faults"]["value"] for r in json.loads(p.stdout)["rows"]}
p = hs("report", "--view", "region", "--format", "json", jobfile)
byjob = {r["region"]: r["values"]["page-faults"]["value"] for r in json.loads(p.stdout)["rows"]}
t.eq(byjob, bydir, "report: a job document's regions = those of its rank files")
p = hs("html", "-o", os.path.join(jd, "job.html"), jobfile)
page = open(os.path.join(jd, "job.html")).read() if p.returncode == 0 else ""
t.ok(p.returncode == 0 and "<dd id=ranks>3</dd>" in page and "id=regions" in page,
     "html of a job document: three ranks, the regions table", p.stderr)
p = hs("trace", "-o", os.path.join(jd, "trace.json"), jobfile)
tr = json.load(open(os.path.join(jd, "trace.json"))) if p.returncode == 0 else {}
names = sorted(e["args"]["name"] for e in tr.get("traceEvents", []) if e["name"] == "process_name")
t.eq(names, sorted("rank %d (%s:%d)" % (r["rank"], r["host"], r["pid"]) for r in jobdoc["ranks"]),
     "trace of a job document: a process per rank")
p, rows = diffrows(jobfile, A)
r = rows.get(("touch", "page-faults"), {})
t.ok(p.returncode == 0 and r.get("a") == r.get("b") == 3000,
     "diff of a job document and its rank files: the same sums", r)
# HPCSHIM_MPI_FILES=job leaves the job document alone in the directory
only = newdir("jobonly")
shutil.copy(jobfile, os.path.join(only, "hpcshim-job-h-1-j1.json"))
p = hs("report", "--view", "rank", "--format", "json", only)
t.ok(p.returncode == 0 and len(json.loads(p.stdout)["rows"]) == 3,
     "report of a directory with only a job document: its three ranks", p.stderr)
shutil.copy(jobfile, os.path.join(A, "hpcshim-job-h-1-j1.json"))
p = hs("report", "--view", "rank", "--format", "json", A)
t.ok(p.returncode == 0 and len(json.loads(p.stdout)["rows"]) == 3,
     "a job document next to the rank files is left alone (3 ranks, not 6)", p.stderr)
os.remove(os.path.join(A, "hpcshim-job-h-1-j1.json"))
p = hs("drilldown", "--model", "itanium2", "--json", jobfile)
t.ok(p.returncode == 0 and json.loads(p.stdout)["scopes"][0]["scope"] == "job totals",
     "drilldown of a job document: the job's totals first", p.stderr)

# ---- damaged files: one line naming the file, no crash, the rest read ------------------------------
dmg = newdir("damaged")
base = json.load(open(a1))


def damaged(name, change):
    x = json.loads(json.dumps(base))
    change(x)
    path = os.path.join(dmg, name)
    json.dump(x, open(path, "w"))
    return path


for name, change, what in (
        ("totals.json", lambda x: x.__setitem__("totals", "x"), '"totals"'),
        ("rank.json", lambda x: x["process"].__setitem__("rank", 2147483647), '"process.rank"'),
        ("size.json", lambda x: x["process"].__setitem__("size", 2147483647), '"process.size"')):
    f = damaged(name, change)
    for cmd in (["merge"], ["report"], ["trace"], ["html", "-o", os.path.join(dmg, "x.html")],
                ["drilldown"]):
        args = cmd + [f] + ([] if cmd == ["drilldown"] else [a1])
        try:
            p = hs(*args)
        except subprocess.TimeoutExpired:
            t.ok(False, "%s of a damaged file (%s) ends" % (cmd[0], name))
            continue
        lines = [l for l in p.stderr.splitlines() if f in l]
        t.ok(p.returncode in (1, 2) and len(lines) == 1 and what in lines[0],
             "%s of a damaged file (%s): one line naming it and what is wrong" % (cmd[0], name),
             p.stderr[-500:])
f = damaged("series.json", lambda x: x["threads"][0].__setitem__("series", 5))
p = hs("trace", f)
t.ok(p.returncode == 2 and '"threads[0].series" is a number, not an object' in p.stderr,
     "trace: a thread's series that is not an object: the file rejected, saying where", p.stderr)

shutil.rmtree(tmp, ignore_errors=True)
t.done()
