/* trace.c - the per-thread ring of region calls (trace.h) and its part of
 * the thread object, "trace" (docs/schema.md). */
#include <stdlib.h>

#include <json-c/json.h>

#include "aggregate/aggregate.h"
#include "aggregate/jsonutil.h"
#include "aggregate/trace.h"
#include "aggregate/view.h"
#include "common/clock.h"

int agg_trace__attach(struct agg_thread *t, uint32_t cap)
{
	struct agg_trace *tr;

	if (!cap)
		return 0;
	tr = calloc(1, sizeof(*tr) + (size_t)cap * sizeof(tr->rec[0]));
	if (!tr)
		return -1;
	tr->cap = cap;
	tr->real_off = (int64_t)(hs_clock__realtime() - hs_clock__monotonic());
	t->trace = tr;
	return 0;
}

void agg_trace__add(struct agg_trace *tr, const struct agg_region *r,
		    uint64_t begin, uint64_t end, int depth,
		    const struct count *now, const struct count *start)
{
	struct agg_trace_rec *x = &tr->rec[tr->n % tr->cap];
	struct count d;

	x->r = r;
	x->begin_ns = begin + (uint64_t)tr->real_off;
	x->end_ns = end + (uint64_t)tr->real_off;
	x->depth = (uint32_t)depth;
	x->delta = -1;
	if (now && start) {
		count__sub(&d, now, start);
		if (d.running == d.enabled)
			x->delta = (int64_t)d.value;
		else if (d.running > 0) /* scaled as every other value */
			x->delta = (int64_t)((double)d.value * (double)d.enabled /
						     (double)d.running +
					     0.5);
	}
	__atomic_store_n(&tr->n, tr->n + 1, __ATOMIC_RELEASE);
}

/* threads[].trace: {"capacity", "calls" (ever recorded), "dropped" (the
 * oldest, overwritten), "event" (whose delta), "records": [{"region",
 * "begin_ns", "end_ns", "depth", "delta"}] oldest first}. */
void agg_trace__section(json_object *o, const char *name,
			const struct agg_process *p, const struct agg_thread_view *tv)
{
	const struct agg_trace *tr = tv->t->trace;
	json_object *t, *recs;
	uint64_t n, first;

	if (!tr)
		return;
	n = __atomic_load_n(&tr->n, __ATOMIC_ACQUIRE);
	first = n > tr->cap ? n - tr->cap : 0;
	t = json_object_new_object();
	recs = json_object_new_array();
	json_object_object_add(t, "capacity", agg_json__u64(tr->cap));
	json_object_object_add(t, "calls", agg_json__u64(n));
	json_object_object_add(t, "dropped", agg_json__u64(first));
	json_object_object_add(t, "event",
			       p->main_ev >= 0 ?
				       json_object_new_string(p->ev[p->main_ev].name) :
				       NULL);
	for (uint64_t i = first; i < n; i++) {
		const struct agg_trace_rec *x = &tr->rec[i % tr->cap];
		json_object *r = json_object_new_object();

		json_object_object_add(r, "region", agg_json__text(x->r->name));
		json_object_object_add(r, "begin_ns", agg_json__u64(x->begin_ns));
		json_object_object_add(r, "end_ns", agg_json__u64(x->end_ns));
		json_object_object_add(r, "depth", json_object_new_int((int)x->depth));
		json_object_object_add(
			r, "delta",
			x->delta >= 0 ? json_object_new_int64(x->delta) : NULL);
		json_object_array_add(recs, r);
	}
	json_object_object_add(t, "records", recs);
	json_object_object_add(o, name, t);
}
