#!/bin/sh
# run-mpi-sample.sh - runs the MPI samples (samples/mpi_work, samples/hybrid_work)
# on 4 ranks under LD_PRELOAD=libhpcshim.so, then merges each job's rank
# files with hpcshim-merge and prints the job's region figures.
# `make run-mpi` calls it from the build directory with the samples built;
# MPICC names the wrapper they were built with, which picks the launcher.
# Results: ./sample-results/mpi/<sample>/ (rank files and job.json).
set -e
np=${NP:-4}
lib="$(pwd)/.libs/libhpcshim.so"
out="$(pwd)/sample-results/mpi"
[ $# -gt 0 ] || { echo "run-mpi-sample.sh: no MPI sample built (no mpicc)" >&2; exit 1; }
if ${MPICC:-mpicc} -showme:version >/dev/null 2>&1; then
	# Open MPI: -x passes LD_PRELOAD to the ranks only (the launcher and
	# its daemons are dormant anyway when it is exported to them).
	run=$(command -v mpirun.openmpi || command -v mpirun)
	launch() { "$run" --oversubscribe -np "$np" -x LD_PRELOAD="$lib" \
		-x HPCSHIM_OUTPUT="$dir" "$@"; }
else
	# MPICH / hydra: -genv sets a variable in every rank.
	run=$(command -v mpiexec.mpich || command -v mpiexec)
	launch() { "$run" -n "$np" -genv LD_PRELOAD "$lib" -genv HPCSHIM_OUTPUT "$dir" "$@"; }
fi
for prog in "$@"; do
	dir="$out/$(basename "$prog")"
	rm -rf "$dir"
	mkdir -p "$dir"
	echo
	echo "== $run -np $np (LD_PRELOAD=$lib) $prog"
	launch "./$prog"
	./hpcshim-merge -o "$dir/job.json" "$dir"
	echo "rank files: $(ls "$dir" | grep -c '^hpcshim-') in $dir"
	if command -v python3 >/dev/null; then
		python3 - "$dir/job.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("job %s: %d ranks on %s" % (d["job"]["id"], d["job"]["ranks"], ", ".join(d["job"]["hosts"])))
for r in d["regions"]:
    for ev, s in sorted(r["inclusive"].items()):
        print("  %-10s %-16s sum %-12s min %-10s (rank %d)  max %-10s (rank %d)  imbalance %.3f"
              % (r["name"], ev, s["sum"], s["min"], s["min_at"]["rank"], s["max"],
                 s["max_at"]["rank"], s["imbalance"]))
PY
	fi
	echo "job document: $dir/job.json"
done
