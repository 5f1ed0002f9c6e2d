/* sampler.c - the event that interrupts a thread for the shim: every
 * period ns of the thread's CPU time (task-clock, an hrtimer that runs only
 * while the thread does, so its resolution does not depend on the kernel's
 * tick) or every period instructions (a hardware counter's overflow).
 *
 * The overflow is delivered as a real-time signal to the owning thread
 * (fcntl F_SETSIG + F_SETOWN_EX F_OWNER_TID, O_ASYNC), with si_fd set to
 * the sampler's descriptor.  Each overflow is armed one at a time with
 * PERF_EVENT_IOC_REFRESH 1: the event disables itself after it fired, and
 * the handler arms the next one.  Without that, a thread that blocks the
 * signal would queue one per period until the real-time queue is full, and
 * the kernel then falls back to a plain SIGIO, which kills the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pmu/pmu.h"

void pmu_sampler__attr(struct perf_event_attr *a, bool instructions, uint64_t period)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = instructions ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	a->config = instructions ? PERF_COUNT_HW_INSTRUCTIONS :
				   PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = period;
	a->disabled = 1;
	a->exclude_hv = 1;
}

int pmu_sampler__probe(struct perf_event_attr *a)
{
	int fd = pmu_sys__open(a, -1);

	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a->exclude_kernel) {
		a->exclude_kernel = 1;
		fd = pmu_sys__open(a, -1);
		if (fd < 0)
			a->exclude_kernel = 0;
	}
	if (fd < 0)
		return -1;
	pmu_sys__close(fd);
	return 0;
}

int pmu_sampler__open(const struct perf_event_attr *a, int signo)
{
	struct perf_event_attr attr = *a;
	struct f_owner_ex owner = { F_OWNER_TID, gettid() };
	int fd = pmu_sys__open(&attr, -1), err;

	if (fd < 0)
		return -1;
	if (fd >= pmu_sys__fd_ceiling()) {
		pmu_sys__close(fd);
		errno = EMFILE;
		return -1;
	}
	if (fcntl(fd, F_SETOWN_EX, &owner) < 0 || fcntl(fd, F_SETSIG, signo) < 0 ||
	    fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) < 0) {
		err = errno;
		pmu_sys__close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

int pmu_sampler__open_clock(const struct perf_event_attr *a)
{
	struct perf_event_attr attr = *a;
	int fd;

	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 0;
	attr.disabled = 0;
	attr.pinned = 1;
	attr.read_format = 0;
	fd = pmu_sys__open(&attr, -1);
	if (fd >= 0 && fd >= pmu_sys__fd_ceiling()) {
		pmu_sys__close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

int pmu_sampler__arm(int fd)
{
	if (!pmu_fdtab__valid(fd))
		return -1;
	return ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
}

void pmu_sampler__close(int fd)
{
	if (fd < 0 || !pmu_fdtab__valid(fd))
		return;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	pmu_sys__close(fd);
}
