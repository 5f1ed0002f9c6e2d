#!/bin/sh
# run.sh - the emulated hardware-PMU test bed (make check-hw).
#
# No machine here has a hardware PMU.  An aarch64 guest under QEMU TCG with
# -smp 1 -icount shift=0 has an emulated Arm PMUv3 (armv8_pmuv3, 6 general
# counters + the cycle counter) whose instruction counts are exact and
# deterministic.  This script
#   1. installs what it needs from Debian when missing (arm64 multiarch:
#      qemu-system-arm, the cross gcc and glibc, libjson-c-dev:arm64, libffi-dev:arm64,
#      libpfm4-dev:arm64, cpio, autotools),
#   2. fetches the arm64 cloud kernel package and extracts its vmlinuz,
#   3. cross-builds the project for aarch64-linux-gnu (autotools --host) in
#      a copy of the source (the tree may be configured in-tree for x86),
#   4. builds the guest: a static /init (init.c), the test program
#      (guest_loop.c), the cross-built libhpcshim.so and the shared
#      libraries they need, packed into a gzip cpio initramfs,
#   5. boots it; /init runs the cases (check.py cases) under LD_PRELOAD and
#      prints the JSON results on the console,
#   6. checks them on the host against exact truths (check.py check): TAP.
# Exit status: 0 all ok, 1 a failure, 77 (with "1..0 # SKIP reason") only
# when the tools cannot be installed.
#
# Environment:
#   HPCSHIM_PMUBED_CACHE  downloads and builds (default /var/cache/hpcshim-pmubed,
#                         or $TMPDIR/hpcshim-pmubed-UID when that is not writable)
#   HPCSHIM_PMUBED_BUILD  build directory (default $HPCSHIM_PMUBED_CACHE/build)
#   QEMU_TIMEOUT          seconds before the guest is killed (default 300)
set -u
LC_ALL=C
export LC_ALL
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
host=aarch64-linux-gnu
t_start=$(date +%s)

note() { echo "# $*"; }
skip() { echo "1..0 # SKIP $*"; exit 77; }
# A failure before the guest results exist: one TAP failure with the log tail.
die() {
	echo "not ok 1 - $1"
	[ -n "${2:-}" ] && [ -f "$2" ] && tail -40 "$2" | sed 's/^/# /'
	echo "1..1"
	exit 1
}
elapsed() { echo $(($(date +%s) - t_start)); }

# ---- where -------------------------------------------------------------
cache=${HPCSHIM_PMUBED_CACHE:-/var/cache/hpcshim-pmubed}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	[ -n "${HPCSHIM_PMUBED_CACHE:-}" ] && die "cache directory $cache is not writable"
	cache=${TMPDIR:-/tmp}/hpcshim-pmubed-$(id -u)
	mkdir -p "$cache" || die "cannot create $cache"
fi
build=${HPCSHIM_PMUBED_BUILD:-$cache/build}
mkdir -p "$build" || die "cannot create $build"
build=$(cd "$build" && pwd)
# One run at a time per cache (the build and the kernel are shared).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$cache/lock"
	flock 9
fi

# ---- 1. packages -------------------------------------------------------
PKGS="qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio
      libjson-c-dev:arm64 libpfm4-dev:arm64 libffi-dev:arm64 autoconf automake libtool
      pkg-config make python3"
command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 ||
	skip "not a Debian system (no dpkg-query/apt-get): cannot install qemu-system-arm and the aarch64 cross tools"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' ||
		missing="$missing $p"
done
apt_log=$cache/apt.log
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || skip "missing packages ($missing) and not root: cannot install them"
	note "installing:$missing"
	: >"$apt_log"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64 >>"$apt_log" 2>&1 ||
			skip "dpkg --add-architecture arm64 failed (see $apt_log)"
	fi
	# An unreachable third-party source must not stop us: install decides.
	sh "$top/tools/apt.sh" update >>"$apt_log" 2>&1 || note "apt-get update reported errors (see $apt_log)"
	# shellcheck disable=SC2086
	sh "$top/tools/apt.sh" install -y --no-install-recommends \
		$missing >>"$apt_log" 2>&1 ||
		skip "apt-get install$missing failed (see $apt_log)"
	note "packages installed ($(elapsed) s)"
fi
for c in qemu-system-aarch64 $host-gcc $host-readelf cpio gzip autoreconf python3; do
	command -v "$c" >/dev/null 2>&1 || skip "$c not found after installing the packages"
done

# ---- 2. kernel ---------------------------------------------------------
kdir=$cache/kernel
vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
if [ -z "$vmlinuz" ]; then
	kpkg_of() {
		apt-cache depends linux-image-cloud-arm64:arm64 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
	}
	kpkg=$(kpkg_of)
	if [ -z "$kpkg" ]; then # arm64 lists not fetched yet
		sh "$top/tools/apt.sh" update >>"$apt_log" 2>&1
		kpkg=$(kpkg_of)
	fi
	[ -n "$kpkg" ] || skip "cannot resolve the kernel package of linux-image-cloud-arm64:arm64 (apt-cache)"
	note "fetching $kpkg"
	rm -rf "$kdir" && mkdir -p "$kdir/dl" || die "cannot create $kdir"
	# _apt cannot write to a root-only cache directory: download as root.
	(cd "$kdir/dl" && apt-get download -o APT::Sandbox::User=root "$kpkg") \
		>>"$apt_log" 2>&1 || skip "apt-get download $kpkg failed (see $apt_log)"
	dpkg-deb --fsys-tarfile "$kdir"/dl/*.deb | tar xf - -C "$kdir" --wildcards './boot/vmlinuz-*' ||
		die "cannot extract vmlinuz from $kpkg"
	echo "$kpkg" >"$kdir/package"
	rm -rf "$kdir/dl"
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
	[ -n "$vmlinuz" ] || die "no boot/vmlinuz-* in $kpkg"
fi
note "kernel $(basename "$vmlinuz")"

# ---- 3. cross-build ----------------------------------------------------
src=$build/src
blog=$build/build.log
# Copies the source into $src, keeping modification times so that an
# unchanged file is not rebuilt.  A git checkout gives its tracked and
# untracked-not-ignored files (the working tree as edited, without the
# in-tree x86 configuration).  Otherwise (an unpacked tarball) the whole
# tree is copied afresh and cleaned of any in-tree configuration.
sync_source() {
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		mkdir -p "$src" || return 1
		(cd "$top" && git ls-files -z --cached --others --exclude-standard |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
			tar xf - -C "$src"
	else
		rm -rf "$src" && mkdir -p "$src" || return 1
		(cd "$top" && tar cf - .) | tar xf - -C "$src" || return 1
		if [ -f "$src/Makefile" ]; then
			make -C "$src" distclean >/dev/null 2>&1 || true
		fi
	fi
}
cross_build() {
	sync_source || return 1
	cd "$src" || return 1
	if [ ! -x configure ] || [ ! -f Makefile.in ]; then
		autoreconf -fi || return 1
	fi
	if [ ! -f config.status ] || [ ! -f .pmubed-configured ]; then
		./configure -q --host=$host --build="$(sh build-aux/config.guess)" \
			--disable-fortran CFLAGS="-O2 -g" PKG_CONFIG=pkg-config \
			PKG_CONFIG_LIBDIR=/usr/lib/$host/pkgconfig:/usr/share/pkgconfig ||
			return 1
		: >.pmubed-configured
	fi
	make -j"$(nproc 2>/dev/null || echo 2)" all
}
: >"$blog"
if ! (cross_build) >>"$blog" 2>&1; then
	# A build directory left broken by an interrupted run: start afresh once.
	note "cross-build failed; retrying in a fresh directory"
	rm -rf "$src"
	(cross_build) >>"$blog" 2>&1 || die "cross-build for $host (log: $blog)" "$blog"
fi
lib=$src/.libs/libhpcshim.so
[ -f "$lib" ] || die "no $lib after the cross-build" "$blog"
note "cross-built $(file -b "$lib" 2>/dev/null | cut -d, -f1-2) ($(elapsed) s)"

# ---- 4. guest ----------------------------------------------------------
g=$build/guest
root=$build/root
rm -rf "$g" "$root"
mkdir -p "$g" "$root/bin" "$root/lib" "$root/dev" || die "cannot create $root"
gcc_log=$build/guest-build.log
{
	$host-gcc -O2 -Wall -Wextra -static -o "$g/init" "$here/init.c" &&
		$host-gcc -O2 -Wall -Wextra -fPIE -pie -pthread -I"$top" \
			-o "$g/guest_loop" "$here/guest_loop.c" &&
		$host-gcc -O2 -Wall -Wextra -fPIC -shared -I"$top" \
			-o "$g/libpmubedwrap.so" "$here/guest_wraplib.c" &&
		$host-gcc -O2 -Wall -Wextra -fPIE -pie -I"$top" -o "$g/guest_wrap" \
			"$here/guest_wrap.c" -L"$g" -lpmubedwrap
} >"$gcc_log" 2>&1 || die "building the guest programs (log: $gcc_log)" "$gcc_log"
cp "$g/init" "$root/init" && cp "$g/guest_loop" "$g/guest_wrap" "$root/bin/" &&
	cp "$lib" "$g/libpmubedwrap.so" "$root/lib/" || die "cannot fill $root"
# The preset and stall-tree files (HPCSHIM_PRESET_PATH=/presets in the cases).
mkdir -p "$root/presets" && cp "$top"/data/presets/*.preset "$top"/data/presets/*.tree "$root/presets/" ||
	die "cannot copy data/presets into $root"
python3 "$here/check.py" cases >"$root/cases" || die "check.py cases failed"

# Shared libraries: the NEEDED closure, from the cross glibc first (what the
# programs were linked against), then the arm64 multiarch directories.
libdirs="/usr/$host/lib /usr/lib/$host /lib/$host"
needed() { $host-readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }
# libpfm4 is loaded by the shim when a name needs it (pmu/pfm.c), libffi when
# HPCSHIM_WRAP does (preload/wrap/ffi.c, by the soname configure found):
# neither is linked.
ffi_soname=$(sed -n 's/^hs_cv_ffi_soname=//p' "$src/config.log" | tail -1)
[ -n "$ffi_soname" ] || die "configure found no libffi soname ($src/config.log)"
needed_shim() {
	needed "$1"
	case "$1" in */libhpcshim.so) echo libpfm.so.4 "$ffi_soname" ;; esac
}
todo="$root/bin/guest_loop $root/bin/guest_wrap $root/lib/libpmubedwrap.so $root/lib/libhpcshim.so"
while [ -n "$todo" ]; do
	next=
	for f in $todo; do
		for n in $(needed_shim "$f"); do
			[ -e "$root/lib/$n" ] && continue
			found=
			for d in $libdirs; do
				if [ -e "$d/$n" ]; then
					found=$d/$n
					break
				fi
			done
			[ -n "$found" ] || die "shared library $n (needed by $(basename "$f")) not found in $libdirs"
			cp -L "$found" "$root/lib/$n" || die "cannot copy $found"
			next="$next $root/lib/$n"
		done
	done
	todo=$next
done
interp=$($host-readelf -l "$root/bin/guest_loop" | sed -n 's/.*interpreter: \(.*\)\]$/\1/p')
[ -e "$root$interp" ] || die "program interpreter $interp is not in the initramfs"
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
initrd=$build/initramfs.gz
(cd "$root" && find . | sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$initrd" ||
	die "cannot pack $initrd"
note "initramfs $(du -k "$initrd" | cut -f1) KiB: $(ls "$root/lib" | tr '\n' ' ')"

# ---- 5. boot -----------------------------------------------------------
log=$build/console.log
note "booting: qemu-system-aarch64 -cpu max,pauth-impdef=on -smp 1 -icount shift=0"
t_boot=$(date +%s)
timeout "${QEMU_TIMEOUT:-300}" qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on \
	-smp 1 -m 512 -icount shift=0 -nographic -no-reboot -nic none \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "console=ttyAMA0 panic=-1 quiet" </dev/null >"$log" 2>&1
qrc=$?
note "guest ran $(($(date +%s) - t_boot)) s, qemu exit $qrc, console log $log"
if ! grep -q '^@@PMUBED DONE' "$log"; then
	note "the guest did not finish (qemu exit $qrc; 124 = timeout); console tail:"
	tail -40 "$log" | tr -d '\r' | sed 's/^/# /'
fi

# ---- 6. check ----------------------------------------------------------
python3 "$here/check.py" check "$log"
rc=$?
note "total $(elapsed) s"
[ $rc = 0 ] || exit 1
exit 0
