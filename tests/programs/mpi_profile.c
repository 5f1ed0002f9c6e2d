/* mpi_profile.c - a job of known times for hpcshim report --view profile
 * (tests/mpi/test_profile.py).
 *
 *   mpi_profile T_MS K N BYTES W [FILE_DIR [R]]
 *
 * Rank r burns (r+1) x T_MS ms of its own CPU time (computing, never
 * sleeping), then enters MPI_Barrier (the ranks that finish first wait
 * longest: rank 0), then K MPI_Allreduce of N doubles, then writes BYTES
 * bytes in W write() calls to a file of its own, then R ring exchanges of
 * N doubles (MPI_Isend to the right, MPI_Irecv from the left,
 * MPI_Waitall).  With OpenMP (built with
 * -fopenmp) the burn is a parallel region whose threads each burn the
 * rank's time.  It prints one line per rank:
 *   rank R barrier_ns B cpu_ns C
 * B: the barrier's wall time as the rank's own clock reads bracket it.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile double sink;

static void burn(long long cpu_ns)
{
	long long end = ns(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;
	double x = 1;

	while (ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 1e-9;
	sink = x;
}

int main(int argc, char **argv)
{
	int rank, k, n, w;
	long long t_ms, bytes, t0, t1;
	char path[4096];
	double *a, *b;
	char *buf;
	int fd;

	if (argc < 6)
		return 2;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	t_ms = atoll(argv[1]);
	k = atoi(argv[2]);
	n = atoi(argv[3]);
	bytes = atoll(argv[4]);
	w = atoi(argv[5]);
#pragma omp parallel
	burn((rank + 1) * t_ms * 1000000LL);
	t0 = ns(CLOCK_MONOTONIC);
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = ns(CLOCK_MONOTONIC);
	a = calloc((size_t)n, sizeof(double));
	b = calloc((size_t)n, sizeof(double));
	for (int i = 0; i < k; i++)
		MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	snprintf(path, sizeof(path), "%s/out-%d.bin", argc > 6 ? argv[6] : ".", rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	buf = calloc(1, (size_t)(bytes / w + 1));
	for (int i = 0; i < w; i++) {
		size_t len = (size_t)(bytes / w + (i < bytes % w));

		if (write(fd, buf, len) != (ssize_t)len)
			return 1;
	}
	close(fd);
	if (argc > 7) {
		int size, r = atoi(argv[7]);
		MPI_Request req[2];

		MPI_Comm_size(MPI_COMM_WORLD, &size);
		for (int i = 0; i < r; i++) {
			MPI_Irecv(b, n, MPI_DOUBLE, (rank + size - 1) % size, 7, MPI_COMM_WORLD,
				  &req[0]);
			MPI_Isend(a, n, MPI_DOUBLE, (rank + 1) % size, 7, MPI_COMM_WORLD, &req[1]);
			MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		}
	}
	printf("rank %d barrier_ns %lld cpu_ns %lld\n", rank, t1 - t0,
	       ns(CLOCK_PROCESS_CPUTIME_ID));
	free(a);
	free(b);
	free(buf);
	MPI_Finalize();
	return 0;
}
