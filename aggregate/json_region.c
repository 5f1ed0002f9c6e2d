/* json_region.c - the records there are many of (json_region.h): a
 * thread's region records and the region summaries across threads,
 * written straight into the emitter's buffer in the text json-c gives for
 * the same values; only their rare parts (multiplexed entries, the
 * sections' siblings, a region's several parents, strings that need
 * escaping) are built with json-c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/aggregate.h"
#include "aggregate/json_region.h"
#include "aggregate/jsonutil.h"
#include "aggregate/mux.h"
#include "aggregate/out.h"
#include "aggregate/section.h"
#include "aggregate/view.h"

/* The optional siblings of the interval object "<key>": "<key>_multiplexed"
 * when coverage < 1 somewhere, then the sections' (section.h counts:
 * "<key>_metrics" and the drill-down with presets); NULL when there are
 * none. */
static json_object *counts__extras(const char *key, const struct agg_process *p,
				   const struct agg_interval_view *iv)
{
	json_object *x, *mux = NULL;

	if (!iv->partial && !p->sections.ncounts) /* the common case: no sibling */
		return NULL;
	for (int i = 0; i < p->nev; i++) {
		const struct agg_value *v = &iv->ev[i];

		if (v->state == AGG_VALUE_ABSENT || v->state == AGG_VALUE_MISSING ||
		    !v->partial)
			continue;
		if (!mux)
			mux = json_object_new_object();
		json_object_object_add(mux, p->ev[i].name, agg_mux__entry(v));
	}
	if (!mux && !p->sections.ncounts)
		return NULL;
	x = json_object_new_object();
	if (mux)
		agg_json__add_sibling(x, key, "_multiplexed", mux);
	agg_sections__counts(&p->sections, x, key, p, iv);
	return x;
}

/* "parent": the enclosing region's name when every thread agrees (null:
 * the top level); else null and "parents" lists the threads' parents. */
static void json_region_parents(json_object *o, const struct agg_parent *pa)
{
	json_object *a;

	if (!pa || !pa->next) {
		json_object_object_add(o, "parent",
				       pa && pa->name ? agg_json__text(pa->name) :
							NULL);
		return;
	}
	json_object_object_add(o, "parent", NULL);
	a = json_object_new_array();
	for (; pa; pa = pa->next)
		json_object_array_add(a, pa->name ? agg_json__text(pa->name) : NULL);
	json_object_object_add(o, "parents", a);
}

/* The optional siblings json-c built (metrics, drill-down, multiplexed):
 * their members at depth, in order; nothing when x is NULL. */
static void doc__extras(struct agg_out *o, int depth, bool *first, json_object *x)
{
	if (x)
		agg_out__members(o, depth, first, x);
}

static void doc__counts(struct agg_out *o, int depth, bool *first, const char *key,
			const char *lit, size_t litlen, const struct agg_process *p,
			const struct agg_interval_view *iv)
{
	bool f = true;

	agg_out__lit_key(o, depth, first, lit, litlen, false);
	for (int k = 0, n = o->ok ? o->nok : p->nev; k < n; k++) {
		int i = o->ok ? o->ok[k] : k;
		const struct agg_value *x = &iv->ev[i];

		if (x->state == AGG_VALUE_ABSENT) /* dropped: no key */
			continue;
		agg_out__ev_key(o, depth + 1, &f, p, i);
		if (x->state == AGG_VALUE_KNOWN)
			agg_out__u64(o, x->shown);
		else
			agg_out__write(o, "null", 4);
	}
	agg_out__end(o, depth + 1);
	if (iv->partial || p->sections.ncounts)
		doc__extras(o, depth, first, counts__extras(key, p, iv));
}

/* {"calls", "min", "max", "mean"} of per-call statistics, after "event"
 * when ev is set (the text json.c's json_wall gives for the same values). */
static void doc__calls(struct agg_out *o, int depth, const char *ev,
		       const struct agg_percall *pc)
{
	bool f = true;

	agg_out__write(o, "{", 1);
	if (ev) {
		AGG_OUT_KEY(o, depth + 1, &f, "event");
		if (o->mainval)
			agg_out__write(o, o->mainval, o->mainlen);
		else
			agg_out__text(o, depth + 1, ev);
	}
	AGG_OUT_KEY(o, depth + 1, &f, "calls");
	agg_out__u64(o, pc->n);
	AGG_OUT_KEY(o, depth + 1, &f, "min");
	agg_out__u64(o, pc->min);
	AGG_OUT_KEY(o, depth + 1, &f, "max");
	agg_out__u64(o, pc->max);
	AGG_OUT_KEY(o, depth + 1, &f, "mean");
	agg_out__dbl(o, (double)pc->sum / (double)pc->n);
	agg_out__end(o, depth + 1);
}

/* "per_call": per-call statistics of the main event, or null. */
static void doc__percall(struct agg_out *o, int depth, bool *first,
			 const struct agg_process *p, const struct agg_percall *pc)
{
	AGG_OUT_KEY(o, depth, first, "per_call");
	if (p->main_ev < 0 || pc->n == 0)
		agg_out__write(o, "null", 4);
	else
		doc__calls(o, depth, p->ev[p->main_ev].name, pc);
}

/* "wall_ns" and "per_call_wall_ns" (as json.c's json_wall). */
static void doc__wall(struct agg_out *o, int depth, bool *first, const struct agg_wall *w)
{
	bool f = true;

	AGG_OUT_KEY(o, depth, first, "wall_ns");
	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, depth + 1, &f, "inclusive");
	agg_out__u64(o, w->incl);
	AGG_OUT_KEY(o, depth + 1, &f, "exclusive");
	agg_out__u64(o, w->excl);
	agg_out__end(o, depth + 1);
	AGG_OUT_KEY(o, depth, first, "per_call_wall_ns");
	if (w->call.n)
		doc__calls(o, depth, NULL, &w->call);
	else
		agg_out__write(o, "null", 4);
}

/* HPCSHIM_REGION_SAMPLE: how a sampled region's values were estimated
 * (docs/sampling.md), the value of "sample" at depth.  Standard errors
 * NAN when unknown: null. */
static void doc__sample_se(struct agg_out *o, int depth, bool *first, const char *key,
			   const struct agg_process *p, const double *se)
{
	bool f = true;

	agg_out__name_key(o, depth, first, key);
	agg_out__write(o, "{", 1);
	for (int k = 0, n = o->ok ? o->nok : p->nev; k < n; k++) {
		int i = o->ok ? o->ok[k] : k;

		if (!o->ok && !p->ev[i].ok)
			continue;
		agg_out__ev_key(o, depth + 1, &f, p, i);
		agg_out__dbl(o, se[i]);
	}
	agg_out__end(o, depth + 1);
}

static void doc__sample(struct agg_out *o, int depth, const struct agg_process *p,
			const struct agg_sample_view *s)
{
	int d = depth + 1;
	bool f = true, g = true, h = true;

	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, d, &f, "every");
	agg_out__i64(o, s->every);
	AGG_OUT_KEY(o, d, &f, "measured");
	agg_out__u64(o, s->measured);
	if (s->exact) {
		AGG_OUT_KEY(o, d, &f, "exact_first");
		agg_out__u64(o, s->exact);
	}
	AGG_OUT_KEY(o, d, &f, "stderr");
	agg_out__write(o, "{", 1);
	doc__sample_se(o, d + 1, &g, "inclusive", p, s->se);
	doc__sample_se(o, d + 1, &g, "exclusive", p, s->se + p->nev);
	AGG_OUT_KEY(o, d + 1, &g, "wall_ns");
	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, d + 2, &h, "inclusive");
	agg_out__dbl(o, s->se[2 * p->nev]);
	AGG_OUT_KEY(o, d + 2, &h, "exclusive");
	agg_out__dbl(o, s->se[2 * p->nev + 1]);
	agg_out__end(o, d + 2);
	agg_out__end(o, d + 1);
	agg_out__end(o, d);
}

#define DOC_COUNTS(o, depth, first, key, p, iv) \
	doc__counts(o, depth, first, key, "\"" key "\":{", sizeof(key) + 3, p, iv)

static void region__write(struct agg_out *o, int depth, const struct agg_process *p,
			  const struct agg_region_view *rv)
{
	bool f = true;

	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, depth + 1, &f, "name");
	agg_out__text(o, depth + 1, rv->name);
	AGG_OUT_KEY(o, depth + 1, &f, "parent");
	agg_out__text(o, depth + 1, rv->parent);
	AGG_OUT_KEY(o, depth + 1, &f, "calls");
	agg_out__u64(o, rv->calls);
	DOC_COUNTS(o, depth + 1, &f, "inclusive", p, &rv->incl);
	DOC_COUNTS(o, depth + 1, &f, "exclusive", p, &rv->excl);
	doc__percall(o, depth + 1, &f, p, &rv->percall);
	doc__wall(o, depth + 1, &f, &rv->wall);
	if (rv->sample.every > 1) {
		AGG_OUT_KEY(o, depth + 1, &f, "sample");
		doc__sample(o, depth + 1, p, &rv->sample);
	}
	if (p->call_cost_ns > 0) {
		AGG_OUT_KEY(o, depth + 1, &f, "measurement_ns");
		agg_out__u64(o, agg_region_view__cost(rv, p));
	}
	agg_out__end(o, depth + 1);
}

/* "key": per event {"sum", "min", "max", "mean", "threads"} or null
 * (as json.c's json_stats). */
static void doc__stats(struct agg_out *o, int depth, bool *first, const char *key,
		       const struct agg_process *p, const struct agg_sum *sum)
{
	bool f = true;

	agg_out__name_key(o, depth, first, key);
	agg_out__write(o, "{", 1);
	for (int i = 0; i < p->nev; i++) {
		const struct agg_stat *st = &sum[i].st;
		bool g = true;

		if (!p->ev[i].ok)
			continue;
		agg_out__ev_key(o, depth + 1, &f, p, i);
		if (st->n == 0) {
			agg_out__write(o, "null", 4);
			continue;
		}
		agg_out__write(o, "{", 1);
		AGG_OUT_KEY(o, depth + 2, &g, "sum");
		agg_out__dbl(o, st->sum);
		AGG_OUT_KEY(o, depth + 2, &g, "min");
		agg_out__dbl(o, st->min);
		AGG_OUT_KEY(o, depth + 2, &g, "max");
		agg_out__dbl(o, st->max);
		AGG_OUT_KEY(o, depth + 2, &g, "mean");
		agg_out__dbl(o, agg_stat__mean(st));
		AGG_OUT_KEY(o, depth + 2, &g, "threads");
		agg_out__i64(o, (int64_t)st->n);
		agg_out__end(o, depth + 2);
	}
	agg_out__end(o, depth + 1);
}

/* "key" of a region summary and its "_multiplexed" sibling. */
static void doc__sum(struct agg_out *o, int depth, bool *first, const char *key,
		     const struct agg_process *p, const struct agg_sum *sum)
{
	doc__stats(o, depth, first, key, p, sum);
	for (int i = 0; i < p->nev; i++) {
		if (p->ev[i].ok && sum[i].partial) {
			json_object *x = json_object_new_object();

			agg_mux_sum__json(x, key, p, sum);
			agg_out__members(o, depth, first, x);
			return;
		}
	}
}

static void region_sum__write(struct agg_out *o, int depth, const struct agg_view *v,
			      const struct agg_region_sum *rs)
{
	const struct agg_process *p = v->p;
	const struct agg_parent *pa = rs->parents;
	bool f = true;

	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, depth + 1, &f, "name");
	agg_out__text(o, depth + 1, rs->name);
	if (!pa || !pa->next) {
		AGG_OUT_KEY(o, depth + 1, &f, "parent");
		agg_out__text(o, depth + 1, pa ? pa->name : NULL);
	} else {
		json_object *x = json_object_new_object();

		json_region_parents(x, pa);
		agg_out__members(o, depth + 1, &f, x);
	}
	AGG_OUT_KEY(o, depth + 1, &f, "calls");
	agg_out__u64(o, rs->calls);
	AGG_OUT_KEY(o, depth + 1, &f, "threads");
	agg_out__i64(o, rs->threads);
	doc__sum(o, depth + 1, &f, "inclusive", p, rs->incl.ev);
	doc__sum(o, depth + 1, &f, "exclusive", p, rs->excl.ev);
	doc__percall(o, depth + 1, &f, p, &rs->percall);
	doc__wall(o, depth + 1, &f, &rs->wall);
	if (p->call_cost_ns > 0) {
		AGG_OUT_KEY(o, depth + 1, &f, "measurement_ns");
		agg_out__u64(o, rs->measurement_ns);
	}
	if (p->sections.nsums) {
		json_object *x = json_object_new_object();

		agg_sections__sums(&p->sections, x,
				   (const char *const[]){ "inclusive", "exclusive" },
				   (const struct agg_sum_view *const[]){ &rs->incl, &rs->excl },
				   2, p);
		agg_out__members(o, depth + 1, &f, x);
	}
	agg_out__end(o, depth + 1);
}

/* The exported entry points pass the records' fixed depths on as
 * constants: the compiler then specialises the writers for them (the
 * indentation of every key known), about 2% of the instructions of a
 * large file. */
void agg_json__counts(struct agg_out *o, int depth, bool *first, const char *key,
		      const char *lit, size_t litlen, const struct agg_process *p,
		      const struct agg_interval_view *iv)
{
	doc__counts(o, depth, first, key, lit, litlen, p, iv);
}

void agg_json__region(struct agg_out *o, const struct agg_process *p,
		      const struct agg_region_view *rv)
{
	region__write(o, AGG_JSON_REGION_DEPTH, p, rv);
}

void agg_json__region_sum(struct agg_out *o, const struct agg_view *v,
			  const struct agg_region_sum *rs)
{
	region_sum__write(o, AGG_JSON_SUM_DEPTH, v, rs);
}
