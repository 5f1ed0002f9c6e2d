/* counters.c - one thread's counters over an evlist.
 *
 * Opened by the thread itself (pid 0 = calling thread, cpu -1), never by
 * inheritance: a per-thread fd set gives per-thread truth and costs no
 * per-CPU fan-out at thread creation.  Each group is read with one read()
 * (PERF_FORMAT_GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING).
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pmu/pmu.h"

#define RESERVE_MIN 16

static const char reserve_reason[] = "descriptor reserve: a quarter of "
	"RLIMIT_NOFILE (at least 16) is left to the program";
static const char revoked_reason[] = "the program closed the counter "
	"descriptors";
static const char read_reason[] = "reading the counters failed";

/* Descriptors from this number on are the program's: a quarter of
 * RLIMIT_NOFILE, at least RESERVE_MIN, is never used for counters. */
static int counters__fd_ceiling(void)
{
	struct rlimit rl;
	rlim_t reserve;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (1u << 30))
		return 1 << 30;
	reserve = rl.rlim_cur / 4 > RESERVE_MIN ? rl.rlim_cur / 4 : RESERVE_MIN;
	return rl.rlim_cur > reserve ? (int)(rl.rlim_cur - reserve) : 0;
}

static void counters__close_group(struct pmu_counters *c,
				  const struct pmu_group *grp)
{
	for (int m = 0; m < grp->n; m++) {
		int i = grp->idx[m];
		if (c->fd[i] >= 0)
			pmu_sys__close(c->fd[i]);
		c->fd[i] = -1;
	}
}

/* Opens one group; on any failure the whole group is closed again, since a
 * missing member would break the group's read layout. */
static int counters__open_group(struct pmu_counters *c,
				const struct pmu_group *grp, int ceiling)
{
	int leader = -1;

	for (int m = 0; m < grp->n; m++) {
		int i = grp->idx[m];
		struct perf_event_attr attr = c->el->ev[i].attr;
		int fd = pmu_sys__open(&attr, leader);
		int err = errno;

		if (fd >= ceiling) {
			pmu_sys__close(fd);
			fd = -1;
			err = EMFILE;
			c->reason = reserve_reason;
		}
		if (fd < 0) {
			counters__close_group(c, grp);
			return -err;
		}
		if (m == 0)
			leader = fd;
		c->fd[i] = fd;
	}
	return 0;
}

int pmu_counters__open(struct pmu_counters *c, const struct pmu_evlist *el)
{
	int opened = 0;

	int ceiling = counters__fd_ceiling();

	c->el = el;
	c->missing = 0;
	c->err = 0;
	c->reason = NULL;
	for (int i = 0; i < PMU_MAX_EVENTS; i++)
		c->fd[i] = -1;
	for (int g = 0; g < el->ngroups; g++) {
		const struct pmu_group *grp = &el->grp[g];
		int rc = counters__open_group(c, grp, ceiling);

		if (rc == 0) {
			opened += grp->n;
			continue;
		}
		if (!c->err)
			c->err = -rc;
		if (!c->reason)
			c->reason = pmu_errno__reason(-rc);
		for (int m = 0; m < grp->n; m++)
			c->missing |= 1ull << grp->idx[m];
	}
	return opened;
}

/* Every member still ours?  A program closing any of them (not only the
 * leader) breaks the group. */
static bool counters__group_intact(const struct pmu_counters *c,
				   const struct pmu_group *grp)
{
	for (int m = 0; m < grp->n; m++)
		if (!pmu_fdtab__valid(c->fd[grp->idx[m]]))
			return false;
	return true;
}

/* The group's events are not counted in this thread from now on.  Atomics:
 * the exit path may read another thread's counters while their owner reads
 * them too. */
static void counters__lose_group(struct pmu_counters *c,
				 const struct pmu_group *grp, const char *why)
{
	for (int m = 0; m < grp->n; m++)
		__atomic_or_fetch(&c->missing, 1ull << grp->idx[m], __ATOMIC_RELAXED);
	__atomic_store_n(&c->reason, why, __ATOMIC_RELAXED);
}

int pmu_counters__read(struct pmu_counters *c, struct count *out)
{
	const struct pmu_evlist *el = c->el;
	/* nr, time_enabled, time_running, then {value, id} per member */
	uint64_t buf[3 + 2 * PMU_MAX_EVENTS];
	int rc = 0;

	/* Dropped events belong to no group: give them defined zeros. */
	memset(out, 0, (size_t)el->nevents * sizeof(*out));
	for (int g = 0; g < el->ngroups; g++) {
		const struct pmu_group *grp = &el->grp[g];
		int fd = c->fd[grp->idx[0]];
		ssize_t want = (ssize_t)((3 + 2 * grp->n) * sizeof(uint64_t));
		ssize_t got;

		if (fd >= 0 && !counters__group_intact(c, grp)) {
			/* Closed by the program: the number may be its file now. */
			counters__lose_group(c, grp, revoked_reason);
			fd = -1;
		}
		got = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

		if (got != want || buf[0] != (uint64_t)grp->n) {
			for (int m = 0; m < grp->n; m++)
				memset(&out[grp->idx[m]], 0, sizeof(struct count));
			if (fd >= 0) {
				/* Unknown from now on, never a silent 0. */
				counters__lose_group(c, grp, read_reason);
				if (got >= 0)
					errno = EIO;
				rc = -1;
			}
			continue;
		}
		for (int m = 0; m < grp->n; m++) {
			struct count *o = &out[grp->idx[m]];
			o->value = buf[3 + 2 * m];
			o->enabled = buf[1];
			o->running = buf[2];
		}
	}
	return rc;
}

void pmu_counters__close(struct pmu_counters *c)
{
	for (int i = 0; i < PMU_MAX_EVENTS; i++) {
		if (c->fd[i] >= 0)
			pmu_sys__close(c->fd[i]);
		c->fd[i] = -1;
	}
}
