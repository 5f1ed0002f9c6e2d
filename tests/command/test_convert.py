"""hpcshim convert: the command (formats listed, unknown and missing ones
refused with exit 2, -o required where the format needs it) and its
chrome format, which is hpcshim trace's file."""
import json
import os
import shutil
import subprocess
import tempfile

from convert_job import HPCSHIM, convert, make_job
from hpctest import Tap

t = Tap()
tmp = tempfile.mkdtemp(prefix="hpcshim-convert-")
job, docs = make_job(tmp, ranks=2)

p = convert("--to", "nosuch", job)
t.ok(p.returncode == 2 and "unknown format 'nosuch'" in p.stderr and "chrome" in p.stderr,
     "unknown --to: exit 2, the list of formats", p.stderr)
p = convert(job)
t.ok(p.returncode == 2 and "formats:" in p.stderr, "no --to: exit 2, the list", p.stderr)
p = convert("--help")
t.ok(p.returncode == 0 and "formats:" in p.stdout and "chrome" in p.stdout, "--help lists the formats")
p = subprocess.run([HPCSHIM, "--help"], capture_output=True, encoding="utf-8")
t.ok("convert" in p.stdout, "hpcshim --help names convert")

a, b = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
p = convert("--to", "chrome", "-o", a, job)
t.eq(p.returncode, 0, "--to chrome exits 0")
q = subprocess.run([HPCSHIM, "trace", "-o", b, job], capture_output=True, encoding="utf-8")
t.ok(q.returncode == 0 and json.load(open(a)) == json.load(open(b)),
     "--to chrome writes hpcshim trace's file")
p = convert("--to", "chrome", job)
t.ok(p.returncode == 0 and json.loads(p.stdout) == json.load(open(a)), "chrome without -o: stdout")
p = convert("--to", "chrome", "-o", a, os.path.join(tmp, "nope.json"))
t.ok(p.returncode == 2 and "nope.json" in p.stderr, "missing input: exit 2, named")
# a job document (hpcshim merge's) is the whole job: every format reads it
jobdoc = os.path.join(tmp, "jobdoc.json")
subprocess.run([HPCSHIM, "merge", "-o", jobdoc, job], capture_output=True)
avail = [l.split()[0] for l in convert("--help").stdout.splitlines()
         if l.startswith("  ") and "[unavailable" not in l]
okj = True
for fmt in avail:
    p = convert("--to", fmt, "-o", os.path.join(tmp, "jd-" + fmt), jobdoc)
    okj &= p.returncode == 0 and os.path.exists(os.path.join(tmp, "jd-" + fmt))
t.ok(okj, "a job document converts to every format this build has (%s)" % " ".join(avail))
shutil.rmtree(tmp, ignore_errors=True)
t.done()
