#!/usr/bin/env python3
"""muxresults.py - bench/mux.sh's helper.

  muxresults.py check DIR VARIANT UNITS   one JSON line: what the shim says
  muxresults.py table SAMPLES CHECKS HEADER...

A process times REPS loops; its value is their median.  The ratio of the
rotated runs to the runs without rotation is taken inside each round and
the median over rounds is reported (drift between rounds cancels out).
"""
import glob
import json
import os
import statistics
import sys

ROTATE_MAX = 1.02  # target: rotation costs at most 2% of the run time


def cmd_check(d, variant, units):
    """units: units run in all (not checked: the region counts loops)."""
    files = glob.glob(os.path.join(d, "hpcshim-*.json"))
    out = {"ok": False}
    if len(files) != 1:
        out["problem"] = "%d result files" % len(files)
    else:
        with open(files[0], encoding="utf-8") as f:
            doc = json.load(f)
        t = doc["threads"][0]
        work = next((r for r in t["regions"] if r["name"] == "work"), None)
        rot = t.get("rotation") or {}
        dropped = [e["name"] for e in doc["events"] if e["status"] != "ok"]
        if dropped:
            out["problem"] = "dropped: %s" % ", ".join(dropped)
        elif not work or work["calls"] < 2:
            out["problem"] = "no region work"
        elif variant == "rotate" and not (rot.get("active") and rot.get("signals", 0) > 0):
            out["problem"] = "rotation not active: %r" % rot
        elif variant == "kernel" and doc["mux"]["mode"] != "kernel":
            out["problem"] = "mode %s" % doc["mux"]["mode"]
        else:
            out["ok"] = True
            if variant == "rotate":
                out["handler_share"] = rot["handler_share"]
                out["signals"] = rot["signals"]
                out["cpu_ns"] = t["totals"]["task-clock"]
    print(json.dumps(out))


def cmd_table(samples, checks, headers):
    per = {}  # (round, variant) -> [ns]
    with open(samples) as f:
        for line in f:
            r, v, ns = line.rstrip("\n").split("\t")
            per.setdefault((int(r), v), []).append(float(ns))
    val = {k: statistics.median(v) for k, v in per.items()}
    rounds = sorted({r for r, _ in val})
    probs, shares, rates = [], [], []
    with open(checks) as f:
        for line in f:
            r, v, js = line.rstrip("\n").split("\t", 2)
            c = json.loads(js)
            if not c["ok"]:
                probs.append("round %s %s: %s" % (r, v, c["problem"]))
            elif v == "rotate":
                shares.append(c["handler_share"])
                rates.append(c["signals"] / (c["cpu_ns"] / 1e9))
    for h in headers:
        print("# " + h)
    print("%-28s %12s %12s %10s" % ("variant", "median ns", "min ns", "ratio"))
    for v, base in (("none", None), ("kernel", "none"), ("rotate", "kernel")):
        vs = [val[(r, v)] for r in rounds if (r, v) in val]
        if not vs:
            continue
        ratio = ""
        if base:
            rs = [val[(r, v)] / val[(r, base)] for r in rounds if (r, v) in val and (r, base) in val]
            ratio = "%.4f" % statistics.median(rs)
        print("%-28s %12.1f %12.1f %10s" % (v + ("" if not base else " / " + base), statistics.median(vs),
                                           min(x for r in rounds for x in per.get((r, v), [])), ratio))
    rs = [val[(r, "rotate")] / val[(r, "kernel")] for r in rounds if (r, "rotate") in val and (r, "kernel") in val]
    if rs:
        med = statistics.median(rs)
        print("rotation cost: %+.2f%% of the run time (median over %d rounds; spread %+.2f%% .. %+.2f%%) "
              "target <= %+.0f%%: %s" % (100 * (med - 1), len(rs), 100 * (min(rs) - 1), 100 * (max(rs) - 1),
                                         100 * (ROTATE_MAX - 1), "PASS" if med <= ROTATE_MAX and not probs else
                                         "MISS" if not probs else "INVALID"))
    if shares:
        print("the shim's own account: %.0f signals per CPU second, handler %.2f%% of the rotated time (median)"
              % (statistics.median(rates), 100 * statistics.median(shares)))
    for p in probs:
        print("INVALID: " + p)


def main(argv):
    if len(argv) == 5 and argv[1] == "check":
        cmd_check(argv[2], argv[3], int(argv[4]))
    elif len(argv) >= 4 and argv[1] == "table":
        cmd_table(argv[2], argv[3], argv[4:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
