/* uncovered.c - threads the shim never saw start.
 *
 * Threads made with a raw clone(), or before the shim's constructor ran,
 * have no counters.  At exit every task of the process that is not in the
 * live list is reported with the kernel's own per-task figures
 * (taskstat.c: its name, CPU time, minor and major faults, voluntary and
 * involuntary context switches), so the results say what was not covered
 * instead of hiding it.  Such threads that ended before exit leave no
 * trace and cannot be shown.  (A pthread_create made by a constructor
 * that ran before ours starts the shim first: its thread is covered.)
 */
#include <dirent.h>
#include <stdlib.h>

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
		n += hs_taskstat__read(tid, &u[n]);
	}
	if (d)
		closedir(d);
	*out = u;
	return n;
}
