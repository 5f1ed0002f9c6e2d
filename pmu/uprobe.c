/* uprobe.c - uprobes as perf events (the kernel's "uprobe" PMU).
 *
 * perf_event_open with the PMU type from sysfs, config1 the file's path
 * and config2 the file offset of the instruction (perf_uprobe_event_init,
 * kernel >= 4.17).  The kernel writes an int3 into each process's private
 * copy of the code page, only in processes whose filter wants it (a per
 * thread event: its own), and takes it out when the last event on it
 * closes.  A child forked meanwhile inherits the int3 but no event: its
 * first hit traps once, finds no consumer and the kernel removes the
 * int3 from it.  Every hit is a trap and a single step of the displaced
 * instruction, a few microseconds.  Needs CAP_SYS_ADMIN (CAP_PERFMON was
 * refused again in 2025, also in the 6.1 stable series).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "common/sys.h"
#include "pmu/internal.h"
#include "pmu/point.h"

#define UPROBE_TYPE_FILE "/sys/bus/event_source/devices/uprobe/type"

/* The PMU's type number, or -1 with errno ENOENT when the kernel has
 * none (read once: it cannot change while we run). */
int pmu_uprobe__type(void)
{
	static int type = -2;
	char buf[32];
	long n;
	int fd, t = __atomic_load_n(&type, __ATOMIC_ACQUIRE);

	if (t == -2) {
		t = -1;
		fd = hs_sys__openat(AT_FDCWD, UPROBE_TYPE_FILE, O_RDONLY | O_CLOEXEC, 0);
		if (fd >= 0) {
			n = hs_sys__read(fd, buf, sizeof(buf) - 1);
			hs_sys__close(fd);
			if (n > 0) {
				buf[n] = '\0';
				t = atoi(buf);
			}
		}
		__atomic_store_n(&type, t, __ATOMIC_RELEASE);
	}
	if (t < 0)
		errno = ENOENT;
	return t;
}

int pmu_uprobe__attr(struct perf_event_attr *a, const struct pmu_point *p,
		     bool disabled)
{
	int type = pmu_uprobe__type();

	if (type < 0)
		return -1;
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)type;
	a->config = 0; /* bit 0 would make it a return probe */
	a->config1 = (uint64_t)(uintptr_t)p->path;
	a->config2 = p->offset;
	a->exclude_kernel = 1; /* the hit's registers are the user's */
	a->exclude_hv = 1;
	a->disabled = disabled;
	return 0;
}
