#!/bin/sh
# fuzz.sh [SECONDS] - build the libFuzzer targets with clang (ASan+UBSan)
# and run each for SECONDS (60): the configuration and event-spec parsers
# (tests/fuzz/fuzz_config.c, corpus tests/fuzz/corpus) and the reader of
# result documents with the tools' escaping (tests/fuzz/fuzz_docread.c,
# corpus tests/fuzz/docread: the hostile files).  New inputs go to scratch
# directories, the saved corpora are not changed.  Installs clang when missing
# (Debian, root).  Prints "PASS: fuzz" or "FAIL: fuzz".
set -u
secs=${1:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
# libFuzzer's runtime comes with libclang-rt-14-dev, not with clang: a
# machine may have clang (the OpenMP tests install it) without it.
if ! command -v clang >/dev/null 2>&1 || [ ! -d /usr/lib/llvm-14/lib/clang ] ||
	! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
	if [ "$(id -u)" = 0 ]; then
		sh "$top/tools/apt.sh" update -qq && sh "$top/tools/apt.sh" install -y -qq \
			--no-install-recommends clang-14 libclang-rt-14-dev >/dev/null
	fi
fi
cc=$(command -v clang || command -v clang-14)
if [ -z "$cc" ]; then
	echo "FAIL: fuzz (clang not available)"
	exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE -I$top $(pkg-config --cflags json-c)"
if ! $cc $flags -o "$work/fuzz_config" "$top/tests/fuzz/fuzz_config.c" \
	"$top/preload/config/config.c" "$top/preload/config/speclist.c" "$top/preload/range/config.c" "$top/preload/mux/config.c" "$top/preload/config/varparse.c" "$top/preload/config/limits.c" "$top/preload/config/flushconfig.c" "$top/preload/config/sampleconfig.c" "$top/preload/base/log.c" "$top/pmu/event.c" "$top/pmu/pfm.c" \
	"$top/pmu/error.c" "$top/pmu/fdspace.c" "$top/aggregate/utf8.c" \
	"$top/common/formula.c" "$top/common/dl.c" "$top/presets/preset.c" "$top/presets/preset_path.c" -ldl -lpfm >"$work/build.log" 2>&1; then
	cat "$work/build.log"
	echo "FAIL: fuzz (build)"
	exit 1
fi
if ! $cc $flags -o "$work/fuzz_docread" "$top/tests/fuzz/fuzz_docread.c" \
	"$top/aggregate/docread.c" "$top/aggregate/docread_thread.c" "$top/aggregate/docread_region.c" \
	"$top/aggregate/docread_check.c" "$top/tools/escape.c" $(pkg-config --libs json-c) -lm \
	>"$work/build.log" 2>&1; then
	cat "$work/build.log"
	echo "FAIL: fuzz (build of fuzz_docread)"
	exit 1
fi
# run TARGET CORPUS MAXLEN
run() {
	mkdir "$work/$1.corpus"
	cp "$top/tests/fuzz/$2"/* "$work/$1.corpus/"
	if ASAN_OPTIONS=detect_leaks=1 "$work/$1" -max_total_time="$secs" -max_len="$3" \
		-print_final_stats=1 "$work/$1.corpus" >"$work/run.log" 2>&1; then
		grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/run.log" | sed "s/^/$1: /"
		return 0
	fi
	tail -60 "$work/run.log"
	return 1
}
if run fuzz_config corpus 4096 && run fuzz_docread docread 16384; then
	echo "PASS: fuzz"
else
	echo "FAIL: fuzz"
	exit 1
fi
