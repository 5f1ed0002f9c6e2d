/* view.c - every reported value, computed once before serialising (view.h).
 *
 * Each thread interval's raw counts go through agg_mux__view once; the
 * estimate, the number printed, the standard error and the metrics all
 * come from that one result, and the process sums are sums of it.  Before
 * this pass the metrics re-read the raw counts and scaled them with the
 * kernel's times, which under rotation are not the reported ones.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/linkhash.h>

#include "aggregate/metric.h"
#include "aggregate/mux.h"
#include "aggregate/view.h"

#define WHY_MAX 240
#define MAX_INPUTS 64 /* events a metric can name: the missing-bit width */

/* Why an event is no metric input: one text per kind and event, built once
 * per view, so that a metric's reason can point at it. */
enum why_kind {
	WHY_DROPPED,
	WHY_MISSING,
	WHY_UNKNOWN,
	WHY_NO_THREAD,
	AGG_WHY_KINDS
};

static const char *const why_text[AGG_WHY_KINDS] = {
	[WHY_DROPPED] = "dropped: ",
	[WHY_MISSING] = "not counted in this thread",
	[WHY_UNKNOWN] = "never ran on a counter (multiplexed out)",
	[WHY_NO_THREAD] = "has no value in any thread",
};

/* ---- memory: one list of zeroed blocks, freed at once ---------------- */

struct agg_view_chunk {
	struct agg_view_chunk *next;
	max_align_t data[];
};

static void *view__alloc(struct agg_view *v, size_t n, size_t size)
{
	struct agg_view_chunk *c;

	if (n && size > (SIZE_MAX - sizeof(*c)) / n)
		return NULL;
	c = calloc(1, sizeof(*c) + (n ? n * size : 1));
	if (!c)
		return NULL;
	c->next = v->mem;
	v->mem = c;
	return c->data;
}

void agg_view__delete(struct agg_view *v)
{
	if (!v)
		return;
	while (v->mem) {
		struct agg_view_chunk *c = v->mem;

		v->mem = c->next;
		free(c);
	}
	free(v);
}

/* ---- metrics ---------------------------------------------------------- */

static const char *view__why(const struct agg_view *v, enum why_kind k, int e)
{
	return v->why[(size_t)k * (size_t)v->p->nev + (size_t)e];
}

static int view__init_metrics(struct agg_view *v)
{
	const struct agg_process *p = v->p;

	/* No metrics object at all over more events than a mask can hold. */
	if (!p->metrics || p->metrics->nmetrics == 0 || p->nev > MAX_INPUTS)
		return 0;
	v->why = view__alloc(v, (size_t)AGG_WHY_KINDS * (size_t)p->nev, WHY_MAX);
	if (!v->why)
		return -1;
	for (int e = 0; e < p->nev; e++)
		for (int k = 0; k < AGG_WHY_KINDS; k++)
			snprintf(v->why[k * p->nev + e], WHY_MAX,
				 "event '%.60s' %s%s", p->ev[e].name, why_text[k],
				 k == WHY_DROPPED && p->ev[e].reason ? p->ev[e].reason :
								       "");
	v->nmetrics = p->metrics->nmetrics;
	return 0;
}

/* Every metric over inputs in[] (by event index; why[e] set: unknown). */
static void view__metrics(const struct agg_view *v, const double *in,
			  const char *const *why, struct agg_mvalue *out)
{
	const struct agg_metrics *ms = v->p->metrics;
	int nev = v->p->nev;

	for (int j = 0; j < v->nmetrics; j++) {
		const struct agg_metric *m = &ms->m[j];
		double vals[FORMULA_MAX_VARS];
		const char *w[FORMULA_MAX_VARS];

		for (int k = 0; k < m->f->nvars; k++) {
			int e = m->evidx[k];
			bool in_list = e >= 0 && e < nev;

			vals[k] = in_list ? in[e] : 0;
			w[k] = in_list   ? why[e] :
			       m->why[k] ? m->why[k] :
					   "event not in the event list";
		}
		if (hs_formula__eval(m->f, vals, w, &out[j].value, &out[j].reason))
			out[j].reason = NULL;
	}
}

/* ---- one thread interval ---------------------------------------------- */

/* The state, estimate and printed number of event e's reported counts c
 * in thread t: what an interval and a series step both need. */
static void value__estimate(struct agg_value *x, const struct agg_process *p,
			    const struct agg_thread *t, int e, const struct count *c)
{
	x->c = *c;
	if (!p->ev[e].ok) {
		x->state = AGG_VALUE_ABSENT;
		return;
	}
	if (t->missing & (1ull << e)) {
		x->state = AGG_VALUE_MISSING;
		return;
	}
	x->partial = c->running != c->enabled;
	if (!hs_count__estimate(c, &x->est)) {
		x->state = AGG_VALUE_UNKNOWN;
		return;
	}
	x->state = AGG_VALUE_KNOWN;
	/* A count that needed no scaling is printed exactly, even above 2^53. */
	x->shown = x->partial ? (uint64_t)llround(x->est) : c->value;
}

/* value__estimate, then the standard error and the 95% interval. */
static void value__set(struct agg_value *x, const struct agg_process *p,
		       const struct agg_thread *t, int e, const struct count *c)
{
	value__estimate(x, p, t, e, c);
	if (x->state != AGG_VALUE_KNOWN || !agg_mux__stderr(p, t->rot, e, c, &x->se))
		return;
	x->has_se = true;
	/* The events seen happened: the truth is at least raw. */
	x->lo = fmax(x->est - 1.96 * x->se, (double)c->value);
	x->hi = x->est + 1.96 * x->se;
}

static const enum why_kind state_why[] = {
	[AGG_VALUE_ABSENT] = WHY_DROPPED,
	[AGG_VALUE_MISSING] = WHY_MISSING,
	[AGG_VALUE_UNKNOWN] = WHY_UNKNOWN,
};

static int view__interval(struct agg_view *v, const struct agg_thread *t,
			  const struct count *raw, struct agg_interval_view *out)
{
	const struct agg_process *p = v->p;
	int nev = p->nev ? p->nev : 1;
	struct count c[nev];
	double in[nev];
	const char *why[nev];

	out->ev = view__alloc(v, (size_t)nev, sizeof(*out->ev));
	out->m = v->nmetrics ? view__alloc(v, (size_t)v->nmetrics, sizeof(*out->m)) :
			       NULL;
	if (!out->ev || (v->nmetrics && !out->m))
		return -1;
	agg_mux__view(p, t->rot, raw, c);
	for (int e = 0; e < p->nev; e++) {
		const struct agg_value *x = &out->ev[e];

		value__set(&out->ev[e], p, t, e, &c[e]);
		in[e] = x->est;
		why[e] = x->state == AGG_VALUE_KNOWN ? NULL :
			 v->why ? view__why(v, state_why[x->state], e) :
				  "";
	}
	if (out->m)
		view__metrics(v, in, why, out->m);
	return 0;
}

/* ---- sums across threads ---------------------------------------------- */

static int sum__init(struct agg_view *v, struct agg_sum_view *s)
{
	s->ev = view__alloc(v, (size_t)(v->p->nev ? v->p->nev : 1), sizeof(*s->ev));
	s->m = v->nmetrics ? view__alloc(v, (size_t)v->nmetrics, sizeof(*s->m)) : NULL;
	return !s->ev || (v->nmetrics && !s->m) ? -1 : 0;
}

static void sum__add(struct agg_sum_view *s, const struct agg_process *p,
		     const struct agg_interval_view *iv)
{
	for (int e = 0; e < p->nev; e++) {
		const struct agg_value *x = &iv->ev[e];
		struct agg_sum *a = &s->ev[e];

		if (x->state == AGG_VALUE_ABSENT || x->state == AGG_VALUE_MISSING)
			continue;
		count__add(&a->c, &x->c);
		if (x->partial)
			a->partial = true;
		if (x->has_se) {
			/* Threads are independent samples: variances add. */
			a->se2 += x->se * x->se;
			a->se_known++;
		} else if (x->partial) {
			a->se_unknown++;
		}
		if (x->state == AGG_VALUE_KNOWN)
			agg_stat__add(&a->st, x->est);
	}
}

/* The printed sums and the metrics over them, once every thread is in. */
static void sum__finish(const struct agg_view *v, struct agg_sum_view *s)
{
	const struct agg_process *p = v->p;
	int nev = p->nev ? p->nev : 1;
	double in[nev];
	const char *why[nev];

	for (int e = 0; e < p->nev; e++) {
		const struct agg_sum *a = &s->ev[e];

		s->ev[e].shown = (uint64_t)llround(a->st.sum);
		in[e] = a->st.sum;
		why[e] = NULL;
		if (!v->why)
			continue;
		if (!p->ev[e].ok)
			why[e] = view__why(v, WHY_DROPPED, e);
		else if (a->st.n == 0)
			why[e] = view__why(v, WHY_NO_THREAD, e);
	}
	if (s->m)
		view__metrics(v, in, why, s->m);
}

/* ---- threads and regions ------------------------------------------------ */

static struct agg_percall percall__load(const struct agg_percall *pc)
{
	struct agg_percall s = {
		__atomic_load_n(&pc->n, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->min, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->max, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->sum, __ATOMIC_RELAXED),
	};
	return s;
}

/* Combines per-call statistics across threads. */
static void percall__merge(struct agg_percall *acc, const struct agg_percall *pc)
{
	if (pc->n == 0)
		return;
	if (acc->n == 0 || pc->min < acc->min)
		acc->min = pc->min;
	if (pc->max > acc->max)
		acc->max = pc->max;
	acc->sum += pc->sum;
	acc->n += pc->n;
}

static const struct agg_region *region__first(const struct agg_thread *t)
{
	return __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
}

static const struct agg_region *region__next(const struct agg_region *r)
{
	return __atomic_load_n(&r->next, __ATOMIC_ACQUIRE);
}

static int view__region(struct agg_view *v, const struct agg_thread *t,
			const struct agg_region *r, struct agg_region_view *rv)
{
	rv->name = r->name;
	rv->calls = __atomic_load_n(&r->calls, __ATOMIC_RELAXED);
	rv->percall = percall__load(&r->percall);
	if (view__interval(v, t, r->c, &rv->incl) < 0 ||
	    view__interval(v, t, r->c + r->nev, &rv->excl) < 0)
		return -1;
	return 0;
}

/* Point k of s as a reading by event index (groups' times on members). */
static void series__point(const struct agg_process *p, const struct agg_series *s,
			  uint32_t k, struct count *c)
{
	size_t ne = (size_t)s->nev, ng = (size_t)s->ngroups;

	for (int e = 0; e < p->nev; e++) {
		int g = p->ev[e].group;

		c[e].value = hs_atomic__get(&s->val[k * ne + (size_t)e]);
		c[e].enabled = c[e].running = 0;
		if (p->ev[e].ok && g >= 0 && (size_t)g < ng) {
			c[e].enabled = hs_atomic__get(&s->en[k * ng + (size_t)g]);
			c[e].running = hs_atomic__get(&s->run[k * ng + (size_t)g]);
		}
	}
}

/* One step of the series: the view of the difference of two readings. */
static void series__step(const struct agg_process *p, const struct agg_thread *t,
			 const struct count *prev, const struct count *cur,
			 uint64_t *shown, bool *known)
{
	int nev = p->nev ? p->nev : 1;
	struct count d[nev], c[nev];

	for (int e = 0; e < p->nev; e++)
		count__sub(&d[e], &cur[e], &prev[e]);
	agg_mux__view(p, t->rot, d, c);
	for (int e = 0; e < p->nev; e++) {
		struct agg_value x = { 0 };

		value__estimate(&x, p, t, e, &c[e]);
		known[e] = x.state == AGG_VALUE_KNOWN;
		shown[e] = x.shown;
	}
}

static int view__series(struct agg_view *v, const struct agg_thread *t,
			struct agg_thread_view *tv)
{
	const struct agg_series *s = t->series;
	const struct agg_process *p = v->p;
	size_t nev = (size_t)(p->nev ? p->nev : 1);
	struct count prev[nev], cur[nev];
	struct agg_series_view *sv;

	if (!s)
		return 0;
	sv = view__alloc(v, 1, sizeof(*sv));
	if (!sv)
		return -1;
	sv->n = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
	sv->interval_ns = s->period_ns * s->stride;
	sv->t = view__alloc(v, sv->n, sizeof(*sv->t));
	sv->shown = view__alloc(v, sv->n * nev, sizeof(*sv->shown));
	sv->known = view__alloc(v, sv->n * nev, sizeof(*sv->known));
	if (!sv->t || !sv->shown || !sv->known)
		return -1;
	memset(prev, 0, sizeof(prev));
	for (uint32_t k = 0; k < sv->n; k++) {
		series__point(p, s, k, cur);
		sv->t[k] = hs_atomic__get(&s->t[k]);
		series__step(p, t, prev, cur, sv->shown + k * nev, sv->known + k * nev);
		memcpy(prev, cur, sizeof(prev));
	}
	tv->series = sv;
	return 0;
}

/* The thread's regions as published when counted: one published later (a
 * thread still running) waits for the next result. */
static int view__thread(struct agg_view *v, const struct agg_thread *t,
			struct agg_thread_view *tv)
{
	const struct agg_region *r;
	size_t n = 0;

	tv->t = t;
	if (view__interval(v, t, t->totals, &tv->totals) < 0 ||
	    view__series(v, t, tv) < 0)
		return -1;
	for (r = region__first(t); r; r = region__next(r))
		n++;
	tv->reg = view__alloc(v, n, sizeof(*tv->reg));
	if (!tv->reg)
		return -1;
	for (r = region__first(t); r && tv->nregions < n; r = region__next(r))
		if (view__region(v, t, r, &tv->reg[tv->nregions++]) < 0)
			return -1;
	sum__add(&v->totals, v->p, &tv->totals);
	return 0;
}

/* The summary entry of a region name, created on its first appearance. */
static struct agg_region_sum *view__sum_of(struct agg_view *v, struct lh_table *tab,
					   const char *name)
{
	struct agg_region_sum *rs = NULL;

	if (lh_table_lookup_ex(tab, name, (void **)&rs))
		return rs;
	rs = &v->sum[v->nsums];
	if (sum__init(v, &rs->incl) < 0 || sum__init(v, &rs->excl) < 0 ||
	    lh_table_insert(tab, name, rs) < 0)
		return NULL;
	rs->name = name;
	v->nsums++;
	return rs;
}

/* Per region name: calls, threads, sums across threads. */
static int view__regions(struct agg_view *v)
{
	struct lh_table *tab = lh_kchar_table_new(64, NULL);
	size_t n = 0;
	int rc = -1;

	if (!tab)
		return -1;
	for (int i = 0; i < v->nthreads; i++)
		n += v->th[i].nregions;
	v->sum = view__alloc(v, n, sizeof(*v->sum));
	if (!v->sum)
		goto out;
	for (int i = 0; i < v->nthreads; i++) {
		for (size_t k = 0; k < v->th[i].nregions; k++) {
			const struct agg_region_view *rv = &v->th[i].reg[k];
			struct agg_region_sum *rs = view__sum_of(v, tab, rv->name);

			if (!rs)
				goto out;
			rs->calls += rv->calls;
			rs->threads++;
			percall__merge(&rs->percall, &rv->percall);
			sum__add(&rs->incl, v->p, &rv->incl);
			sum__add(&rs->excl, v->p, &rv->excl);
		}
	}
	for (size_t k = 0; k < v->nsums; k++) {
		sum__finish(v, &v->sum[k].incl);
		sum__finish(v, &v->sum[k].excl);
	}
	rc = 0;
out:
	lh_table_free(tab);
	return rc;
}

struct agg_view *agg_view__new(const struct agg_process *p)
{
	struct agg_view *v = calloc(1, sizeof(*v));
	const struct agg_thread *t;
	int n = 0;

	if (!v)
		return NULL;
	v->p = p;
	for (t = p->threads; t; t = t->next)
		n++;
	if (view__init_metrics(v) < 0 || sum__init(v, &v->totals) < 0)
		goto fail;
	v->th = view__alloc(v, (size_t)n, sizeof(*v->th));
	if (!v->th)
		goto fail;
	/* The list is collected at exit; the bound only guards the walk. */
	for (t = p->threads; t && v->nthreads < n; t = t->next)
		if (view__thread(v, t, &v->th[v->nthreads++]) < 0)
			goto fail;
	sum__finish(v, &v->totals);
	if (view__regions(v) < 0)
		goto fail;
	return v;
fail:
	agg_view__delete(v);
	return NULL;
}
