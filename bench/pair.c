/* pair.c - the cost of one HPC_BEGIN + HPC_END pair, and its floors.
 *
 * Usage: pair [-n PAIRS] [-w WARMUP] [-r REPS] [-c CPU] [-g GROUPS] VARIANT...
 *
 *   none     the same loop with no annotation at all
 *   literal  HPC_BEGIN("bench.literal") / HPC_END: a string literal, so the
 *            call-site cached path of annotate/hpcshim.h
 *   runtime  HPC_BEGIN(name) / HPC_END(name) with a name built at run time:
 *            the by-name path
 *   floor    what a pair cannot avoid: the events of -g opened here with
 *            perf_event_open in the shim's grouping, and per pair one read()
 *            of every group at BEGIN and one at END.  GROUPS lists the groups
 *            separated by '/', each a ','-separated list of software event
 *            names, e.g. "page-faults,context-switches/task-clock"
 *
 * Run `literal`/`runtime` under LD_PRELOAD=libhpcshim.so for the cost of a
 * pair, without it for the cost of annotations whose shim is absent.  The
 * loops go through the public macros, so they measure whatever path the
 * header and the shim provide.  Prints "VARIANT NS_PER_PAIR" per timed loop
 * (see bench/bench.h).  The regions are named bench.literal and
 * bench.runtime; bench/run.sh checks in the shim's results that every pair
 * was counted.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench/bench.h"

#define USAGE "pair [-n PAIRS] [-w WARMUP] [-r REPS] [-c CPU] [-g GROUPS] " \
	      "none|literal|runtime|floor..."

/* ---- the annotated loops ------------------------------------------------ */

/* Separate functions, never inlined, so each loop is compiled alone. */
static __attribute__((noinline)) void loop_none(long n)
{
	for (long i = 0; i < n; i++)
		BENCH_WORK();
}

/* ---- the floor: raw group reads ----------------------------------------- */

/* The software events the floor can open (the shim's names). */
static const struct {
	const char *name;
	unsigned long long config;
} floor_events[] = {
	{"task-clock", PERF_COUNT_SW_TASK_CLOCK},
	{"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
	{"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
	{"faults", PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
	{"migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
	{"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
};

#define FLOOR_MAX_GROUPS 16
#define FLOOR_MAX_EVENTS 16

static int floor_fd[FLOOR_MAX_GROUPS]; /* group leaders */
static int floor_nev[FLOOR_MAX_GROUPS];
static int floor_ngroups;

/* The shim's attributes (pmu/event.c): both privilege levels, enabled at
 * open, the same read_format, so each read() returns the same layout. */
static int floor_open(const char *name, int group_fd)
{
	struct perf_event_attr attr;
	size_t i;

	for (i = 0; i < sizeof(floor_events) / sizeof(floor_events[0]); i++)
		if (strcmp(floor_events[i].name, name) == 0)
			break;
	if (i == sizeof(floor_events) / sizeof(floor_events[0])) {
		fprintf(stderr, "pair: floor: unknown software event '%s'\n", name);
		exit(2);
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = floor_events[i].config;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			   PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, group_fd,
			      PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("pair: floor: perf_event_open");
		exit(1);
	}
	return fd;
}

static void floor_setup(const char *spec)
{
	char *copy, *gsave, *esave;

	if (!spec || !*spec) {
		fprintf(stderr, "pair: floor needs -g GROUPS\n");
		exit(2);
	}
	copy = strdup(spec);
	for (char *g = strtok_r(copy, "/", &gsave); g; g = strtok_r(NULL, "/", &gsave)) {
		if (floor_ngroups == FLOOR_MAX_GROUPS) {
			fprintf(stderr, "pair: floor: too many groups\n");
			exit(2);
		}
		int leader = -1, n = 0;
		for (char *e = strtok_r(g, ",", &esave); e; e = strtok_r(NULL, ",", &esave)) {
			if (n == FLOOR_MAX_EVENTS) {
				fprintf(stderr, "pair: floor: too many events in a group\n");
				exit(2);
			}
			int fd = floor_open(e, leader);
			if (leader < 0)
				leader = fd;
			n++;
		}
		floor_fd[floor_ngroups] = leader;
		floor_nev[floor_ngroups++] = n;
	}
	free(copy);
}

/* One boundary: one read() per group, as the shim does at BEGIN or END.
 * A short read would mean the floor does not do the shim's work. */
static inline void floor_read_all(void)
{
	uint64_t buf[3 + 2 * FLOOR_MAX_EVENTS];

	for (int g = 0; g < floor_ngroups; g++) {
		size_t want = (3 + 2 * (size_t)floor_nev[g]) * sizeof(uint64_t);
		if (read(floor_fd[g], buf, sizeof(buf)) != (ssize_t)want) {
			perror("pair: floor: read");
			exit(1);
		}
	}
}

static __attribute__((noinline)) void loop_floor(long n)
{
	for (long i = 0; i < n; i++) {
		floor_read_all();
		BENCH_WORK();
		floor_read_all();
	}
}

/* ---- driver ---------------------------------------------------------- */

static const struct bench_variant variants[] = {
	{"none", loop_none},
	{"literal", bench__loop_literal},
	{"runtime", bench__loop_runtime},
	{"floor", loop_floor},
};

int main(int argc, char **argv)
{
	struct bench_opts o;
	int chosen[BENCH_MAX_CHOSEN], n;

	bench__opts(&o, argc, argv, USAGE);
	n = bench__choose(&o, argc, argv, variants,
			  (int)(sizeof(variants) / sizeof(variants[0])), chosen, USAGE);
	for (int k = 0; k < n; k++)
		if (variants[chosen[k]].loop == loop_floor && floor_ngroups == 0)
			floor_setup(o.arg);
	bench__rounds(&o, variants, chosen, n, NULL);
	return 0;
}
