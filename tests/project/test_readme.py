"""The README's examples, run from the build tree as a new user would right
after ./run-sample.sh: no HPCSHIM_PRESET_PATH, no install.  The shim and
hpcshim-list find the preset files next to themselves (build tree or
install prefix), so HPCSHIM_PRESET=cpi,cache names known sets."""
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import SRC, BUILD, Tap, main_thread, region, run, WORKLOAD, can_open_hardware



def use_block():
    """The indented command lines of the README's '## Use' section."""
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        text = f.read()
    sec = text.split("## Use", 1)[1].split("\n## ", 1)[0]
    return [l.strip() for l in sec.splitlines() if l.startswith("    ") and l.strip()]


t = Tap()
HW = can_open_hardware()
env = {k: v for k, v in os.environ.items() if k != "HPCSHIM_PRESET_PATH"}
lines = use_block()
runs = [l for l in lines if "LD_PRELOAD=" in l]
t.ok(len(runs) >= 3, "the README shows runs under LD_PRELOAD (%d)" % len(runs))
for line in runs:
    words = shlex.split(line.split("#", 1)[0])
    assign = dict(w.split("=", 1) for w in words if re.match(r"^HPCSHIM_[A-Z_]+=", w))
    if "HPCSHIM_RANGE" in assign or "HPCSHIM_CHECKPOINT" in assign:
        # Names functions of the reader's './app' (test_range.py runs ranges).
        continue
    r = run([WORKLOAD, "touch", "50"], env=assign)
    sets = {s["name"]: s for s in r.docs[0].get("presets", {}).get("sets", [])} if r.docs else {}
    # A hardware event the host cannot count is named once, with the reason.
    other = [x for x in r.shim_lines() if HW or "dropped: ENOENT" not in x]
    t.ok(r.rc == 0 and len(r.docs) == 1 and not other,
         "%s: runs, one result, no hpcshim line but a hardware event's ENOENT (%r)" % (line, r.shim_lines()))
    for name in filter(None, assign.get("HPCSHIM_PRESET", "").split(",")):
        s = sets.get(name, {})
        t.ok(s.get("status") not in (None, "unknown") and bool(s.get("defined_at")),
             "%s: preset '%s' found in the data files (%s: %s)" % (line, name, s.get("status"),
                                                                  s.get("defined_at")))
    if r.docs:
        t.eq(region(main_thread(r.docs[0]), "touch")["inclusive"].get("page-faults", 50), 50,
             "%s: the program's work is counted" % line)

# hpcshim-list from the build tree: the data path and the software preset.
p = subprocess.run([os.path.join(BUILD, "hpcshim-list")], capture_output=True, encoding="utf-8",
                   env=env, cwd=tempfile.gettempdir())
out = p.stdout.splitlines()
path = next((x for x in out if x.startswith("preset search path: ")), "")
# (In a build outside the source tree, data/presets is a link to the source's.)
t.ok(p.returncode == 0 and os.path.realpath(os.path.join(BUILD, "data", "presets")) in path.split(": ", 1)[-1].split(":"),
     "hpcshim-list from the build tree searches the build tree's data (%r)" % path)
t.ok(any(x.startswith("  software ") and " usable" in x for x in out),
     "hpcshim-list finds the software preset without HPCSHIM_PRESET_PATH")

# The shim itself, asked for an unknown preset, lists what it found.
r = run([WORKLOAD, "touch", "5"], env={"HPCSHIM_PRESET": "nope"})
l = r.shim_lines()
t.ok(len(l) == 1 and "(known: " in l[0] and "(known: none)" not in l[0] and "software" in l[0],
     "an unknown preset's line lists the presets found next to the shim (%r)" % l)
t.done()
