"""The layering of the source tree, checked on every `make check`.

Includes (from the sources) and calls (undefined symbols of the built
objects, with nm) must go down the layers of RULES below, never up and
never in a cycle.  preload/ is being reorganised into folders: a file still
directly in preload/ is "unplaced" (allowed anything, listed as a TAP
comment) until it moves; its calls to the functions the shim wraps are
still checked, against the KNOWN_CALLS allow-list.

Standalone, for another checkout:  HPCSHIM_SRCDIR=src HPCSHIM_BUILDDIR=build
python3 tests/test_layers.py   (prints the same TAP with the figures).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hpctest import Tap  # noqa: E402

# ---- the rules: edit here when a folder appears or moves -----------------

# Everything "below" preload/: the layers the shim is built on.
BELOW = ["common/", "pmu/", "presets/", "aggregate/"]
# preload/ folders that are one feature each: never include one another.
FEATURES = ["preload/range/", "preload/mux/", "preload/presets/", "preload/wrap/",
            "preload/mpi/", "preload/dropped/"]
ANY = None

# (where the including file is, what it may include): the longest matching
# prefix decides.  A prefix ending in "/" is a folder, otherwise one file.
RULES = [
    ("common/", ["common/"]),
    ("pmu/", ["common/", "pmu/"]),
    ("presets/", ["common/", "pmu/", "presets/"]),
    ("aggregate/", ["common/", "aggregate/"]),
    ("annotate/", ["annotate/"]),  # public headers: nothing of the project
    ("tools/", ["common/", "pmu/", "presets/", "aggregate/", "tools/"]),
    ("preload/base/", ["common/", "preload/base/"]),
    ("preload/config/", ["common/", "pmu/", "presets/", "preload/base/",
                         "preload/config/"]),
    ("preload/core/", BELOW + ["annotate/", "preload/base/", "preload/config/",
                               "preload/core/"]),
    ("preload/interpose/", BELOW + ["annotate/", "preload/base/", "preload/config/",
                                    "preload/core/", "preload/interpose/"]),
] + [
    (f, BELOW + ["annotate/", "preload/base/", "preload/config/", "preload/core/",
                 "preload/interpose/", f])
    for f in FEATURES
] + [
    ("preload/boot.c", ANY),  # wires every feature in
]
# Files directly in preload/ not named above: not placed yet.
UNPLACED = "preload/"
# Folders whose files may include a not yet placed preload/ file (it is
# reported as unplaced, not as an error, until that file moves).
UNPLACED_TARGET_OK = ["preload/core/", "preload/interpose/"] + FEATURES

# Headers private to their folder (libperf's include/internal).
PRIVATE = {
    "pmu/internal.h": "pmu/",
    "pmu/userread.h": "pmu/",
    "pmu/event_table.h": "pmu/",
}

# Folders scanned for includes (tests/, samples/ and bench/ are users of
# the public API and are not layered).
SCANNED = ["common", "pmu", "presets", "aggregate", "annotate", "tools", "preload"]

# Calls (a): objects of these folders never reference a symbol that a
# preload/ object defines.
LOWER = ["common/", "pmu/", "presets/", "aggregate/"]
# Calls (b): only these reference the names the shim wraps (the exported
# non-hpcshim_* names of preload/hpcshim.map): anyone else would call the
# shim's own wrapper through the PLT.
WRAP_CALLERS = ["preload/interpose/", "preload/base/real.c"]
# Known violations of (b), as (source file, symbol): none.  Internal code
# calls the real function through preload/base/real.h.
KNOWN_CALLS = set()

# ---- the check ----------------------------------------------------------

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("HPCSHIM_SRCDIR", os.path.dirname(HERE))
BUILD = os.environ.get("HPCSHIM_BUILDDIR", SRC)
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def rule_for(path):
    """The allowed prefixes for a file, ANY, or UNPLACED when not placed."""
    best = None
    for where, allowed in RULES:
        if path == where or (where.endswith("/") and path.startswith(where)):
            if best is None or len(where) > len(best[0]):
                best = (where, allowed)
    if best:
        return best
    if path.startswith(UNPLACED):
        return (UNPLACED, UNPLACED)
    return (None, ANY)


def placed(path):
    return rule_for(path)[1] is not UNPLACED


def allows(allowed, target):
    return any(target == a or (a.endswith("/") and target.startswith(a))
               for a in allowed)


def sources():
    out = []
    for top in SCANNED:
        for d, _, files in os.walk(os.path.join(SRC, top)):
            if "/." in d[len(SRC):]:
                continue
            for f in files:
                if f.endswith((".c", ".h", ".hpp", ".cpp")):
                    out.append(os.path.relpath(os.path.join(d, f), SRC))
    return sorted(out)


def includes(path):
    """Project files included by path (resolved like -I$(top_srcdir),
    then next to the file); system and generated headers are left out."""
    with open(os.path.join(SRC, path), encoding="utf-8", errors="replace") as f:
        text = f.read()
    edges = []
    for name in INCLUDE.findall(text):
        for cand in (name, os.path.normpath(os.path.join(os.path.dirname(path), name))):
            if os.path.isfile(os.path.join(SRC, cand)):
                edges.append(cand)
                break
    return edges


def include_error(src, dst):
    """Why the edge src -> dst breaks the rules, "" if it does not, or
    None when it involves an unplaced file (reported, not failed)."""
    owner = PRIVATE.get(dst)
    if owner and not src.startswith(owner):
        return "%s is private to %s" % (dst, owner)
    where, allowed = rule_for(src)
    if allowed is ANY:
        return ""
    if allowed is UNPLACED:
        return None
    if allows(allowed, dst):
        return ""
    if rule_for(dst)[1] is UNPLACED and where in UNPLACED_TARGET_OK:
        return None
    return "%s may include only %s" % (where, " ".join(allowed))


def cycles(graph):
    """Strongly connected components with a cycle (Tarjan), each as
    (its nodes, a shortest cycle path from its first node)."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [(c, cycle_path(graph, c)) for c in comps]


def cycle_path(graph, comp):
    """A shortest cycle from comp's first node back to itself (BFS)."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(graph.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def objects():
    """{source path: object file} for every libtool object of the build."""
    out = {}
    for d, _, files in os.walk(BUILD):
        if os.path.basename(d) != ".libs":
            continue
        srcdir = os.path.relpath(os.path.dirname(d), BUILD)
        if srcdir.split(os.sep)[0] not in SCANNED:  # tests' own libraries
            continue
        for f in files:
            if not f.endswith(".o"):
                continue
            base = f[:-2].split("-", 1)[-1]  # <target>-<base>.o
            for ext in (".c", ".cpp", ".f90"):
                rel = os.path.normpath(os.path.join(srcdir, base + ext))
                if os.path.isfile(os.path.join(SRC, rel)):
                    out[rel] = os.path.join(d, f)
                    break
    return out


def symbols(obj):
    """(global symbols defined, symbols referenced but undefined)."""
    res = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True)
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, undefined


def wrapped_names():
    with open(os.path.join(SRC, "preload", "hpcshim.map"), encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    glob = text.split("global:", 1)[1].split("local:", 1)[0]
    return {n for n in re.findall(r"[A-Za-z_]\w*", glob) if not n.startswith("hpcshim_")}


def folder(path):
    return os.path.dirname(path) or "."


def main():
    t = Tap()
    files = sources()

    # Includes.
    graph, nedges, back, unplaced_edges = {}, 0, [], []
    for src in files:
        for dst in includes(src):
            graph.setdefault(src, set()).add(dst)
            nedges += 1
            why = include_error(src, dst)
            if why is None:
                unplaced_edges.append((src, dst))
            elif why:
                back.append((src, dst, why))
    unplaced = sorted({f for f in files if not placed(f)})
    for f in unplaced:
        t.diag("unplaced: %s" % f)
    for src, dst in unplaced_edges:
        if placed(src):
            t.diag("include of an unplaced file: %s -> %s" % (src, dst))
    t.ok(not back, "no include breaks the layers (%d back-arrows)" % len(back),
         "\n".join("%s -> %s: %s" % b for b in back))
    inc_cycles = cycles(graph)
    t.ok(not inc_cycles, "no include cycles (%d)" % len(inc_cycles),
         "\n".join("%s: %s" % (", ".join(c), " -> ".join(p)) for c, p in inc_cycles))

    # The rules themselves catch what they are for (so a broken table
    # cannot pass everything).
    t.ok(include_error("common/x.h", "pmu/pmu.h")
         and include_error("pmu/x.c", "presets/preset.h")
         and include_error("aggregate/x.c", "pmu/pmu.h")
         and include_error("preload/core/x.c", "preload/range/x.h")
         and include_error("preload/range/x.c", "preload/mux/x.h")
         and include_error("preload/base/x.c", "preload/config/config.h")
         and include_error("tools/x.c", "preload/base/log.h")
         and include_error("preload/config/x.c", "pmu/internal.h")
         and not include_error("preload/mux/x.c", "preload/core/feature.h"),
         "the rules reject forbidden includes and allow permitted ones")

    # Calls.
    objs = objects()
    syms = {src: symbols(o) for src, o in sorted(objs.items())}
    if not syms:
        t.skip("calls between layers", "no built objects under %s" % BUILD)
        t.done()
    owner = {}
    for src, (defined, _) in syms.items():
        for s in defined:
            owner.setdefault(s, src)
    preload_defs = {s for s, src in owner.items() if src.startswith("preload/")}
    up = []
    for src, (_, undef) in syms.items():
        if any(src.startswith(p) for p in LOWER):
            for s in sorted(undef & preload_defs):
                up.append("%s calls %s (%s)" % (src, s, owner[s]))
    t.ok(not up, "no object below preload/ calls into preload/ (%d)" % len(up),
         "\n".join(up))

    wrapped = wrapped_names()
    bad, known_seen = [], set()
    for src, (_, undef) in syms.items():
        if any(src == w or (w.endswith("/") and src.startswith(w)) for w in WRAP_CALLERS):
            continue
        for s in sorted(undef & wrapped):
            if (src, s) in KNOWN_CALLS:
                known_seen.add((src, s))
            else:
                bad.append("%s calls %s(), which the shim wraps" % (src, s))
    for src, s in sorted(known_seen):
        t.diag("known (allow-list, TODO): %s calls %s()" % (src, s))
    for src, s in sorted(KNOWN_CALLS - known_seen):
        t.diag("allow-list entry no longer needed: %s %s" % (src, s))
    t.ok(not bad, "only the interposers call the wrapped functions (%d, %d known)"
         % (len(bad), len(known_seen)), "\n".join(bad))

    # File-level call graph, and its cycles between folders.
    calls = {}
    for src, (_, undef) in syms.items():
        for s in undef:
            dst = owner.get(s)
            if dst and dst != src:
                calls.setdefault(src, set()).add(dst)
    fgraph = {}
    for src, dsts in calls.items():
        for dst in dsts:
            if folder(src) != folder(dst):
                fgraph.setdefault(folder(src), set()).add(folder(dst))
    fcycles = cycles(fgraph)
    for c, p in fcycles:
        t.diag("call cycle between folders {%s}: %s" % (", ".join(c), " -> ".join(p)))
    # Between files: a function or object of one file used by another is an
    # edge; two files that use each other are one concept split in two.
    ccycles = cycles(calls)
    t.ok(not ccycles, "no call cycles between files (%d)" % len(ccycles),
         "\n".join("%s: %s" % (", ".join(c), " -> ".join(p)) for c, p in ccycles))

    t.diag("figures: %d files, %d include edges, %d include cycles, "
           "%d back-arrows, %d unplaced files, %d objects, %d call edges, "
           "%d file call cycles, %d folder call cycles, %d calls up into preload/, "
           "%d calls of wrapped names (%d known)"
           % (len(files), nedges, len(inc_cycles), len(back), len(unplaced),
              len(syms), sum(len(v) for v in calls.values()), len(ccycles), len(fcycles),
              len(up), len(bad) + len(known_seen), len(known_seen)))
    t.done()


if __name__ == "__main__":
    main()
