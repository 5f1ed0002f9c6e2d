/* breakpoint.c - hardware execute breakpoints as perf events.
 *
 * PERF_TYPE_BREAKPOINT with HW_BREAKPOINT_X takes one of the CPU's debug
 * address registers per thread (x86: DR0-DR3).  Every execution of the
 * address traps into the kernel (a debug exception), which counts it, or
 * with sigtrap sends the thread a synchronous SIGTRAP before the
 * instruction runs.  Execute breakpoints need bp_len == sizeof(long) on
 * x86 (arm64 accepts it and uses 4).  They are user level only: the
 * addresses are the program's, and kernel level would need privileges.
 */
#include <errno.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <unistd.h>

#include "pmu/internal.h"
#include "pmu/point.h"

void pmu_bp__attr(struct perf_event_attr *a, uint64_t addr, bool disabled)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = HW_BREAKPOINT_X;
	a->bp_addr = addr;
	a->bp_len = sizeof(long);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = disabled;
}

int pmu_bp__limit(int *err)
{
	/* Never executed: the addresses only have to be distinct. */
	static const char probe_area[128] __attribute__((aligned(8)));
	struct perf_event_attr a;
	int fds[16], n = 0;

	*err = 0;
	while (n < (int)(sizeof(fds) / sizeof(fds[0]))) {
		pmu_bp__attr(&a, (uint64_t)(uintptr_t)&probe_area[8 * n], true);
		fds[n] = pmu_sys__open_below(&a, 0, 1 << 30);
		if (fds[n] < 0) {
			*err = errno;
			break;
		}
		n++;
	}
	for (int i = 0; i < n; i++)
		pmu_sys__close(fds[i]);
	if (n > 0)
		*err = 0;
	return n;
}
