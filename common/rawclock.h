/* rawclock.h - the CPU's constant-rate counter, read from user space:
 * rdtsc on x86-64, cntvct_el0 on arm64 (the counters the kernel's own
 * clocksource "tsc" / "arch_sys_counter" and the vDSO read, and the one
 * the perf mmap page's time conversion takes: pmu/userread.h).  A region
 * boundary read with read() takes its wall time from it, mapped onto
 * CLOCK_MONOTONIC (preload/core/region.c), instead of a vDSO
 * clock_gettime: about 10 ns against 24 on the VMs here.  No fence: read
 * before a boundary's read() (BEGIN) or after it (END), whose entry into
 * and return from the kernel already orders it (an early read only
 * widens the wall interval around the counted one). */
#ifndef HPCSHIM_COMMON_RAWCLOCK_H
#define HPCSHIM_COMMON_RAWCLOCK_H

#include <stdint.h>

#if defined(__x86_64__)
#define HS_RAWCLOCK 1
#define HS_RAWCLOCK_SOURCE "tsc"
static inline uint64_t hs_rawclock__read(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
#define HS_RAWCLOCK 1
#define HS_RAWCLOCK_SOURCE "arch_sys_counter"
static inline uint64_t hs_rawclock__read(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
#else
#define HS_RAWCLOCK 0
#define HS_RAWCLOCK_SOURCE ""
static inline uint64_t hs_rawclock__read(void)
{
	return 0;
}
#endif

#endif
