#!/bin/sh
# check-presets-arm.sh - the Arm Neoverse preset and stall-tree encodings,
# checked with the aarch64 libpfm4 under qemu-user (an x86 libpfm4 has no
# Arm tables, so tests/unit/unit_preset and tests/unit/unit_tree SKIP those models
# there).  Run by `make check` (tests/drill/test_arm_encodings.py) and by
# `make check-presets-arm`.
#
# Cross-builds tests/unit/unit_preset and tests/unit/unit_tree with the common/, pmu/
# and presets/ sources and runs each once per model ("unit_preset MODEL":
# no fork, which qemu-user 7.2 cannot do on recent kernels).  Prints one
# TAP stream (the programs' lines renumbered, their plans dropped).
# Needs gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, libpfm4-dev:arm64 and
# qemu-user-static: installs them as root with apt-get when missing (arm64
# multiarch, as tests/pmubed/run.sh does); exit 77 with "1..0 # SKIP why"
# only when they cannot be installed.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
out=${TMPDIR:-/tmp}/hpcshim-presets-arm.$$
lib=/usr/lib/aarch64-linux-gnu
PRESET_MODELS="arm_n1 arm_v1 arm_n2 arm_v2"
# Every Arm model a shipped tree names (data/presets/*.tree "tree NAME MODEL...").
TREE_MODELS=$(sed -n 's/^tree [^ ]* //p' "$src"/data/presets/*.tree | tr ' ' '\n' |
	grep '^arm_' | sort -u)

skip() { echo "1..0 # SKIP $*"; exit 77; }
have() {
	command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64-static >/dev/null &&
		[ -e $lib/libpfm.so ] && [ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ]
}

if ! have; then
	command -v apt-get >/dev/null && command -v dpkg >/dev/null ||
		skip "needs gcc-aarch64-linux-gnu, libpfm4-dev:arm64 and qemu-user-static (not a Debian system: cannot install them)"
	[ "$(id -u)" = 0 ] ||
		skip "needs gcc-aarch64-linux-gnu, libpfm4-dev:arm64 and qemu-user-static (not root: cannot install them)"
	log=${TMPDIR:-/tmp}/hpcshim-presets-arm-apt.$$
	{
		dpkg --print-foreign-architectures | grep -qx arm64 ||
			dpkg --add-architecture arm64
		# An unreachable third-party source must not stop us: install decides.
		sh "$src/tools/apt.sh" update || true
		sh "$src/tools/apt.sh" install -y --no-install-recommends \
			gcc-aarch64-linux-gnu libc6-dev-arm64-cross libpfm4-dev:arm64 \
			qemu-user-static
	} >"$log" 2>&1
	if ! have; then
		tail -5 "$log" | sed 's/^/# /'
		rm -f "$log"
		skip "gcc-aarch64-linux-gnu, libpfm4-dev:arm64 or qemu-user-static could not be installed"
	fi
	rm -f "$log"
	echo "# installed the aarch64 cross compiler, libpfm4:arm64 and qemu-user-static"
fi

n=0
rc=0
# Run one cross-built program under qemu-user for one model; its TAP lines
# renumbered into ours, anything else as a comment.
run() {
	name=$1 prog=$2 model=$3
	echo "# tests/unit/$name $model"
	res=$(qemu-aarch64-static -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$lib \
		-E HPCSHIM_SRCDIR="$src" "$prog" "$model" 2>&1; echo "exit $?")
	status=$(echo "$res" | sed -n '$s/^exit //p')
	ran=0
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			n=$((n + 1)) ran=$((ran + 1))
			case $line in "not ok "*) rc=1 ;; esac
			echo "$line" | sed -E "s/^(not )?ok [0-9]+/\\1ok $n/" ;;
		1..*|"exit "*) ;;
		*) echo "# $line" ;;
		esac
	done <<EOT
$res
EOT
	n=$((n + 1))
	if [ "$status" = 0 ] && [ $ran -gt 0 ]; then
		echo "ok $n - $model: tests/unit/$name ran under qemu-aarch64-static ($ran verdicts)"
	else
		echo "not ok $n - $model: tests/unit/$name ran under qemu-aarch64-static ($ran verdicts, exit $status)"
		rc=1
	fi
}

for t in unit_preset unit_tree; do
	if ! aarch64-linux-gnu-gcc -std=gnu11 -D_GNU_SOURCE -I"$src" -o "$out.$t" \
		"$src"/tests/unit/$t.c "$src"/common/*.c "$src"/pmu/*.c "$src"/presets/*.c \
		-L$lib -lpfm -lm -lpthread >"$out.cc" 2>&1; then
		n=$((n + 1))
		echo "not ok $n - tests/unit/$t.c cross-builds for aarch64"
		sed 's/^/# /' "$out.cc" | head -20
		rc=1
	fi
done
rm -f "$out.cc"
[ -x "$out.unit_preset" ] && for model in $PRESET_MODELS; do run unit_preset "$out.unit_preset" $model; done
[ -x "$out.unit_tree" ] && for model in $TREE_MODELS; do run unit_tree "$out.unit_tree" $model; done
rm -f "$out.unit_preset" "$out.unit_tree"
echo "1..$n"
exit $rc
