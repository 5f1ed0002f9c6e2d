/* hybrid_work.c - annotated MPI + OpenMP sample: 2 OpenMP threads per rank.
 *
 * Usage: mpirun -np N hybrid_work [PAGES]
 *
 * Every rank opens a team of exactly 2 threads (num_threads(2)); OpenMP
 * thread t of rank r touches (r + 1) x (t + 1) x PAGES fresh pages
 * (default 500) in region "omp_work".  Under hpcshim each rank's file
 * lists its two OpenMP threads, labelled omp_thread 0 and 1, each with
 * exactly its page faults in "omp_work"; region "rank_work" on the main
 * thread encloses the parallel part.  MPI is initialised FUNNELED: only
 * the main thread calls MPI.  Only rank 0 prints.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "annotate/hpcshim.h"

#define PAGE 4096

static long touch_fresh(long pages)
{
	size_t len = (size_t)pages * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	madvise(p, len, MADV_NOHUGEPAGE);
	HPC_BEGIN("omp_work");
	for (long i = 0; i < pages; i++)
		p[i * PAGE] = 1;
	HPC_END("omp_work");
	munmap(p, len);
	return pages;
}

int main(int argc, char **argv)
{
	long unit = argc > 1 ? atol(argv[1]) : 500;
	long mine = 0, total = 0;
	int rank, size, provided, team = 0;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	HPC_BEGIN("rank_work");
#pragma omp parallel num_threads(2) reduction(+ : mine)
	{
#pragma omp master
		team = omp_get_num_threads();
		mine += touch_fresh((rank + 1) * (omp_get_thread_num() + 1) * unit);
	}
	HPC_END("rank_work");

	MPI_Reduce(&mine, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("hybrid_work ranks %d threads %d pages %ld\n", size, team,
		       total);
	MPI_Finalize();
	return 0;
}
