/* atomic.h - counters written by one thread and read by another.
 *
 * The owner of a statistic (a thread's region records, its rotation
 * handler, its read tallies) is its only writer; the exit path reads it
 * from another thread.  Relaxed atomic loads and stores suffice and are
 * plain moves on x86-64 and arm64: no locked instruction on the hot path.
 * Safe in signal handlers.
 */
#ifndef HPCSHIM_COMMON_ATOMIC_H
#define HPCSHIM_COMMON_ATOMIC_H

#include <stdint.h>

/* *p += d, for a counter with one writer. */
static inline void hs_atomic__add(uint64_t *p, uint64_t d)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + d, __ATOMIC_RELAXED);
}

/* *p = max(*p, v), for a counter with one writer. */
static inline void hs_atomic__max(uint64_t *p, uint64_t v)
{
	if (v > __atomic_load_n(p, __ATOMIC_RELAXED))
		__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline uint64_t hs_atomic__get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

#endif
