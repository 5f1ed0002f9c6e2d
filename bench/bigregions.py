#!/usr/bin/env python3
"""bigregions.py N OUT.json [FANOUT] - writes a process result (hpcshim/1)
with N regions in one thread, nested as a tree (region i's parent is
region (i-1)//FANOUT, FANOUT 8), and the process summary of each: the
input of the tools' scaling measurements (docs/benchmarks.md, "The tools
at 10^5 and 10^6 regions").  Names are unique; values are made up but
consistent (exclusive <= inclusive)."""
import json
import sys

EV = ("task-clock", "page-faults")


def main():
    n = int(sys.argv[1])
    out = sys.argv[2]
    fan = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    with open(out, "w") as f:
        f.write('{"schema": "hpcshim/1", "tool": "bigregions.py", "warnings": [],\n'
                '"process": {"pid": 1, "ppid": 0, "host": "bench", "rank": null, "size": null,'
                ' "job": null, "command": ["bigregions", "%d"], "start_ns": 0, "end_ns": %d,'
                ' "wall_ns": %d, "complete": true, "end": "exit", "exec_generation": 0},\n'
                '"events": [%s],\n' % (n, 10 * n, 10 * n, ", ".join(
                    json.dumps({"name": e, "status": "ok"}) for e in EV)))
        f.write('"totals": {"task-clock": %d, "page-faults": %d}, "thread_count": 1,\n' % (n * 10, n))
        f.write('"threads": [{"tid": 1, "wall_ns": %d, "totals": {"task-clock": %d,'
                ' "page-faults": %d}, "regions": [\n' % (10 * n, 10 * n, n))
        for i in range(n):
            p = json.dumps("r%d" % ((i - 1) // fan)) if i else "null"
            f.write('%s{"name": "r%d", "parent": %s, "calls": 1, "inclusive": {"task-clock": %d,'
                    ' "page-faults": 2}, "exclusive": {"task-clock": %d, "page-faults": 1},'
                    ' "wall_ns": {"inclusive": %d, "exclusive": %d}}\n'
                    % ("," if i else "", i, p, 20, 10, 22, 11))
        f.write(']}],\n"regions": [\n')
        for i in range(n):
            p = json.dumps("r%d" % ((i - 1) // fan)) if i else "null"
            f.write('%s{"name": "r%d", "parent": %s, "calls": 1, "threads": 1,'
                    ' "inclusive": {"task-clock": {"sum": 20}, "page-faults": {"sum": 2}},'
                    ' "exclusive": {"task-clock": {"sum": 10}, "page-faults": {"sum": 1}},'
                    ' "wall_ns": {"inclusive": 22, "exclusive": 11}}\n'
                    % ("," if i else "", i, p))
        f.write("]}\n")


if __name__ == "__main__":
    main()
