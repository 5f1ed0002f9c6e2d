/* clock.h - the clocks the project reads, in nanoseconds.
 *
 *   realtime   timestamps in the results (start, end of threads, triggers)
 *   monotonic  durations and deadlines (handler time, bounded waits)
 *   thread     this thread's CPU time (slices, busy loops)
 *
 * clock_gettime is async-signal-safe, so these are too.
 */
#ifndef HPCSHIM_COMMON_CLOCK_H
#define HPCSHIM_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t hs_clock__ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t hs_clock__realtime(void)
{
	return hs_clock__ns(CLOCK_REALTIME);
}

static inline uint64_t hs_clock__monotonic(void)
{
	return hs_clock__ns(CLOCK_MONOTONIC);
}

static inline uint64_t hs_clock__thread(void)
{
	return hs_clock__ns(CLOCK_THREAD_CPUTIME_ID);
}

#endif
