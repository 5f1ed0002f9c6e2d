"""hpcshim convert --to speedscope and --to chrome, opened by speedscope
itself (npm speedscope, in headless Chromium, from local files only): both
import without error, one profile per thread, and each thread's frames
(speedscope's sandwich table, read back from the page) are its traced
regions.  The speedscope JSON also validates against the schema file the
npm package ships.  speedscope is installed by tools/setup.sh tests
(HPCSHIM_SPEEDSCOPE: its dist/release directory)."""
import base64
import html
import json
import os
import re
import shutil
import tempfile

from convert_job import EVENTS, convert, make_job
from hpctest import CHROMIUM, Tap, chrome

t = Tap()
REL = os.environ.get("HPCSHIM_SPEEDSCOPE", os.path.expanduser(
    "~/.cache/hpcshim/npm/node_modules/speedscope/dist/release"))
tmp = tempfile.mkdtemp(prefix="hpcshim-speedscope-")
os.chmod(tmp, 0o755)
job, docs = make_job(tmp, ranks=1, steps=["nested", "30", "10", "threads", "2", "40",
                                           "touch", "7", "busy", "5"])
ss, ch = os.path.join(tmp, "p.speedscope.json"), os.path.join(tmp, "p.trace.json")
p = convert("--to", "speedscope", "-o", ss, job)
t.eq(p.returncode, 0, "--to speedscope exits 0")
p = convert("--to", "chrome", "-o", ch, job)
t.eq(p.returncode, 0, "--to chrome exits 0")
doc = json.load(open(ss))
threads = [th for d in docs for th in d["threads"]]
want_frames = [sorted({r["region"] for r in th["trace"]["records"]}) for th in threads]
t.eq(len(doc["profiles"]), len(threads), "a profile per thread")

schema = os.path.join(REL, "file-format-schema.json")
try:
    import jsonschema
except ImportError:
    jsonschema = None
if not os.path.exists(schema) or jsonschema is None:
    t.skip("schema", "no npm speedscope (tools/setup.sh tests) or no python3-jsonschema")
else:
    try:
        jsonschema.validate(doc, json.load(open(schema)))
        t.ok(True, "the file validates against speedscope's file-format-schema.json")
    except jsonschema.ValidationError as e:
        t.ok(False, "the file validates against speedscope's file-format-schema.json", str(e))


def page_text(dom):
    s = re.sub(r"<style.*?</style>|<script.*?</script>", "", dom, flags=re.S)
    s = re.sub(r"<[^>]+>", "|", s)
    return [x.strip() for x in html.unescape(s).split("|") if x.strip()]


def open_in_speedscope(path, name, k):
    """speedscope's own loader (its CLI's: a script handing it the file in
    base64) with profile k active, in its sandwich view: (the profile names,
    the active profile's frames, the URLs requested beyond local files,
    error lines)."""
    js = os.path.join(tmp, "load%d.js" % k)
    with open(js, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s);\n" % (
            json.dumps(name), json.dumps(base64.b64encode(open(path, "rb").read()).decode())))
    url = "file://%s/index.html#localProfilePath=%s&view=sandwich" % (REL, js)
    work = os.path.join(tmp, "chrome%d" % k)
    os.makedirs(work, exist_ok=True)
    p, urls, console = chrome(url, work, "--dump-dom", "--allow-file-access-from-files",
                              "--virtual-time-budget=15000")
    txt = page_text(p.stdout)
    names, rows = [], []
    if "Total Weight" in txt:
        i = txt.index("Total Weight") + 1
        while i + 2 < len(txt) and txt[i].isdigit():
            names.append(txt[i + 1])
            i += 3
    if "Symbol Name" in txt:
        j = txt.index("Symbol Name") + 1
        while j + 2 < len(txt):
            rows.append((txt[j], txt[j + 1], txt[j + 2]))
            j += 3
    errors = [l for l in console if "rror" in l] + [x for x in txt if "Something went wrong" in x]
    open_in_speedscope.rows = rows
    return names, sorted(r[2] for r in rows), urls, errors


if not CHROMIUM or not os.path.exists(os.path.join(REL, "index.html")):
    t.skip("speedscope in chromium", "no chromium or no npm speedscope (tools/setup.sh tests)")
else:
    ver = json.load(open(os.path.join(REL, "..", "..", "package.json")))["version"]
    t.diag("reader: speedscope %s (npm) in %s" % (ver, CHROMIUM))
    for label, path, fname in (("speedscope", ss, "p.speedscope.json"), ("chrome", ch, "p.trace.json")):
        got, nets, errs = [], set(), []
        for k in range(len(threads)):
            if label == "speedscope":
                d = dict(doc, activeProfileIndex=k)
                src = os.path.join(tmp, "active%d.json" % k)
                json.dump(d, open(src, "w"))
            else:
                src = path
            names, frames, urls, e = open_in_speedscope(src, fname, k)
            got.append((names, frames))
            nets |= urls or set()
            errs += e
            if label == "chrome":
                break  # its active profile cannot be chosen: the first only
        names = got[0][0]
        t.ok(len(names) == len(threads) and not errs,
             "%s file: speedscope imports it without error, a profile per thread (%d)" % (label, len(names)),
             "%s %s" % (names, errs))
        if label == "speedscope":
            t.eq([f for n, f in got], want_frames,
                 "speedscope file: each thread's frames in speedscope are its traced regions")
        else:
            # speedscope names a Chrome span's frame by its name and args:
            # a frame per distinct (region, delta, depth)
            th = threads[0]
            ev = th["trace"]["event"]
            distinct = {(r["region"], r["delta"], r["depth"]) for r in th["trace"]["records"]}
            base = sorted({f.split(" {", 1)[0] for f in got[0][1]})
            t.ok(base == want_frames[0] and len(got[0][1]) == len(distinct),
                 "chrome file: the first thread's frames in speedscope are its traced "
                 "regions, one per distinct (region, %s, depth)" % ev, str(got[0][1]))
        t.eq(sorted(nets), [], "%s file: no request beyond local files" % label)
    # the pprof file in speedscope: the region tree as a flame graph, its
    # default sample type (the first event); self = exclusive, total = inclusive
    pp = os.path.join(tmp, "p.pb.gz")
    p = convert("--to", "pprof", "-o", pp, job)
    if p.returncode == 2 and "unavailable" in p.stderr:
        t.skip("pprof in speedscope", "this build has no pprof")
    else:
        names, frames, urls, errs = open_in_speedscope(pp, "p.pb.gz", 99)
        ev = EVENTS.split(",")[0]
        want = {}
        for d in docs:
            for th in d["threads"]:
                for r in th["regions"]:
                    v = r["exclusive"].get(ev) or 0
                    want[r["name"]] = want.get(r["name"], 0) + v
        got = {r[2]: int(r[1].split()[0]) for r in open_in_speedscope.rows}
        t.ok(not errs and not urls and got == {k: v for k, v in want.items() if v},
             "pprof file: speedscope imports it, each region's self %s is the JSON's exclusive "
             "sum" % ev, "%s %s %s" % (got, want, errs))
shutil.rmtree(tmp, ignore_errors=True)
t.done()
