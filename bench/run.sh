#!/bin/sh
# run.sh - the annotation pair benchmarks: runs every variant, checks that
# what was timed was really counted, prints the table (bench/results.py).
#
# Usage: make bench   (or: BENCH_BUILDDIR=<build dir> sh bench/run.sh)
#
# Every performance figure is a ratio to a baseline measured in the same run,
# in the same round: the VMs this runs on are noisy.  A round runs, for each
# event set, the shim (literal and run-time names), the raw floor and PAPI,
# in an order that rotates from round to round, plus one process without the
# shim for the absent-shim cost.  Each process pins itself to one CPU, warms
# up, then times BENCH_REPS loops of each of its variants in turn.
#
# Environment (defaults in brackets):
#   BENCH_ROUNDS [9]        rounds
#   BENCH_REPS [5]          timed loops per variant and process
#   BENCH_PAIRS [20000]     pairs per timed loop: shim, floor, PAPI
#   BENCH_FAST_PAIRS [20000000]  pairs per timed loop without the shim
#   BENCH_CPU [last online CPU]  CPU to pin to (-1: do not pin)
#   BENCH_EVENTS_1/_3/_6    the three event sets (software events)
#   BENCH_KEEP=1            keep the raw samples (their path is printed)
# Exits non-zero only when the benchmark could not run; a missed target is
# printed as MISS, never a failure.
set -eu

SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
LIB=${HPCSHIM_LIB:-$BUILDDIR/.libs/libhpcshim.so}
PAIR=$BUILDDIR/bench/pair
PAPI_PAIR=$BUILDDIR/bench/papi_pair
PYTHON=${PYTHON3:-python3}
ROUNDS=${BENCH_ROUNDS:-9}
REPS=${BENCH_REPS:-5}
PAIRS=${BENCH_PAIRS:-20000}
FAST_PAIRS=${BENCH_FAST_PAIRS:-20000000}
WARM=$((PAIRS / 10))
FAST_WARM=$((FAST_PAIRS / 10))
CPU=${BENCH_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}
E1=${BENCH_EVENTS_1:-task-clock}
E3=${BENCH_EVENTS_3:-task-clock,page-faults,context-switches}
E6=${BENCH_EVENTS_6:-task-clock,page-faults,context-switches,cpu-migrations,minor-faults,major-faults}

for f in "$LIB" "$PAIR"; do
	[ -e "$f" ] || { echo "bench: $f not built (run: make bench)" >&2; exit 1; }
done

# ---- PAPI: install when root and missing; build here if configure could not
papi_note=""
if ! command -v papi_native_avail >/dev/null 2>&1 || [ ! -e /usr/include/papi.h ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "bench: installing libpapi-dev papi-tools"
		sh "$SRCDIR/tools/apt.sh" update -qq >/dev/null 2>&1 || true
		sh "$SRCDIR/tools/apt.sh" install -y -qq \
			--no-install-recommends libpapi-dev papi-tools >/dev/null 2>&1 ||
			papi_note="apt-get install libpapi-dev papi-tools failed"
	else
		papi_note="PAPI not installed (libpapi-dev, papi-tools) and not root to install it"
	fi
fi
if [ ! -x "$PAPI_PAIR" ] && [ -z "$papi_note" ]; then
	# configure ran before PAPI was installed: build the one program here,
	# with the flags the Makefile passed.
	mkdir -p "$BUILDDIR/bench"
	${CC:-cc} -std=gnu11 -D_GNU_SOURCE ${CFLAGS:--O2} -I"$SRCDIR" \
		-o "$PAPI_PAIR" "$SRCDIR/bench/papi_pair.c" "$SRCDIR/bench/bench.c" -lpapi ||
		papi_note="bench/papi_pair did not build against libpapi"
fi
[ -x "$PAPI_PAIR" ] || PAPI_PAIR=""

TMP=$(mktemp -d "${TMPDIR:-/tmp}/hpcshim-bench.XXXXXX")
if [ "${BENCH_KEEP:-0}" = 1 ]; then
	trap 'echo "bench: raw samples kept in $TMP"' EXIT
else
	trap 'rm -rf "$TMP"' EXIT
fi
SAMPLES=$TMP/samples.tsv  # round <tab> events <tab> variant <tab> ns per pair
CHECKS=$TMP/checks.tsv    # events <tab> variant <tab> "ok" or what was wrong
: >"$SAMPLES"
: >"$CHECKS"
[ -z "$papi_note" ] || printf '%s\t%s\t%s\n' - papi "$papi_note" >>"$CHECKS"

# Appends a process's "VARIANT NS" lines as samples.
collect() { # round events prefix
	while read -r v ns; do
		printf '%s\t%s\t%s%s\t%s\n' "$1" "$2" "$3" "$v" "$ns"
	done >>"$SAMPLES"
}

papi_names() { # task-clock,page-faults -> perf::TASK-CLOCK,perf::PAGE-FAULTS
	echo "$1" | tr 'a-z' 'A-Z' | sed 's/\([^,][^,]*\)/perf::\1/g'
}

# ---- the shim's group partition of each event set, from its own results
for k in 1 3 6; do
	eval "ev=\$E$k"
	d=$TMP/part$k
	mkdir "$d"
	HPCSHIM_OUTPUT=$d HPCSHIM_EVENTS=$ev LD_PRELOAD=$LIB "$PAIR" -n 10 -w 0 -r 1 literal >/dev/null
	part=$("$PYTHON" "$SRCDIR/bench/results.py" partition "$d") || {
		echo "bench: no usable shim results for $ev" >&2; exit 1; }
	eval "G$k=\$part"
	echo "bench: $k events: shim groups $part"
done

run_shim() { # round k events
	d=$TMP/shim.$1.$2
	mkdir "$d"
	HPCSHIM_OUTPUT=$d HPCSHIM_EVENTS=$3 LD_PRELOAD=$LIB \
		"$PAIR" -c "$CPU" -n "$PAIRS" -w "$WARM" -r "$REPS" literal runtime |
		collect "$1" "$2" shim.
	"$PYTHON" "$SRCDIR/bench/results.py" check-shim "$d" $((WARM + REPS * PAIRS)) \
		"$4" | sed "s/^/$2	/" >>"$CHECKS"
	rm -rf "$d"
}

run_floor() { # round k groups
	"$PAIR" -c "$CPU" -n "$PAIRS" -w "$WARM" -r "$REPS" -g "$3" floor |
		collect "$1" "$2" ""
}

run_papi() { # round k events
	[ -n "$PAPI_PAIR" ] || return 0
	d=$TMP/papi.$1.$2
	mkdir "$d"
	if PAPI_OUTPUT_DIRECTORY=$d PAPI_EVENTS=$(papi_names "$3") \
		"$PAPI_PAIR" -c "$CPU" -n "$PAIRS" -w "$WARM" -r "$REPS" papi \
		2>"$d.err" | collect "$1" "$2" ""; then :; fi
	"$PYTHON" "$SRCDIR/bench/results.py" check-papi "$d" $((WARM + REPS * PAIRS)) \
		"$(papi_names "$3")" "$d.err" | sed "s/^/$2	/" >>"$CHECKS"
	rm -rf "$d" "$d.err"
}

echo "bench: $ROUNDS rounds x $REPS loops of $PAIRS pairs (no shim: $FAST_PAIRS), CPU $CPU"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	printf 'bench: round %s/%s\n' "$r" "$ROUNDS" >&2
	for k in 1 3 6; do
		eval "ev=\$E$k; part=\$G$k"
		case $(((r + k) % 3)) in
		0) run_shim "$r" "$k" "$ev" "$part"; run_floor "$r" "$k" "$part"; run_papi "$r" "$k" "$ev" ;;
		1) run_floor "$r" "$k" "$part"; run_papi "$r" "$k" "$ev"; run_shim "$r" "$k" "$ev" "$part" ;;
		2) run_papi "$r" "$k" "$ev"; run_shim "$r" "$k" "$ev" "$part"; run_floor "$r" "$k" "$part" ;;
		esac
	done
	# Annotations compiled in, no shim: against the same loop without them.
	env -u LD_PRELOAD "$PAIR" -c "$CPU" -n "$FAST_PAIRS" -w "$FAST_WARM" -r "$REPS" \
		none literal runtime | collect "$r" 0 absent.
	r=$((r + 1))
done

CPUMODEL=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
REV=$(git -C "$SRCDIR" log -1 --format='%h %s' 2>/dev/null) || REV="unknown (not a git tree)"
REV=$(printf '%s' "$REV" | cut -c1-60)
"$PYTHON" "$SRCDIR/bench/results.py" table "$SAMPLES" "$CHECKS" \
	"h:kernel $(uname -r), ${CPUMODEL:-unknown CPU}, $(getconf _NPROCESSORS_ONLN) CPUs, pinned to $CPU" \
	"h:source $REV" \
	"h:$ROUNDS rounds x $REPS loops: $PAIRS pairs per loop (without the shim: $FAST_PAIRS)" \
	"e1:$E1" "e3:$E3" "e6:$E6" "g1:$G1" "g3:$G3" "g6:$G6"
