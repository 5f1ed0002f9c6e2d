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

#include "pmu/pmu.h"

#if defined(__x86_64__)

static inline uint64_t hw__counter(uint32_t idx)
{
	uint32_t lo, hi;

	/* lfence keeps rdpmc from running ahead of the code before it, at a
	 * fraction of cpuid's cost. */
	__asm__ volatile("lfence; rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t hw__clock(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

#define HW_USER_READ 1

#elif defined(__aarch64__)

/* Index 32 is the cycle counter; 1..31 are event counters 0..30.  The
 * register number is part of the instruction, hence the table. */
#define EVCNTR(n)                                                           \
	case n + 1:                                                         \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v));   \
		break
static inline uint64_t hw__counter(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	case 32:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	EVCNTR(0); EVCNTR(1); EVCNTR(2); EVCNTR(3); EVCNTR(4); EVCNTR(5);
	EVCNTR(6); EVCNTR(7); EVCNTR(8); EVCNTR(9); EVCNTR(10); EVCNTR(11);
	EVCNTR(12); EVCNTR(13); EVCNTR(14); EVCNTR(15); EVCNTR(16);
	EVCNTR(17); EVCNTR(18); EVCNTR(19); EVCNTR(20); EVCNTR(21);
	EVCNTR(22); EVCNTR(23); EVCNTR(24); EVCNTR(25); EVCNTR(26);
	EVCNTR(27); EVCNTR(28); EVCNTR(29); EVCNTR(30);
	default:
		break;
	}
	return v;
}
#undef EVCNTR

static inline uint64_t hw__clock(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

#define HW_USER_READ 1

#else
#define HW_USER_READ 0
#endif

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
	static const uint64_t ask[] = {
		ARM64_CFG1_RDPMC | ARM64_CFG1_LONG, ARM64_CFG1_RDPMC, 0 };

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

#if HW_USER_READ
/* ns since the page's last update: the kernel's cyc -> ns conversion. */
static inline uint64_t page__time_delta(const volatile struct perf_event_mmap_page *pc)
{
	uint64_t cyc = hw__clock(), quot, rem;
	uint16_t shift = pc->time_shift;
	uint32_t mult = pc->time_mult;

	if (pc->cap_user_time_short)
		cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return pc->time_offset + quot * mult + ((rem * mult) >> shift);
}
#endif

bool pmu_userread__read(const void *page, struct count *out, bool times)
{
#if HW_USER_READ
	const volatile struct perf_event_mmap_page *pc = page;
	uint32_t seq, idx;
	uint64_t enabled = 0, running = 0;
	int64_t pmc;
	uint16_t width;

	do {
		seq = pc->lock;
		__asm__ volatile("" ::: "memory");
		idx = pc->index;
		/* Not on a counter (software event, multiplexed out) or no
		 * user access: only read() knows. */
		if (!idx || !pc->cap_user_rdpmc)
			return false;
		if (times) {
			if (!pc->cap_user_time)
				return false;
			enabled = pc->time_enabled;
			running = pc->time_running;
			uint64_t d = page__time_delta(pc);
			enabled += d;
			running += d;
		}
		width = pc->pmc_width;
		pmc = (int64_t)hw__counter(idx);
		if (width < 64) {
			pmc = (int64_t)((uint64_t)pmc << (64 - width));
			pmc >>= 64 - width;
		}
		out->value = (uint64_t)(pc->offset + pmc);
		__asm__ volatile("" ::: "memory");
	} while (pc->lock != seq);
	if (times) {
		out->enabled = enabled;
		out->running = running;
	}
	return true;
#else
	(void)page;
	(void)out;
	(void)times;
	return false;
#endif
}
