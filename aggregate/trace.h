/* trace.h - HPCSHIM_TRACE: a bounded ring per thread of its last region
 * calls, with begin and end times and the main event's delta, for the
 * timeline of `hpcshim trace` (threads[].trace in the JSON).
 *
 * The owner thread writes it in region close (preload/core/region.c),
 * under its records' sequence count; the writer reads it at the end.
 */
#ifndef HPCSHIM_AGGREGATE_TRACE_H
#define HPCSHIM_AGGREGATE_TRACE_H

#include <stdint.h>

#include "common/count.h"

struct agg_region;
struct agg_thread;

struct agg_trace_rec {
	const struct agg_region *r;
	uint64_t begin_ns, end_ns; /* CLOCK_REALTIME, the results' clock */
	int64_t delta;             /* main event, scaled; -1: unknown    */
	uint32_t depth;            /* frames below it on the stack       */
};

struct agg_trace {
	uint32_t cap;
	int64_t real_off; /* CLOCK_REALTIME - CLOCK_MONOTONIC at attach: the
			   * region times are the wall time's monotonic reads */
	uint64_t n; /* records ever written; the ring keeps the last cap */
	struct agg_trace_rec rec[];
};

/* Gives t a ring of cap records (0: none); -1 when out of memory. */
int agg_trace__attach(struct agg_thread *t, uint32_t cap);

/* One closed call of r: from begin to end (CLOCK_MONOTONIC, the region's
 * wall-time reads), depth frames below it; now/start the main event's
 * readings (NULL: no main event). */
void agg_trace__add(struct agg_trace *tr, const struct agg_region *r, uint64_t begin,
		    uint64_t end, int depth, const struct count *now,
		    const struct count *start);

/* The thread object's "trace", the last of its members (json.c). */
struct json_object;
struct agg_process;
struct agg_thread_view;
void agg_trace__section(struct json_object *o, const char *name, const struct agg_process *p,
			const struct agg_thread_view *tv);

#endif
