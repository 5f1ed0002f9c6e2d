"""hpcshim html: the drill-down section.

With real numbers, computed offline (`hpcshim drilldown --json`, given to
`hpcshim html --drilldown`): Jarp's crafty counts on the Itanium 2 tree
and a Zen 4 result file whose counts were rotated (so nodes carry errors).
Every drawn segment's share and width, every error bar, every label are
the ones computed here from the drill-down JSON; the bottleneck and the
next setting are printed; a null node is listed with its reason.  With a
HPCSHIM_PRESET=topdown run on this host (no hardware PMU: every node null),
each section says why and draws nothing.  The page opened in headless
Chromium: it renders, no console message, no network request."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import SRC, BUILD, CRAFTY, Tap, run, CHROMIUM, chrome  # noqa: E402

t = Tap()
HPCSHIM = os.path.join(BUILD, "hpcshim")
PROG = os.path.join(BUILD, "samples", "pthreads_work")
ENV = dict(os.environ, HPCSHIM_PRESET_PATH=os.path.join(SRC, "data", "presets"))
W = 560.0
tmp = tempfile.mkdtemp(prefix="hpcshim-htmldrill-")

# A Zen 4 count set (tests/drill/test_trees.py, set 1), by spec, in a result
# file whose thread counts were rotated: each has a standard error.
ZEN4 = {"CYCLES_NOT_IN_HALT": 1.0e9, "DISPATCH_STALLS_1:FE_NO_OPS": 1.3e9,
        "DISPATCH_STALLS_1:BE_STALLS": 2.2e9, "DISPATCH_STALLS_1:SMT_CONTENTION": 0.1e9,
        "OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER": 2.6e9,
        "RETIRED_OPS": 2.3e9, "DISPATCH_STALLS_1:FE_NO_OPS:c=6": 0.12e9,
        "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED": 6.0e6, "RESYNCS": 2.0e6,
        "CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD": 2.5e8,
        "CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU": 4.0e8, "RETIRED_UCODE_OPS": 1.5e8}


def drill(args, name):
    p = subprocess.run([HPCSHIM, "drilldown", "--json"] + args, capture_output=True,
                       encoding="utf-8", env=ENV)
    t.eq(p.returncode, 0, "hpcshim drilldown --json %s" % name)
    f = os.path.join(tmp, name + ".dd.json")
    open(f, "w").write(p.stdout)
    return f, json.loads(p.stdout) if p.returncode == 0 else {"scopes": []}


def html(out, files, dd=None):
    p = subprocess.run([HPCSHIM, "html", "-o", out] + (["--drilldown", dd] if dd else []) + files,
                       capture_output=True, encoding="utf-8", env=ENV)
    t.eq((p.returncode, p.stderr), (0, ""), "hpcshim html %s exits 0, says nothing" % os.path.basename(out))
    return open(out, encoding="utf-8").read() if p.returncode == 0 else ""


def sections(page):
    """{scope: section text} of the drill-down sections."""
    return {m.group(1): m.group(2) for m in re.finditer(
        r'<section class=drill id=drill-\d+ data-scope="([^"]*)">(.*?)</section>', page, re.S)}


def expected(scope):
    """What each node draws, from the drill-down JSON: its share of its
    base (a root fraction as it is) and the error of that share."""
    nodes = {n["id"]: n for n in scope["nodes"]}
    want = {}
    for n in scope["nodes"]:
        if n["value"] is None:
            continue
        if "share" in n:
            q = n["share"]
            base = n["value"] / q if q else None
            qe = n.get("error", 0) / abs(base) if base else 0
        elif n["parent"] is None and n["unit"] == "fraction":
            q, qe = n["value"], n.get("error", 0)
        else:
            continue
        if q >= 0:
            want[n["id"]] = (q, qe)
    return want, nodes


def check(page, dd, label):
    secs = sections(page)
    for sc in dd["scopes"]:
        if sc["scope"].endswith(" exclusive"):
            continue
        title = "%s (offline, tree %s)" % (sc["scope"], dd["tree"])
        text = secs.get(title)
        if not t.ok(text is not None, "%s: a section for scope %r" % (label, sc["scope"])):
            continue
        want, nodes = expected(sc)
        drawn, bad, errs = {}, [], {}
        for svg in re.findall(r"<svg class=dbar [^>]*>(.*?)</svg>", text, re.S):
            segs = re.findall(r'<rect class=seg x=([\d.]+) y=4 width=([\d.]+) [^>]*data-id="([^"]+)" '
                              r'data-share="([^"]+)"', svg)
            scale = max(1.0, sum(want.get(i, (0, 0))[0] for _, _, i, _ in segs))
            x = 0.0
            for sx, sw, i, sh in segs:
                drawn[i] = drawn.get(i, 0) + 1
                q = want.get(i, (None, 0))[0]
                if q is None or abs(float(sh) - q) > 1e-12 * max(1, abs(q)) \
                        or abs(float(sw) - W * q / scale) > 0.0011 or abs(float(sx) - x) > 0.0011:
                    bad.append((i, sx, sw, sh, q))
                x += W * (q or 0) / scale
            for i, x1, x2 in re.findall(r'<line class=err data-id="([^"]+)" x1=([\d.-]+) x2=([\d.-]+)', svg):
                errs[i] = (float(x2) - float(x1)) / 2 / W * scale
        t.eq(drawn, {i: 1 for i in want}, "%s %s: every node with a share is drawn once, no other"
             % (label, sc["scope"]))
        t.eq(bad, [], "%s %s: each segment's share, width and place are the JSON's" % (label, sc["scope"]))
        werr = {i: qe for i, (q, qe) in want.items() if qe > 0}
        t.ok(set(errs) == set(werr) and all(abs(errs[i] - werr[i]) < 2e-6 for i in werr),
             "%s %s: error bars = share +- error / base, on the nodes with an error (%d)"
             % (label, sc["scope"], len(werr)), (errs, werr))
        labs = dict(re.findall(r'<span class=lab data-id="([^"]+)"><span[^>]*>[^<]*</span>(.*?)</span> ',
                               text))
        t.ok(all(i in labs and ("%.1f%%" % (100 * q)) in labs[i]
                 and (("<b class=over>over</b>" in labs[i]) == (nodes[i].get("over") is True)) for i, (q, _) in want.items()),
             "%s %s: each segment labelled with its share, over marked" % (label, sc["scope"]),
             [(i, labs.get(i), q, nodes[i].get("over")) for i, (q, _) in want.items()
              if i not in labs or ("%.1f%%" % (100 * q)) not in labs[i]
              or ("<b class=over>over</b>" in labs[i]) != (nodes[i].get("over") is True)])
        nulls = dict(re.findall(r'<tr class=dnull data-id="([^"]+)">.*?<span class=reason>([^<]*)</span>', text))
        t.eq(nulls, {n["id"]: n["reason"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                     .replace('"', "&quot;") for n in sc["nodes"] if n["value"] is None},
             "%s %s: null nodes listed with their reason" % (label, sc["scope"]))
        t.ok(all(not re.search(r'data-id="%s" data-share' % re.escape(i), text) for i in nulls),
             "%s %s: no null node drawn" % (label, sc["scope"]))
        b = sc["bottleneck"]
        if b:
            t.ok(("bottleneck: <b>%s</b>" % b["id"]) in text
                 and (not b["run_next"] or ("<code class=setting>%s</code>" % b["run_next"]) in text)
                 and (not b["next_step"] or b["next_step"] in text),
                 "%s %s: the bottleneck %s and the next step (%s) printed"
                 % (label, sc["scope"], b["id"], b["run_next"]))
        else:
            t.ok("bottleneck: none" in text, "%s %s: no bottleneck said" % (label, sc["scope"]))


if not os.path.exists(PROG):
    t.skip("html drill-down", "samples/pthreads_work not built")
    t.done()
    sys.exit(0)

# ---- offline drill-downs with real numbers ---------------------------------
plain = os.path.join(tmp, "plain")
os.makedirs(plain)
r = run([PROG], outdir=plain, env={"HPCSHIM_EVENTS": "task-clock"})
files = [os.path.join(plain, f) for f in os.listdir(plain)]
cf = os.path.join(tmp, "crafty.json")
json.dump(CRAFTY, open(cf, "w"))
ddc, crafty = drill(["--model", "itanium2", "--counts", cf], "crafty")
res = {"schema": 1, "presets": {"model": "amd64_fam19h_zen4"}, "totals": dict(ZEN4),
       "threads": [{"tid": 7, "totals": dict(ZEN4, RESYNCS=None),
                    "totals_multiplexed": dict(
                        {k: {"raw": v / 2, "enabled": 2, "running": 1, "stderr": v * 0.02}
                         for k, v in ZEN4.items()},
                        RESYNCS={"raw": 0, "enabled": 2, "running": 0}),
                    "regions": []}]}
zf = os.path.join(tmp, "zen4-result.json")
json.dump(res, open(zf, "w"))
ddz, zen4 = drill([zf], "zen4")
page_c = html(os.path.join(tmp, "crafty.html"), files, ddc)
check(page_c, crafty, "crafty/itanium2")
t.ok(not re.search(r"<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import", page_c, re.I),
     "self-contained: no script, link, image, src, href or url()")
page_z = html(os.path.join(tmp, "zen4.html"), files, ddz)
check(page_z, zen4, "zen4")
zt = next((s for s in zen4["scopes"] if s["scope"] == "thread 7 totals"), None)
t.ok(zt and any("error" in n and n["error"] > 0 for n in zt["nodes"])
     and any(n["value"] is None for n in zt["nodes"]),
     "the zen4 thread scope has nodes with errors and null nodes (RESYNCS multiplexed out)")

# ---- a topdown run on this host: nothing to draw, and why ------------------
td = os.path.join(tmp, "topdown")
os.makedirs(td)
r = run([PROG], outdir=td, env={"HPCSHIM_PRESET": "topdown"})
doc = json.load(open(os.path.join(td, os.listdir(td)[0])))
page_t = html(os.path.join(tmp, "topdown.html"), [td])
secs = sections(page_t)
objs = [("process", doc.get("totals_drilldown"))] + [
    ("region %s (inclusive)" % g["name"], g.get("inclusive_drilldown")) for g in doc.get("regions", [])]
t.eq(sorted(secs), sorted(k for k, o in objs if o), "topdown run: a section for the process and each region")
for k, o in objs:
    text = secs.get(k, "")
    if not o:
        continue
    known = [n for n in o["nodes"] if n["value"] is not None]
    if known:  # a host with a PMU: the offline checks above hold the numbers
        t.skip("topdown %s: every node null" % k, "this host counts the tree's events")
        continue
    t.ok("<p class=why>No node could be evaluated" in text and not re.search(r"<rect|<svg", text),
         "topdown %s: the section says why, nothing is drawn" % k)
    rows = dict(re.findall(r'<tr class=dnull data-id="([^"]+)">.*?<span class=reason>([^<]*)</span>', text))
    t.eq(sorted(rows), sorted(n["id"] for n in o["nodes"]), "topdown %s: every node listed as null" % k)
    t.ok(all(n["reason"].split(":")[0].replace("'", "&#39;") in rows[n["id"]] or
             n["reason"].split(":")[0] in rows[n["id"]] for n in o["nodes"]),
         "topdown %s: each with its reason" % k)
    t.ok("<tr class=dnode " not in text and not re.search(r">0(\.0+)?%?<", text),
         "topdown %s: no value, no 0 anywhere" % k, re.findall(r".{80}>0(?:\.0+)?%?<.{20}", text))

# ---- headless Chromium ------------------------------------------------------
chromium = CHROMIUM
if not chromium:
    t.skip("headless Chromium", "chromium not installed (tools/setup.sh tests installs it)")
    t.done()
    sys.exit(0)
for name, page in (("crafty", page_c), ("zen4", page_z), ("topdown", page_t)):
    p, urls, console = chrome("file://" + os.path.join(tmp, name + ".html"), tmp, "--dump-dom")
    dom_segs = len(re.findall(r'<rect class="seg"|<rect class=seg', p.stdout))
    # the topdown run on a CPU libpfm4 does not know has no tree at all
    # (no drill-down object, no section): the DOM has what the page has
    t.ok(p.returncode == 0 and ("<h2>Drill-down</h2>" in p.stdout) == ("<h2>Drill-down</h2>" in page)
         and (name == "topdown" or "<h2>Drill-down</h2>" in page)
         and dom_segs == len(re.findall(r"<rect class=seg", page)),
         "%s: Chromium renders the drill-down (%d segments in the DOM)" % (name, dom_segs))
    t.eq(console, [], "%s: no console messages" % name)
    t.eq(urls, set(), "%s: no network requests from the page" % name)
shutil.rmtree(tmp, ignore_errors=True)
t.done()
