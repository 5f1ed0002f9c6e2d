/* switchcost.c - what the kernel's perf context costs per context switch.
 *
 * Usage: switchcost [-n SWITCHES] [-e EVENTS] [-g] [-P] [-u] [-i] [LABEL]
 *
 * Two processes on one CPU call sched_yield() in turn, so every call is one
 * context switch, SWITCHES in all.  Before the loop each of them opens
 * EVENTS on itself (pid 0, cpu -1, like the shim's per-thread counters):
 * a comma-separated list of software event names (task-clock, cpu-clock,
 * page-faults, context-switches, cpu-migrations, minor-faults,
 * major-faults), each in a group of its own, or all in one group with -g;
 * a '/' starts a new group (page-faults,context-switches/task-clock: two).
 * -P pins the groups, -u counts user level only (exclude_kernel,
 * exclude_hv), -i opens them in the parent before the fork with inherit
 * set, as perf stat does (the children's contexts are then clones of one
 * parent context).  Prints
 *
 *     LABEL NS_PER_SWITCH SWITCHES CPU_NS_PER_SWITCH
 *
 * the second figure from the two processes' CPU time (getrusage), which
 * other programs sharing the CPU do not inflate, so that the cost of one configuration per switch is its figure minus the
 * figure with no events (bench/oversub.sh).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define USAGE "switchcost [-n SWITCHES] [-e EVENTS] [-g] [-P] [-u] [-i] [LABEL]"

static const struct {
	const char *name;
	unsigned long long config;
} names[] = {
	{"task-clock", PERF_COUNT_SW_TASK_CLOCK},
	{"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
	{"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
	{"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
};

static int group, slashes, pinned, user_only, inherit;

static void open_events(char *spec)
{
	int leader = -1;

	for (char *tok = spec, *end; tok; tok = end) {
		struct perf_event_attr a;
		size_t k, len = strcspn(tok, ",/");
		int fd, new_group = tok[len] == '/';

		end = tok[len] ? tok + len + 1 : NULL;
		tok[len] = '\0';
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcmp(tok, names[k].name))
				break;
		if (k == sizeof(names) / sizeof(names[0])) {
			fprintf(stderr, "switchcost: unknown event %s\n", tok);
			exit(2);
		}
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = names[k].config;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		int lead = group || slashes ? leader : -1;

		a.pinned = pinned && lead < 0;
		a.exclude_kernel = a.exclude_hv = user_only;
		a.inherit = inherit;
		if (inherit)
			a.read_format &= ~(unsigned long long)PERF_FORMAT_GROUP;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, lead, 0);
		if (fd < 0) {
			perror("switchcost: perf_event_open");
			exit(1);
		}
		if (leader < 0)
			leader = fd;
		if (new_group)
			leader = -1;
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *label = "run";
	char *events = NULL;
	long n = 200000;
	int opt, pipes[2][2];
	pid_t pid[2];
	cpu_set_t one;
	struct rusage ru;
	double t0, t1;
	char c = 0;

	while ((opt = getopt(argc, argv, "n:e:gPui")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'e': events = optarg; break;
		case 'g': group = 1; break;
		case 'P': pinned = 1; break;
		case 'u': user_only = 1; break;
		case 'i': inherit = 1; break;
		default:
			fprintf(stderr, "usage: %s\n", USAGE);
			return 2;
		}
	}
	if (optind < argc)
		label = argv[optind];
	/* One CPU for both: the last of our mask. */
	if (sched_getaffinity(0, sizeof(one), &one) == 0) {
		int last = -1;

		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &one))
				last = i;
		CPU_ZERO(&one);
		CPU_SET(last, &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	slashes = events && strchr(events, '/');
	if (events && inherit)
		open_events(events);
	if (pipe(pipes[0]) || pipe(pipes[1])) {
		perror("switchcost: pipe");
		return 1;
	}
	for (int w = 0; w < 2; w++) {
		pid[w] = fork();
		if (pid[w] < 0) {
			perror("switchcost: fork");
			return 1;
		}
		if (pid[w] == 0) {
			if (events && !inherit)
				open_events(events);
			/* ready, then wait for the start */
			if (write(pipes[0][1], &c, 1) != 1 ||
			    read(pipes[1][0], &c, 1) != 1)
				_exit(1);
			for (long i = 0; i < n / 2; i++)
				sched_yield();
			_exit(0);
		}
	}
	for (int w = 0; w < 2; w++)
		if (read(pipes[0][0], &c, 1) != 1)
			return 1;
	t0 = now();
	if (write(pipes[1][1], "xx", 2) != 2)
		return 1;
	for (int w = 0; w < 2; w++) {
		int st;

		if (waitpid(pid[w], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			return 1;
	}
	t1 = now();
	getrusage(RUSAGE_CHILDREN, &ru);
	long sw = ru.ru_nvcsw + ru.ru_nivcsw;
	double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		     (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	printf("%s %.1f %ld %.1f\n", label, (t1 - t0) * 1e9 / (double)sw, sw,
	       cpu * 1e9 / (double)sw);
	return 0;
}
