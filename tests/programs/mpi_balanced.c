/* mpi_balanced.c - a balanced job (tests/command/test_html_profile.py):
 *   mpi_balanced T_MS ITER
 * Every rank burns T_MS ms of its own CPU (never sleeping) then enters
 * MPI_Barrier, ITER times: the ranks' main threads do the same work, and
 * the MPI library's helper threads (progress, PMIx) do next to none. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long t = argc > 1 ? atoll(argv[1]) : 100;
	int iter = argc > 2 ? atoi(argv[2]) : 3;

	MPI_Init(&argc, &argv);
	for (int i = 0; i < iter; i++) {
		long long end = cpu_ns() + t * 1000000LL;
		double x = 1;

		while (cpu_ns() < end)
			for (int k = 0; k < 1000; k++)
				x = x * 1.0000001 + 1e-9;
		sink = x;
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
