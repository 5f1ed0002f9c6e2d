/* count.h - one counter reading: the value with the times that qualify it.
 *
 * A plain data type shared downstream (preload/, aggregate/): it carries no
 * perf_event_open knowledge.  Region deltas subtract readings field by field,
 * so a multiplexed event's estimate uses only the coverage inside the region.
 */
#ifndef HPCSHIM_COMMON_COUNT_H
#define HPCSHIM_COMMON_COUNT_H

#include <stdbool.h>
#include <stdint.h>

struct count {
	uint64_t value;   /* raw count while the event was running          */
	uint64_t enabled; /* ns the event was enabled                        */
	uint64_t running; /* ns the event was on a counter (<= enabled)      */
};

static inline void count__sub(struct count *d, const struct count *a,
			      const struct count *b)
{
	d->value = a->value - b->value;
	d->enabled = a->enabled - b->enabled;
	d->running = a->running - b->running;
}

static inline void count__add(struct count *acc, const struct count *d)
{
	acc->value += d->value;
	acc->enabled += d->enabled;
	acc->running += d->running;
}

/* Scaled estimate value * enabled / running.  Returns false when the event
 * never ran (running == 0 with time enabled): such a count is unknown, not 0.
 * Exact (no scaling) when running == enabled, as for software events. */
bool hs_count__estimate(const struct count *c, double *out);

/* running / enabled in [0, 1]; 1 when nothing was enabled yet. */
double hs_count__coverage(const struct count *c);

#endif
