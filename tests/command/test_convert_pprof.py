"""hpcshim convert --to pprof, read by Go's own pprof (go tool pprof): each
region's flat value is the JSON's exclusive value summed over the threads
(exactly, page-faults and task-clock), every sample's stack is its region's
nesting path, labels rank and thread pick them."""
import os
import re
import shutil
import subprocess
import tempfile

from convert_job import convert, make_job
from hpctest import Tap

t = Tap()
GO = shutil.which("go")
p = convert("--help")
if "pprof" in p.stdout and "[unavailable" in p.stdout.split("pprof", 1)[1].split("\n", 1)[0]:
    t.skip("pprof", "this build has no pprof (configure found no protobuf-c/zlib)")
    t.done()
    raise SystemExit(0)
tmp = tempfile.mkdtemp(prefix="hpcshim-pprof-")
job, docs = make_job(tmp, ranks=3)
out = os.path.join(tmp, "profile.pb.gz")
p = convert("--to", "pprof", "-o", out, job)
t.eq(p.returncode, 0, "--to pprof exits 0")
t.ok(open(out, "rb").read(2) == b"\x1f\x8b", "the profile is gzipped")
p = convert("--to", "pprof", job)
t.ok(p.returncode == 2 and "-o" in p.stderr, "pprof without -o: exit 2", p.stderr)


def excl(ev, rank=None):
    """region -> the threads' exclusive values of ev summed (rank: one)."""
    want = {}
    for d in docs:
        if rank is not None and d["process"]["rank"] != rank:
            continue
        for th in d["threads"]:
            for r in th["regions"]:
                if ev == "wall":
                    v = r["wall_ns"]["exclusive"]
                else:
                    v = r["exclusive"].get(ev)
                want[r["name"]] = want.get(r["name"], 0) + (v or 0)
    return {k: v for k, v in want.items() if v}


def top(*args):
    q = subprocess.run([GO, "tool", "pprof", "-top", "-nodecount=1000", "-nodefraction=0",
                        "-edgefraction=0"] + list(args) + [out], capture_output=True,
                       encoding="utf-8", errors="replace", timeout=300)
    got = {}
    for line in q.stdout.splitlines():
        m = re.match(r"^\s*(-?\d+)(ns)?\s+\S+%\s+\S+%\s+(-?\d+)(ns)?\s+\S+%\s+(.+)$", line)
        if m:
            got[m.group(5).strip()] = int(m.group(1))
    return got, q


if not GO:
    t.skip("go tool pprof", "no go (Debian golang-go)")
else:
    ver = subprocess.run([GO, "version"], capture_output=True, encoding="utf-8").stdout.strip()
    t.diag("reader: go tool pprof of " + ver)
    for ev in ("page-faults", "task-clock", "wall"):
        got, q = top("-sample_index=" + ev, "-unit=ns" if ev != "page-faults" else "-unit=minimum")
        t.eq(got, excl(ev), "go tool pprof -top -sample_index=%s: flat = the JSON's exclusive "
             "values summed over threads, per region" % ev)
    # a string label (a number would make pprof filter numeric labels)
    got, q = top("-sample_index=page-faults", "-tagfocus=rank=^1$")
    t.eq(got, excl("page-faults", 1), "-tagfocus=rank=^1$: rank 1's regions only")
    q = subprocess.run([GO, "tool", "pprof", "-traces", "-sample_index=page-faults", out],
                       capture_output=True, encoding="utf-8", timeout=300)
    stacks = set()
    for blk in q.stdout.split("-----------+")[1:]:
        lines = [l for l in blk.splitlines()[1:] if l.strip() and ":" not in l]
        frames = [re.sub(r"^\s*-?\d*\s+", "", l).strip() for l in lines]
        if frames:
            stacks.add(tuple(frames))
    want = set()
    for d in docs:
        for th in d["threads"]:
            par = {r["name"]: r["parent"] for r in th["regions"]}
            # every region record is a sample, its value 0 or not:
            # -traces lists them all (a busy loop's 0 page faults too)
            for r in th["regions"]:
                path, n = [], r["name"]
                while n is not None:
                    path.append(n)
                    n = par.get(n)
                want.add(tuple(path))
    t.ok(("inner", "outer") in stacks and stacks == want,
         "-traces: each sample's stack is its region's nesting path (inner under outer)",
         "%s vs %s" % (sorted(stacks), sorted(want)))
    q = subprocess.run([GO, "tool", "pprof", "-tree", "-sample_index=page-faults", out],
                       capture_output=True, encoding="utf-8", timeout=300)
    t.ok(q.returncode == 0 and "inner" in q.stdout, "-tree reads it")
shutil.rmtree(tmp, ignore_errors=True)
t.done()
