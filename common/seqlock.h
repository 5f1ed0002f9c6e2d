/* seqlock.h - a sequence count for data one thread writes and another
 * copies while it runs (the periodic flush reads a live thread's region
 * records).
 *
 * The writer makes the count odd before it changes the data and even
 * again after; a reader that saw the same even count before and after
 * its copy has a consistent copy, else it copies again.  The data itself
 * is accessed with relaxed atomics (common/atomic.h), so the race is
 * benign to the compiler and to TSan; the fences order it.  Writer cost:
 * two plain stores on x86-64 and arm64 (no locked instruction).
 */
#ifndef HPCSHIM_COMMON_SEQLOCK_H
#define HPCSHIM_COMMON_SEQLOCK_H

#include <stdbool.h>
#include <stdint.h>

static inline void hs_seq__write_begin(uint32_t *s)
{
	__atomic_store_n(s, __atomic_load_n(s, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void hs_seq__write_end(uint32_t *s)
{
	__atomic_store_n(s, __atomic_load_n(s, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}

/* The count to hand to hs_seq__read_ok; odd means a write is under way. */
static inline uint32_t hs_seq__read_begin(const uint32_t *s)
{
	return __atomic_load_n(s, __ATOMIC_ACQUIRE);
}

/* True when the copy made since hs_seq__read_begin returned start is
 * consistent. */
static inline bool hs_seq__read_ok(const uint32_t *s, uint32_t start)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return !(start & 1) && __atomic_load_n(s, __ATOMIC_RELAXED) == start;
}

#endif
