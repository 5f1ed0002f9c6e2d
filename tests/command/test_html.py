"""hpcshim html: the report of an MPI+OpenMP-shaped job (samples/openmp_work
as two ranks) opened in headless Chromium: it renders, a screenshot is
written, no console message, no network request of the page, and the
numbers in the page are the JSON's."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, Tap, run, CHROMIUM, chrome  # noqa: E402

HPCSHIM = os.path.join(BUILD, "hpcshim")
OMP = os.path.join(BUILD, "samples", "openmp_work")
t = Tap()
chromium = CHROMIUM
if not os.path.exists(OMP):
    t.skip("html report", "samples/openmp_work not built (no OpenMP)")
    t.done()
    sys.exit(0)
tmp = tempfile.mkdtemp(prefix="hpcshim-html-")
job = os.path.join(tmp, "job")
os.makedirs(job)
for rank in range(2):
    run([OMP], outdir=job, env={"OMPI_COMM_WORLD_RANK": str(rank), "OMP_NUM_THREADS": "3",
                                "HPCSHIM_INTERVAL": "2ms", "HPCSHIM_EVENTS": "task-clock,page-faults"})
docs = [json.load(open(f)) for f in sorted(glob.glob(job + "/hpcshim-*.json"))]
html = os.path.join(tmp, "report.html")
p = subprocess.run([HPCSHIM, "html", "-o", html, job], capture_output=True, encoding="utf-8")
t.eq(p.returncode, 0, "hpcshim html exits 0")
page = open(html, encoding="utf-8").read()
t.ok(not re.search(r"<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import", page, re.I),
     "self-contained: no script, link, image, src, href or url()")

# ---- numbers in the file against the JSON ----------------------------------
t.eq(re.search(r"id=ranks>(\d+)<", page).group(1), "2", "header: 2 ranks")
t.eq(int(re.search(r"id=threads>(\d+)<", page).group(1)), sum(d["thread_count"] for d in docs),
     "header: threads = the files' thread_count")
rows = re.findall(r"<tr><td>([^<]+)</td><td>(\d+)</td><td>\d+</td><td>\d+</td><td data-value=\"([^\"]+)\"", page)
want = {}
for d in docs:
    for r in d["regions"]:
        c, v = want.get(r["name"], (0, 0))
        want[r["name"]] = (c + r["calls"], v + r["inclusive"]["task-clock"]["sum"])
t.eq({n: (int(c), float(v)) for n, c, v in rows}, want, "regions: calls and inclusive task-clock = the JSON's sums")
vals = [d["totals"]["task-clock"] for d in docs]
imb = float(re.search(r"id=rankbars-imbalance data-value=\"([^\"]+)\"", page).group(1))
t.ok(abs(imb - (max(vals) / (sum(vals) / 2) - 1)) < 1e-9, "rank imbalance = max/mean - 1 of the totals")
maxr = vals.index(max(vals))
t.ok("max: rank %d (" % docs[maxr]["process"]["rank"] in page, "the rank that was max is named")

if not chromium:
    t.skip("headless Chromium", "chromium not installed (tools/setup.sh tests installs it)")
    t.done()
    sys.exit(0)

# The checks can fail: a page with an image on the network and a console
# message is caught.
bad = os.path.join(tmp, "bad.html")
open(bad, "w").write('<img src="http://hpcshim-test.invalid/x.png"><script>console.log("x")</script>')
p, urls, console = chrome("file://" + bad, tmp, "--dump-dom")
t.ok(urls and any("hpcshim-test.invalid" in u for u in urls) and console,
     "control: a network request and a console message are seen", (urls, console))

p, urls, console = chrome("file://" + html, tmp, "--dump-dom")
t.ok(p.returncode == 0 and "<h2>Regions</h2>" in p.stdout, "Chromium renders the report (DOM dumped)")
t.eq(console, [], "no console messages")
t.eq(urls, set(), "no network requests from the page")
dom_rows = re.findall(r"<tr><td>([^<]+)</td><td>(\d+)</td>", p.stdout)
t.eq({n: int(c) for n, c in dom_rows if n in want}, {n: c for n, (c, v) in want.items()},
     "the rendered DOM has the JSON's region calls")
shot = os.path.join(tmp, "report.png")
p, urls, console = chrome("file://" + html, tmp, "--screenshot=" + shot, "--window-size=1000,1400")
t.ok(os.path.exists(shot) and open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(shot) > 10000,
     "a screenshot is written (PNG)")
if os.environ.get("HPCSHIM_SCREENSHOT"):
    shutil.copy(shot, os.environ["HPCSHIM_SCREENSHOT"])
shutil.rmtree(tmp, ignore_errors=True)
t.done()
