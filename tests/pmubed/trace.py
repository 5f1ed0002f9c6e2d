#!/usr/bin/env python3
"""trace.py - the per-function instruction trace of a region pair (trace.sh).

  trace.py case NAME K              the /cases line of check.py's case NAME,
                                    its program run as "maps warm pairs K"
  trace.py report NAME CONSOLE LOG ROOT
                                    the breakdown of one pair from QEMU's
                                    instruction log (-d exec, -singlestep)
"""
import bisect
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402

HOST = "aarch64-linux-gnu"


def case_line(name, k):
    for n, env, argv in check.CASES:
        if n == name:
            prog = argv[0]
            return " ".join([n] + ["%s=%s" % kv for kv in env.items()] +
                            [prog, "maps", "warm", "pairs", str(k)]) + "\n"
    sys.exit("trace.py: no case %s in check.py" % name)


def loads(path):
    """LOAD segments: (offset, vaddr, filesz)."""
    out = subprocess.run([HOST + "-readelf", "-lW", path], capture_output=True,
                         text=True).stdout
    segs = []
    for line in out.splitlines():
        w = line.split()
        if w and w[0] == "LOAD":
            segs.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
    return segs


def symbols(path):
    """Sorted (vaddr, name) of the functions (symtab, else dynsym)."""
    syms = []
    for args in (["-C"], ["-D", "-C"]):
        out = subprocess.run([HOST + "-nm", "--defined-only"] + args + [path],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            w = line.split(None, 2)
            if len(w) == 3 and w[1] in "tTwWiI":
                syms.append((int(w[0], 16), w[2]))
        if syms:
            break
    syms.sort()
    return syms


class Image:
    def __init__(self, guest_path, host_path, start, end, off):
        self.guest, self.host = guest_path, host_path
        self.start, self.end, self.off = start, end, off
        self.segs = loads(host_path)
        self.syms = symbols(host_path)
        self.keys = [s[0] for s in self.syms]
        self.base = os.path.basename(guest_path)

    def vaddr(self, pc):
        fo = pc - self.start + self.off
        for o, v, n in self.segs:
            if o <= fo < o + n:
                return fo - o + v
        return fo

    def symbol(self, va):
        i = bisect.bisect_right(self.keys, va) - 1
        return self.syms[i][1] if i >= 0 else "?"


def inline_names(img, vas):
    """innermost inlined function (and file:line) of each vaddr (addr2line -i)."""
    if not vas:
        return {}
    out = subprocess.run([HOST + "-addr2line", "-f", "-i", "-e", img.host] +
                         ["0x%x" % v for v in vas], capture_output=True, text=True).stdout
    lines = out.splitlines()
    # -i prints (function, file:line) pairs, innermost first, a variable
    # number per address: resolve one address at a time when needed.
    res = {}
    if len(lines) == 2 * len(vas):
        for i, v in enumerate(vas):
            res[v] = (lines[2 * i], lines[2 * i + 1])
        return res
    for v in vas:
        o = subprocess.run([HOST + "-addr2line", "-f", "-i", "-e", img.host, "0x%x" % v],
                           capture_output=True, text=True).stdout.splitlines()
        res[v] = (o[0], o[1]) if len(o) >= 2 else ("?", "?")
    return res


def report(name, console, log, root):
    with open(console, errors="replace") as f:
        booted, infos, cases, done, errors = check.parse(f.read())
    c = cases.get(name)
    if not c:
        sys.exit("trace.py: case %s did not run (console %s)" % (name, console))
    imgs = []
    for line in c.stdout().splitlines():
        w = line.split()
        if len(w) >= 7 and w[0] == "maps":
            a, b = (int(x, 16) for x in w[1].split("-"))
            imgs.append(Image(w[6], os.path.join(root, w[6].lstrip("/")), a, b, int(w[3], 16)))
    if not imgs:
        sys.exit("trace.py: no maps lines in case %s's stdout" % name)
    imgs.sort(key=lambda m: m.start)
    starts = [m.start for m in imgs]
    prog = next(m for m in imgs if m.base.startswith("guest_"))
    pair_va = next(v for v, s in prog.syms if s == "one_pair")

    pat = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
    pcs = []
    with open(log, errors="replace") as f:
        for line in f:
            m = pat.match(line)
            if m:
                pcs.append(int(m.group(1), 16))

    def image(pc):
        i = bisect.bisect_right(starts, pc) - 1
        return imgs[i] if i >= 0 and pc < imgs[i].end else None

    # One process only (the case's): its images' addresses.
    entries = [i for i, pc in enumerate(pcs)
               if image(pc) is prog and prog.vaddr(pc) == pair_va]
    if len(entries) < 4:
        sys.exit("trace.py: %d entries of one_pair in the log" % len(entries))
    # The first call (before the loop) resolves the site; the loop's calls
    # are the rest: intervals between consecutive entries, the last open.
    spans = [(entries[i], entries[i + 1]) for i in range(1, len(entries) - 1)]
    lens = collections.Counter(b - a for a, b in spans)
    steady, _ = lens.most_common(1)[0]
    print("# %s: %d pairs traced, instructions from one_pair's entry to the next: %s"
          % (name, len(spans), ", ".join("%d x%d" % kv for kv in sorted(lens.items()))))
    a, b = next(s for s in spans[len(spans) // 2:] if s[1] - s[0] == steady)
    seq = pcs[a:b]

    shim = [m for m in imgs if m.base == "libhpcshim.so"]
    by_img = collections.defaultdict(set)
    for pc in seq:
        m = image(pc)
        if m in shim:
            by_img[m].add(m.vaddr(pc))
    inl = {}
    for m, vas in by_img.items():
        for v, nm in inline_names(m, sorted(vas)).items():
            inl[(m, v)] = nm

    phase = "program"
    rows = collections.OrderedDict()
    outer = collections.OrderedDict()
    for pc in seq:
        m = image(pc)
        if m is None:
            key, sym = ("?", "?"), "?"
        else:
            va = m.vaddr(pc)
            sym = m.symbol(va)
            if m in shim:
                if sym == "hpcshim_site_begin" or sym == "hs_region__call_begin":
                    phase = "BEGIN" if phase == "program" else phase
                elif sym == "hpcshim_site_end" or sym == "hs_region__call_end":
                    phase = "END"
                key = (inl[(m, va)][0], sym)
            else:
                key = (sym, m.base)
                if phase == "END" and m is prog:
                    phase = "program "
        p = phase.strip()
        rows[(p, key)] = rows.get((p, key), 0) + 1
        outer[(p, sym)] = outer.get((p, sym), 0) + 1

    total = len(seq)
    print("# %s: one pair and the program's loop: %d user instructions" % (name, total))
    for p in ("program", "BEGIN", "END"):
        sub = sum(n for (q, _), n in rows.items() if q == p)
        print("#   %-7s %5d" % (p, sub))
        for (q, key), n in sorted(rows.items(), key=lambda kv: -kv[1]):
            if q == p:
                print("#     %5d  %s (in %s)" % (n, key[0], key[1]))
    print("# %s by symbol:" % name)
    for (q, s), n in sorted(outer.items(), key=lambda kv: (kv[0][0], -kv[1])):
        print("#   %-7s %5d  %s" % (q, n, s))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "case":
        sys.stdout.write(case_line(argv[2], int(argv[3])))
        return 0
    if len(argv) == 6 and argv[1] == "report":
        return report(*argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
