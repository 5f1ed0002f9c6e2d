/* mpi_work.c - annotated MPI sample: known, unequal work per rank.
 *
 * Usage: mpirun -np N mpi_work [PAGES [SLEEP_MS [FAIL_RANK]]]
 *
 * Rank r touches (r + 1) x PAGES fresh 4 KiB pages (default 1000) in
 * region "work": exactly one page fault each, so under hpcshim the rank's
 * "work" has (r + 1) x PAGES page-faults and the job's merge shows the
 * imbalance (max/mean - 1 = 0.6 with 4 ranks).  Region "wait" sleeps
 * SLEEP_MS (default 50) on every rank: wall time without CPU time.  Then
 * the ranks sum their pages; only rank 0 prints, so the output does not
 * depend on the order the ranks finish in.  FAIL_RANK, when given, makes
 * that rank exit with status 3 after MPI_Finalize (a job with a failing
 * rank, for the launchers' exit codes).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "annotate/hpcshim.h"

#define PAGE 4096

/* pages fresh pages, no huge page: one touch, one fault. */
static char *fresh_pages(long pages)
{
	size_t len = (size_t)pages * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		MPI_Abort(MPI_COMM_WORLD, 99);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	long unit = argc > 1 ? atol(argv[1]) : 1000;
	long ms = argc > 2 ? atol(argv[2]) : 50;
	int fail = argc > 3 ? atoi(argv[3]) : -1;
	long pages, total = 0;
	int rank, size;
	char *p;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	pages = (rank + 1) * unit;
	p = fresh_pages(pages);

	HPC_BEGIN("work");
	for (long i = 0; i < pages; i++)
		p[i * PAGE] = 1;
	HPC_END("work");

	HPC_BEGIN("wait");
	sleep_ms(ms);
	HPC_END("wait");

	MPI_Reduce(&pages, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	munmap(p, (size_t)pages * PAGE);
	if (rank == 0)
		printf("mpi_work ranks %d pages %ld\n", size, total);
	MPI_Finalize();
	return rank == fail ? 3 : 0;
}
