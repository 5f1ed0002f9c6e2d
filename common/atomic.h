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

/* The owner's own load and store of such a counter.  A relaxed atomic
 * access of an aligned 64-bit word is one plain load or store on x86-64
 * and arm64, but GCC builds an arm64 atomic's address in a register of its
 * own first (no base + offset form): an instruction more per access, some
 * twenty per region END (docs/benchmarks.md, issue 34).  A volatile
 * access is the same single instruction with the offset folded in, and
 * what the other thread's relaxed atomic load sees is the same.  Under
 * ThreadSanitizer, which knows atomics and not volatiles, the atomics. */
#if defined(__SANITIZE_THREAD__)
#define HS_ATOMIC_OWNER_VOLATILE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HS_ATOMIC_OWNER_VOLATILE 0
#endif
#endif
#ifndef HS_ATOMIC_OWNER_VOLATILE
#define HS_ATOMIC_OWNER_VOLATILE 1
#endif

static inline uint64_t hs_atomic__own_load(const uint64_t *p)
{
#if HS_ATOMIC_OWNER_VOLATILE
	return *(const volatile uint64_t *)p;
#else
	return __atomic_load_n(p, __ATOMIC_RELAXED);
#endif
}

static inline void hs_atomic__own_store(uint64_t *p, uint64_t v)
{
#if HS_ATOMIC_OWNER_VOLATILE
	*(volatile uint64_t *)p = v;
#else
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
#endif
}

/* *p += d, for a counter with one writer. */
static inline void hs_atomic__add(uint64_t *p, uint64_t d)
{
	hs_atomic__own_store(p, hs_atomic__own_load(p) + d);
}

/* *p = max(*p, v), for a counter with one writer. */
static inline void hs_atomic__max(uint64_t *p, uint64_t v)
{
	if (v > hs_atomic__own_load(p))
		hs_atomic__own_store(p, v);
}

static inline uint64_t hs_atomic__get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

#endif
