/* mpi_pages.c - an MPI job with known per-rank work (tests/programs/test_programs.py):
 * rank r touches (r + 1) * N fresh pages inside the region "touch", then
 * the ranks sum their page counts with MPI_Allreduce.  Only rank 0 prints,
 * so the output does not depend on the order the ranks finish in. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <hpcshim.h>

#include "../pages.h"

int main(int argc, char **argv)
{
	prefault_stack();
	long n = argc > 1 ? atol(argv[1]) : 100;
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	long pages = (rank + 1) * n, total = 0;
	char *p = map_pages(pages);

	HPC_BEGIN("touch");
	touch(p, pages);
	HPC_END("touch");

	MPI_Allreduce(&pages, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	unmap_pages(p, pages);
	if (rank == 0)
		printf("ranks %d pages %ld\n", size, total);
	MPI_Finalize();
	return 0;
}
