/* uncovered.c - threads the shim never saw start.
 *
 * Threads made with a raw clone(), or before the shim's constructor ran,
 * have no counters.  At exit every task of the process that is not in the
 * live list is reported with the kernel's own per-task figures from
 * /proc/self/task/TID/stat (minor and major faults, user + system CPU
 * time), so the results say what was not covered instead of hiding it.
 * Such threads that ended before exit leave no trace and cannot be shown.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/core/feature.h"
#include "preload/core/core.h"

/* A thread whose results are already folded in may still be running its
 * last steps (the thread calling exit after its start routine returned). */
static bool is_covered(pid_t tid)
{
	for (const struct hs_thread *t = hs_proc.live; t; t = t->next)
		if (t->agg->tid == tid)
			return true;
	for (const struct agg_thread *a = hs_proc.done; a; a = a->next)
		if (a->tid == tid)
			return true;
	return false;
}

/* Fields 10 (minflt), 12 (majflt), 14 (utime), 15 (stime) of stat(5). */
static bool task_stat(pid_t tid, struct agg_uncovered *u)
{
	char path[64], buf[1024], *p;
	unsigned long long f[16];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fp = fopen(path, "re");
	if (!fp)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces */
	if (!p ||
	    sscanf(p + 2,
		   "%*c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12],
		   &f[13], &f[14], &f[15]) != 12)
		return false;
	u->tid = tid;
	u->minor_faults = f[10];
	u->major_faults = f[12];
	u->cpu_ns = (f[14] + f[15]) *
		    (1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK));
	return true;
}

int hs_uncovered__scan(struct agg_uncovered **out)
{
	DIR *d = opendir("/proc/self/task");
	struct agg_uncovered *u = NULL;
	struct dirent *de;
	int n = 0, cap = 0;

	while (d && (de = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || is_covered(tid) || hs_features__own_task(tid) ||
		    tid == __atomic_load_n(&hs_proc.flusher, __ATOMIC_RELAXED))
			continue;
		if (n == cap) {
			struct agg_uncovered *nu = realloc(
				u, (size_t)(cap = cap ? 2 * cap : 8) * sizeof(*u));
			if (!nu)
				break;
			u = nu;
		}
		n += task_stat(tid, &u[n]);
	}
	if (d)
		closedir(d);
	*out = u;
	return n;
}
