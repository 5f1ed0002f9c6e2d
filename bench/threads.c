/* threads.c - the cost of a thread's create + join (bench/threads.sh).
 *
 * threads N: creates and joins N empty threads one after the other and
 * prints "ns_per_thread KiB_rss_growth": the median of 5 loops of N, and
 * how much the resident set grew over all loops (what an ended thread
 * leaves behind, with the shim its finished record).
 *
 * threads N floor: each thread does, without the shim, the least a
 * per-thread counting tool must: opens the default software events as one
 * group (page-faults, context-switches, cpu-migrations; task-clock comes
 * from the group's time_running), reads the group once at its end and
 * closes it.  The main thread holds the same group open, as the shim's
 * main thread does, so the kernel's per-type static keys stay switched on.
 */
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *empty(void *arg)
{
	return arg;
}

static const unsigned long long floor_cfg[] = {
	PERF_COUNT_SW_PAGE_FAULTS,
	PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS,
};
#define NFLOOR (sizeof(floor_cfg) / sizeof(floor_cfg[0]))

static void floor_open(int *fd)
{
	for (size_t i = 0; i < NFLOOR; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.size = sizeof(a);
		a.config = floor_cfg[i];
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.exclude_hv = 1;
		fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? fd[0] : -1,
				     PERF_FLAG_FD_CLOEXEC);
	}
}

static void floor_close(int *fd)
{
	unsigned long long buf[3 + 2 * NFLOOR];

	if (fd[0] >= 0 && read(fd[0], buf, sizeof(buf)) < 0)
		abort();
	for (size_t i = 0; i < NFLOOR; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

static void *counted(void *arg)
{
	int fd[NFLOOR];

	floor_open(fd);
	floor_close(fd);
	return arg;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	void *(*fn)(void *) = argc > 2 && !strcmp(argv[2], "floor") ? counted : empty;
	int main_fd[NFLOOR];
	long long loop[5];
	long rss0;
	pthread_t t;

	if (fn == counted)
		floor_open(main_fd);
	pthread_create(&t, NULL, fn, NULL); /* warm-up: stacks, caches */
	pthread_join(t, NULL);
	rss0 = rss_kib();
	for (int r = 0; r < 5; r++) {
		long long t0 = now_ns();

		for (int i = 0; i < n; i++) {
			if (pthread_create(&t, NULL, fn, NULL) != 0)
				return 1;
			pthread_join(t, NULL);
		}
		loop[r] = (now_ns() - t0) / n;
	}
	qsort(loop, 5, sizeof(loop[0]), cmp);
	printf("%lld %ld\n", loop[2], rss_kib() - rss0);
	return 0;
}
