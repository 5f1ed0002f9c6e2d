/* userread.h - the user-space counter read itself, inlined into the group
 * read of counters.c (the region hot path).  See userread.c. */
#ifndef HPCSHIM_PMU_USERREAD_H
#define HPCSHIM_PMU_USERREAD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/count.h"
#include "common/rawclock.h"

#if defined(__x86_64__)

static inline __attribute__((always_inline)) uint64_t hw__counter(uint32_t idx)
{
	uint32_t lo, hi;

	/* lfence keeps rdpmc from running ahead of the code before it, at a
	 * fraction of cpuid's cost. */
	__asm__ volatile("lfence; rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx - 1));
	return (uint64_t)hi << 32 | lo;
}

#define HW_USER_READ 1

#elif defined(__aarch64__)

#if defined(__ARM_FEATURE_BTI_DEFAULT)
/* Index 32 is the cycle counter; 1..31 are event counters 0..30.  The
 * register number is part of the instruction, hence the table. */
#define EVCNTR(n)                                                         \
	case n + 1:                                                       \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break
static inline __attribute__((always_inline)) uint64_t hw__counter(uint32_t idx)
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
#else
/* Index 32 is the cycle counter; 1..31 are event counters 0..30.  The
 * register number is part of the instruction: a table of two-instruction
 * entries (mrs, branch out) entered at 8 x (idx - 1), 7 instructions
 * where the compiler's switch takes 10 (a table of offsets, then its
 * entries).  Not with branch target identification, whose indirect
 * branches must land on a "bti j": the switch then. */
static inline __attribute__((always_inline)) uint64_t hw__counter(uint32_t idx)
{
	uint64_t v, at;
	uint32_t i = idx - 1;

	if (i > 31)
		return 0;
	__asm__ volatile("adr %1, 1f\n\t"
			 "add %1, %1, %w2, uxtw #3\n\t"
			 "br %1\n"
			 "1:\n\t"
			 "mrs %0, pmevcntr0_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr1_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr2_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr3_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr4_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr5_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr6_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr7_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr8_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr9_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr10_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr11_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr12_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr13_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr14_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr15_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr16_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr17_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr18_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr19_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr20_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr21_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr22_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr23_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr24_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr25_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr26_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr27_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr28_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr29_el0\n\tb 2f\n\t"
			 "mrs %0, pmevcntr30_el0\n\tb 2f\n\t"
			 "mrs %0, pmccntr_el0\n"
			 "2:"
			 : "=&r"(v), "=&r"(at)
			 : "r"(i));
	return v;
}
#endif

#define HW_USER_READ 1

#else
#define HW_USER_READ 0
#endif

#if HW_USER_READ
/* capabilities bits (the uapi bitfield, read once as a word). */
#define USERREAD_CAP_RDPMC (1ull << 2)
#define USERREAD_CAP_TIME (1ull << 3)
#define USERREAD_CAP_TIME_ZERO (1ull << 4)
#define USERREAD_CAP_TIME_SHORT (1ull << 5)

/* The clock counter now in ns, the kernel's cyc -> ns conversion: plus
 * time_offset, the time since the page's last update; plus time_zero,
 * the perf clock (the kernel's sched_clock, the base of perf timestamps). */
static inline uint64_t page__time_ns(const volatile struct perf_event_mmap_page *pc,
				     uint64_t caps)
{
	uint64_t cyc = hs_rawclock__read(), quot, rem;
	unsigned int shift = pc->time_shift;
	uint64_t mult = pc->time_mult;

	if (caps & USERREAD_CAP_TIME_SHORT) {
		uint64_t last = pc->time_cycles; /* one load of it */

		cyc = last + ((cyc - last) & pc->time_mask);
	}
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return quot * mult + ((rem * mult) >> shift);
}
#endif

/* The perf clock now (ns), from the page's conversion of the clock
 * counter; 0 when the page does not give it. */
static inline uint64_t pmu_userread__clock(const void *page)
{
#if HW_USER_READ
	const volatile struct perf_event_mmap_page *pc = page;
	uint64_t caps, now;
	uint32_t seq;

	do {
		seq = pc->lock;
		__asm__ volatile("" ::: "memory");
		caps = pc->capabilities;
		if (!(caps & USERREAD_CAP_TIME_ZERO))
			return 0;
		now = pc->time_zero + page__time_ns(pc, caps);
		__asm__ volatile("" ::: "memory");
	} while (pc->lock != seq);
	return now;
#else
	(void)page;
	return 0;
#endif
}

/* Reads one event into out->value; with times also out->enabled and
 * out->running, extended to now, and (clock not NULL) the perf clock of
 * that instant in *clock, 0 when the page does not give it.  False when
 * the event is not on a counter (software event, multiplexed out) or user
 * access is off: then only read() knows. */
static inline __attribute__((always_inline)) bool
pmu_userread__read(const void *page, struct count *out, bool times, uint64_t *clock)
{
#if HW_USER_READ
	const volatile struct perf_event_mmap_page *pc = page;
	uint64_t caps, enabled = 0, running = 0, pmc, now = 0;
	uint32_t seq, idx;
	unsigned int width;

	do {
		seq = pc->lock;
		__asm__ volatile("" ::: "memory");
		idx = pc->index;
		caps = pc->capabilities;
		if (!idx || !(caps & USERREAD_CAP_RDPMC))
			return false;
		if (times) {
			uint64_t d;
			if (!(caps & USERREAD_CAP_TIME))
				return false;
			d = page__time_ns(pc, caps);
			if (clock)
				now = caps & USERREAD_CAP_TIME_ZERO ? pc->time_zero + d : 0;
			d += pc->time_offset;
			enabled = pc->time_enabled + d;
			running = pc->time_running + d;
		}
		/* Sign-extend a narrow counter (the kernel's offset expects it):
		 * by 64 - width bits, 0 for a full one (the shift is taken
		 * mod 64, as the instructions do: no test). */
		width = (64u - pc->pmc_width) & 63u;
		pmc = hw__counter(idx);
		pmc = (uint64_t)((int64_t)(pmc << width) >> width);
		out->value = (uint64_t)pc->offset + pmc;
		__asm__ volatile("" ::: "memory");
	} while (pc->lock != seq);
	if (times) {
		out->enabled = enabled;
		out->running = running;
		if (clock)
			*clock = now;
	}
	return true;
#else
	(void)page;
	(void)out;
	(void)times;
	(void)clock;
	return false;
#endif
}

#endif
