#!/usr/bin/env python3
"""results.py - bench/run.sh's helper: reads the shim's and PAPI's result
files, checks that what was timed was counted, and prints the table.

  results.py partition DIR                    the shim's groups, "a,b/c"
  results.py check-shim DIR EXPECTED GROUPS   "VARIANT<TAB>ok|problem" lines
  results.py check-papi DIR EXPECTED EVENTS STDERR_FILE
  results.py table SAMPLES CHECKS h:HEADER... eK:EVENTS... gK:GROUPS...

Statistics: a process times REPS loops of each variant; its value is their
median.  A row's "median" is the median over rounds of those values, "min"
the fastest loop of all.  A ratio is taken inside each round (the variant's
value over the baseline's of the same round, measured minutes apart at
most) and the median over rounds is reported: drift of the machine between
rounds cancels out.
"""
import glob
import json
import os
import statistics
import sys

SHIM_REGIONS = {"shim.literal": "bench.literal", "shim.runtime": "bench.runtime"}

# Targets (issue 4).  Never a failure: printed as PASS or MISS.
FLOOR_MAX = 1.15     # shim pair <= 1.15 x raw floor
PAPI_MIN = 1.6       # PAPI HL pair >= 1.6 x shim pair
ABSENT_MAX_NS = 1.0  # annotations without the shim: <= 1 ns over none


def shim_doc(d):
    files = glob.glob(os.path.join(d, "hpcshim-*.json"))
    if len(files) != 1:
        raise SystemExit("expected one hpcshim result in %s, found %d" % (d, len(files)))
    with open(files[0], encoding="utf-8") as f:
        return json.load(f)


def partition(doc):
    groups = {}
    for e in doc["events"]:
        if e["status"] != "ok":
            raise SystemExit("event %s dropped: %s" % (e["name"], e.get("reason")))
        # A clock read from its group's time running is no member: the
        # floor reads the group without it.
        if not e.get("from_group_time"):
            groups.setdefault(e["group"], []).append(e["name"])
    return "/".join(",".join(groups[g]) for g in sorted(groups))


def cmd_partition(d):
    print(partition(shim_doc(d)))


def cmd_check_shim(d, expected, groups):
    try:
        doc = shim_doc(d)
        part = partition(doc)
    except SystemExit as e:
        for v in SHIM_REGIONS:
            print("%s\t%s" % (v, e))
        return
    thread = doc["threads"][0]
    regions = {r["name"]: r for r in thread["regions"]}
    # The floor does one read() per group at each boundary; the shim's own
    # tally (when it keeps one) says whether that is what it did.
    reads = thread.get("reads")
    calls = sum(r["calls"] for r in regions.values())
    per_pair = None
    if reads and calls:
        per_pair = (reads.get("syscall", 0) + reads.get("user", 0)) / calls
        print("info\tcounter reads per pair, from its own tally: %.2f (method %s)"
              % (per_pair, reads.get("method")))
    want = 2 * (groups.count("/") + 1)
    for v, name in SHIM_REGIONS.items():
        r = regions.get(name)
        if part != groups:
            print("%s\tgroups %s, not %s" % (v, part, groups))
        elif per_pair is not None and (reads.get("user", 0) or abs(per_pair - want) > 0.01):
            print("%s\t%.2f reads per pair (%s user-space), the floor does %d read()"
                  % (v, per_pair, reads.get("user", 0), want))
        elif r is None:
            print("%s\tNOT COUNTED: no region %s in the shim's results" % (v, name))
        elif r["calls"] != int(expected):
            print("%s\tNOT COUNTED: %s calls recorded of %s" % (v, r["calls"], expected))
        elif any(x is None for x in r["inclusive"].values()):
            print("%s\tvalues unknown (null) in region %s" % (v, name))
        else:
            print("%s\tok" % v)


def cmd_check_papi(d, expected, events, errfile):
    """PAPI HL writes every region instance; its file can be large, so it
    is scanned as text rather than parsed."""
    err = ""
    if os.path.exists(errfile):
        with open(errfile, encoding="utf-8", errors="replace") as f:
            err = " ".join(f.read().split())[:300]
    files = glob.glob(os.path.join(d, "papi_hl_output*", "*.json"))
    if len(files) != 1:
        print("papi\tno PAPI output file (%d found)%s" % (len(files), "; PAPI said: " + err if err else ""))
        return
    with open(files[0], encoding="utf-8", errors="replace") as f:
        text = f.read()
    head = text[: text.find('"threads"')]
    missing = [e for e in events.split(",") if '"%s":{' % e not in head]
    calls = text.count('"name":"bench.papi"')
    if missing:
        print("papi\tPAPI did not count %s%s" % (",".join(missing), "; PAPI said: " + err if err else ""))
    elif calls != int(expected):
        print("papi\t%d region instances recorded of %s" % (calls, expected))
    else:
        print("papi\tok")


def load_samples(path):
    """-> {(k, variant): {round: [ns, ...]}}"""
    data = {}
    with open(path) as f:
        for line in f:
            rnd, k, v, ns = line.rstrip("\n").split("\t")
            data.setdefault((k, v), {}).setdefault(int(rnd), []).append(float(ns))
    return data


def per_round(data, key):
    return {r: statistics.median(xs) for r, xs in data.get(key, {}).items()}


def paired(data, key, base, op):
    a, b = per_round(data, key), per_round(data, base)
    vals = [op(a[r], b[r]) for r in sorted(a) if r in b]
    return statistics.median(vals) if vals else None


def cmd_table(samples, checks, args):
    data = load_samples(samples)
    problems, info = {}, {}
    with open(checks) as f:
        for line in f:
            k, v, what = line.rstrip("\n").split("\t", 2)
            if v == "info":
                info.setdefault(k, set()).add(what)
            elif what != "ok":
                problems.setdefault((k, v), set()).add(what)
    # h:HEADER LINE, eK:EVENTS, gK:GROUPS for the event set of K events
    header = [a[2:] for a in args if a.startswith("h:")]
    events = {a[1:].split(":", 1)[0]: a.split(":", 1)[1] for a in args if a.startswith("e")}
    groups = {a[1:].split(":", 1)[0]: a.split(":", 1)[1] for a in args if a.startswith("g")}

    out = ["hpcshim: cost of one annotation pair (HPC_BEGIN + HPC_END)"]
    out += ["  " + h for h in header]
    for k in sorted(events, key=int):
        g = groups.get(k, "?")
        n = g.count("/") + 1
        out.append("  %s events: %s; shim groups %s: %d read() per boundary"
                   % (k, events[k], g, n))
        for i in sorted(info.get(k, ())):
            out.append("    shim " + i)
    out.append("")
    out.append("ns per pair: median over rounds (fastest loop); ratio: median of same-round ratios")
    fmt = "%-3s %-16s %10s %10s  %-15s %9s  %-10s %s"
    out.append(fmt % ("ev", "variant", "median", "min", "baseline", "ratio", "target", ""))
    notes = []

    def stats(key):
        rounds = per_round(data, key)
        if not rounds:
            return None, None
        allv = [x for xs in data[key].values() for x in xs]
        return statistics.median(rounds.values()), min(allv)

    def verdict(key, ok):
        if key in problems:
            for p in sorted(problems[key]):
                notes.append("%s %s: %s" % (key[0] if key[0] != "0" else "-", key[1], p))
            return "INVALID (see notes)"
        return "PASS" if ok else "MISS"

    def row(k, label, key, base=None, basel="", ratio=None, target="", status=""):
        med, mn = stats(key)
        if med is None:
            why = "not run"
            if key in problems or ("-", key[1]) in problems:
                verdict(key, False)
                why = "not run (see notes)"
            out.append(fmt % (k, label, "-", "-", "", "", "", why))
            return
        if status.startswith("INVALID"):
            ratio = "n/a"  # a pair that was not counted has no cost to compare
        nf = "%.1f" if med >= 10 else "%.2f"
        out.append(fmt % (k, label, nf % med, nf % mn, basel,
                          ratio if ratio is not None else "", target, status))

    for k in sorted(events, key=int):
        row(k, "floor (raw read)", (k, "floor"))
        for v, label in (("shim.literal", "shim literal"), ("shim.runtime", "shim run-time")):
            r = paired(data, (k, v), (k, "floor"), lambda a, b: a / b)
            if r is None:
                row(k, label, (k, v))
                continue
            row(k, label, (k, v), basel="/ floor", ratio="%.3f" % r,
                target="<= %.2f" % FLOOR_MAX, status=verdict((k, v), r <= FLOOR_MAX))
        for v, label in (("shim.literal", "PAPI / literal"), ("shim.runtime", "PAPI / run-time")):
            # How many times faster the shim's pair is than PAPI's.
            r = paired(data, (k, "papi"), (k, v), lambda a, b: a / b)
            if r is None:
                row(k, "PAPI HL", (k, "papi"))
                break
            status = ("INVALID (shim not counted)" if (k, v) in problems
                      else verdict((k, "papi"), r >= PAPI_MIN))
            row(k, label, (k, "papi"), basel="/ shim " + v[5:], ratio="%.3f" % r,
                target=">= %.2f" % PAPI_MIN, status=status)
    row("-", "none (no annot.)", ("0", "absent.none"))
    for v, label in (("absent.literal", "absent literal"), ("absent.runtime", "absent run-time")):
        d = paired(data, ("0", v), ("0", "absent.none"), lambda a, b: a - b)
        if d is None:
            continue
        row("-", label, ("0", v), basel="- none", ratio="%+.2f ns" % d,
            target="<= %.1f ns" % ABSENT_MAX_NS, status=verdict(("0", v), d <= ABSENT_MAX_NS))
    for key in sorted(problems):
        if key[0] == "-":
            for p in sorted(problems[key]):
                notes.append("%s: %s" % (key[1], p))
    if notes:
        out.append("")
        out.append("notes:")
        out += ["  " + n for n in dict.fromkeys(notes)]
    print("\n".join(out))


def main(argv):
    if len(argv) >= 2:
        cmd, rest = argv[1], argv[2:]
        if cmd == "partition" and len(rest) == 1:
            return cmd_partition(*rest)
        if cmd == "check-shim" and len(rest) == 3:
            return cmd_check_shim(*rest)
        if cmd == "check-papi" and len(rest) == 4:
            return cmd_check_papi(*rest)
        if cmd == "table" and len(rest) >= 2:
            return cmd_table(rest[0], rest[1], rest[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
