/* view_fold.c - the view's process-wide passes (view_internal.h): the
 * threads' totals and what HPCSHIM_MAX_THREADS folds; the names written,
 * what HPCSHIM_MAX_REGIONS folds and the region summaries.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "aggregate/view_internal.h"

/* ---- folding: the records beyond a limit, smallest key first ---------- */

struct rank {
	double key;
	size_t order;
};

/* Largest key first; among equals the earlier record. */
static int rank__cmp(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order);
}

static int dbl__cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The key below which a record is folded: the limit-th largest of key[n]
 * (ties broken by order); *cut_order the order of that record.  Returns
 * false when nothing is folded. */
static bool fold__cut(const struct rank *rk, size_t n, int limit, struct rank *cut)
{
	struct rank *s;

	if (limit <= 0 || n <= (size_t)limit)
		return false;
	s = malloc(n * sizeof(*s));
	if (!s) /* keep everything rather than lose the file */
		return false;
	memcpy(s, rk, n * sizeof(*s));
	qsort(s, n, sizeof(*s), rank__cmp);
	*cut = s[limit - 1];
	free(s);
	return true;
}

static bool fold__kept(const struct rank *r, bool folding, const struct rank *cut)
{
	return !folding || rank__cmp(r, cut) <= 0;
}

static int folded__init(struct agg_view *v, struct agg_folded *f, int limit,
			size_t count)
{
	f->limit = limit;
	f->kept_min = -1;
	if (agg_sum_view__init(v, &f->incl) < 0 || agg_sum_view__init(v, &f->excl) < 0)
		return -1;
	f->key = agg_view__alloc(v, count, sizeof(*f->key));
	return f->key ? 0 : -1;
}

static void folded__finish(struct agg_view *v, struct agg_folded *f)
{
	qsort(f->key, f->count, sizeof(*f->key), dbl__cmp);
	agg_sum_view__finish(v, &f->incl);
	agg_sum_view__finish(v, &f->excl);
}

/* Every thread's totals into the process totals; the threads beyond
 * HPCSHIM_MAX_THREADS, smallest first, into threads_folded.  The thread
 * that started the process is always written. */
int agg_view__threads(struct agg_view *v, size_t n)
{
	const struct agg_process *p = v->p;
	struct agg_folded *f = &v->threads_folded;
	struct rank *rk = calloc(n ? n : 1, sizeof(*rk)), cut;
	const struct agg_thread *t;
	bool folding;
	size_t i;
	int rc = -1;

	v->thread_kept = agg_view__alloc(v, n, sizeof(*v->thread_kept));
	if (!rk || !v->thread_kept || folded__init(v, f, p->max_threads, n) < 0)
		goto out;
	for (t = p->threads, i = 0; t && i < n; t = t->next, i++) {
		struct agg_interval_view iv;

		if (agg_view__interval(v, t, t->totals, &iv) < 0)
			goto out;
		rk[i].key = t->tid == p->pid ? INFINITY : agg_view__key(v, &iv);
		rk[i].order = i;
		agg_view__release(v);
	}
	folding = fold__cut(rk, n, p->max_threads, &cut);
	double largest = -INFINITY;

	for (t = p->threads, i = 0; t && i < n; t = t->next, i++) {
		struct agg_interval_view iv;

		if (agg_view__interval(v, t, t->totals, &iv) < 0)
			goto out;
		agg_sum_view__add(&v->totals, v, &iv);
		v->thread_kept[i] = fold__kept(&rk[i], folding, &cut);
		if (v->thread_kept[i]) {
			v->nthreads++;
			if (f->kept_min < 0 || rk[i].key < f->kept_min)
				f->kept_min = rk[i].key;
		} else {
			agg_sum_view__add(&f->incl, v, &iv);
			f->wall.incl += agg_thread__wall_ns(t);
			f->key[f->count++] = rk[i].key;
			if (rk[i].key > largest) {
				largest = rk[i].key;
				f->largest_tid = t->tid;
			}
		}
		agg_view__release(v);
	}
	f->kept = (uint64_t)v->nthreads;
	agg_sum_view__finish(v, &v->totals);
	folded__finish(v, f);
	rc = 0;
out:
	free(rk);
	return rc;
}

/* Pass 1 over the region records: one entry per name with its calls. */
static int view__names(struct agg_view *v, size_t *nnames)
{
	const struct agg_process *p = v->p;
	size_t order = 0;

	for (const struct agg_thread *t = p->threads; t; t = t->next) {
		agg_view__recs_mark(v, t);
		for (const struct agg_region *r = agg_region__first(t); r;
		     r = agg_region__next(r)) {
			struct agg_view_name *e;
			uint64_t h = hs_hash__str(HS_HASH_INIT, r->name);

			if (2 * (order + 1) > v->names_cap && agg_view__names_grow(v) < 0)
				return -1;
			e = agg_view__name_find(v, r->name, h);
			if (!e->name) {
				e->name = r->name;
				e->hash = h;
				e->order = order++;
				e->sum = -1;
			}
			e->calls += __atomic_load_n(&r->calls, __ATOMIC_RELAXED);
			agg_view__recs_add(v, r, e->order);
		}
		if (v->marks)
			v->marks[v->nmarks - 1].end = v->nrecs;
	}
	*nnames = order;
	return 0;
}

/* The folding keys, only when there are more names than the limit: per
 * name the inclusive main event summed over threads.  A record published
 * after pass 1 waits for the next result. */
static int view__keys(struct agg_view *v)
{
	const struct agg_process *p = v->p;

	for (const struct agg_thread *t = p->threads; t; t = t->next) {
		for (const struct agg_region *r = agg_region__first(t); r;
		     r = agg_region__next(r)) {
			struct agg_view_name *e = agg_view__name(v, r->name);
			const struct agg_region *c;
			struct agg_interval_view iv;
			double key;

			if (!e || !e->name)
				continue;
			c = agg_view__copy(v, t, r);
			if (!c || agg_view__interval(v, t, c->c, &iv) < 0)
				return -1;
			key = agg_view__key(v, &iv);
			agg_view__release(v);
			if (key > 0)
				e->key += key;
		}
	}
	return 0;
}

/* Which names are written: all, or the HPCSHIM_MAX_REGIONS largest by key
 * (calls when no event has a value), in order of first appearance. */
static int view__select_names(struct agg_view *v, size_t n)
{
	struct agg_folded *f = &v->regions_folded;
	struct rank *rk = agg_view__big_alloc(n, sizeof(*rk)), cut;
	struct agg_view_name **by = agg_view__big_alloc(n, sizeof(*by));
	bool folding, by_calls = v->p->main_ev < 0;
	double largest = -INFINITY;
	int rc = -1;

	if (!rk || !by || folded__init(v, f, v->p->max_regions, n) < 0)
		goto out;
	/* Without folding no key is printed: no pass over the values. */
	if (v->p->max_regions > 0 && n > (size_t)v->p->max_regions && !by_calls &&
	    view__keys(v) < 0)
		goto out;
	for (size_t i = 0; i < v->names_cap; i++) {
		struct agg_view_name *e = &v->names[i];

		if (!e->name)
			continue;
		by[e->order] = e;
		rk[e->order].key = by_calls ? (double)e->calls : e->key;
		rk[e->order].order = e->order;
	}
	folding = fold__cut(rk, n, v->p->max_regions, &cut);
	v->sum = agg_view__alloc(v, folding ? (size_t)v->p->max_regions : n,
			     sizeof(*v->sum));
	if (!v->sum)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct agg_region_sum *rs;

		if (!fold__kept(&rk[i], folding, &cut)) {
			f->key[f->count++] = rk[i].key;
			if (rk[i].key > largest) {
				largest = rk[i].key;
				f->largest = by[i]->name;
			}
			continue;
		}
		if (f->kept_min < 0 || rk[i].key < f->kept_min)
			f->kept_min = rk[i].key;
		rs = &v->sum[v->nsums];
		if (agg_sum_view__init(v, &rs->incl) < 0 || agg_sum_view__init(v, &rs->excl) < 0)
			goto out;
		rs->name = by[i]->name;
		by[i]->sum = (long)v->nsums++;
	}
	f->kept = v->nsums;
	rc = 0;
out:
	agg_view__big_free(rk, n, sizeof(*rk));
	agg_view__big_free(by, n, sizeof(*by));
	return rc;
}

/* Notes one thread's parent of a summary's name, once per distinct name. */
static int sum__parent(struct agg_view *v, struct agg_region_sum *rs, const char *parent)
{
	struct agg_parent **pp = &rs->parents;

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->name == parent ||
		    ((*pp)->name && parent && strcmp((*pp)->name, parent) == 0))
			return 0;
	*pp = agg_view__alloc(v, 1, sizeof(**pp));
	if (!*pp)
		return -1;
	(*pp)->name = parent;
	return 0;
}

/* One thread's record of a name written into its summary. */
int agg_region_sum__add(struct agg_view *v, struct agg_region_sum *rs,
			   const struct agg_region_view *rv)
{
	if (sum__parent(v, rs, rv->parent) < 0)
		return -1;
	rs->calls += rv->calls;
	rs->threads++;
	agg_percall__merge(&rs->percall, &rv->percall);
	agg_wall__merge(&rs->wall, &rv->wall);
	rs->measurement_ns += agg_region_view__cost(rv, v->p);
	agg_sum_view__add(&rs->incl, v, &rv->incl);
	agg_sum_view__add(&rs->excl, v, &rv->excl);
	return 0;
}

void agg_view__sums_finish(struct agg_view *v)
{
	for (size_t k = 0; k < v->nsums; k++) {
		agg_sum_view__finish(v, &v->sum[k].incl);
		agg_sum_view__finish(v, &v->sum[k].excl);
	}
}

/* Pass 2: per name written, calls, threads and sums across threads; the
 * folded names' values into regions_folded.  When nothing is folded, no
 * thread and no name, the summaries are instead added up while the
 * records are written (agg_view__region, agg_view__sums), in the same
 * order: every record's values are then computed once for the summary
 * and the file together, not twice. */
int agg_view__regions(struct agg_view *v)
{
	const struct agg_process *p = v->p;
	struct agg_folded *f = &v->regions_folded;
	size_t n;

	if (view__names(v, &n) < 0 || view__select_names(v, n) < 0)
		return -1;
	agg_view__recs_sums(v, n);
	if (f->count == 0 && v->threads_folded.count == 0) {
		v->sums_pending = true;
		folded__finish(v, f);
		return 0;
	}
	for (const struct agg_thread *t = p->threads; t; t = t->next) {
		for (const struct agg_region *r = agg_region__first(t); r;
		     r = agg_region__next(r)) {
			const struct agg_view_name *e = agg_view__name(v, r->name);
			struct agg_region_view rv;

			if (!e || !e->name) /* published after pass 1 */
				continue;
			if (agg_view__region_values(v, t, r, &rv) < 0)
				return -1;
			if (e->sum >= 0) {
				if (agg_region_sum__add(v, &v->sum[e->sum], &rv) < 0)
					return -1;
			} else {
				f->calls += rv.calls;
				agg_wall__merge(&f->wall, &rv.wall);
				agg_sum_view__add(&f->incl, v, &rv.incl);
				agg_sum_view__add(&f->excl, v, &rv.excl);
			}
			agg_view__release(v);
		}
	}
	agg_view__sums_finish(v);
	folded__finish(v, f);
	return 0;
}
