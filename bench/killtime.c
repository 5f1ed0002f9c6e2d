/* killtime.c - how long after kill(SIGTERM) the results file of a program
 * under the shim is published (docs/benchmarks.md, "Kills").
 *
 * Usage: killtime ROUNDS PROGRAM ARGS...
 * Each round starts PROGRAM (LD_PRELOAD and HPCSHIM_OUTPUT come from the
 * environment; HPCSHIM_OUTPUT must be a fresh directory), waits for its
 * first line on stdout (tests/shim/killprog.c prints "ready PID" in the middle
 * of a region), watches the directory with inotify, sends SIGTERM and
 * times until a file hpcshim-*.json appears under its final name (link or
 * rename).  Prints one line per round (microseconds) and the median.
 * A file published before the kill (a periodic flush) is removed first,
 * so only the one the signal writes counts.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void clean(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' || strstr(de->d_name, ".tmp")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One round: microseconds from the kill to the file, or -1. */
static double round_once(const char *dir, char **argv)
{
	int out[2], in[2], ino, st;
	char buf[8192];
	double t0, t1 = -1;
	pid_t pid;
	FILE *f;

	clean(dir);
	if (pipe(out) < 0 || pipe(in) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(in[0], 0);
		close(out[0]);
		close(in[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	f = fdopen(out[0], "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	ino = inotify_init1(IN_CLOEXEC);
	inotify_add_watch(ino, dir, IN_CREATE | IN_MOVED_TO);
	clean(dir); /* a flush before the kill does not count */
	t0 = now_us();
	kill(pid, SIGTERM);
	while (t1 < 0) {
		ssize_t n = read(ino, buf, sizeof(buf));

		if (n <= 0)
			break;
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->len && fnmatch("hpcshim-*.json", ev->name, 0) == 0)
				t1 = now_us();
			p += sizeof(*ev) + ev->len;
		}
	}
	close(ino);
	waitpid(pid, &st, 0);
	fclose(f);
	close(in[1]);
	return t1 < 0 ? -1 : t1 - t0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("HPCSHIM_OUTPUT");
	int rounds = argc > 2 ? atoi(argv[1]) : 0, n = 0;
	double *v;

	if (rounds <= 0 || !dir) {
		fprintf(stderr,
			"usage: HPCSHIM_OUTPUT=DIR killtime ROUNDS PROGRAM ARGS...\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	v = calloc((size_t)rounds, sizeof(*v));
	for (int r = 0; r < rounds; r++) {
		double us = round_once(dir, argv + 2);

		printf("round %d: %.0f us\n", r, us);
		if (us >= 0)
			v[n++] = us;
	}
	if (!n)
		return 1;
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("median %.0f us  min %.0f us  max %.0f us  (%d rounds)\n", v[n / 2],
	       v[0], v[n - 1], n);
	return 0;
}
