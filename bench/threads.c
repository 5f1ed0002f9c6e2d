/* threads.c - the cost of a thread's create + join (bench/threads.sh).
 *
 * threads N: creates and joins N empty threads one after the other and
 * prints "ns_per_thread KiB_rss_growth": the median of 5 loops of N, and
 * how much the resident set grew over all loops (what an ended thread
 * leaves behind, with the shim its finished record).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *empty(void *arg)
{
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
	long long loop[5];
	long rss0;
	pthread_t t;

	pthread_create(&t, NULL, empty, NULL); /* warm-up: stacks, caches */
	pthread_join(t, NULL);
	rss0 = rss_kib();
	for (int r = 0; r < 5; r++) {
		long long t0 = now_ns();

		for (int i = 0; i < n; i++) {
			if (pthread_create(&t, NULL, empty, NULL) != 0)
				return 1;
			pthread_join(t, NULL);
		}
		loop[r] = (now_ns() - t0) / n;
	}
	qsort(loop, 5, sizeof(loop[0]), cmp);
	printf("%lld %ld\n", loop[2], rss_kib() - rss0);
	return 0;
}
