"""Presets (HPCSHIM_PRESET), opcode classes (HPCSHIM_OPCODE) and the listing
(HPCSHIM_LIST, hpcshim-list): derived metrics equal the formulas over the
raw counts of the same JSON, sets the host cannot count are dropped with
reasons while the program runs unchanged, and bad names or files give one
line each."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import (point_method_why, SRC, Tap, workload, run, WORKLOAD, BUILD, region, proc_region,
                     main_thread, can_open_hardware)

t = Tap()
DATA = os.path.join(SRC, "data", "presets")
BASE = {"HPCSHIM_PRESET_PATH": DATA}
HW = can_open_hardware()
REL = 1e-9


def env(**kw):
    e = dict(BASE)
    e.update({k: str(v) for k, v in kw.items()})
    return e


def close(got, want):
    return isinstance(got, (int, float)) and abs(got - want) <= REL * max(1.0, abs(want))


def metric(obj, key, name):
    return obj.get(key + "_metrics", {}).get(name)


def preset_block(defined_at):
    """The events and metrics of the data-file block at FILE:LINE."""
    path, line = defined_at.rsplit(":", 1)
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()[int(line) - 1:]
    block = {"events": {}, "metrics": {}}
    for x in lines[1:]:
        w = x.split(None, 1)
        if w and w[0] == "end":
            break
        if w and w[0] in ("event", "metric"):
            k, v = w[1].split("=", 1)
            block[w[0] + "s"][k.strip()] = v.strip()
    return block


def sets(doc):
    return {(s["kind"], s["name"]): s for s in doc.get("presets", {}).get("sets", [])}


# ---- software preset: metrics equal the ratio of the raw counts ----------
N = 3000
r = workload("touch", N, env=env(HPCSHIM_PRESET="software"))
d = r.doc
mt = main_thread(d)
touch = region(mt, "touch")
t.eq(touch["inclusive"]["page-faults"], N, "software preset: touch %d pages gives %d faults" % (N, N))
names = [e["name"] for e in d["events"]]
t.eq(names, ["task-clock", "page-faults", "minor-faults", "major-faults",
             "context-switches", "cpu-migrations"],
     "software preset replaces the default set with its own events, in order")
t.eq(sets(d)[("preset", "software")]["status"], "ok", "software preset status ok")
for key in ("inclusive", "exclusive"):
    c = touch[key]
    m = metric(touch, key, "faults_per_ms")
    t.ok(m and close(m["value"], c["page-faults"] / (c["task-clock"] / 1e6)),
         "touch %s: faults_per_ms = page-faults / task-clock ms (%r vs %r / %r)"
         % (key, m, c["page-faults"], c["task-clock"]))
    m = metric(touch, key, "ns_per_fault")
    t.ok(m and close(m["value"], c["task-clock"] / c["page-faults"]),
         "touch %s: ns_per_fault = task-clock / page-faults (%r)" % (key, m))
    m = metric(touch, key, "major_fault_share")
    t.ok(m and close(m["value"], c["major-faults"] / c["page-faults"]),
         "touch %s: major_fault_share = major / all faults (%r)" % (key, m))
rs = workload("sleep", 20, 200, env=env(HPCSHIM_PRESET="software"))
sl = region(main_thread(rs.doc), "sleep")
c = sl["inclusive"]
t.ok(c["context-switches"] >= 20, "20 sleeps: >= 20 context switches (%r)" % c["context-switches"])
m = metric(sl, "inclusive", "cs_per_ms")
t.ok(m and close(m["value"], c["context-switches"] / (c["task-clock"] / 1e6)),
     "sleep: cs_per_ms = context-switches / task-clock ms (%r)" % m)
# cpu-migrations / context-switches in touch: a division by zero when the
# region did not switch, else the ratio.
m = metric(touch, "inclusive", "migrations_per_cs")
if touch["inclusive"]["context-switches"] == 0:
    t.eq(m, {"value": None, "reason": "division by zero"},
         "touch without switches: migrations_per_cs is null, division by zero")
else:
    t.ok(close(m["value"], touch["inclusive"]["cpu-migrations"] / touch["inclusive"]["context-switches"]),
         "touch with switches: migrations_per_cs is the ratio")
tot = d["totals"]
m = metric(d, "totals", "faults_per_ms")
t.ok(m and close(m["value"], tot["page-faults"] / (tot["task-clock"] / 1e6)),
     "process totals_metrics over the process totals (%r)" % m)
m = metric(mt, "totals", "ns_per_fault")
t.ok(m and close(m["value"], mt["totals"]["task-clock"] / mt["totals"]["page-faults"]),
     "thread totals_metrics over the thread totals (%r)" % m)
pr = proc_region(d, "touch")
m = metric(pr, "inclusive", "faults_per_ms")
t.ok(m and close(m["value"], pr["inclusive"]["page-faults"]["sum"] /
                 (pr["inclusive"]["task-clock"]["sum"] / 1e6)),
     "region summary metrics over the sums across threads (%r)" % m)
t.eq(r.shim_lines(), [], "software preset: no hpcshim line")

# Per thread: each thread's own counts.
r = workload("threads", 3, 100, env=env(HPCSHIM_PRESET="software"))
ok = True
for th in r.doc["threads"]:
    w = region(th, "work")
    if w:
        m = metric(w, "inclusive", "faults_per_ms")
        c = w["inclusive"]
        ok &= bool(m) and close(m["value"], c["page-faults"] / (c["task-clock"] / 1e6))
t.ok(ok and len(r.doc["threads"]) == 4, "3 threads: every thread's work region has its own metric")

# ---- hardware presets and classes on a host without a PMU ----------------
# Every expectation comes from this model's own definitions: the block of
# the data file each set names in defined_at, and the JSON's own sets.  The
# host's model (Intel or AMD, whichever libpfm4 detects) and one forced
# Intel and one forced AMD model run on every host.
HWSETS = dict(HPCSHIM_PRESET="cpi,cache", HPCSHIM_OPCODE="loads,branches,divides")
bare = workload("touch", 100, "exit", 5, preload=False)
host = workload(env=env(HPCSHIM_PRESET="cpi")).doc["presets"]["model"]
t.diag("CPU model detected by libpfm4: %s" % host)
for model in [None] + [m for m in ("clx", "amd64_fam19h_zen4") if m != host]:
    name = model or "host model %s" % host
    force = {"LIBPFM_FORCE_PMU": model} if model else {}
    if HW and model:
        t.skip("%s: hardware sets dropped with reasons" % name, "this host has a hardware PMU")
        continue
    r = workload("touch", 100, "exit", 5, env=env(**HWSETS, **force))
    t.eq((r.rc, r.out), (bare.rc, bare.out), "%s, hardware sets: exit code and stdout unchanged" % name)
    if HW:
        t.skip("hardware sets dropped with reasons", "this host has a hardware PMU")
        continue
    d = r.doc
    t.eq(d["presets"]["model"], model or host, "%s: the model is recorded" % name)
    t.eq(r.shim_lines(), [], "%s, hardware sets on a VM: no line at verbosity 0" % name)
    ss = sets(d)
    t.eq(sorted(ss), [("opcode", "branches"), ("opcode", "divides"), ("opcode", "loads"),
                      ("preset", "cache"), ("preset", "cpi")], "%s: every requested set is listed" % name)
    # A CPU libpfm4 does not know (a newer family than its tables, e.g. an
    # AMD family 1Ah here): the presets fall back to perf's generic events
    # (dropped on a VM), the opcode classes have no definition at all.
    nomodel = (model or host) is None
    NODEF = "no definition for this CPU (libpfm4 detects no core PMU model on this CPU)"
    t.ok(all(s["status"] == "dropped" and "dropped: ENOENT" in s["reason"]
             if not nomodel or k[0] == "preset" else
             s["status"] == "unavailable" and s["reason"] == NODEF
             for k, s in ss.items()),
         "%s: every hardware set dropped with the ENOENT reason%s"
         % (name, ", every opcode class unavailable: no definition" if nomodel else ""))
    dropped = [e for e in d["events"] if e["status"] == "dropped"]
    t.ok(dropped and all(e["error"] == "ENOENT" for e in dropped) and len(dropped) == len(d["events"]),
         "%s: their events are in events[] as dropped, ENOENT (%d)" % (name, len(dropped)))
    mm = main_thread(d)["totals_metrics"]
    t.ok(mm and all(v["value"] is None and v["reason"].startswith("event '") and "dropped" in v["reason"]
                    for v in mm.values()),
         "%s: every metric is null with the dropped event as reason (%d metrics)" % (name, len(mm)))
    # the sets with a definition (on an unknown CPU the classes have none)
    defined = [s for s in ss.values() if "defined_at" in s]
    want = set()
    for s in defined:
        want |= set(s["metrics"])
    filed = set()
    for s in defined:
        filed |= set(preset_block(s["defined_at"])["metrics"])
    t.ok(want and set(mm) == want == filed,
         "%s: the metrics of the sets' data-file blocks are all there (%d)" % (name, len(want)),
         "thread metrics %s\nsets' metrics %s\ndata files %s" % (sorted(mm), sorted(want), sorted(filed)))
    t.ok(all(s["events"] == preset_block(s["defined_at"])["events"] for s in defined),
         "%s: each set counts the events of its data-file block" % name)
    t.eq(d["totals"], {}, "%s: nothing counted: empty totals, no garbage" % name)
    rv = workload("touch", 100, "exit", 5, env=env(HPCSHIM_VERBOSE=1, **HWSETS, **force))
    lines = [l for l in rv.shim_lines() if "not counted" in l]
    t.eq(len(lines), 5, "%s, verbosity 1: one line per set not counted (%r)" % (name, lines))
    t.ok(any(l.startswith("hpcshim: HPCSHIM_OPCODE: class 'loads' not counted: " +
                          (NODEF if nomodel else "event '")) for l in lines),
         "%s, verbosity 1: the class line names the event and reason" % name)

# All classes at once: the program runs, each class has a status and a reason.
allc = "loads,stores,branches,flops,fp-single,fp-double,simd,sw-prefetch,atomics,split,divides"
r = workload("touch", 10, env=env(HPCSHIM_OPCODE=allc, HPCSHIM_PRESET="software"))
ss = sets(r.doc)
t.eq(len(ss), 12, "all 11 opcode classes and the software preset are listed")
t.ok(all(s["status"] == "ok" or s.get("reason") for s in ss.values()),
     "each set is ok or carries a reason")
t.eq(ss[("preset", "software")]["status"], "ok", "software preset still counted next to all classes")
t.eq(region(main_thread(r.doc), "touch")["inclusive"]["page-faults"], 10,
     "touch 10 under all classes: exact faults")

# ---- HPCSHIM_EVENTS and presets together ----------------------------------
r = workload("touch", 50, env=env(HPCSHIM_EVENTS="page-faults,cs", HPCSHIM_PRESET="software"))
names = [e["name"] for e in r.doc["events"]]
t.eq(names, ["page-faults", "cs", "task-clock", "minor-faults", "major-faults",
             "context-switches", "cpu-migrations"],
     "user events first, preset events after, a shared spec counted once")
t.ok(all(e["status"] == "ok" for e in r.doc["events"]), "all of them counted")
m = metric(region(main_thread(r.doc), "touch"), "inclusive", "faults_per_ms")
t.ok(m and m["value"] is not None, "the metric uses the user's page-faults event")
r = workload(env=env(HPCSHIM_EVENTS="task-clock", HPCSHIM_PRESET="cpi"))
t.ok(not HW and r.shim_lines() == [] or HW,
     "dropped preset events are not reported as HPCSHIM_EVENTS problems")

# ---- unknown names: one line each, the program runs ----------------------
r = workload("touch", 20, "exit", 4, env=env(HPCSHIM_PRESET="nope,software,other"))
l = r.shim_lines()
t.eq(len(l), 1, "unknown presets: one line (%r)" % l)
t.ok(l and l[0].startswith("hpcshim: HPCSHIM_PRESET: unknown presets 'nope', 'other' (known: ")
     and "software" in l[0], "the line names them and the known presets: %r" % l)
t.eq((r.rc, r.out), (4, workload("touch", 20, "exit", 4, preload=False).out),
     "unknown presets: the program runs unchanged")
ss = sets(r.doc)
t.eq((ss[("preset", "nope")]["status"], ss[("preset", "nope")]["reason"]),
     ("unknown", "unknown preset 'nope'"), "unknown preset in the results with its reason")
r = workload("touch", 20, env=env(HPCSHIM_OPCODE="loadz"))
l = r.shim_lines()
t.ok(len(l) == 1 and l[0].startswith("hpcshim: HPCSHIM_OPCODE: unknown class 'loadz' (known: loads, "),
     "unknown class: one line with the known classes (%r)" % l)
t.eq(r.doc["events"][0]["name"], "task-clock", "only unknown names: the default set is counted")
t.eq(region(main_thread(r.doc), "touch")["inclusive"]["page-faults"], 20, "and it counts")

# ---- preset files: user path first, malformed blocks skipped -------------
with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    with open(os.path.join(tmp, "mine.preset"), "w") as f:
        f.write("# a user's presets\n"
                "preset faults *\n"
                "  event pf = page-faults\n"
                "  event clk = task-clock\n"
                "  metric per_us = pf / (clk / 1000)\n"
                "end\n"
                "preset broken *\n"
                "  event pf = page-faults\n"
                "  metric bad = pf / (pf\n"
                "end\n"
                "preset software *\n"
                "  description my own software set\n"
                "  event pf = page-faults\n"
                "  metric pages = pf\n"
                "end\n")
    e = {"HPCSHIM_PRESET_PATH": tmp + ":" + DATA}
    e["HPCSHIM_PRESET"] = "faults,broken,software,generic"
    r = workload("touch", 64, "exit", 2, env=e)
    l = r.shim_lines()
    path = os.path.join(tmp, "mine.preset")
    diag = "%s:9: preset 'broken': metric 'bad': column 9: expected ')' (preset skipped)" % path
    t.eq(l, ["hpcshim: " + diag], "malformed block: one FILE:LINE diagnostic")
    t.eq(r.rc, 2, "malformed preset file: the program runs (exit 2)")
    ss = sets(r.doc)
    t.eq((ss[("preset", "broken")]["status"], ss[("preset", "broken")]["reason"]),
         ("invalid", "malformed definition: " + diag), "the requested malformed preset: invalid, why")
    touch = region(main_thread(r.doc), "touch")
    t.eq(ss[("preset", "software")]["description"], "my own software set",
         "a user directory's block wins over the installed one")
    t.eq(metric(touch, "inclusive", "pages"), {"value": 64.0}, "user metric pages = 64 touched pages")
    m = metric(touch, "inclusive", "per_us")
    c = touch["inclusive"]
    t.ok(m and close(m["value"], c["page-faults"] / (c["task-clock"] / 1000)),
         "user formula evaluated over the raw counts (%r)" % m)
    t.ok(ss[("preset", "generic")]["defined_at"].startswith(DATA),
         "a name the user does not define comes from the installed files")

# ---- model selection by libpfm4's PMU (LIBPFM_FORCE_PMU) ------------------
r = workload(env=env(LIBPFM_FORCE_PMU="amd64_fam19h_zen4", HPCSHIM_PRESET="cpi,software",
                     HPCSHIM_OPCODE="atomics"))
d = r.doc
ss = sets(d)
t.eq(d["presets"]["model"], "amd64_fam19h_zen4", "forced model recorded")
t.ok(ss[("preset", "cpi")]["defined_at"].startswith(os.path.join(DATA, "amd.preset")),
     "zen4: cpi from amd.preset (%s)" % ss[("preset", "cpi")]["defined_at"])
t.eq(ss[("preset", "cpi")]["events"]["inst"], "RETIRED_INSTRUCTIONS", "zen4: AMD event names")
t.eq(ss[("opcode", "atomics")]["status"], "unavailable", "zen4: atomics unavailable")
t.ok(ss[("opcode", "atomics")]["reason"].startswith("CPU model 'amd64_fam19h_zen4': Zen 3/4 count only bus locks"),
     "zen4: the data file's reason (%r)" % ss[("opcode", "atomics")]["reason"])
t.eq(ss[("preset", "software")]["status"], "ok", "software preset works under a forced model")
r = workload(env=env(LIBPFM_FORCE_PMU="hsw", HPCSHIM_PRESET="cpi,tlb", HPCSHIM_OPCODE="loads"))
ss = sets(r.doc)
t.ok(ss[("preset", "cpi")]["defined_at"].startswith(os.path.join(DATA, "generic.preset")),
     "hsw (no block): cpi falls back to the '*' definition on generic events")
t.eq(ss[("preset", "cpi")]["events"], {"cycles": "cycles", "inst": "instructions"},
     "the fallback counts perf generic events")
t.eq((ss[("preset", "tlb")]["status"], ss[("preset", "tlb")]["reason"].split(": ", 1)[0]),
     ("unavailable", "CPU model 'hsw'"), "hsw: tlb unavailable from its '*' block")
t.eq((ss[("opcode", "loads")]["status"], ss[("opcode", "loads")]["reason"]),
     ("unavailable", "no definition for CPU model 'hsw'"), "hsw: no opcode class definition")

# ---- event limit: preset events beyond 64 ---------------------------------
user = ",".join("r%x" % (0x100 + i) for i in range(62))
r = workload("touch", 5, env=env(HPCSHIM_EVENTS=user, HPCSHIM_PRESET="software"))
l = [x for x in r.shim_lines() if "beyond the limit" in x]
t.eq(l, ["hpcshim: HPCSHIM_PRESET/HPCSHIM_OPCODE: 4 events beyond the limit of 64 not counted"],
     "62 user events + 6 preset events: 4 not counted, one line")
t.eq(len(r.doc["events"]), 64, "the list holds 64 events")
mm = main_thread(r.doc)["totals_metrics"]
t.ok(mm["cs_per_ms"]["reason"] == "event 'context-switches' not counted: more than 64 events requested",
     "a metric over an event left out says so (%r)" % mm["cs_per_ms"])

# ---- listing: HPCSHIM_LIST=1 and hpcshim-list ------------------------------
bare = workload("touch", 10, preload=False)
r = workload("touch", 10, env=env(HPCSHIM_LIST=1))
l = r.shim_lines()
t.eq((r.rc, r.out), (bare.rc, bare.out), "HPCSHIM_LIST=1: the program runs unchanged")
t.ok(l and l[0].startswith("hpcshim: CPU model (libpfm4): "), "listing starts with the CPU model")
t.ok("hpcshim: presets (HPCSHIM_PRESET):" in l and "hpcshim: opcode classes (HPCSHIM_OPCODE):" in l,
     "listing has the preset and opcode-class sections")
sw = [x for x in l if x.startswith("hpcshim:   software ")]
t.ok(len(sw) == 1 and " usable: 6 events, 5 metrics " in sw[0], "software preset listed usable (%r)" % sw)
if not HW:
    ld = [x for x in l if x.startswith("hpcshim:   loads ")]
    # a CPU libpfm4 knows: the class's event is dropped; one it does not:
    # the class has no definition (the model is printed as '(none)')
    why = ("not usable: no definition for CPU model '(none)'",) if host is None else \
          ("not usable: event '", "ENOENT")
    t.ok(len(ld) == 1 and all(w in ld[0] for w in why),
         "loads listed not usable, with the reason (%r)" % ld)
t.eq(region(main_thread(r.doc), "touch")["inclusive"]["page-faults"], 10, "HPCSHIM_LIST=1: counting goes on")
p = subprocess.run([os.path.join(BUILD, "hpcshim-list")], capture_output=True, encoding="utf-8",
                   env=dict(os.environ, HPCSHIM_PRESET_PATH=DATA, LIBPFM_FORCE_PMU="arm_n1"))
# An x86 libpfm4 cannot force an Arm model: then no model, '*' only.
out = p.stdout.splitlines()
t.ok(p.returncode == 0 and out and out[0].startswith("CPU model (libpfm4): "),
     "hpcshim-list runs and prints the model (%r)" % out[:1])
t.ok(any(x.startswith("  software ") and "usable" in x for x in out), "hpcshim-list lists the software preset")
# Range forms, tried as the shim uses them: software sampling works here,
# hardware sampling has no PMU (ENOENT), x86 has 4 debug registers.
ranges = {x[2:26].strip(): x[26:].strip() for x in out if x.startswith("  ") and
          (x[2:].startswith("ranges") or x[2:].startswith("checkpoints") or
           x[2:].startswith("points") or x[2:].startswith("privilege"))}
t.ok(ranges.get("ranges, software events", "").startswith("usable"),
     "listing: ranges on software events usable (%r)" % ranges.get("ranges, software events"))
if can_open_hardware():
    t.ok(ranges.get("ranges, hardware events", "").startswith("usable"), "listing: hardware sampling usable")
else:
    t.eq(ranges.get("ranges, hardware events", "")[:21], "not usable: ENOENT: e",
         "listing: no hardware PMU here: hardware sampling not usable, with the errno")
# Checkpoint and trigger ways, each checked as the shim checks it (a point
# on a function executed once must count 1): the listing agrees with the
# shim's own verdict, whichever it is on this host.
for form, method, usable in (("points: breakpoints", "breakpoint",
                              "usable: 4 execute breakpoints per thread"),
                             ("points: uprobes", "uprobe", "usable: no register limit")):
    why = point_method_why(method)
    got = ranges.get(form, "")
    if why:
        t.eq(got, "not usable: " + why, "listing: %s not usable here, as the shim finds" % method)
    elif method == "breakpoint" and os.uname().machine != "x86_64":
        t.ok(got.startswith("usable: "), "listing: breakpoints usable (%r)" % got)
    else:
        t.ok(got.startswith(usable), "listing: %s usable (%r)" % (method, got))
r = workload(env=env(HPCSHIM_LIST="yes"))
t.eq(r.shim_lines(), ["hpcshim: HPCSHIM_LIST='yes' is not 0 or 1; not listing"], "bad HPCSHIM_LIST: one line")

# ---- under rotation: metrics over the values printed beside them ----------
# HPCSHIM_MUX=rotate with the software preset split into three user groups:
# every value is an estimate over its group's slices, and each "<key>_metrics"
# must be its formula over the numbers of the same object (a null input gives
# a null metric naming the event, a zero divisor "division by zero").
# Printed thread values and process totals are rounded estimates while the
# metrics take them unrounded: each input may be off by 0.5.


def formula_check(obj, key, formulas, get):
    """Problems of obj[key + "_metrics"] against formulas over get(obj[key], spec)."""
    bad = []
    vals = obj[key]
    ms = obj.get(key + "_metrics") or {}
    for name, (aliases, text) in formulas.items():
        m = ms.get(name)
        ins = {a: get(vals, spec) for a, spec in aliases.items() if a in text}
        if m is None:
            bad.append("%s: %s missing" % (key, name))
        elif any(v is None for v in ins.values()):
            if m["value"] is not None or not m.get("reason", "").startswith("event '"):
                bad.append("%s: %s = %r with a null input %r" % (key, name, m, ins))
        else:
            try:
                want = eval(text, {"__builtins__": {}, "min": min, "max": max,
                                   "ratio": lambda a, b: a / b}, dict(ins))
            except ZeroDivisionError:
                want = None
            tol = 1e-9 + sum(0.5 / abs(v) for v in ins.values() if v)
            if want is None:
                if m != {"value": None, "reason": "division by zero"}:
                    bad.append("%s: %s = %r, want division by zero %r" % (key, name, m, ins))
            elif m["value"] is None or abs(m["value"] - want) > tol * max(1e-300, abs(want)):
                bad.append("%s: %s = %r, want %r (tolerance %.2g) from %r"
                           % (key, name, m["value"], want, tol, ins))
    return bad


RGROUPS = "{task-clock},{page-faults,minor-faults,major-faults},{context-switches,cpu-migrations}"
r = workload("busy", 50, "touch", 20000, "threads", 2, 2000, "sleep", 5, 1000,
             env=env(HPCSHIM_PRESET="software", HPCSHIM_EVENTS=RGROUPS, HPCSHIM_MUX="rotate",
                     HPCSHIM_MUX_SLICE="100us"))
d = r.doc
sw = sets(d)[("preset", "software")]
formulas = {n: (sw["events"], f) for n, f in sw["metrics"].items()}
t.ok(d["mux"]["mode"] == "rotate" and sum(g["rotated"] for g in d["groups"]) == 3 and
     main_thread(d)["rotation"]["active"],
     "rotate, software preset in 3 user groups: all 3 rotate on the main thread")
scaled = sum(len(th.get("totals_multiplexed", {})) for th in d["threads"])
t.ok(scaled > 0, "rotation makes estimates (%d thread totals multiplexed)" % scaled)
bad, objs = [], 0
for th in d["threads"]:
    bad += ["thread %d %s" % (th["tid"], b) for b in formula_check(th, "totals", formulas, dict.get)]
    objs += 1
    for rg in th["regions"]:
        for key in ("inclusive", "exclusive"):
            bad += ["thread %d region %s %s" % (th["tid"], rg["name"], b)
                    for b in formula_check(rg, key, formulas, dict.get)]
            objs += 1
t.ok(not bad, "rotate: every thread's and region's metrics are their formulas over the "
     "values beside them (%d objects, %d wrong)" % (objs, len(bad)), "\n".join(bad))
bad = formula_check(d, "totals", formulas, dict.get)
t.ok(not bad, "rotate: process totals_metrics over the process totals", "\n".join(bad))
bad = []
for pr in d["regions"]:
    for key in ("inclusive", "exclusive"):
        bad += ["region %s %s" % (pr["name"], b) for b in formula_check(
            pr, key, formulas, lambda v, s: (v.get(s) or {}).get("sum"))]
t.ok(not bad, "rotate: region summary metrics over the sums across threads", "\n".join(bad))

# ---- hpcshim-report prints the sets and the metrics ------------------------
with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o1777)
    r = workload("touch", 500, outdir=tmp, env=env(HPCSHIM_PRESET="software,cpi"))
    files = [os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".json")]
    p = subprocess.run([os.path.join(BUILD, "hpcshim-report")] + files, capture_output=True,
                       encoding="utf-8")
    rep = p.stdout.splitlines()
    c = region(main_thread(r.doc), "touch")["inclusive"]
    want = "%.4g" % (c["page-faults"] / (c["task-clock"] / 1e6))
    row = [x.split() for x in rep if x.split()[:1] == ["faults_per_ms"]]
    t.ok(p.returncode == 0 and "  preset software: ok" in rep, "report lists the software preset as ok")
    t.ok(row and row[0][2] == want, "report: faults_per_ms of region touch is %s (%r)" % (want, row))
    cpi = main_thread(r.doc)["totals_metrics"]["cpi"]
    t.ok(HW or any(x.startswith("  n/a cpi: " + cpi["reason"][:cpi["reason"].index(" dropped") + 8])
                   for x in rep),
         "report: a null metric is shown with its reason (%r)" % cpi)

t.done()
