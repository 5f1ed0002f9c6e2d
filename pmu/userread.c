/* userread.c - reading a counter from user space through its mmap page.
 *
 * The kernel publishes, in the first page mapped from an event's fd, where
 * the event lives on the PMU (index), the count accumulated before it was
 * last scheduled in (offset), its enabled/running times at that moment and
 * the clock conversion to extend them to now.  A self-monitoring thread
 * whose event is on a counter (index != 0) can then read the hardware
 * counter directly: rdpmc on x86-64, an mrs of PMEVCNTR<n>_EL0 /
 * PMCCNTR_EL0 on arm64.  The page is guarded by a sequence count that the
 * kernel bumps around every update; a read that saw it change is retried.
 *
 * Only the thread that owns the events may read this way (the hardware
 * counters hold the current thread's counts); anything else uses read().
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmu/internal.h"
#include "pmu/userread.h"

/* arm64: user access is per event (attr.config1 bit 1, with
 * kernel.perf_user_access=1); bit 0 asks for a 64-bit counter so that the
 * value never wraps between two reads.  x86 grants rdpmc to every event
 * of a task that has one mapped (sysfs rdpmc=1, the default). */
#define ARM64_CFG1_LONG 0x1
#define ARM64_CFG1_RDPMC 0x2

bool pmu_userread__supported(void)
{
	return HW_USER_READ;
}

int pmu_userread__request(struct perf_event_attr *attr, int level)
{
#if defined(__aarch64__)
	static const uint64_t ask[] = { ARM64_CFG1_RDPMC | ARM64_CFG1_LONG,
					ARM64_CFG1_RDPMC, 0 };

	if (level < 0 || level >= (int)(sizeof(ask) / sizeof(ask[0])))
		return -1;
	attr->config1 &= ~(uint64_t)(ARM64_CFG1_RDPMC | ARM64_CFG1_LONG);
	attr->config1 |= ask[level];
	return level + 1 < (int)(sizeof(ask) / sizeof(ask[0])) ? level + 1 : -1;
#else
	(void)attr;
	(void)level;
	return -1;
#endif
}

void *pmu_userread__map(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	if (!HW_USER_READ || page <= 0)
		return NULL;
	/* Read-only: the kernel then keeps no data ring behind the page. */
	p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

void pmu_userread__unmap(void *page)
{
	long sz = sysconf(_SC_PAGESIZE);

	if (page && sz > 0)
		munmap(page, (size_t)sz);
}
