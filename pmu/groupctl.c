/* groupctl.c - one group of a thread's counters, from a signal handler.
 *
 * The shim's rotation (preload/rotate.c) switches groups and reads them in
 * the handler of its sampler's signal, which may interrupt the thread
 * anywhere, also inside a region boundary reading the same counters.  So
 * these touch nothing but the group's descriptors: one ioctl or read(),
 * after checking that the program has not closed the descriptor (its number
 * could be the program's file now).  A perf read() is stateless and each
 * returns a consistent group, so an interrupted reader is not disturbed.
 */
#include <sys/ioctl.h>
#include <unistd.h>

#include "pmu/pmu.h"

static int group__leader(const struct pmu_counters *c, int g)
{
	const struct pmu_group *grp = &c->el->grp[g];
	int fd = c->fd[grp->idx[0]];

	for (int m = 0; m < grp->n; m++)
		if (!pmu_fdtab__valid(c->fd[grp->idx[m]]))
			return -1;
	return fd;
}

int pmu_group__enable(const struct pmu_counters *c, int g, bool on)
{
	int fd = group__leader(c, g);

	if (fd < 0)
		return -1;
	return ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
		     PERF_IOC_FLAG_GROUP);
}

int pmu_group__read(const struct pmu_counters *c, int g, struct count *out)
{
	const struct pmu_group *grp = &c->el->grp[g];
	uint64_t buf[3 + 2 * PMU_MAX_EVENTS];
	ssize_t want = (ssize_t)((3 + 2 * grp->n) * sizeof(uint64_t));
	int fd = group__leader(c, g);

	if (fd < 0 || read(fd, buf, sizeof(buf)) != want || buf[0] != (uint64_t)grp->n)
		return -1;
	for (int m = 0; m < grp->n; m++) {
		struct count *o = &out[grp->idx[m]];
		o->value = buf[3 + 2 * m];
		o->enabled = buf[1];
		o->running = buf[2];
	}
	pmu_group__clocks(grp, out, buf[2]);
	return 0;
}
