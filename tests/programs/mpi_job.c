/* mpi_job.c - an MPI job with known per-rank work (tests/mpi/test_mpi_job.py,
 * bench/mpi.sh): rank r touches (r + 1) * N fresh pages in the region
 * "work", then opens R regions "r<i>" once each (R = argv[2], default 0:
 * the job document's size as regions grow).  argv[3], when given:
 * "abort" makes rank 1 call MPI_Abort after its work, "kill" makes rank 1
 * kill itself with SIGKILL, "time" prints rank 0's MPI_Finalize time in
 * microseconds and its peak RSS in KB to stderr; "hang" makes the last
 * rank, after the job's last collective, block opening the FIFO argv[4]
 * and read it to its end before it goes on to MPI_Finalize (a rank that
 * does not reach MPI_Finalize while the others do: the test releases it
 * by opening the FIFO and closing it once the job document is written).
 * Only rank 0 prints to stdout. */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <hpcshim.h>

#include "../pages.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	prefault_stack();
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int nreg = argc > 2 ? atoi(argv[2]) : 0;
	const char *mode = argc > 3 ? argv[3] : "";
	int rank, size;
	double t0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	long pages = (rank + 1) * n, total = 0;
	char *p = map_pages(pages);

	HPC_BEGIN("work");
	touch(p, pages);
	HPC_END("work");
	for (int i = 0; i < nreg; i++) {
		char name[32];
		snprintf(name, sizeof(name), "r%d", i);
		if (hpcshim_region_begin && hpcshim_region_end) {
			hpcshim_region_begin(name);
			hpcshim_region_end(name);
		}
	}
	/* Every rank has returned from MPI_Init, where the shim publishes each
	 * rank's first flush, before rank 1 takes the job down: what the test
	 * asserts is that a rank past MPI_Init keeps a file. */
	if (strcmp(mode, "abort") == 0 || strcmp(mode, "kill") == 0)
		MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1 && strcmp(mode, "abort") == 0)
		MPI_Abort(MPI_COMM_WORLD, 3);
	if (rank == 1 && strcmp(mode, "kill") == 0)
		raise(SIGKILL);

	MPI_Allreduce(&pages, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	unmap_pages(p, pages);
	if (rank == 0)
		printf("ranks %d pages %ld\n", size, total);
	fflush(stdout);
	if (rank == size - 1 && strcmp(mode, "hang") == 0 && argc > 4) {
		char c;
		int fd = open(argv[4], O_RDONLY); /* blocks until a writer opens it */

		while (fd >= 0 && read(fd, &c, 1) > 0)
			;
		if (fd >= 0)
			close(fd);
	}
	t0 = now_us();
	MPI_Finalize();
	if (rank == 0 && strcmp(mode, "time") == 0) {
		struct rusage ru;

		fprintf(stderr, "finalize_us %.1f\n", now_us() - t0);
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			fprintf(stderr, "maxrss_kb %ld\n", ru.ru_maxrss);
	}
	return 0;
}
