/* likwid_mpi.c - an MPI program with LIKWID markers
 * (tests/shim/test_markers.py).
 *
 * Rank r runs region "mpi_lk" CALLS times, each first-touching 10 (r + 1)
 * fresh pages, between barriers; prints "rank r of n" at the end.
 */
#include <likwid-marker.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define CALLS 3

static void touch(int pages)
{
	char *p = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	for (int i = 0; i < pages; i++)
		((volatile char *)p)[(size_t)i * 4096] = 1;
	munmap(p, (size_t)pages * 4096);
}

int main(int argc, char **argv)
{
	int rank, size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	LIKWID_MARKER_INIT;
	LIKWID_MARKER_THREADINIT;
	for (int i = 0; i < CALLS; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		LIKWID_MARKER_START("mpi_lk");
		touch(10 * (rank + 1));
		LIKWID_MARKER_STOP("mpi_lk");
	}
	LIKWID_MARKER_CLOSE;
	printf("rank %d of %d\n", rank, size);
	MPI_Finalize();
	return 0;
}
