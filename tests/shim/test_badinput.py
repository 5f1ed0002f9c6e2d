"""Garbage in every HPCSHIM_ variable and in the annotation API: the program
runs unchanged, each bad variable gets at most one 'hpcshim:' line, and the
JSON stays valid UTF-8 and parseable (hpctest reads it strictly)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, workload, main_thread, region

t = Tap()
STEPS = ("touch", 300, "exit", 2)
bare = workload(*STEPS, preload=False)
BIG = 120 * 1024  # a single environment string may not exceed 128 KiB
NONUTF8 = os.fsdecode(b"task-clock,\xff\xfe\xc0\xaf,page-faults")

cases = [
    ("HPCSHIM_EVENTS", "", "empty"),
    ("HPCSHIM_EVENTS", "a," * (BIG // 2), "120 KiB of unknown events"),
    ("HPCSHIM_EVENTS", "x" * BIG, "one 120 KiB name"),
    ("HPCSHIM_EVENTS", NONUTF8, "non-UTF-8 bytes"),
    ("HPCSHIM_EVENTS", "task-clock,task-clock,page-faults,page-faults", "duplicates"),
    ("HPCSHIM_EVENTS", "r,rzz,:u,task-clock:q,::,page-faults:uuk", "malformed specs"),
    ("HPCSHIM_EVENTS", "\"quoted\",back\\slash,ctl\x01", "quotes and control bytes"),
    ("HPCSHIM_VERBOSE", "-1", "negative"),
    ("HPCSHIM_VERBOSE", "9" * 40, "absurd number"),
    ("HPCSHIM_VERBOSE", "v" * BIG, "120 KiB"),
    ("HPCSHIM_OUTPUT", "", "empty"),
    ("HPCSHIM_OUTPUT", "/" + "d" * BIG, "120 KiB path"),
    # (A missing directory is made: one under a file cannot be.)
    ("HPCSHIM_OUTPUT", os.fsdecode(b"/dev/null/\xff\xfe-missing"), "non-UTF-8 dir under a file"),
    ("HPCSHIM_PRESET", "", "empty"),
    ("HPCSHIM_PRESET", "a," * (BIG // 2), "120 KiB of unknown presets"),
    ("HPCSHIM_PRESET", "x" * BIG, "one 120 KiB name"),
    ("HPCSHIM_PRESET", os.fsdecode(b"software,\xff\xfe,\"q\\"), "non-UTF-8 and quotes"),
    ("HPCSHIM_OPCODE", ",,, ,", "only empty items"),
    ("HPCSHIM_OPCODE", "loads," * (BIG // 6), "the same class 20000 times"),
    ("HPCSHIM_PRESET_PATH", "/" + "d" * BIG, "120 KiB path"),
    ("HPCSHIM_PRESET_PATH", os.fsdecode(b"::/nonexistent:\xff:/etc"), "missing and odd dirs"),
    ("HPCSHIM_LIST", "v" * BIG, "120 KiB"),
    ("HPCSHIM_ANNOTATIONS", "likwid," * (BIG // 7), "the same API 17000 times"),
    ("HPCSHIM_ANNOTATIONS", "x" * BIG, "120 KiB"),
    ("HPCSHIM_ANNOTATIONS", os.fsdecode(b"papi,\xff\xfe,off"), "non-UTF-8, off among others"),
]
for var, val, desc in cases:
    r = workload(*STEPS, env={var: val})
    what = "%s %s" % (var, desc)
    t.eq((r.rc, r.out), (bare.rc, bare.out), "%s: exit code and stdout unchanged" % what)
    lines = r.shim_lines()
    t.ok(len(lines) <= 1, "%s: at most one hpcshim line (got %d)" % (what, len(lines)),
         "\n".join(l[:200] for l in lines))
    t.ok(all(len(l) < 1200 for l in lines), "%s: the line is bounded" % what)
    for d in r.docs:  # read strictly as UTF-8 JSON by hpctest
        t.ok(isinstance(d["events"], list), "%s: JSON parses" % what)

r = workload("badnames")
t.eq(r.rc, 0, "bad region names: program unaffected")
m = main_thread(r.doc)
names = [x["name"] for x in m["regions"]]
t.ok('quote"d' in names and "back\\slash" in names, "quotes and backslashes kept and escaped")
t.ok("ctl\x01\x1f\n\t" in names, "control bytes kept and escaped")
t.ok("bad\ufffd\ufffd utf8" in names, "invalid UTF-8 bytes become U+FFFD")
t.ok("overlong\ufffd\ufffd" in names, "overlong encodings become U+FFFD")
t.ok("\u20ac euro" in names, "valid multibyte UTF-8 kept")
t.ok("" in names and "(null)" in names, "empty and NULL names are regions too")
t.ok(any(len(n) == 1 << 20 for n in names), "a 1 MB name is kept whole")
t.eq(m["warnings"]["unmatched_end"], 1, "END of a region never opened: counted")
t.ok(all(x["calls"] == 1 for x in m["regions"]), "every bad-named region recorded once")
t.done()
