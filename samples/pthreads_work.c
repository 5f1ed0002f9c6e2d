/* pthreads_work.c - annotated sample: unequal work on N pthreads.
 *
 * Usage: pthreads_work [N]      (default 4 workers)
 *
 * Worker i (0-based) runs region "compute" for (i+1) units of busy loop,
 * a unit being 20 ms of the thread's own CPU time, then region "alloc"
 * first-touching (i+1)*256 fresh 4 KiB pages.  Under hpcshim each worker's
 * task-clock and page-faults therefore grow linearly with i, which the
 * per-thread table of hpcshim-report makes visible.  Main prints one
 * deterministic line per worker, in worker order, after joining them all.
 */
#ifndef _GNU_SOURCE /* configure may already pass -D_GNU_SOURCE */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "annotate/hpcshim.h"

#define PAGE 4096
#define UNIT_MS 20
#define PAGES_PER_STEP 256
#define MAX_WORKERS 256

struct worker {
	pthread_t thread;
	long units;
	long pages;
	int ok;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spins for `units` x UNIT_MS of this thread's CPU time.  Thread CPU time,
 * not wall time, so the amount of work stays the same when workers
 * outnumber cores and get descheduled. */
static void compute(long units)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)units * UNIT_MS * 1000000ull;
	volatile uint64_t x = 0;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
}

/* Maps `pages` fresh pages, writes one byte per page (one minor fault
 * each), reads them back and unmaps.  Returns 1 when every byte stuck. */
static int alloc_touch(long pages)
{
	size_t len = (size_t)pages * PAGE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long seen = 0;

	if (p == MAP_FAILED)
		return 0;
	/* No transparent huge pages: one fault must mean one 4 KiB page. */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * PAGE] = (char)(1 + i % 100);
	for (long i = 0; i < pages; i++)
		seen += p[i * PAGE] == (char)(1 + i % 100);
	munmap(p, len);
	return seen == pages;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	HPC_BEGIN("compute");
	compute(w->units);
	HPC_END("compute");

	HPC_BEGIN("alloc");
	w->ok = alloc_touch(w->pages);
	HPC_END("alloc");
	return NULL;
}

static long parse_workers(int argc, char **argv)
{
	char *end;
	long n;

	if (argc < 2)
		return 4;
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || n < 1 || n > MAX_WORKERS) {
		fprintf(stderr, "pthreads_work: bad worker count '%s' (1..%d)\n",
			argv[1], MAX_WORKERS);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	long n = parse_workers(argc, argv);
	struct worker *w = calloc((size_t)n, sizeof(*w));
	int all_ok = 1, err;

	if (!w) {
		perror("pthreads_work: calloc");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		w[i].units = i + 1;
		w[i].pages = (i + 1) * PAGES_PER_STEP;
		err = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
		if (err) {
			fprintf(stderr, "pthreads_work: pthread_create: %s\n",
				strerror(err));
			return 2;
		}
	}
	for (long i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	/* Printed only after all joins so the order never depends on timing. */
	for (long i = 0; i < n; i++) {
		printf("worker %ld: units %ld pages %ld %s\n", i, w[i].units,
		       w[i].pages, w[i].ok ? "ok" : "FAILED");
		all_ok &= w[i].ok;
	}
	free(w);
	return all_ok ? 0 : 1;
}
