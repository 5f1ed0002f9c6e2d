/* read.h - the owner's read of its counters at a region boundary, inline.
 *
 * The region hot path (preload/core/region.c) reads a thread's counters
 * twice per region call.  In the common configuration, one group read
 * from user space (pmu_counters.plan1), the read is this inline function:
 * no call into pmu/, no per-entry tests.  Anything else (no plan, a read
 * that finds an event off its counter, a rotation deferred by the read)
 * takes pmu_counters__read_at, which does the whole read again its way.
 * The user-space read itself is pmu/userread.h's, so this header is the
 * one public door to it.
 */
#ifndef HPCSHIM_PMU_READ_H
#define HPCSHIM_PMU_READ_H

#include "common/atomic.h"
#include "common/compiler.h"
#include "pmu/pmu.h"
#include "pmu/userread.h"

/* The plan of one group (plan1): its leader, with the times and the
 * reading's instant, then its members, which share the leader's times.
 * False when an event is not on a counter right now. */
static inline __attribute__((always_inline)) bool
pmu_counters__read_plan1(struct pmu_counters *c, struct count *out, int n, uint64_t *clock)
{
	const struct pmu_plan *p = c->plan;
	struct count *lead = &out[p[0].ev];

	if (!pmu_userread__read(p[0].page, lead, true, clock))
		return false;
	for (int k = 1; k < n; k++) {
		struct count *o = &out[p[k].ev];

		if (!pmu_userread__read(p[k].page, o, false, NULL))
			return false;
		o->enabled = lead->enabled;
		o->running = lead->running;
	}
	hs_atomic__add(&c->user_reads, 1);
	return true;
}

/* Whether the read is for pmu_counters__read_fast: the plan was one
 * group's when made (plan1; read_fast itself finds it dropped since, and
 * calls pmu_counters__read_at then). */
static inline bool pmu_counters__plan1(const struct pmu_counters *c)
{
	return c->plan1;
}

/* A rotation the read deferred (pmu_counters.deferred): run it now. */
void pmu_counters__run_deferred(struct pmu_counters *c);

/* pmu_counters__read_at, the one-group plan inline. */
static inline __attribute__((always_inline)) int
pmu_counters__read_fast(struct pmu_counters *c, struct count *out, uint64_t *clock)
{
	int n = __atomic_load_n(&c->nplan, __ATOMIC_RELAXED);
	bool ok;

	if (unlikely(n <= 0 || !c->plan1))
		return pmu_counters__read_at(c, out, clock);
	c->reading = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ok = pmu_counters__read_plan1(c, out, n, clock);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->reading = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(!ok))
		return pmu_counters__read_at(c, out, clock);
	if (unlikely(c->deferred))
		pmu_counters__run_deferred(c);
	return 0;
}

#endif
