#!/bin/sh
# trace.sh [CASE ...] - where a region pair's user instructions go, per
# function, in the emulated-PMU guest (tests/pmubed/README.md).
#
# Run after tests/pmubed/run.sh (it reuses that run's build: the guest's
# root, the cross-built library with its debug information, the kernel).
# For each CASE (default: pair4 pair1; any pair case of check.py) the guest
# boots once with that case alone, its program run as
#   guest_loop maps warm pairs TRACE_K
# with the case's environment, without address-space randomisation
# (norandmaps), and QEMU logs every user-level instruction it executes
# (-singlestep -d exec,nochain, user addresses only).  trace.py cuts the
# log at the entries of the program's one_pair() (one whole begin+end pair
# and the program's loop between two of them), checks that every pair of
# the loop took the same instructions, and prints them by function: the
# shim's inlined functions by their innermost name (addr2line -i), BEGIN
# and END apart.  The program's own loop (call_k, one_pair's frame) is
# shown apart: the bed's pair figure (pairs_on - pairs_off) excludes
# what the same loop costs around an empty function.
#
# Environment: HPCSHIM_PMUBED_CACHE, HPCSHIM_PMUBED_BUILD as run.sh;
# TRACE_K pairs per case (default 20); QEMU_TIMEOUT (default 600).
set -u
LC_ALL=C
export LC_ALL
here=$(cd "$(dirname "$0")" && pwd)
cache=${HPCSHIM_PMUBED_CACHE:-/var/cache/hpcshim-pmubed}
[ -w "$cache" ] || cache=${TMPDIR:-/tmp}/hpcshim-pmubed-$(id -u)
build=${HPCSHIM_PMUBED_BUILD:-$cache/build}
root=$build/root
vmlinuz=$(ls "$cache"/kernel/boot/vmlinuz-* 2>/dev/null | head -n 1)
if [ ! -x "$root/bin/guest_loop" ] || [ -z "$vmlinuz" ]; then
	echo "trace.sh: no guest root in $build or kernel in $cache: run tests/pmubed/run.sh first" >&2
	exit 2
fi
[ $# -gt 0 ] || set -- pair4 pair1
k=${TRACE_K:-20}
status=0
for c in "$@"; do
	t=$build/trace-$c
	rm -rf "$t" && mkdir -p "$t" && cp -a "$root" "$t/root" || exit 2
	python3 "$here/trace.py" case "$c" "$k" >"$t/root/cases" || exit 2
	(cd "$t/root" && find . | sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$t/initramfs.gz" || exit 2
	echo "# $c: booting with the instruction log ($t/exec.log)"
	timeout "${QEMU_TIMEOUT:-600}" qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on \
		-smp 1 -m 512 -icount shift=0 -nographic -no-reboot -nic none \
		-singlestep -d exec,nochain -dfilter 0x1000..0xffffffffffff -D "$t/exec.log" \
		-kernel "$vmlinuz" -initrd "$t/initramfs.gz" \
		-append "console=ttyAMA0 panic=-1 quiet norandmaps" </dev/null >"$t/console.log" 2>&1
	python3 "$here/trace.py" report "$c" "$t/console.log" "$t/exec.log" "$t/root" || status=1
	rm -f "$t/exec.log"
done
exit $status
