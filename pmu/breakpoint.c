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
#include "pmu/sample.h"

static void bp__attr(struct perf_event_attr *a, uint64_t addr, bool disabled,
		     uint64_t sig_data)
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
	if (sig_data) {
		/* Every hit overflows and signals the thread that hit it. */
		a->sample_period = 1;
		a->sigtrap = 1;
		a->remove_on_exec = 1; /* the kernel requires it with sigtrap */
		a->sig_data = sig_data;
	} else {
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
}

int pmu_bp__open(uint64_t addr, pid_t tid, bool disabled, uint64_t sig_data, int ceiling)
{
	struct perf_event_attr a;

	bp__attr(&a, addr, disabled, sig_data);
	return pmu_sys__open_below(&a, tid, ceiling);
}

bool pmu_bp__read(int fd, uint64_t *count)
{
	uint64_t v[3]; /* value, time enabled, time running */

	if (fd < 0 || !pmu_fdtab__valid(fd) || read(fd, v, sizeof(v)) != sizeof(v))
		return false;
	*count = v[0];
	return v[1] == v[2];
}

int pmu_bp__limit(int *err)
{
	/* Never executed: the addresses only have to be distinct. */
	static const char probe_area[128] __attribute__((aligned(8)));
	int fds[16], n = 0;

	*err = 0;
	while (n < (int)(sizeof(fds) / sizeof(fds[0]))) {
		fds[n] = pmu_bp__open((uint64_t)(uintptr_t)&probe_area[8 * n], 0,
				      true, 0, 1 << 30);
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
