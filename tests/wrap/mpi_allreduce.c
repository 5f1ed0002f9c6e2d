/* mpi_allreduce.c - each rank calls MPI_Allreduce N times and MPI_Barrier
 * once (tests/shim/test_wrap.py, HPCSHIM_WRAP=@mpi): per-rank regions with
 * exactly those calls.  Only rank 0 prints. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, rank, size;
	long v, total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < n; i++) {
		v = rank + i;
		long s = 0;

		MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		total += s;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("ranks %d calls %d total %ld\n", size, n, total);
	MPI_Finalize();
	return 0;
}
