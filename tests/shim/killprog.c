/* killprog.c - a program for tests/shim/test_kills.py to kill in the middle of
 * its work.
 *
 * Usage: killprog THREADS REGIONS PAGES MODE END
 *   THREADS  worker threads; each runs regions "w0".."w<REGIONS-1>" once,
 *            then (MODE idle) blocks, or (MODE spin) keeps running them
 *   PAGES    the main thread first-touches PAGES pages in region "touch"
 *   END      what the main thread does when its stdin has a line or ends:
 *            return | exit_group (a raw exit_group(0), as Go's runtime
 *            does) | raise:SIG
 * Once every worker has closed its regions once, the main thread opens
 * region "wait", prints "ready PID" on stdout and blocks reading stdin:
 * the test sends its signal then, in the middle of a region.  No sleeps:
 * readiness is the line on stdout, the go-ahead the line on stdin.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "tests/pages.h"

static int nregions;
static int spin;
static int started;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void regions_once(void)
{
	char name[32];

	for (int k = 0; k < nregions; k++) {
		snprintf(name, sizeof(name), "w%d", k);
		/* Weak symbols: NULL when run without the shim. */
		if (hpcshim_region_begin)
			hpcshim_region_begin(name);
		__asm__ volatile("" ::: "memory");
		if (hpcshim_region_end)
			hpcshim_region_end(name);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	regions_once();
	pthread_mutex_lock(&mu);
	started++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (;;) {
		if (spin) {
			regions_once();
			continue;
		}
		pause();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	prefault_stack();
	int nthreads, pages;
	const char *end;
	char line[64];
	char *p;

	if (argc != 6) {
		fprintf(stderr,
			"usage: killprog THREADS REGIONS PAGES idle|spin END\n");
		return 2;
	}
	nthreads = atoi(argv[1]);
	nregions = atoi(argv[2]);
	pages = atoi(argv[3]);
	spin = strcmp(argv[4], "spin") == 0;
	end = argv[5];
	for (int i = 0; i < nthreads; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, worker, NULL) != 0)
			return 98;
	}
	p = map_pages(pages);
	HPC_BEGIN("touch");
	touch(p, pages);
	HPC_END("touch");
	pthread_mutex_lock(&mu);
	while (started < nthreads)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	HPC_BEGIN("wait");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	/* A raw read, not stdio: the signal must find the thread blocked in
	 * the system call the test means.  fgets' first call allocates
	 * stdin's buffer, and a signal taken inside malloc runs the shim's
	 * handler into malloc's lock (signal.c: best effort there): a hang,
	 * seen once under load. */
	while (read(0, line, sizeof(line)) < 0 && errno == EINTR)
		;
	HPC_END("wait");
	if (strcmp(end, "exit_group") == 0)
		syscall(SYS_exit_group, 0);
	if (strncmp(end, "raise:", 6) == 0)
		raise(atoi(end + 6));
	return 0;
}
