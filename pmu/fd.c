/* fd.c - enable and disable one of our descriptors (a breakpoint, or a
 * group leader with group set).
 *
 * Raw ioctls: async-signal-safe, and a revoked number (the program closed
 * it, maybe reusing it for a file of its own) is left alone.
 */
#include <sys/ioctl.h>

#include "pmu/pmu.h"

void pmu_fd__enable(int fd, bool group)
{
	if (fd >= 0 && pmu_fdtab__valid(fd))
		ioctl(fd, PERF_EVENT_IOC_ENABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

void pmu_fd__disable(int fd, bool group)
{
	if (fd >= 0 && pmu_fdtab__valid(fd))
		ioctl(fd, PERF_EVENT_IOC_DISABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}
