/* range.c - the "ranges" sections of the result (docs/schema.md).
 *
 * Per thread and per process, for every sampled event: its samples, the
 * samples lost or throttled away by the kernel, and per range the samples
 * whose IP fell inside, the estimated count (samples x period), the share
 * of the event's samples, and a standard error.
 *
 * The error model: with period 1 every event is a sample, so the count is
 * exact (error 0) unless samples were lost.  With period P > 1 the range
 * holds a share p of N samples; treating each sample as an independent
 * draw (binomial), the standard error of the estimate is
 * P * sqrt(N p (1 - p)).  Threads are independent, so process variances
 * add.  When the kernel lost or throttled samples the estimate is a lower
 * bound and the error is null (unknown).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "aggregate/aggregate.h"
#include "aggregate/jsonutil.h"
#include "aggregate/out.h"
#include "aggregate/range.h"
#include "aggregate/view.h"

struct agg_range_thread *agg_range_thread__new(int nsev, int nranges, int ncp)
{
	size_t n = (size_t)nsev * (3 + (size_t)nranges) + (size_t)ncp;
	struct agg_range_thread *t = calloc(1, sizeof(*t) + (n ? n : 1) *
								    sizeof(uint64_t));
	uint64_t *v;

	if (!t)
		return NULL;
	v = (uint64_t *)(t + 1);
	t->nsev = nsev;
	t->nranges = nranges;
	t->ncp = ncp;
	t->samples = v;
	t->lost = v + nsev;
	t->throttled = v + 2 * nsev;
	t->hits = v + 3 * nsev;
	t->cp = t->hits + (size_t)nsev * (size_t)nranges;
	return t;
}

void agg_range_thread__delete(struct agg_range_thread *t)
{
	free(t);
}

/* One event's sums over some threads. */
struct sev_sum {
	uint64_t samples, lost, throttled;
	bool exact_unknown; /* a thread lost or throttled samples */
	uint64_t *hits;     /* [nranges]                          */
	double *var;        /* [nranges] variance of the estimate */
};

static void sev_sum__add(struct sev_sum *s, const struct agg_range_thread *t, int k,
			 uint64_t period)
{
	uint64_t n = t->samples[k];

	s->samples += n;
	s->lost += t->lost[k];
	s->throttled += t->throttled[k];
	if (t->lost[k] || t->throttled[k])
		s->exact_unknown = true;
	for (int r = 0; r < t->nranges; r++) {
		uint64_t h = t->hits[(size_t)k * (size_t)t->nranges + (size_t)r];
		double p = n ? (double)h / (double)n : 0;

		s->hits[r] += h;
		if (period > 1)
			s->var[r] += (double)period * (double)period * (double)n *
				     p * (1 - p);
	}
}

static json_object *sev_json(const struct agg_range_info *ri, int k,
			     const struct sev_sum *s)
{
	json_object *o = json_object_new_object(), *rs = json_object_new_object();
	uint64_t period = ri->sev[k].period;

	json_object_object_add(o, "period", agg_json__u64(period));
	json_object_object_add(o, "samples", agg_json__u64(s->samples));
	json_object_object_add(o, "lost", agg_json__u64(s->lost));
	json_object_object_add(o, "throttled", agg_json__u64(s->throttled));
	for (int r = 0; r < ri->nranges; r++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "samples", agg_json__u64(s->hits[r]));
		json_object_object_add(e, "estimate",
				       agg_json__u64(s->hits[r] * period));
		json_object_object_add(
			e, "error",
			s->exact_unknown ? NULL : agg_json__dbl(sqrt(s->var[r])));
		json_object_object_add(e, "share",
				       s->samples ? agg_json__dbl((double)s->hits[r] /
								  (double)s->samples) :
						    NULL);
		agg_json__add_key(rs, ri->range[r].text, e);
	}
	json_object_object_add(o, "ranges", rs);
	return o;
}

/* "samples" and "checkpoints" over the threads in list (one thread when
 * single is set). */
static json_object *sums_json(const struct agg_range_info *ri,
			      const struct agg_thread *list, bool single)
{
	json_object *o = json_object_new_object(), *smp = json_object_new_object();
	json_object *cps = json_object_new_object();
	uint64_t hits[ri->nranges ? ri->nranges : 1];
	double var[ri->nranges ? ri->nranges : 1];

	for (int k = 0; k < ri->nsev; k++) {
		struct sev_sum s = { .hits = hits, .var = var };
		int nthreads = 0;

		for (int r = 0; r < ri->nranges; r++)
			hits[r] = 0, var[r] = 0;
		for (const struct agg_thread *t = list; t; t = single ? NULL : t->next) {
			const struct agg_range_thread *rt = t->range;

			if (!rt || k >= rt->nsev || (rt->sev_missing & (1ull << k)))
				continue;
			sev_sum__add(&s, rt, k, ri->sev[k].period);
			nthreads++;
		}
		agg_json__add_key(smp, ri->sev[k].event,
				  nthreads ? sev_json(ri, k, &s) : NULL);
	}
	for (int i = 0; i < ri->ncp; i++) {
		uint64_t sum = 0;
		int nthreads = 0;

		for (const struct agg_thread *t = list; t; t = single ? NULL : t->next) {
			const struct agg_range_thread *rt = t->range;

			if (!rt || i >= rt->ncp || (rt->cp_missing & (1ull << i)))
				continue;
			sum += rt->cp[i];
			nthreads++;
		}
		agg_json__add_key(cps, ri->cp[i].text,
				  nthreads ? agg_json__u64(sum) : NULL);
	}
	json_object_object_add(o, "samples", smp);
	json_object_object_add(o, "checkpoints", cps);
	return o;
}

static json_object *range__thread_json(const struct agg_range_info *ri,
				       const struct agg_thread *t)
{
	const struct agg_range_thread *rt = t->range;
	json_object *o;

	if (!ri || !rt)
		return NULL;
	o = sums_json(ri, t, true);
	if (rt->sev_missing && rt->sev_reason)
		json_object_object_add(o, "sampling_error",
				       json_object_new_string(rt->sev_reason));
	if (rt->cp_missing && rt->cp_reason)
		json_object_object_add(o, "checkpoint_error",
				       json_object_new_string(rt->cp_reason));
	return o;
}

void agg_range__thread(json_object *o, const struct agg_process *p,
		       const struct agg_thread_view *tv, const void *arg)
{
	const struct agg_range_info *ri = arg;

	(void)p;
	if (tv->t->range && ri)
		json_object_object_add(o, "ranges", range__thread_json(ri, tv->t));
}

static json_object *place_json(const struct agg_place *pl, const char *key, bool point)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, key, agg_json__text(pl->text));
	json_object_object_add(o, "status", json_object_new_string(pl->status));
	if (pl->reason)
		json_object_object_add(o, "reason", agg_json__text(pl->reason));
	if (point) {
		json_object_object_add(
			o, "address",
			pl->nintervals ? agg_json__hex(pl->iv[0].start) : NULL);
		json_object_object_add(o, "object",
				       pl->nintervals && pl->iv[0].object ?
					       agg_json__text(pl->iv[0].object) :
					       NULL);
		json_object_object_add(o, "definitions",
				       json_object_new_int(pl->definitions));
		return o;
	}
	json_object *iv = json_object_new_array();

	for (int i = 0; i < pl->nintervals; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "start", agg_json__hex(pl->iv[i].start));
		json_object_object_add(e, "end", agg_json__hex(pl->iv[i].end));
		json_object_object_add(
			e, "object",
			pl->iv[i].object ? agg_json__text(pl->iv[i].object) : NULL);
		json_object_array_add(iv, e);
	}
	json_object_object_add(o, "intervals", iv);
	return o;
}

static json_object *trigger_json(const struct agg_range_info *ri)
{
	json_object *o;

	if (!ri->start && !ri->stop)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(
		o, "start", ri->start ? place_json(ri->start, "point", true) : NULL);
	json_object_object_add(o, "stop",
			       ri->stop ? place_json(ri->stop, "point", true) : NULL);
	json_object_object_add(o, "state", json_object_new_string(ri->trigger_state));
	json_object_object_add(o, "started_ns",
			       ri->started_ns ? agg_json__u64(ri->started_ns) : NULL);
	json_object_object_add(o, "started_tid",
			       ri->started_ns ? json_object_new_int(ri->started_tid) :
						NULL);
	json_object_object_add(o, "stopped_ns",
			       ri->stopped_ns ? agg_json__u64(ri->stopped_ns) : NULL);
	json_object_object_add(o, "stopped_tid",
			       ri->stopped_ns ? json_object_new_int(ri->stopped_tid) :
						NULL);
	return o;
}

static json_object *range__process_json(const struct agg_range_info *ri,
					const struct agg_process *p)
{
	json_object *o, *a;

	if (!ri)
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	for (int r = 0; r < ri->nranges; r++)
		json_object_array_add(a, place_json(&ri->range[r], "range", false));
	json_object_object_add(o, "ranges", a);
	a = json_object_new_array();
	for (int k = 0; k < ri->nsev; k++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "event", agg_json__text(ri->sev[k].event));
		json_object_object_add(e, "period", agg_json__u64(ri->sev[k].period));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "sampled_events", a);
	json_object_object_add(o, "sampling_note",
			       ri->sampling_note ? agg_json__text(ri->sampling_note) :
						   NULL);
	a = json_object_new_array();
	for (int i = 0; i < ri->ncp; i++)
		json_object_array_add(a, place_json(&ri->cp[i], "checkpoint", true));
	json_object_object_add(o, "checkpoints", a);
	json_object_object_add(o, "breakpoints_per_thread",
			       ri->bp_limit >= 0 ? json_object_new_int(ri->bp_limit) :
						   NULL);
	json_object_object_add(o, "point_method",
			       ri->method ? json_object_new_string(ri->method) : NULL);
	json_object_object_add(o, "point_method_note",
			       ri->method_note ? agg_json__text(ri->method_note) : NULL);
	json_object_object_add(o, "trigger", trigger_json(ri));
	json_object_object_add(o, "totals", sums_json(ri, p->threads, false));
	return o;
}

void agg_range__tail(struct agg_out *o, int depth, bool *first,
		     const struct agg_process *p, const void *arg)
{
	const struct agg_range_info *ri = arg;

	if (ri)
		agg_out__member(o, depth, first, "ranges", range__process_json(ri, p));
}
