/* lock.h - a bounded wait for a lock, for paths that may run in a signal
 * handler.
 *
 * A fatal signal's handler may have interrupted the very thread that holds
 * the lock (inside thread start or end): waiting forever would hang the
 * dying program.  Outside a handler the plain blocking lock is used.
 */
#ifndef HPCSHIM_COMMON_LOCK_H
#define HPCSHIM_COMMON_LOCK_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "common/clock.h"

#define HS_LOCK_PATIENCE_NS 1000000000ull

/* try() is called until it succeeds or about a second has passed. */
static inline bool hs_lock__bounded(bool (*try)(void *), void *arg)
{
	uint64_t give_up = hs_clock__monotonic() + HS_LOCK_PATIENCE_NS;

	while (!try(arg)) {
		if (hs_clock__monotonic() > give_up)
			return false;
		sched_yield();
	}
	return true;
}

static inline bool hs_lock__try_mutex(void *m)
{
	return pthread_mutex_trylock((pthread_mutex_t *)m) == 0;
}

/* Locks m: blocking, or bounded when in_signal. */
static inline bool hs_lock__mutex(pthread_mutex_t *m, bool in_signal)
{
	if (!in_signal)
		return pthread_mutex_lock(m) == 0;
	return hs_lock__bounded(hs_lock__try_mutex, m);
}

#endif
