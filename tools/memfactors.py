#!/usr/bin/env python3
"""memfactors.py [SCALE] - the memory the reading tools take per byte of
their input, measured: peak RSS (getrusage of the finished child, the
same figure as /usr/bin/time's %M) of report, html, trace and convert on
generated result files of each shape the shim writes, less the tool's
peak on a tiny file.  The factors in tools/membound.c and the table in
docs/benchmarks.md ("The tools' memory per byte of input") come from its
output.  Run from the build tree; SCALE (default 1) multiplies the sizes
(1: files of 10-20 MB).  HPCSHIM: the command (default ./hpcshim).

Shapes: regions as bigregions.py writes them (a tree of fan-out 8, and
flat: all at the top), trace records (bigtrace.py), interval series
(a real result's series stretched), a job document (hpcshim merge of
ranks of a regions file), and a directory of many small real results."""
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("HPCSHIM_BUILDDIR", os.getcwd())
HPCSHIM = os.environ.get("HPCSHIM", os.path.join(BUILD, "hpcshim"))
LIB = os.path.join(BUILD, ".libs", "libhpcshim.so")
WORKLOAD = os.path.join(BUILD, "tests", "shim", "workload")

COMMANDS = {
    "report": ["report"],
    "report --view tree": ["report", "--view", "tree"],
    "report --view region -x,": ["report", "--view", "region", "-x,"],
    "html": ["html", "-o", "{out}/o.html"],
    "trace": ["trace", "-o", "{out}/o.json"],
    "convert --to chrome": ["convert", "--to", "chrome", "-o", "{out}/o.json"],
    "convert --to speedscope": ["convert", "--to", "speedscope", "-o", "{out}/o.json"],
    "convert --to pprof": ["convert", "--to", "pprof", "-o", "{out}/o.pb"],
    "convert --to otf2": ["convert", "--to", "otf2", "-o", "{out}/otf2"],
}


def peak_kb(argv):
    """Peak RSS of argv in KB: ru_maxrss of a child of a fresh process,
    so that no earlier child's peak is in it; None when it failed."""
    code = ("import resource, subprocess, sys\n"
            "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
            "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    p = subprocess.run([sys.executable, "-c", code] + argv, capture_output=True, text=True,
                       check=True)
    rc, kb = p.stdout.split()
    if rc != "0":
        sys.stderr.write("%s: exit %s: %s" % (" ".join(argv), rc, p.stderr))
        return None
    return int(kb)


def shim_result(tmp, env, *steps):
    d = tempfile.mkdtemp(dir=tmp)
    subprocess.run([WORKLOAD] + list(steps), check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, LD_PRELOAD=LIB, HPCSHIM_OUTPUT=d,
                            HPCSHIM_EVENTS="task-clock,page-faults", **env))
    return glob.glob(os.path.join(d, "hpcshim-*.json"))[0]


def series_file(tmp, points):
    """A real result with interval series, its main thread's series
    stretched to `points` points (the counters' deltas repeated)."""
    doc = json.load(open(shim_result(tmp, {"HPCSHIM_INTERVAL": "1ms"}, "busy", "200")))
    th = max(doc["threads"], key=lambda t: (t.get("series") or {}).get("points", 0))
    s = th["series"]
    n = s["points"]
    step = s["t"][-1] // n + 1
    s["t"] = [i * step for i in range(points)]
    for k, v in s.items():
        if isinstance(v, list) and k != "t":
            s[k] = [v[i % n] for i in range(points)]
    s["points"] = points
    path = os.path.join(tmp, "series.json")
    json.dump(doc, open(path, "w"), separators=(",", ":"))
    return path


def job_document(tmp, regions, ranks):
    one = os.path.join(tmp, "rank.json")
    subprocess.run([sys.executable, os.path.join(TOP, "bench", "bigregions.py"), str(regions),
                    one], check=True)
    d = os.path.join(tmp, "ranks")
    os.makedirs(d)
    text = open(one).read()
    for r in range(ranks):
        with open(os.path.join(d, "hpcshim-r%03d.json" % r), "w") as f:
            f.write(text.replace('"rank": null, "size": null', '"rank": %d, "size": %d' % (r, ranks), 1)
                    .replace('"pid": 1,', '"pid": %d,' % (r + 1), 1))
    out = os.path.join(tmp, "job.json")
    subprocess.run([HPCSHIM, "merge", "-o", out, d], check=True, stderr=subprocess.DEVNULL)
    shutil.rmtree(d)
    os.unlink(one)
    return out


def small_files(tmp, n):
    src = shim_result(tmp, {}, "nested", "1", "1", "threads", "3", "1")
    d = os.path.join(tmp, "small")
    os.makedirs(d)
    for i in range(n):
        shutil.copy(src, os.path.join(d, "hpcshim-s%05d.json" % i))
    return d


def shapes(tmp, scale):
    bigregions = os.path.join(TOP, "bench", "bigregions.py")
    tree, flat = os.path.join(tmp, "tree.json"), os.path.join(tmp, "flat.json")
    subprocess.run([sys.executable, bigregions, str(20000 * scale), tree], check=True)
    subprocess.run([sys.executable, bigregions, str(20000 * scale), flat, "1000000000"], check=True)
    trace = os.path.join(tmp, "trace")
    subprocess.run([sys.executable, os.path.join(TOP, "bench", "bigtrace.py"), "1", "2",
                    str(100000 * scale), trace], check=True)
    return [("regions, tree", tree), ("regions, flat", flat),
            ("trace records", glob.glob(os.path.join(trace, "*.json"))[0]),
            ("series", series_file(tmp, 1000000 * scale)),
            ("job document", job_document(tmp, 5000 * scale, 8)),
            ("small files", small_files(tmp, 500 * scale))]


def size_of(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(p) for p in glob.glob(os.path.join(path, "hpcshim-*.json")))
    return os.path.getsize(path)


def main():
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    tmp = tempfile.mkdtemp(prefix="hpcshim-memfactors-")
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    try:
        tiny = shim_result(tmp, {}, "busy", "1")
        base = {}
        for name, argv in COMMANDS.items():
            shutil.rmtree(os.path.join(out, "otf2"), ignore_errors=True)
            base[name] = peak_kb([HPCSHIM] + [a.format(out=out) for a in argv] + [tiny])
        print("| input | MB | command | peak MB | factor |")
        print("| --- | --- | --- | --- | --- |")
        for shape, path in shapes(tmp, scale):
            size = size_of(path)
            for name, argv in COMMANDS.items():
                shutil.rmtree(os.path.join(out, "otf2"), ignore_errors=True)
                kb = peak_kb([HPCSHIM] + [a.format(out=out) for a in argv] + [path])
                if kb is None:
                    continue
                print("| %s | %.1f | `%s` | %.0f | %.1f |" % (
                    shape, size / 1e6, name, kb / 1024, (kb - base[name]) * 1024 / size))
                sys.stdout.flush()
        print("base (a %d-byte result): %s KB" % (os.path.getsize(tiny), base))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
