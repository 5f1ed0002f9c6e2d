#!/bin/sh
# bench/mpi.sh - the cost of the in-job reduction at MPI_Finalize
# (preload/mpi/, docs/mpi-scale.md).
#
# Usage: bench/mpi.sh [BUILDDIR] [RANKS...]   (default: . and "4 64")
#
# tests/programs/mpi_job.c prints rank 0's MPI_Finalize time (our hook and
# the real finalize) to stderr.  Per MPI, per rank count, the median of
# REPS runs (default 5) of:
#   bare    no shim
#   noagg   the shim without a plugin beside it (the reduction declines:
#           the real finalize plus the shim's exit path)
#   agg     the shim with the reduction, HPCSHIM_MPI_FILES=job
# then the job document's size as the regions per rank grow (1, 10, 100,
# 1000; HPCSHIM_MPI_FILES=job, so no per-rank file), and a rank file's
# size for comparison.  Oversubscribed: more ranks than cores.
# With ABORT_RUNS=N: N jobs of 4 ranks per MPI where rank 1 calls
# MPI_Abort, and how many of the 4N rank files survive (the others are
# killed by the launcher: hydra SIGKILL, Open MPI SIGTERM then SIGKILL).
set -eu
B=$(cd "${1:-.}" && pwd)
shift || true
RANKS=${*:-"4 64"}
REPS=${REPS:-5}
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/hpcshim-bench-mpi.XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$W/lib"
cp "$B/.libs/libhpcshim.so" "$W/lib/" # no plugin beside this copy

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

run() { # impl np shimlib files regions -> finalize_us of rank 0
	impl=$1 np=$2 lib=$3 files=$4 regs=$5
	out=$W/out; rm -rf "$out"; mkdir -p "$out"
	case $impl in
	openmpi) set -- mpirun.openmpi -np "$np" --mca btl self,vader ;;
	mpich) set -- mpiexec.mpich -n "$np" ;;
	esac
	if [ -n "$lib" ]; then
		case $impl in
		openmpi) set -- "$@" -x LD_PRELOAD="$lib" -x HPCSHIM_OUTPUT="$out" \
			-x HPCSHIM_MPI_FILES="$files" ;;
		mpich) set -- "$@" -genv LD_PRELOAD "$lib" -genv HPCSHIM_OUTPUT "$out" \
			-genv HPCSHIM_MPI_FILES "$files" ;;
		esac
	fi
	"$@" "$W/mpi_job_$impl" 100 "$regs" time 2>&1 >/dev/null |
		awk '/^finalize_us/ {print $2}'
}

if [ -n "${ABORT_RUNS:-}" ]; then
	for impl in openmpi mpich; do
		command -v "mpicc.$impl" >/dev/null || continue
		"mpicc.$impl" -O2 -I"$SRC/annotate" -o "$W/mpi_job_$impl" "$SRC/tests/programs/mpi_job.c"
		n=0 files=0 complete=0
		while [ $n -lt "$ABORT_RUNS" ]; do
			out=$W/out; rm -rf "$out"; mkdir -p "$out"
			case $impl in
			openmpi) mpirun.openmpi -np 4 --mca btl self,vader -x LD_PRELOAD="$B/.libs/libhpcshim.so" \
				-x HPCSHIM_OUTPUT="$out" "$W/mpi_job_$impl" 1000 0 abort ;;
			mpich) mpiexec.mpich -n 4 -genv LD_PRELOAD "$B/.libs/libhpcshim.so" \
				-genv HPCSHIM_OUTPUT "$out" "$W/mpi_job_$impl" 1000 0 abort ;;
			esac >/dev/null 2>&1 || true
			files=$((files + $(ls "$out" | grep -c '^hpcshim-.*-r[0-9]*\.json$' || true)))
			n=$((n + 1))
		done
		echo "$impl abort runs $ABORT_RUNS: rank files $files of $((4 * ABORT_RUNS))"
	done
	exit 0
fi

for impl in openmpi mpich; do
	command -v "mpicc.$impl" >/dev/null || { echo "# mpicc.$impl: not installed"; continue; }
	[ -e "$B/preload/mpi/hpcshim-mpi-$impl.so" ] || { echo "# no plugin for $impl"; continue; }
	"mpicc.$impl" -O2 -I"$SRC/annotate" -o "$W/mpi_job_$impl" "$SRC/tests/programs/mpi_job.c"
	for np in $RANKS; do
		for mode in bare noagg agg; do
			case $mode in
			bare) lib= files=all ;;
			noagg) lib=$W/lib/libhpcshim.so files=all ;;
			agg) lib=$B/.libs/libhpcshim.so files=job ;;
			esac
			i=0; : >"$W/t"
			while [ $i -lt "$REPS" ]; do
				run "$impl" "$np" "$lib" "$files" 1 >>"$W/t"; i=$((i + 1))
			done
			echo "$impl np=$np $mode finalize_us median $(median <"$W/t") of $(wc -l <"$W/t")"
		done
		for regs in 1 10 100 1000; do
			t=$(run "$impl" "$np" "$B/.libs/libhpcshim.so" job "$regs")
			job=$(ls "$W"/out/hpcshim-job-*.json 2>/dev/null | head -1)
			nrank=$(ls "$W"/out/ | grep -vc '^hpcshim-job-' || true)
			echo "$impl np=$np regions=$((regs + 1)) job_bytes $( [ -n "$job" ] && wc -c <"$job" || echo none) rank_files $nrank finalize_us $t"
		done
		t=$(run "$impl" "$np" "$B/.libs/libhpcshim.so" all 1000)
		f=$(ls "$W"/out/hpcshim-*-r0.json | head -1)
		echo "$impl np=$np regions=1001 one_rank_file_bytes $(wc -c <"$f")"
	done
done
