"""HPCSHIM_PRESET=topdown / topdown2 under the shim: the tree is the one for
libpfm4's model (forced here to an Intel and an AMD model, on any host), its
events are asked for, and every thread, region (inclusive and exclusive),
region summary and the process totals carry "<key>_drilldown".  These VMs
have no hardware PMU: every node is null with the drop reason, never 0, no
bottleneck and no next step; the software events asked for alongside stay
exact."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import SRC, Tap, workload, main_thread, region, proc_region, can_open_hardware

t = Tap()
DATA = os.path.join(SRC, "data", "presets")
PAGES = 300

# model -> (tree file, a level-1 node, a level-2 node)
MODELS = {"skx": ("intel-skx.tree", "backend_bound", "memory_bound"),
          "amd64_fam19h_zen4": ("amd-zen4.tree", "backend_bound", "backend_bound_memory")}

if can_open_hardware():
    for m in MODELS:
        t.skip("%s: topdown nodes null with the drop reason" % m,
               "this host has a hardware PMU: a forced model would count")
    t.done()
    raise SystemExit(0)


def all_null(dd, where, level2, l1, l2):
    if not isinstance(dd, dict):
        t.ok(False, "%s: has a drilldown object" % where, dd)
        return
    nodes = dd.get("nodes", [])
    ids = [n["id"] for n in nodes]
    bad = [n for n in nodes if n.get("value") is not None or "dropped" not in (n.get("reason") or "")]
    t.ok(nodes and not bad, "%s: %d nodes, each null with the drop reason (never 0)"
         % (where, len(nodes)), bad[:2])
    t.ok(l1 in ids and (l2 in ids) == level2,
         "%s: level-1 node %s present, level-2 node %s %s" % (where, l1, l2, "present" if level2 else "absent"), ids)
    t.ok(dd.get("bottleneck") is None and dd.get("next") is None,
         "%s: no bottleneck and no next step without values" % where)


for model, (tfile, l1, l2) in MODELS.items():
    for name in ("topdown", "topdown2"):
        lvl2 = name == "topdown2"
        r = workload("nested", PAGES, 100, env={"LIBPFM_FORCE_PMU": model, "HPCSHIM_PRESET_PATH": DATA,
                                                  "HPCSHIM_PRESET": name,
                                                  "HPCSHIM_EVENTS": "page-faults:u,task-clock"})
        tag = "%s %s" % (model, name)
        if not r.docs:
            t.ok(False, "%s: a result file" % tag, r.err)
            continue
        d = r.doc
        t.eq(r.rc, 0, "%s: the program's exit status is unchanged" % tag)
        sets = d.get("presets", {}).get("sets", [])
        s = sets[0] if sets else {}
        t.ok(d.get("presets", {}).get("model") == model and s.get("name") == name
             and s.get("status") == "dropped" and tfile in s.get("defined_at", ""),
             "%s: set from %s, dropped with a reason (%s)" % (tag, tfile, s.get("reason")))
        dd = d.get("totals_drilldown") or {}
        t.eq(dd.get("tree"), name, "%s: the totals name the tree level asked for" % tag)
        all_null(dd, tag + " totals", lvl2, l1, l2)
        mt = main_thread(d)
        all_null(mt.get("totals_drilldown") if mt else None, tag + " main thread", lvl2, l1, l2)
        outer = region(mt, "outer") if mt else None
        for k in ("inclusive", "exclusive"):
            all_null(outer.get(k + "_drilldown") if outer else None, "%s region outer %s" % (tag, k),
                     lvl2, l1, l2)
        pr = proc_region(d, "inner")
        all_null(pr.get("inclusive_drilldown") if pr else None, tag + " region summary inner", lvl2, l1, l2)
        # The software events are still exact beside the tree's.
        inner = region(mt, "inner") if mt else None
        t.eq(inner and inner["inclusive"].get("page-faults:u"), 100,
             "%s: region inner still counts its 100 first touches exactly" % tag)
t.done()
