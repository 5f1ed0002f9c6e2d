"""Hostile result files and data files (issue 28, the tools' part).

Result files are made by a real run of the workload, then edited the way a
neighbour with write access to the results directory, or a program that
names its regions and host, could: markup, terminal escapes, CSV formulas
and markdown in names; members of the wrong type at every depth; NaN and
Infinity; absurd ranks and sizes.  Every tool must read the rest, name the
bad file in one line, and write its output escaped for its medium
(tools/escape.h).  Garbage preset, stall-tree and signature files give one
line per file (presets/)."""
import copy
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import hpctest  # noqa: E402
from hpctest import BUILD, LIB, Tap, WORKLOAD, run  # noqa: E402

t = Tap()
HPCSHIM = os.path.join(BUILD, "hpcshim")
tmp = tempfile.mkdtemp(prefix="hpcshim-hostile-")
SRC = hpctest.SRC
CORPUS = os.path.join(SRC, "tests", "fuzz", "docread")
BIGREGIONS = os.path.join(SRC, "bench", "bigregions.py")
HOST = "<img src=x onerror=alert(1)>"
# ESC ] 0 ; title BEL (OSC: sets the terminal's title), CSI 2J (clears it),
# an 8-bit CSI (U+009B), a newline: none may reach a terminal.
TERM = "a\x1b]0;pwned\x07b\x1b[2J\u009bc\nd"
CSVNAME = '=HYPERLINK("http://x","y"),z\n+1'
MD = "<script>alert(1)</script>|x|*y*"


def tool(*argv, stdin=None):
    p = subprocess.run([HPCSHIM] + [str(a) for a in argv], capture_output=True,
                       encoding="utf-8", errors="surrogateescape", input=stdin, timeout=600)
    return p.returncode, p.stdout, p.stderr


def save(doc, name):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def rename(doc, old, new):
    """Region old is named new everywhere: summaries, records, parents."""
    for g in doc["regions"] + [r for th in doc["threads"] for r in th["regions"]]:
        if g["name"] == old:
            g["name"] = new
        if g.get("parent") == old:
            g["parent"] = new


r = run([WORKLOAD, "nested", "10", "5", "touch", "3"],
        env={"HPCSHIM_EVENTS": "task-clock,page-faults"})
assert r.rc == 0 and len(r.docs) == 1, r.err
base = r.docs[0]

# ---- HTML: a hostile host name and region names ------------------------------
d = copy.deepcopy(base)
d["process"]["host"] = HOST
rename(d, "outer", MD)
rename(d, "inner", TERM)
d["events"][0]["status"] = "dropped"
d["events"][0]["error"] = "<b>x</b>"
hostile = save(d, "hostile.json")
rc, out, err = tool("html", "-o", os.path.join(tmp, "h.html"), hostile)
page = open(os.path.join(tmp, "h.html"), encoding="utf-8").read()
t.eq(rc, 0, "html of the hostile file exits 0")
t.ok("<img" not in page and "<script" not in page and "<b>x" not in page,
     "html: no markup from the data", re.findall(r".{30}<(?:img|script|b>x).{30}", page))
t.ok("&lt;img src=x onerror=alert(1)&gt;" in page, "html: the host name shown as text")
t.ok(page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 2,
     "html: the region name shown as text (tree and regions)")
t.ok(not re.search(r'data-[a-z]+="[^"]*<', page), "html: attributes hold no raw <")

# The same through a real host name: sethostname in a user namespace.
if shutil.which("unshare"):
    d2 = os.path.join(tmp, "ns")
    os.makedirs(d2)
    script = ("import os, socket, sys; socket.sethostname(sys.argv[1]); "
              "e = dict(os.environ, LD_PRELOAD=sys.argv[2], HPCSHIM_OUTPUT=sys.argv[3]); "
              "os.execve(sys.argv[4], sys.argv[4:], e)")
    p = subprocess.run(["unshare", "-Ur", "-u", "python3", "-c", script, HOST, LIB, d2,
                        WORKLOAD, "touch", "10"], capture_output=True, encoding="utf-8")
    files = os.listdir(d2)
    if p.returncode != 0 or not files:
        t.skip("html of a real hostile host name", "unshare -Ur -u failed here: %s" % p.stderr[:200])
    else:
        doc = json.load(open(os.path.join(d2, files[0])))
        t.eq(doc["process"]["host"], HOST, "sethostname in a user namespace: the shim writes it")
        rc, out, err = tool("html", "-o", os.path.join(tmp, "ns.html"), d2)
        page = open(os.path.join(tmp, "ns.html"), encoding="utf-8").read()
        t.ok(rc == 0 and "<img" not in page and "&lt;img src=x" in page,
             "html of a real hostile host name: text, no markup")
else:
    t.skip("html of a real hostile host name", "no unshare")

# ---- terminals: no control byte in text output -------------------------------
CTL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f\x80-\x9f]")
for argv in (["report", hostile], ["report", "--view", "tree", hostile],
             ["report", "--view", "region", hostile], ["report", "--view", "thread", hostile],
             ["diff", "--all", hostile, hostile]):
    rc, out, err = tool(*argv)
    what = " ".join(a for a in argv if a != hostile)
    t.ok(rc == 0 and not CTL.search(out), "%s: no control character reaches the terminal" % what,
         repr(CTL.findall(out)[:5]) + err[:200])
    if "thread" in argv:
        continue  # no region names in it
    t.ok("a\\x1b]0;pwned\\x07b\\x1b[2J\\u009bc\\x0ad" in out, "%s: the name shown with escapes" % what,
         out[:600])
    t.ok(all(len(l) < 400 for l in out.splitlines()) and "\nd " not in out,
         "%s: the name's newline does not break the line" % what)
bad = save({"schema": "hpcshim/1\x1b[2J"}, "esc\x1b[31mname.json")
rc, out, err = tool("report", bad)
t.ok(rc == 2 and not CTL.search(err) and "esc\\x1b[31mname.json" in err,
     "a bad file's name and reason: escaped on stderr", repr(err))

# ---- CSV: RFC 4180, formulas inert, negative numbers numbers ---------------
d = copy.deepcopy(base)
rename(d, "outer", CSVNAME)
d["process"]["host"] = "-2+3"
for g in d["regions"]:
    if g["name"] == "touch":
        g["inclusive"]["page-faults"]["sum"] = -5
csvf = save(d, "csv.json")
rc, out, err = tool("report", "--view", "region", "-x,", csvf)
rows = list(csv.reader(io.StringIO(out)))
names = [row[0] for row in rows[1:]]
t.ok(rc == 0 and "'" + CSVNAME in names, "csv: the name with commas, quotes and a newline is one "
     "cell, a leading ' makes the formula inert", repr(names))
t.ok(all(not n.startswith(("=", "+", "-", "@")) for n in names), "csv: no text cell starts a formula")
neg = [row for row in rows[1:] if row[0] == "touch" and row[4] == "page-faults"]
t.ok(neg and neg[0][2] == "-5", "csv: a negative number stays a number (-5, unquoted)",
     repr(neg))
t.ok(re.search(r"^touch,1,-5,", out, re.M), "csv: the number is written bare")
rc, out, err = tool("report", "--view", "rank", "-x;", csvf)
rows = list(csv.reader(io.StringIO(out), delimiter=";"))
t.eq(rows[1][1] if len(rows) > 1 else None, "'-2+3", "csv: a host name starting with - is inert")
rc, out, err = tool("diff", "--all", "--format", "csv", csvf, csvf)
rows = list(csv.reader(io.StringIO(out)))
t.ok(rc == 0 and any(row and row[0] == "'" + CSVNAME for row in rows), "diff csv: the same rules",
     out[:400])

# ---- markdown: HTML escaped, | escaped ------------------------------------------
rc, out, err = tool("report", "--view", "tree", "--format", "markdown", hostile)
t.ok(rc == 0 and "<script" not in out and "&lt;script&gt;" in out, "markdown: <script> as text")
body = [l for l in out.splitlines() if l.startswith("|")]
ncol = len(re.split(r"(?<!\\)\|", body[0])) if body else 0
t.ok(body and all(len(re.split(r"(?<!\\)\|", l)) == ncol for l in body),
     "markdown: every row has the header's cells (| in names escaped)", "\n".join(body))

# ---- the reader: wrong types at every depth, NaN, absurd ranks ---------------
def damaged(name, edit):
    d = copy.deepcopy(base)
    edit(d)
    return save(d, name)


def th0(d):
    return d["threads"][0]


def rec(d, name):
    return next(g for g in th0(d)["regions"] if g["name"] == name)


def summ(d, name):
    return next(g for g in d["regions"] if g["name"] == name)


deep = [
    ("process.command[1]", lambda d: d["process"]["command"].__setitem__(1, {"x": 1})),
    ("process.host", lambda d: d["process"].__setitem__("host", ["h"])),
    ("events[0].name", lambda d: d["events"][0].__setitem__("name", 7)),
    ("totals.task-clock", lambda d: d["totals"].__setitem__("task-clock", "12")),
    ("threads[0]", lambda d: d["threads"].__setitem__(0, "thread")),
    ("threads[0].totals.page-faults", lambda d: th0(d)["totals"].__setitem__("page-faults", [1])),
    ("threads[0].regions", lambda d: th0(d).__setitem__("regions", {"a": 1})),
    ("threads[0].regions[1].inclusive", lambda d: rec(d, "inner").__setitem__("inclusive", "x")),
    ("threads[0].regions[1].parent", lambda d: rec(d, "inner").__setitem__("parent", 3)),
    ("threads[0].regions[0].wall_ns.inclusive",
     lambda d: rec(d, "outer")["wall_ns"].__setitem__("inclusive", "1")),
    ("threads[0].regions[0].per_call.max", lambda d: rec(d, "outer")["per_call"].__setitem__("max", True)),
    ("threads[0].warnings.auto_closed", lambda d: th0(d)["warnings"].__setitem__("auto_closed", "9")),
    ("regions[0].name", lambda d: d["regions"][0].__setitem__("name", None or 5)),
    ("regions[0].exclusive.page-faults.sum",
     lambda d: summ(d, "outer")["exclusive"]["page-faults"].__setitem__("sum", "10")),
]
for where, edit in deep:
    f = damaged("deep.json", edit)
    for cmd in (["report"], ["html", "-o", os.devnull], ["trace", "-o", os.devnull], ["merge"],
                ["diff", hostile], ["drilldown"]):
        rc, out, err = tool(*cmd, f)
        lines = [l for l in err.splitlines() if "deep.json" in l]
        t.ok(rc in (1, 2) and len(lines) == 1 and '"%s" is ' % where in lines[0],
             "%s: %s of the wrong type, rejected with one line saying where" % (cmd[0], where),
             err[-400:])
# More events than a result has, in one thread's totals: rows x events.
f = damaged("manyev.json", lambda d: th0(d)["totals"].update({"e%d" % i: i for i in range(5000)}))
rc, out, err = tool("report", f)
t.ok(rc == 2 and '"threads[0].totals" has 5002 events, more than 256' in err,
     "5000 events in a thread's totals: rejected, saying where", err)
# Both a good and a bad file: the good one is read.
f = damaged("deep.json", deep[7][1])
rc, out, err = tool("report", "--view", "region", "-x,", f, hostile)
t.ok(rc == 2 and "touch" in out and "skipped" not in out, "report: the other file still read")

# NaN and Infinity where numbers go: read as absent, never written out.
nanf = os.path.join(tmp, "nan.json")
text = json.dumps(base).replace('"page-faults": %d' % base["totals"]["page-faults"],
                                '"page-faults": NaN', 1)
text = text.replace('"wall_ns": %d' % base["process"]["wall_ns"], '"wall_ns": Infinity', 1)
assert "NaN" in text and "Infinity" in text
open(nanf, "w").write(text)
for cmd in (["report", "--format", "json"], ["report", "--view", "rank", "--format", "json"],
            ["merge"], ["trace"], ["diff", "--format", "json", "--view", "rank", hostile]):
    rc, out, err = tool(*cmd, nanf)
    t.ok(rc == 0 and not re.search(r"\bNaN\b|Infinity", out),
         "%s of a file with NaN and Infinity: no bare NaN or Infinity written" % " ".join(cmd[:2]),
         err[-300:] + out[:300])
# Sums that overflow: merge's statistics of huge values (inf, inf - inf).
job = os.path.join(tmp, "hugejob")
os.makedirs(job)
for rank in range(2):
    d = copy.deepcopy(base)
    d["process"].update(rank=rank, size=2, job="j")
    d["totals"]["page-faults"] = 1.7e308
    for g in d["regions"]:
        g["inclusive"]["page-faults"]["sum"] = 1.7e308
    save(d, "hugejob/hpcshim-%d.json" % rank)
rc, out, err = tool("merge", job)
t.ok(rc == 0 and not re.search(r"\bNaN\b|Infinity", out), "merge: overflowing statistics are null, "
     "not NaN or Infinity", re.findall(r".{40}(?:NaN|Infinity).{10}", out)[:3])
try:
    json.loads(out, parse_constant=lambda c: 1 / 0)
    t.ok(True, "merge: the job document is strict JSON")
except Exception as e:
    t.ok(False, "merge: the job document is strict JSON", str(e))
for key, val in (("rank", 2 ** 31 - 1), ("rank", -1), ("size", 1e300), ("rank", 1.5), ("size", "4")):
    f = damaged("rank.json", lambda d: d["process"].__setitem__(key, val))
    rc, out, err = tool("report", f)
    t.ok(rc == 2 and "process.%s" % key in err, "report: process.%s = %r rejected" % (key, val), err)

# A size no job has, in one file: the job document stays small.
d = copy.deepcopy(base)
d["process"].update(rank=0, size=2 ** 24 - 1, job="j")
os.makedirs(os.path.join(tmp, "bigsize"))
save(d, "bigsize/hpcshim-0.json")
rc, out, err = tool("merge", os.path.join(tmp, "bigsize"))
doc = json.loads(out) if rc == 0 else {}
t.ok(rc == 0 and len(out) < 100000 and len(doc["missing_ranks"]) == 1024
     and doc["missing_count"] == 2 ** 24 - 2,
     "merge: a size of 2^24 - 1 in one file: 1024 missing ranks listed, the count of all "
     "(%d bytes)" % len(out))

# ---- many regions: no view quadratic ------------------------------------------
# Not a timing claim (bench/tools_scale.sh has those): 10^5 regions took the
# tree view and html over 150 s when rows were found by linear search; they
# now take about 6 s here.  A 120 s bound fails the quadratic code and
# leaves a slow machine 20 times the room.
big = os.path.join(tmp, "big.json")
subprocess.run(["python3", BIGREGIONS,
                "100000", big], check=True)
for cmd in (["report", "--view", "tree", "--format", "json"], ["html", "-o", os.path.join(tmp, "big.html")],
            ["report", "--view", "region", "-x,"], ["diff", "--all", big]):
    try:
        p = subprocess.run([HPCSHIM] + cmd + [big], capture_output=True, encoding="utf-8", timeout=120)
        ok = p.returncode == 0
    except subprocess.TimeoutExpired:
        p, ok = None, False
    t.ok(ok, "%s of 10^5 nested regions ends within 120 s" % " ".join(cmd[:3]))
    if ok and cmd[-1] == "json":
        rows = json.loads(p.stdout)["rows"]
        deepest, i = 0, 99999
        while i:
            i, deepest = (i - 1) // 8, deepest + 1
        t.ok(len(rows) == 100000 and max(r["depth"] for r in rows) == deepest and rows[1]["region"] == "r1"
             and rows[1]["parents"] == ["r0"], "the tree: every region once, depth first, fan-out 8")
# A chain of parents deeper than the shim nests, and a cycle: bounded rows.
chain = os.path.join(tmp, "chain.json")
subprocess.run(["python3", BIGREGIONS,
                "5000", chain, "1"], check=True)
rc, out, err = tool("report", "--view", "tree", "--format", "json", chain)
rows = json.loads(out)["rows"] if rc == 0 else []
t.ok(len(rows) == 5000 and max(r["depth"] for r in rows) == 4095,
     "a 5000-deep chain of parents: every region, none deeper than 4095 (the shim's nesting)")

# ---- garbage data files: one line per file, only the sets asked for ----------
junk = os.path.join(tmp, "junk")
os.makedirs(junk)
garbage = "".join("%d garbage ( ; ] line \x01 with %s\n" % (i, "x" * (i % 50)) for i in range(20000))
for name in ("zz.preset", "zz.tree", "junk.sig"):
    with open(os.path.join(junk, name), "w") as f:
        f.write(garbage)
for var, val, what, shim in (
        ("HPCSHIM_PRESET", "software", "preset and tree files", True),
        ("HPCSHIM_WRAP", "@junk", "the signature file asked for", True),
        ("HPCSHIM_WRAP", "@mem", "a signature file not asked for", False)):
    env = {"HPCSHIM_PRESET_PATH": junk, "HPCSHIM_WRAP_PATH": junk, var: val,
           "HPCSHIM_EVENTS": "task-clock"}
    r = run([WORKLOAD, "touch", "3"], env=env)
    lines = [l for l in r.err.splitlines() if junk in l]
    per = {n: [l for l in lines if n + ":" in l] for n in ("zz.preset", "zz.tree", "junk.sig")}
    if not shim:
        t.ok(not per["junk.sig"], "HPCSHIM_WRAP=@mem: junk.sig on the path is not read (%d lines)"
             % len(per["junk.sig"]), per["junk.sig"][0][:300] if per["junk.sig"] else "")
        continue
    t.ok(r.rc == 0 and all(l.startswith("hpcshim:") for l in lines) and len(lines) >= 1,
         "%s: the program runs, the lines are hpcshim's" % what, r.err[-300:])
    for n, ls in per.items():
        if ls:
            t.ok(len(ls) == 1 and "more problems in this file" in ls[0] and len(ls[0]) < 1500,
                 "%s: %s is one bounded line with the count (%d lines)" % (what, n, len(ls)),
                 ls[0][:300] if ls else "")
p = subprocess.run([HPCSHIM, "list"], capture_output=True, encoding="utf-8",
                   env=dict(os.environ, HPCSHIM_PRESET_PATH=junk))
lines = [l for l in p.stderr.splitlines() if junk in l]
t.ok(len(lines) <= 2 and all("more problems in this file" in l for l in lines),
     "hpcshim list: one line per garbage file (%d)" % len(lines), "\n".join(l[:200] for l in lines[:5]))

# ---- the fuzz corpus of the reader (tests/fuzz/docread): every tool over each --
for name in sorted(os.listdir(CORPUS)):
    f = os.path.join(CORPUS, name)
    for cmd in (["report"], ["report", "--view", "tree", "--format", "markdown"],
                ["report", "--view", "thread", "-x,"], ["html", "-o", os.devnull],
                ["trace", "-o", os.devnull], ["merge"], ["diff", f], ["drilldown", "--json"]):
        rc, out, err = tool(*cmd, f)
        lines = [l for l in err.splitlines() if f in l]
        text = cmd in (["report"], ["report", "--view", "tree", "--format", "markdown"])
        t.ok(rc in (0, 1, 2) and len(lines) <= (2 if cmd[0] == "diff" else 1)
             and not (text and CTL.search(out)),
             "corpus %s: %s ends (status %d), one line naming it when bad" % (name, " ".join(cmd[:2]), rc),
             err[-300:])

t.done()
shutil.rmtree(tmp, ignore_errors=True)
