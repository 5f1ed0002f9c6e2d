#!/bin/sh
# sanitize.sh asan|tsan - build the shim with a sanitizer in a scratch copy
# and run the integration tests against it (the test programs themselves
# are the normal ones: the sanitizer runtime is preloaded next to the shim).
#   asan: AddressSanitizer + UndefinedBehaviorSanitizer; the runtime must be
#         first in LD_PRELOAD.
#   tsan: ThreadSanitizer; the shim must come first so that TSan's
#         pthread_create wrapper runs below ours and has set up the new
#         thread before our trampoline allocates.
# Prints one TAP-like line "PASS: sanitize KIND" or "FAIL: ..." and exits
# accordingly.
set -u
kind=${1:?usage: sanitize.sh asan|tsan}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
chmod 755 "$work" # tests run some programs as an unprivileged user
trap 'rm -rf "$work"' EXIT
case $kind in
asan) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
      rt="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
      preload="$rt {lib}" ;;
tsan) flags="-fsanitize=thread"
      preload="{lib} $(gcc -print-file-name=libtsan.so)" ;;
*) echo "sanitize.sh: unknown kind '$kind'" >&2; exit 2 ;;
esac
( cd "$top" && git ls-files -z | xargs -0 tar cf - ) | tar xf - -C "$work"
cd "$work" || exit 1
if ! { autoreconf -fi && ./configure -q CFLAGS="-O1 -g $flags" LDFLAGS="$flags" &&
       make -j"$(nproc)"; } >build.log 2>&1; then
	tail -30 build.log
	echo "FAIL: sanitize $kind (build)"
	exit 1
fi
# The workload and samples are plain builds; only the shim is instrumented.
# Counts are not checked here: instrumented code touches shadow memory
# inside the measured intervals (a few extra page faults per region).  What
# must hold is that no sanitizer reports anything, in any process run.
# Writing the results from a fatal signal's handler is deliberate best
# effort (docs/internals.md, "Fatal signals"): TSan is told not to report
# the allocations in it.
mkdir -p "$work/reports"
log="log_path=$work/reports/report"
# A run whose programs crash writes no report: each test must also run to
# its end (its plan printed, no exception: every program gave its
# results).  Its exact checks may fail under a sanitizer (shadow memory
# adds page faults, instrumentation adds time); those are printed, not
# judged.  die_after_fork=0: the shim starts its flush thread in a child
# forked from a threaded process, as glibc allows.  tools/tsan.supp: the
# OpenMP runtimes are not instrumented (the reason is in the file).
stopped=""
# SANITIZE_TESTS: paths below tests/, without .py
for t in ${SANITIZE_TESTS:-shim/test_regions shim/test_threads shim/test_contract programs/test_samples shim/test_range shim/test_mux shim/test_kills shim/test_openmp}; do
	out=${t##*/}.out
	HPCSHIM_BUILDDIR="$top" HPCSHIM_LIB="$work/.libs/libhpcshim.so" \
	HPCSHIM_TEST_PRELOAD="$preload" HPCSHIM_TEST_SANITIZER="$kind" \
	ASAN_OPTIONS="detect_leaks=0:$log" UBSAN_OPTIONS="print_stacktrace=1:$log" \
	TSAN_OPTIONS="report_signal_unsafe=0:die_after_fork=0:suppressions=$top/tools/tsan.supp:$log" \
		python3 "$top/tests/$t.py" >"$out" 2>&1
	rc=$?
	echo "sanitize $kind: $t: exit $rc, $(grep -c '^ok' "$out") ok, $(grep -c '^not ok' "$out") not ok"
	if [ "$rc" != 0 ] || ! grep -q '^1\.\.[0-9]' "$out"; then
		tail -20 "$out"
		stopped="$stopped $t"
	fi
done
if ls "$work/reports" | grep -q . || [ -n "$stopped" ]; then
	head -80 "$work"/reports/* 2>/dev/null
	[ -z "$stopped" ] || echo "sanitize $kind: stopped before their end:$stopped"
	echo "FAIL: sanitize $kind"
	exit 1
fi
echo "PASS: sanitize $kind"
