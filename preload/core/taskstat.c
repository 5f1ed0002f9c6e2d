/* taskstat.c - what the kernel itself counts for a task of ours.
 *
 * Two uses: a thread's "before start" bucket, the kernel's figures taken
 * on the thread right before its counters open (thread.c), and the
 * figures of a thread we never covered, read from /proc at exit
 * (uncovered.c).  CPU time comes from the task's CPU clock (the
 * scheduler's runtime, in ns) rather than from the user and system times
 * of getrusage or /proc (the latter in clock ticks); the tick figure is
 * used only when the clock cannot be read.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "preload/core/core.h"

/* The kernel's CPU clock of thread tid of this process (clock_getcpuclockid
 * for a thread: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) of the kernel's
 * posix-timers ABI). */
static clockid_t taskstat__clock(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 4 /* per thread */ | 2 /* sched */);
}

static bool taskstat__cpu(clockid_t clk, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts) != 0)
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return true;
}

void hs_taskstat__self(struct agg_kfigs *k)
{
	struct rusage ru;

	memset(k, 0, sizeof(*k));
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return;
	k->minor_faults = (uint64_t)ru.ru_minflt;
	k->major_faults = (uint64_t)ru.ru_majflt;
	k->vol_switches = (uint64_t)ru.ru_nvcsw;
	k->invol_switches = (uint64_t)ru.ru_nivcsw;
	/* Last: the closest to the counters opening. */
	if (taskstat__cpu(CLOCK_THREAD_CPUTIME_ID, &k->cpu_ns)) {
		k->cpu_res_ns = 1;
	} else {
		k->cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
				    1000000000ull +
			    ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) *
				    1000ull;
		k->cpu_res_ns = 1000;
	}
	k->known = true;
}

static size_t taskstat__file(pid_t tid, const char *what, char *buf, size_t len)
{
	char path[64];
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, what);
	fp = fopen(path, "re");
	if (!fp)
		return 0;
	n = fread(buf, 1, len - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return n;
}

/* status: voluntary_ctxt_switches and nonvoluntary_ctxt_switches. */
static void taskstat__switches(pid_t tid, struct agg_kfigs *k)
{
	char buf[4096], *p;

	if (!taskstat__file(tid, "status", buf, sizeof(buf)))
		return;
	if ((p = strstr(buf, "\nvoluntary_ctxt_switches:")))
		k->vol_switches = strtoull(strchr(p, ':') + 1, NULL, 10);
	if ((p = strstr(buf, "\nnonvoluntary_ctxt_switches:")))
		k->invol_switches = strtoull(strchr(p, ':') + 1, NULL, 10);
}

/* stat(5): the name in parentheses, then fields 10 (minflt), 12 (majflt),
 * 14 (utime) and 15 (stime), the times in clock ticks. */
bool hs_taskstat__read(pid_t tid, struct agg_uncovered *u)
{
	char buf[1024], *open, *close;
	unsigned long long f[16];
	size_t len;

	memset(u, 0, sizeof(*u));
	if (!taskstat__file(tid, "stat", buf, sizeof(buf)))
		return false;
	open = strchr(buf, '(');
	close = strrchr(buf, ')'); /* the name may hold spaces and ')' */
	if (!open || !close || close < open ||
	    sscanf(close + 2,
		   "%*c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12],
		   &f[13], &f[14], &f[15]) != 12)
		return false;
	len = (size_t)(close - open - 1);
	if (len >= sizeof(u->name))
		len = sizeof(u->name) - 1;
	memcpy(u->name, open + 1, len);
	u->tid = tid;
	u->k.minor_faults = f[10];
	u->k.major_faults = f[12];
	if (taskstat__cpu(taskstat__clock(tid), &u->k.cpu_ns)) {
		u->k.cpu_res_ns = 1;
	} else {
		u->k.cpu_res_ns = 1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK);
		u->k.cpu_ns = (f[14] + f[15]) * u->k.cpu_res_ns;
	}
	taskstat__switches(tid, &u->k);
	u->k.known = true;
	return true;
}

enum agg_kfig hs_taskstat__figure(const struct pmu_event *e)
{
	if (e->attr.type != PERF_TYPE_SOFTWARE)
		return AGG_KFIG_NONE;
	switch (e->attr.config) {
	case PERF_COUNT_SW_TASK_CLOCK:
	case PERF_COUNT_SW_CPU_CLOCK:
		return AGG_KFIG_CPU;
	case PERF_COUNT_SW_PAGE_FAULTS:
		return AGG_KFIG_FAULTS;
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
		return AGG_KFIG_MINOR;
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
		return AGG_KFIG_MAJOR;
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
		return AGG_KFIG_SWITCHES;
	default:
		return AGG_KFIG_NONE;
	}
}
