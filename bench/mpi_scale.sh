#!/bin/sh
# bench/mpi_scale.sh - the in-job reduction of issue 30 in real jobs:
# tests/programs/mpi_job.c with 1000 regions per rank, rank 0's
# MPI_Finalize time and peak RSS, without the shim ("bare") and with it
# (HPCSHIM_MPI_FILES=job: the reduction and the job document, no rank
# file), per MPI and rank count; the median of REPS runs (default 3),
# the runs with and without the shim interleaved.
# Oversubscribed: more ranks than cores.
# COMPARE_DOC=1: a third run per round, the shim with HPCSHIM_MPI_SUMMARY=doc
# (each rank summarised from its whole document, as before the view's
# summaries), interleaved with the two others; its columns added.
#
# Usage: bench/mpi_scale.sh [BUILDDIR] [RANKS...]   (default: . and "4 16 64")
set -eu
B=$(cd "${1:-.}" && pwd)
shift || true
RANKS=${*:-"4 16 64"}
REPS=${REPS:-3}
REGIONS=${REGIONS:-1000}
IMPLS=${IMPLS:-"openmpi mpich"}
COMPARE_DOC=${COMPARE_DOC:-0}
SRC=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/hpcshim-bench-mpiscale.XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

run() { # impl np shim(0/1/2: 2 summarises documents) -> "finalize_us maxrss_kb"
	impl=$1 np=$2 shim=$3
	out=$W/out; rm -rf "$out"; mkdir -p "$out"
	case $impl in
	openmpi) set -- mpirun.openmpi -np "$np" --mca btl self,vader ;;
	mpich) set -- mpiexec.mpich -n "$np" ;;
	esac
	sum=view
	[ "$shim" = 2 ] && sum=doc
	if [ "$shim" != 0 ]; then
		case $impl in
		openmpi) set -- "$@" -x LD_PRELOAD="$B/.libs/libhpcshim.so" -x HPCSHIM_OUTPUT="$out" \
			-x HPCSHIM_MPI_FILES=job -x HPCSHIM_MPI_SUMMARY=$sum ;;
		mpich) set -- "$@" -genv LD_PRELOAD "$B/.libs/libhpcshim.so" -genv HPCSHIM_OUTPUT "$out" \
			-genv HPCSHIM_MPI_FILES job -genv HPCSHIM_MPI_SUMMARY $sum ;;
		esac
	fi
	"$@" "$W/mpi_job_$impl" 100 "$REGIONS" time 2>&1 >"$W/stdout" |
		awk '/^finalize_us/ {t = $2} /^maxrss_kb/ {m = $2} END {print t, m}'
}

echo "| MPI | ranks | finalize, no shim | finalize, shim | added | rank 0 peak RSS, no shim | shim | added | job document |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for impl in $IMPLS; do
	command -v "mpicc.$impl" >"$W/which" || { echo "# mpicc.$impl: not installed"; continue; }
	[ -e "$B/preload/mpi/hpcshim-mpi-$impl.so" ] || { echo "# no plugin for $impl"; continue; }
	"mpicc.$impl" -O2 -I"$SRC/annotate" -o "$W/mpi_job_$impl" "$SRC/tests/programs/mpi_job.c"
	for np in $RANKS; do
		# interleaved: bare, shim, bare, shim... (the machine's load
		# drifts; each pair sees the same)
		: >"$W/t0"; : >"$W/m0"; : >"$W/t1"; : >"$W/m1"; : >"$W/t2"; : >"$W/m2"
		variants="0 1"
		[ "$COMPARE_DOC" = 1 ] && variants="0 1 2"
		i=0
		while [ $i -lt "$REPS" ]; do
			for shim in $variants; do
				r=$(run "$impl" "$np" "$shim")
				echo "${r% *}" >>"$W/t$shim"
				echo "${r#* }" >>"$W/m$shim"
			done
			i=$((i + 1))
		done
		job=$(ls "$W"/out/hpcshim-job-*.json 2>"$W/ls.err" | head -1)
		t0=$(median <"$W/t0") t1=$(median <"$W/t1") m0=$(median <"$W/m0") m1=$(median <"$W/m1")
		awk -v impl="$impl" -v np="$np" -v t0="$t0" -v t1="$t1" -v m0="$m0" -v m1="$m1" \
			-v jb="$( [ -n "$job" ] && wc -c <"$job" || echo 0)" 'BEGIN {
			printf "| %s | %d | %.2f s | %.2f s | %+.2f s | %.1f MB | %.1f MB | %+.1f MB | %.2f MB |\n",
				impl, np, t0 / 1e6, t1 / 1e6, (t1 - t0) / 1e6, m0 / 1024, m1 / 1024,
				(m1 - m0) / 1024, jb / 1048576 }'
		if [ "$COMPARE_DOC" = 1 ]; then
			t2=$(median <"$W/t2") m2=$(median <"$W/m2")
			echo "|   ($impl $np ranks, summaries from whole documents: finalize $(awk -v a="$t2" -v b="$t0" 'BEGIN {printf "%.2f s, added %+.2f s", a / 1e6, (a - b) / 1e6}'), peak RSS $(awk -v a="$m2" 'BEGIN {printf "%.1f MB", a / 1024}'); each run's finalize in us: bare $(tr '\n' ' ' <"$W/t0") view $(tr '\n' ' ' <"$W/t1") doc $(tr '\n' ' ' <"$W/t2")) |"
		fi
	done
done
