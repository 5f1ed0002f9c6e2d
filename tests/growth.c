/* growth.c - the shim's cost as regions and threads grow (tests/test_growth.py).
 *
 * Usage: growth STEP ARGS [STEP ARGS ...]
 *   regions N C   N distinct region names built at run time ("r<i>"), each
 *                 begun and ended C times on the main thread; region i
 *                 spins for i % 7 + 1 iterations, so the names differ in
 *                 size
 *   threads N     N short-lived threads, one after the other, each with
 *                 one call of region "t" and, for thread i, i % 5 + 1
 *                 calls of region "u"
 *   rusage        print "maxrss_kb <ru_maxrss>" (of this process so far)
 * Prints one deterministic line per step (and rusage's figure).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "annotate/hpcshim.h"

static volatile unsigned long sink;

static void spin(int n)
{
	for (int i = 0; i < n * 100; i++)
		sink += (unsigned long)i;
}

static void regions(long n, long c)
{
	char name[32];

	for (long k = 0; k < c; k++) {
		for (long i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "r%ld", i);
			hpcshim_region_begin(name);
			spin((int)(i % 7) + 1);
			hpcshim_region_end(name);
		}
	}
	printf("regions %ld x %ld\n", n, c);
}

static void *worker(void *arg)
{
	long i = (long)arg;

	HPC_BEGIN("t");
	spin(1);
	HPC_END("t");
	for (long k = 0; k <= i % 5; k++) {
		HPC_BEGIN("u");
		spin(1);
		HPC_END("u");
	}
	return NULL;
}

static void threads(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, (void *)i) != 0)
			exit(98);
		pthread_join(t, NULL);
	}
	printf("threads %ld\n", n);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "regions") == 0 && i + 2 < argc) {
			regions(atol(argv[i + 1]), atol(argv[i + 2]));
			i += 2;
		} else if (strcmp(argv[i], "threads") == 0 && i + 1 < argc) {
			threads(atol(argv[++i]));
		} else if (strcmp(argv[i], "rusage") == 0) {
			struct rusage ru;

			getrusage(RUSAGE_SELF, &ru);
			printf("maxrss_kb %ld\n", ru.ru_maxrss);
		} else {
			fprintf(stderr, "growth: bad step %s\n", argv[i]);
			return 2;
		}
	}
	return 0;
}
