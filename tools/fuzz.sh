#!/bin/sh
# fuzz.sh [SECONDS] - build the libFuzzer target over the configuration and
# event-spec parsers with clang (ASan+UBSan) and run it for SECONDS (60)
# from the saved corpus in tests/fuzz/corpus (new inputs go to a scratch
# directory, the saved corpus is not changed).  Installs clang when missing
# (Debian, root).  Prints "PASS: fuzz" or "FAIL: fuzz".
set -u
secs=${1:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v clang >/dev/null 2>&1 || [ ! -d /usr/lib/llvm-14/lib/clang ]; then
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
mkdir "$work/corpus"
cp "$top"/tests/fuzz/corpus/* "$work/corpus/"
if ASAN_OPTIONS=detect_leaks=1 "$work/fuzz_config" -max_total_time="$secs" -max_len=4096 \
	-print_final_stats=1 "$work/corpus" >"$work/run.log" 2>&1; then
	grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/run.log"
	echo "PASS: fuzz"
else
	tail -60 "$work/run.log"
	echo "FAIL: fuzz"
	exit 1
fi
