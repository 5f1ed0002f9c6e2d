/* growth.c - the shim's cost as regions and threads grow (tests/shim/test_growth.py).
 *
 * Usage: growth STEP ARGS [STEP ARGS ...]
 *   regions N C   N distinct region names built at run time ("r<i>"), each
 *                 begun and ended C times on the main thread; region i
 *                 spins for i % 7 + 1 iterations, so the names differ in
 *                 size
 *   threads N     N short-lived threads, one after the other, each with
 *                 one call of region "t" and, for thread i, i % 5 + 1
 *                 calls of region "u"
 *   touch N       N distinct names "p<i>", region i first-touching i % 3
 *                 fresh pages: exactly i % 3 page faults each
 *   flushes K     wait until K results files were published in
 *                 HPCSHIM_OUTPUT after the step began (HPCSHIM_FLUSH
 *                 publishes by link or rename; inotify, no timing): with
 *                 K = 2 one whole flush ran after the steps before it
 *   rusage        print "maxrss_kb <ru_maxrss>" (of this process so far)
 *   measure PRELOAD STEP...  (first) runs this program with the steps
 *                 in a child with LD_PRELOAD=PRELOAD, and prints the child's
 *                 "maxrss_kb" from wait4 (the end of its results included).
 *                 A child inherits its parent's peak RSS through fork and
 *                 exec: started from this small process the figure is the
 *                 child's own, not the test harness's
 * Prints one deterministic line per step (and rusage's figure).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "tests/pages.h"

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

static void touch_names(long n)
{
	char *pages = map_pages(n * 3), *p = pages;
	char name[32];

	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%ld", i);
		hpcshim_region_begin(name);
		touch(p, i % 3);
		hpcshim_region_end(name);
		p += (i % 3) * PAGE;
	}
	printf("touch %ld\n", n);
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

static void flushes(long k)
{
	const char *dir = getenv("HPCSHIM_OUTPUT");
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int fd = inotify_init1(IN_CLOEXEC);
	long seen = 0;

	if (!dir || fd < 0 || inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO) < 0)
		exit(96);
	while (seen < k) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			exit(96);
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const void *)p;

			/* The hidden temporary names start with a dot. */
			if (ev->len && strncmp(ev->name, "hpcshim-", 8) == 0)
				seen++;
			p += sizeof(*ev) + ev->len;
		}
	}
	close(fd);
	printf("flushes %ld\n", k);
}

static int measure(char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 97;
	if (pid == 0) {
		setenv("LD_PRELOAD", argv[2], 1);
		argv[2] = argv[0];
		execv("/proc/self/exe", argv + 2);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return 97;
	printf("maxrss_kb %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	prefault_stack();
	if (argc > 2 && strcmp(argv[1], "measure") == 0)
		return measure(argv);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "regions") == 0 && i + 2 < argc) {
			regions(atol(argv[i + 1]), atol(argv[i + 2]));
			i += 2;
		} else if (strcmp(argv[i], "touch") == 0 && i + 1 < argc) {
			touch_names(atol(argv[++i]));
		} else if (strcmp(argv[i], "threads") == 0 && i + 1 < argc) {
			threads(atol(argv[++i]));
		} else if (strcmp(argv[i], "flushes") == 0 && i + 1 < argc) {
			flushes(atol(argv[++i]));
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
