/* mpi_viewsum.c - a rank with every kind of region record the in-job
 * summary reads (tests/mpi/test_mpi_viewsum.py):
 *
 *   mpi_viewsum THREADS REGIONS [STEADY_MS]
 *
 * The main thread runs "work" (pages touched) and REGIONS regions "m<i>"
 * (i calls of m<i>, nested in "work" for odd i); THREADS pthreads each run
 * "shared" and regions "t<k>_r<i>" of their own (names disjoint across
 * threads), half of them ended before MPI_Finalize, the other half still
 * alive at it (blocked until after); built with -fopenmp, a parallel loop
 * with a region in it (OpenMP constructs and threads).  Then an
 * MPI_Allreduce, an MPI_Barrier and a write() (wrapped functions under
 * HPCSHIM_PROFILE=1).  THREADS 0 REGIONS 0: no annotated region at all.
 * STEADY_MS: first a region "steady" of that much thread CPU time, a page
 * touched and some compute per unit, a 50 us sleep every 8th (a rotation
 * of software events then has several slices: standard errors). */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <hpcshim.h>

#include "../pages.h"

static int nreg;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go, ready;

static void region(const char *name, long pages)
{
	if (!hpcshim_region_begin || !hpcshim_region_end)
		return;
	hpcshim_region_begin(name);
	if (pages) {
		char *p = map_pages(pages);

		touch(p, pages);
		unmap_pages(p, pages);
	}
	hpcshim_region_end(name);
}

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void steady(long ms)
{
	long long end = cpu_ns() + ms * 1000000LL;
	volatile double sink = 0;
	long pages = 4096, n = 0;
	char *p = map_pages(pages);

	if (hpcshim_region_begin)
		hpcshim_region_begin("steady");
	while (cpu_ns() < end) {
		if (n < pages)
			p[n * PAGE] = 1;
		for (int i = 0; i < 10000; i++)
			sink += i * 0.5;
		if (++n % 8 == 0)
			nanosleep(&(struct timespec){ 0, 50000 }, NULL);
	}
	if (hpcshim_region_end)
		hpcshim_region_end("steady");
	unmap_pages(p, pages);
}

static void *worker(void *arg)
{
	long k = (long)arg;
	char name[32];

	region("shared", 10 * (k + 1));
	for (int i = 0; i < nreg; i++) {
		snprintf(name, sizeof(name), "t%ld_r%d", k, i);
		region(name, i % 3);
	}
	pthread_mutex_lock(&mu);
	ready++;
	pthread_cond_broadcast(&cv);
	/* odd threads stay alive over MPI_Finalize: a live thread's copy */
	while (k % 2 && !go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	prefault_stack();
	int nthr = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t th[64];
	int rank, size, fd;
	long x = 1, sum = 0;
	char buf[4096] = { 0 }, path[64];

	nreg = argc > 2 ? atoi(argv[2]) : 20;
	if (nthr > 64)
		nthr = 64;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 3)
		steady(atol(argv[3]));
	if (nthr || nreg) {
		if (hpcshim_region_begin)
			hpcshim_region_begin("work");
		for (int i = 0; i < nreg; i++) {
			char name[32];

			snprintf(name, sizeof(name), "m%d", i);
			for (int c = 0; c <= i % 5; c++)
				region(name, (rank + 1) * (i % 4));
		}
		if (hpcshim_region_end)
			hpcshim_region_end("work");
	}
	for (long k = 0; k < nthr; k++)
		pthread_create(&th[k], NULL, worker, (void *)k);
	pthread_mutex_lock(&mu);
	while (ready < nthr)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	for (int k = 0; k < nthr; k += 2)
		pthread_join(th[k], NULL);
#ifdef _OPENMP
	if (nthr || nreg) {
#pragma omp parallel for schedule(static) reduction(+ : x)
		for (int i = 0; i < 64; i++) {
			region("omp_body", i % 2);
			x += i;
		}
	}
#endif
	MPI_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	snprintf(path, sizeof(path), "/tmp/hpcshim-viewsum-%d-%d", (int)getpid(), rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		for (int i = 0; i < 4; i++)
			if (write(fd, buf, sizeof(buf)) < 0)
				break;
		close(fd);
		unlink(path);
	}
	if (rank == 0)
		printf("ranks %d sum %ld\n", size, sum);
	fflush(stdout);
	MPI_Finalize();
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int k = 1; k < nthr; k += 2)
		pthread_join(th[k], NULL);
	return 0;
}
