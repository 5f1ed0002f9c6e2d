#!/bin/sh
# bench/pairfloor.sh - the least a region pair costs with today's records
# (issue 34), in user instructions, beside the emulated-PMU bed's figures.
#
# bench/pairfloor.c does exactly the work the records require at a
# BEGIN and an END (its header lists it), for 1 and 4 events in one
# group.  Built for aarch64 with the cross compiler (-O2, static) and run
# under qemu-aarch64-static with every executed instruction logged
# (-singlestep -d exec,nochain): the instructions of K2 - K1 more pairs
# over K2 - K1, by function (nm), the program's loop apart.
#
# Needs gcc-aarch64-linux-gnu and qemu-user-static (tests/pmubed/run.sh
# installs both).  Usage: bench/pairfloor.sh [K1 K2]   (default 10 20)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
k1=${1:-10}
k2=${2:-20}
cc=${CROSS_CC:-aarch64-linux-gnu-gcc}
qemu=${QEMU_USER:-qemu-aarch64-static}
for tool in "$cc" "$qemu" aarch64-linux-gnu-nm python3; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "pairfloor: $tool not found (tests/pmubed/run.sh installs the cross tools)" >&2
		exit 77
	}
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 1 4; do
	"$cc" -O2 -std=gnu11 -Wall -Wextra -static -DNEV=$n "$here/pairfloor.c" -o "$tmp/pf$n"
	for k in "$k1" "$k2"; do
		"$qemu" -singlestep -d exec,nochain -D "$tmp/pf$n-$k.log" "$tmp/pf$n" "$k"
	done
	echo "pairfloor: $n event(s), user instructions per pair (the program's loop apart):"
	python3 - "$tmp/pf$n" "$tmp/pf$n-$k1.log" "$tmp/pf$n-$k2.log" "$k1" "$k2" <<'PY'
import bisect, collections, subprocess, sys
exe, log1, log2, k1, k2 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
syms = []
for line in subprocess.run(["aarch64-linux-gnu-nm", "-n", exe], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3 and f[1] in "tTwW":
        syms.append((int(f[0], 16), f[2]))
addrs = [a for a, _ in syms]


def count(log):
    c = collections.Counter()
    for line in open(log):
        if line.startswith("Trace"):
            pc = int(line.split("/")[1], 16)
            i = bisect.bisect_right(addrs, pc) - 1
            c[syms[i][1] if i >= 0 else "?"] += 1
    return c


a, b = count(log1), count(log2)
per = {s: (b[s] - a[s]) / (k2 - k1) for s in set(a) | set(b)}
pair = 0.0
for s in ("floor_begin", "read_all", "floor_end"):
    print("  %-12s %6.1f" % (s, per.get(s, 0)))
    pair += per.get(s, 0)
loop = sum(v for s, v in per.items() if s not in ("floor_begin", "read_all", "floor_end"))
print("  %-12s %6.1f   (the bed's pair figure has 28 more: one_pair's calls, two PLT stubs)"
      % ("pair", pair))
print("  %-12s %6.1f   (one_pair's frame and main's loop)" % ("program", loop))
PY
done
