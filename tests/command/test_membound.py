"""The reading tools' memory bound (tools/membound.h): report, html, trace
and convert weigh their inputs before reading them.  With
HPCSHIM_TOOL_MEMORY small a moderate file gets exactly one line "PROG:
FILE: too large to read in memory (N MB needed, M available)" and exit 2,
nothing written; unset, the same file is read.  A directory is its files
summed, except for the writers that read a file at a time (pprof, otf2).
A bad value is one line and the memory available is used.  RLIMIT_AS
counts as the memory available.  The estimate (HPCSHIM_VERBOSE=1) is not
below the tool's real peak RSS (getrusage of the finished child) for each
tool and each shape measured, and not far above it for the shape its
factor comes from.  A file denser than any measured (json-c's empty
objects) meets RLIMIT_DATA: "out of memory", exit 2, not the OOM killer."""
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, SRC, Tap  # noqa: E402

HPCSHIM = os.path.join(BUILD, "hpcshim")
t = Tap()
tmp = tempfile.mkdtemp(prefix="hpcshim-membound-")
regions = os.path.join(tmp, "regions.json")
subprocess.run([sys.executable, os.path.join(SRC, "bench", "bigregions.py"), "10000", regions],
               check=True)
subprocess.run([sys.executable, os.path.join(SRC, "bench", "bigtrace.py"), "1", "2", "20000",
                os.path.join(tmp, "trace")], check=True, env=dict(os.environ, HPCSHIM_BUILDDIR=BUILD))
trace = glob.glob(os.path.join(tmp, "trace", "*.json"))[0]
# interval series, made as tools/memfactors.py makes them for the table
os.environ["HPCSHIM_BUILDDIR"] = BUILD
sys.path.insert(0, os.path.join(SRC, "tools"))
import memfactors  # noqa: E402
series = memfactors.series_file(tmp, 200000)
OUT = os.path.join(tmp, "out")
TOOLS = {  # name: the command before its input
    "report": ["report"],
    "html": ["html", "-o", OUT],
    "trace": ["trace", "-o", OUT],
    "chrome": ["convert", "--to", "chrome", "-o", OUT],
    "speedscope": ["convert", "--to", "speedscope", "-o", OUT],
    "pprof": ["convert", "--to", "pprof", "-o", OUT],
}
have = subprocess.run([HPCSHIM, "convert", "--help"], capture_output=True, encoding="utf-8").stdout
if re.search(r"^  pprof .*\[unavailable", have, re.M):
    del TOOLS["pprof"]


def tool(argv, env=None, limit=None):
    """(exit status, stdout, stderr, peak RSS in bytes) of hpcshim argv in
    a fresh child, so that no earlier child's peak is counted."""
    code = ("import json, resource, subprocess, sys\n"
            "lim = json.loads(sys.argv[1])\n"
            "pre = (lambda: resource.setrlimit(lim[0], (lim[1], lim[1]))) if lim else None\n"
            "p = subprocess.run(sys.argv[2:], capture_output=True, preexec_fn=pre)\n"
            "print(json.dumps([p.returncode, p.stdout.decode(errors='replace'),\n"
            "                  p.stderr.decode(errors='replace'),\n"
            "                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024]))")
    e = {k: v for k, v in os.environ.items() if k not in ("HPCSHIM_TOOL_MEMORY", "HPCSHIM_VERBOSE")}
    e.update(env or {})
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    elif os.path.exists(OUT):
        os.unlink(OUT)
    p = subprocess.run([sys.executable, "-c", code, json.dumps(limit), HPCSHIM] + argv,
                       capture_output=True, encoding="utf-8", env=e, timeout=600)
    return json.loads(p.stdout)


def estimate(err):
    """The bytes the verbose line says the inputs need (the last line)."""
    got = re.findall(r": memory: (\d+) bytes needed", err)
    return int(got[-1]) if got else None


TOO_LARGE = r"hpcshim %s: %s: too large to read in memory \((\d+) MB needed, %d available\)\n"

# ---- HPCSHIM_TOOL_MEMORY small: the one line, exit 2, nothing written ----
for name, cmd in TOOLS.items():
    prog = "report" if name == "report" else "html" if name == "html" else \
        "trace" if name == "trace" else "convert"
    rc, out, err, _ = tool(cmd + [regions], {"HPCSHIM_TOOL_MEMORY": "1M"})
    m = re.fullmatch(TOO_LARGE % (prog, re.escape(regions), 1), err)
    t.ok(rc == 2 and m and int(m.group(1)) > 16 and out == "" and not os.path.exists(OUT),
         "%s, HPCSHIM_TOOL_MEMORY=1M: exactly the one line, exit 2, nothing written" % name,
         (rc, err))
    rc, out, err, _ = tool(cmd + [regions])
    t.ok(rc == 0 and "too large" not in err and (name == "report" or os.path.exists(OUT)),
         "%s, unset: the same file read (exit 0)" % name, (rc, err[-300:]))

# ---- a directory: its files summed, or the largest for pprof ----
job = os.path.join(tmp, "job")
os.makedirs(job)
for r in range(2):
    shutil.copy(regions, os.path.join(job, "hpcshim-r%d.json" % r))
one = estimate(tool(["report", regions], {"HPCSHIM_VERBOSE": "1"})[2])
two = estimate(tool(["report", job], {"HPCSHIM_VERBOSE": "1"})[2])
size = os.path.getsize(regions)
t.ok(one and two and two - one > 25 * size,
     "a directory weighs its files summed (%r, one file %r)" % (two, one))
mem = "%dK" % ((one + two) // 2 // 1024)
rc, out, err, _ = tool(["report", job], {"HPCSHIM_TOOL_MEMORY": mem})
t.ok(rc == 2 and re.fullmatch(TOO_LARGE % ("report", re.escape(job), (one + two) // 2 // 1048576),
                              err),
     "report of 2 files that fit one by one only: the line, exit 2", err)
if "pprof" in TOOLS:
    rc, out, err, _ = tool(TOOLS["pprof"] + [job], {"HPCSHIM_TOOL_MEMORY": mem})
    t.ok(rc == 0 and os.path.exists(OUT), "convert --to pprof of the same: read a file at a time, "
         "it fits", err)

# ---- bad values: one line, the memory available used ----
for bad in ("lots", "0", "12Q", "-5", "1.5G", "99999999999999999999G",
            "99999999999999999999", "5MB", " 5M"):
    rc, out, err, _ = tool(["report", regions], {"HPCSHIM_TOOL_MEMORY": bad})
    line = "hpcshim report: HPCSHIM_TOOL_MEMORY='%s' is not a size" % bad
    t.ok(rc == 0 and err.startswith(line) and err.count("\n") == 1,
         "HPCSHIM_TOOL_MEMORY=%s: one line, then read with the memory available" % bad, err)
rc, out, err, _ = tool(["report", regions], {"HPCSHIM_TOOL_MEMORY": "", "HPCSHIM_VERBOSE": "1"})
t.ok(rc == 0 and "HPCSHIM_TOOL_MEMORY" not in err, "HPCSHIM_TOOL_MEMORY empty: as unset", err)
for good, mib in (("64k", 0), ("512M", 512), ("2G", 2048), ("3t", 3 << 20), ("1048576", 1)):
    rc, out, err, _ = tool(["report", regions], {"HPCSHIM_TOOL_MEMORY": good, "HPCSHIM_VERBOSE": "1"})
    m = re.search(r"(\d+) available \(HPCSHIM_TOOL_MEMORY\)", err)
    t.ok(m and int(m.group(1)) >> 20 == mib, "HPCSHIM_TOOL_MEMORY=%s is %d MiB" % (good, mib), err)

# ---- RLIMIT_AS: the limit less what is mapped ----
rc, out, err, _ = tool(["report", regions], {"HPCSHIM_VERBOSE": "1"},
                       limit=[resource.RLIMIT_AS, 120 << 20])
m = re.search(r"too large to read in memory \((\d+) MB needed, (\d+) available\)", err)
t.ok(rc == 2 and "(RLIMIT_AS)" in err and m and int(m.group(2)) < 120,
     "ulimit -v 120 MB: refused, less than 120 MB available (RLIMIT_AS)", err)

# ---- the estimate against the real peak ----
TIGHT = {("regions", "report"), ("regions", "html"), ("regions", "pprof"),
         ("trace records", "speedscope"), ("series", "chrome"), ("series", "trace")}
for shape, path in (("regions", regions), ("trace records", trace), ("series", series)):
    for name, cmd in TOOLS.items():
        rc, out, err, peak = tool(cmd + [path], {"HPCSHIM_VERBOSE": "1"})
        need = estimate(err)
        ok = rc == 0 and need and need >= peak
        # on the shape its factor comes from the estimate is close (the
        # base and a 10% margin, tools/membound.h)
        if (shape, name) in TIGHT:
            ok = ok and need <= 1.3 * peak
        t.ok(ok, "%s of %d KB of %s: estimate %s KB, peak RSS %d KB" % (
            name, os.path.getsize(path) // 1024, shape, need and need // 1024, peak // 1024),
            err[-300:])

# ---- denser than any shape measured: RLIMIT_DATA, not the OOM killer ----
dense = os.path.join(tmp, "dense.json")
doc = json.load(open(regions))
doc["padding"] = [{}] * 1000000  # 3 MB of "{}, ": 1.7 GB in json-c
with open(dense, "w") as f:
    json.dump(doc, f)
rc, out, err, peak = tool(["report", dense], {"HPCSHIM_TOOL_MEMORY": "400M"})
t.ok(rc == 2 and "hpcshim report: %s: out of memory\n" % dense in err and peak < 450 << 20,
     "json-c's empty objects past HPCSHIM_TOOL_MEMORY=400M: out of memory, exit 2, peak %d MB"
     % (peak >> 20), err)
shutil.rmtree(tmp, ignore_errors=True)
t.done()
