#!/bin/sh
# check-presets-arm.sh - the Arm Neoverse preset encodings, checked with the
# aarch64 libpfm4 under qemu-user (an x86 libpfm4 has no Arm tables, so
# tests/unit_preset SKIPs those models there).
#
# Cross-builds tests/unit_preset with the common/, pmu/ and presets/ sources and runs it once per
# model ("unit_preset MODEL": no fork, which qemu-user 7.2 cannot do on
# recent kernels).  Needs gcc-aarch64-linux-gnu, libpfm4-dev:arm64 and
# qemu-user-static; exit 77 (skip) when they are missing.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
out=${TMPDIR:-/tmp}/hpcshim-presets-arm.$$
lib=/usr/lib/aarch64-linux-gnu
# The test bed (tests/pmubed/run.sh) installs the cross compiler and the
# arm64 libpfm4; the emulator is ours to install (as root, when missing).
if ! command -v qemu-aarch64-static >/dev/null && [ "$(id -u)" = 0 ] &&
   command -v apt-get >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		qemu-user-static >/dev/null 2>&1 || true
fi
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64-static >/dev/null ||
   [ ! -e $lib/libpfm.so ]; then
	echo "1..0 # SKIP needs gcc-aarch64-linux-gnu, libpfm4-dev:arm64 and qemu-user-static"
	exit 77
fi
aarch64-linux-gnu-gcc -std=gnu11 -D_GNU_SOURCE -I"$src" -o "$out" \
	"$src"/tests/unit_preset.c "$src"/common/*.c "$src"/pmu/*.c "$src"/presets/*.c -L$lib -lpfm -lm -lpthread || exit 1
rc=0
for model in arm_n1 arm_v1 arm_n2 arm_v2; do
	echo "# $model"
	qemu-aarch64-static -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$lib \
		-E HPCSHIM_SRCDIR="$src" "$out" $model || rc=1
done
rm -f "$out"
exit $rc
