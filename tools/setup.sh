#!/bin/sh
# setup.sh [tests] - make a fresh Debian machine ready and build hpcshim.
#
# With "tests" (run-tests.sh), also the real programs and runtimes the test
# suite runs under the shim; without (run-sample.sh), only what the build and
# the sample need.
#
# Installs missing build and test dependencies with apt-get (when root),
# generates the build system if needed, configures and builds.  Safe to run
# again: every step is skipped when already done.
set -e
cd "$(dirname "$0")/.."

# libdw-dev: OpenMP constructs named by file:line (optional to configure)
PACKAGES="gcc g++ gfortran make autoconf automake libtool pkg-config libjson-c-dev libffi-dev libpfm4-dev libdw-dev linux-perf python3"
# the optional formats of hpcshim convert (configure finds them): OTF2, and
# pprof's gzipped profile.proto (protobuf-c, its compiler, zlib)
PACKAGES="$PACKAGES libopen-trace-format2-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev"
# The real programs and runtimes of tests/programs/test_programs.py: both MPIs (Open
# MPI and MPICH, launchers and compilers), OpenBLAS for C and numpy (for
# /usr/bin/python3), Java, node, Go (cgo).
if [ "$1" = tests ]; then
	PACKAGES="$PACKAGES openmpi-bin libopenmpi-dev mpich libmpich-dev libopenblas-dev python3-numpy"
	PACKAGES="$PACKAGES openjdk-17-jdk-headless nodejs golang-go"
	# headless Chromium opens the HTML report (tests/command/test_html.py)
	PACKAGES="$PACKAGES chromium"
	# a private one-node Slurm (tests/mpi/test_slurm.py): slurmctld, slurmd, the
	# clients and munge; its mpi/pmix and mpi/pmi2 plugins come with them
	# (slurm-wlm-basic-plugins), PMIx itself with Open MPI (libpmix2)
	PACKAGES="$PACKAGES slurm-wlm munge"
	# the sanitizer builds copy the tracked files (tools/sanitize.sh: git);
	# a capability-raising copy of a program (tests/command/test_reach.py: setcap)
	PACKAGES="$PACKAGES git libcap2-bin"
	# OpenMP under both runtimes (tests/shim/test_openmp.py): gcc's libgomp
	# comes with gcc; clang -fopenmp and LLVM's libomp
	PACKAGES="$PACKAGES clang libomp-dev"
	# a real OpenMP program, unannotated: gmx mdrun, 1 rank x 2 threads
	# (tests/programs/test_gromacs.py; built with gcc and libgomp)
	PACKAGES="$PACKAGES gromacs"
	# LIKWID's Marker API and PAPI's high-level API, whose calls the shim takes
	# over (tests/shim/test_markers.py: LIKWID's shipped examples, PAPI HL)
	PACKAGES="$PACKAGES likwid libpapi-dev papi-tools"
	# the readers the converted formats are checked with
	# (tests/command/test_convert*.py): otf2-print and python3-otf2, Go's
	# pprof (golang-go, above), speedscope (npm's, below, in chromium)
	PACKAGES="$PACKAGES otf2-tools python3-otf2 python3-jsonschema"
	# LAMMPS, its MPI timing against the profile's (tests/programs/test_lammps.py);
	# with HPCC, the profile's cost on real programs (bench/profile.sh)
	PACKAGES="$PACKAGES lammps hpcc"
	# npm for speedscope, only where there is none: a new Debian root has
	# none, while this machine kind's nodejs (nodesource's) brings its own
	# npm and conflicts with Debian's npm package
	command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"
fi
missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "setup: installing$missing"
		sh tools/apt.sh update -qq
		sh tools/apt.sh install -y -qq --no-install-recommends $missing >/dev/null
	else
		echo "setup: missing packages:$missing (run as root, or install them)" >&2
	fi
fi

# What configure finds depends on what is installed: the optional MPI
# plugins, the MPI and PAPI samples, C++ and Fortran, python3 and perf,
# libdw (OpenMP's source lines), OTF2 and protobuf-c (convert's formats)
# (configure.ac).  A build configured before one of those appeared (the
# sample's set-up, then the tests' installs) would keep "no MPI" for good, so
# the set of what configure probes is recorded beside the build and a change
# reconfigures from scratch (no cache is kept: configure runs without -C).
probes() {
	for p in gcc g++ gfortran libopenmpi-dev libmpich-dev libpapi-dev python3 linux-perf \
		libdw-dev libopen-trace-format2-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev; do
		printf '%s %s\n' "$p" "$(dpkg-query -W -f='${Version} ${Status}' "$p" 2>/dev/null)"
	done
	for c in mpicc mpicc.openmpi mpicc.mpich g++ gfortran python3 perf; do
		printf '%s %s\n' "$c" "$(command -v "$c")"
	done
	printf 'papi.h %s\n' "$(ls /usr/include/papi.h 2>/dev/null)"
}
found=$(probes)
[ -x configure ] || autoreconf -fi
if [ ! -f Makefile ] || [ "$found" != "$(cat .setup-probes 2>/dev/null)" ]; then
	[ -f Makefile ] && echo "setup: what configure probes changed since the last build: reconfiguring"
	rm -f .setup-probes
	./configure --quiet
	printf '%s\n' "$found" >.setup-probes
fi
make -j"$(nproc)" >/dev/null
# speedscope from npm for tests/command/test_convert_speedscope.py (with
# node's npm; the test skips without it)
if [ "$1" = tests ] && command -v npm >/dev/null 2>&1 &&
	[ ! -f "${HOME}/.cache/hpcshim/npm/node_modules/speedscope/package.json" ]; then
	npm install --silent --no-audit --no-fund --prefix "${HOME}/.cache/hpcshim/npm" \
		speedscope@1.25.0 >/tmp/hpcshim-npm.$$ 2>&1 ||
		echo "setup: npm speedscope not installed: $(grep -v '^$' /tmp/hpcshim-npm.$$ | tail -1)" >&2
	rm -f /tmp/hpcshim-npm.$$
fi
echo "setup: built $(pwd)/.libs/libhpcshim.so"
