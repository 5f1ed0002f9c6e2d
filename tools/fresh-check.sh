#!/bin/sh
# fresh-check.sh [--order ORDER] [--keep] - the README's two commands on a
# brand-new Debian 12 machine, as a new user (and CI on a new machine) runs
# them.
#
# A green run here hides whatever was installed by hand; this makes a new
# root with `debootstrap --variant=minbase bookworm` from the mirror this
# machine's apt uses, clones the committed project into it (a clean clone,
# as CI makes), and runs the commands inside it (chroot, with /proc, /sys and
# /dev), as root with a minimal environment.  It prints each command's last
# line; the very last line is that of the last command run, normally
# `N passed, N failed, N skipped`.  Exit status: that of the last command.
#
#   --order sample,tests   (default) run-sample.sh, then run-tests.sh: CI's order
#   --order tests,sample   the other order
#   --order twice          run-sample, run-tests, run-sample, run-tests
#   --keep                 leave the root (its path is printed) for a look
#
# Needs root (debootstrap, mount, chroot); installs debootstrap if missing.
# About 25-40 minutes on this machine kind, most of it apt and the suite, so
# it is not part of .ci/run (which must end within 90 minutes).  The log of
# everything is kept in /var/tmp/hpcshim-fresh-check.log, the logs of the
# tests that failed in /var/tmp/hpcshim-fresh-logs/.
set -u
order=sample,tests
keep=no
while [ $# -gt 0 ]; do
	case "$1" in
	--order) order="$2"; shift 2 ;;
	--keep) keep=yes; shift ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "fresh-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
case "$order" in
sample,tests) steps="sample tests" ;;
tests,sample) steps="tests sample" ;;
twice) steps="sample tests sample tests" ;;
*) echo "fresh-check: --order is sample,tests, tests,sample or twice" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "fresh-check: needs root (debootstrap, mount, chroot)" >&2; exit 2; }

src=$(cd "$(dirname "$0")/.." && pwd)
log=/var/tmp/hpcshim-fresh-check.log
: >"$log"
logs=/var/tmp/hpcshim-fresh-logs
rm -rf "$logs"

# The mirror this machine's apt uses (deb822 or one-line sources).
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -v security | head -1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' \
	/etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

if ! command -v debootstrap >/dev/null 2>&1; then
	echo "fresh-check: installing debootstrap"
	apt-get update -qq >>"$log" 2>&1
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		debootstrap >>"$log" 2>&1 || { echo "fresh-check: cannot install debootstrap (see $log)" >&2; exit 2; }
fi

root=$(mktemp -d /var/tmp/hpcshim-fresh.XXXXXX) || exit 2
chmod 755 "$root"

# Everything started inside the root ends with it; the mounts go, and the
# root too unless --keep.
cleanup() {
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
	done
	for m in $(awk -v r="$root" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	if [ "$keep" = yes ]; then
		echo "fresh-check: root kept in $root"
	else
		rm -rf --one-file-system "$root"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "fresh-check: debootstrap --variant=minbase bookworm $root $mirror"
start=$(date +%s)
if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >>"$log" 2>&1; then
	tail -5 "$log"
	echo "fresh-check: debootstrap failed (see $log)"
	exit 2
fi
echo "fresh-check: base root in $(($(date +%s) - start)) s"

# The same package sources and apt settings as this machine (security
# updates included), and its name servers.
rm -f "$root/etc/apt/sources.list"
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null ||
	cp /etc/apt/sources.list "$root/etc/apt/sources.list"
for f in /etc/apt/apt.conf.d/99*; do
	[ -f "$f" ] && cp "$f" "$root/etc/apt/apt.conf.d/"
done
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
# The host's own name resolves locally, as on a new machine of this kind
# (its /etc/hosts names it; debootstrap writes none): MPICH's hydra looks
# the node's name up, and without it salloc + mpiexec hung in the root.
cp /etc/hosts "$root/etc/hosts"
hostname >"$root/etc/hostname"

# A clean clone of what is committed, as CI makes it, in a folder others can
# enter as in this workplace (/root is 0700: the suite's unprivileged cases
# would skip there).
tree=/work/hpcshim
mkdir -p "$root/work" && chmod 755 "$root/work"
git clone -q --no-local "$src" "$root$tree" >>"$log" 2>&1 ||
	{ echo "fresh-check: cannot clone $src" >&2; exit 2; }
echo "fresh-check: cloned $(git -C "$src" rev-parse --short HEAD)"

mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
mkdir -p "$root/run/lock"

rc=0
for s in $steps; do
	case "$s" in
	sample) cmd=./run-sample.sh ;;
	tests) cmd=./run-tests.sh ;;
	esac
	echo "fresh-check: $cmd"
	t0=$(date +%s)
	out=$(mktemp)
	# The environment of a new login as root, with CI's CI=true; the
	# OpenBLAS settings this workplace needs on some processors pass on.
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI=true \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		${OPENBLAS_CORETYPE:+OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE} \
		${OPENBLAS_L2_SIZE:+OPENBLAS_L2_SIZE=$OPENBLAS_L2_SIZE} \
		/bin/sh -c "cd $tree && $cmd" </dev/null >"$out" 2>&1
	rc=$?
	cat "$out" >>"$log"
	echo "fresh-check: $cmd exit $rc in $(($(date +%s) - t0)) s; its last line:"
	last=$(tail -1 "$out")
	rm -f "$out"
	if [ $rc -ne 0 ]; then
		# the failed tests' own logs, before the root goes
		mkdir -p "$logs"
		grep -l -E '^(not ok|Traceback)|^# (FAIL|ERROR): *[1-9]' "$root$tree"/tests/*/*.log \
			"$root$tree"/test-suite.log 2>/dev/null | xargs -r cp -t "$logs"
		grep -E '^(not ok|FAIL|ERROR)' "$log" | tail -20
		echo "fresh-check: the failed tests' logs are in $logs"
		echo "$last"
		exit $rc
	fi
	echo "$last"
done
exit $rc
