/* clocks.c - task-clock brackets (tests/shim/test_clocks.py).
 *
 * clocks THREADS INTERVALS MS: THREADS threads (the main thread waits),
 * each runs INTERVALS regions "i<k>" of about MS ms of busy CPU time, and
 * brackets each with two clocks read just outside and just inside the
 * region: a task-clock counter of the thread's own (perf_event_open, a
 * group of its own: the perf clock the shim's values are in) and
 * CLOCK_THREAD_CPUTIME_ID (the scheduler's clock).  On stdout, in ns:
 * "tid k outer inner cpu_outer cpu_inner", outer = after END - before
 * BEGIN, inner = before END - after BEGIN.  The region's task-clock lies
 * between the perf clock's two whatever the scheduler does.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "annotate/hpcshim.h"

static int intervals;
static long busy_ns;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The calling thread's own task-clock counter (user level: it opens
 * unprivileged too, and a clock counts the same either way). */
static int clock_open(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static long long clock_ns(int fd)
{
	unsigned long long v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		abort();
	return (long long)v;
}

static void *worker(void *arg)
{
	long long(*b)[4] = calloc((size_t)intervals, sizeof(*b));
	volatile unsigned long x = 0;
	int fd = clock_open();
	char name[32];

	(void)arg;
	if (fd < 0) {
		perror("clocks: perf_event_open task-clock");
		exit(2);
	}
	for (int k = 0; k < intervals; k++) {
		long long c0, c1, c2, c3, p0, p1, p2, p3;

		snprintf(name, sizeof(name), "i%d", k);
		c0 = cpu_ns();
		p0 = clock_ns(fd);
		HPC_BEGIN(name);
		p1 = clock_ns(fd);
		c1 = cpu_ns();
		while (cpu_ns() - c1 < busy_ns)
			for (int i = 0; i < 1000; i++)
				x += (unsigned long)i;
		c2 = cpu_ns();
		p2 = clock_ns(fd);
		HPC_END(name);
		p3 = clock_ns(fd);
		c3 = cpu_ns();
		b[k][0] = p3 - p0;
		b[k][1] = p2 - p1;
		b[k][2] = c3 - c0;
		b[k][3] = c2 - c1;
	}
	close(fd);
	pthread_mutex_lock(&out_lock);
	for (int k = 0; k < intervals; k++)
		printf("%d %d %lld %lld %lld %lld\n", gettid(), k, b[k][0], b[k][1],
		       b[k][2], b[k][3]);
	pthread_mutex_unlock(&out_lock);
	free(b);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t *t;

	intervals = argc > 2 ? atoi(argv[2]) : 40;
	busy_ns = (argc > 3 ? atol(argv[3]) : 20) * 1000000L;
	t = calloc((size_t)n, sizeof(*t));
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
