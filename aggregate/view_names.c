/* view_names.c - the region names of a view (view_internal.h): one
 * summary per name, and pass 1's answer per record.
 */
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "aggregate/view_internal.h"


/* ---- region names: one entry per name, open addressing ---------------- */

struct agg_view_name *agg_view__name_find(struct agg_view *v, const char *name,
					uint64_t h)
{
	size_t mask = v->names_cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct agg_view_name *e = &v->names[i];

		if (!e->name || (e->hash == h && strcmp(e->name, name) == 0))
			return e;
	}
}

void agg_view__names_free(struct agg_view *v)
{
	agg_view__big_free(v->names, v->names_cap, sizeof(*v->names));
}

int agg_view__names_grow(struct agg_view *v)
{
	size_t cap = v->names_cap ? 2 * v->names_cap : 1024, old = v->names_cap;
	struct agg_view_name *o = v->names;

	v->names = agg_view__big_alloc(cap, sizeof(*v->names));
	if (!v->names) {
		v->names = o;
		return -1;
	}
	v->names_cap = cap;
	for (size_t i = 0; i < old; i++)
		if (o[i].name)
			*agg_view__name_find(v, o[i].name, o[i].hash) = o[i];
	agg_view__big_free(o, old, sizeof(*o));
	return 0;
}


void agg_view__recs_free(struct agg_view *v)
{
	agg_view__big_free(v->recs, v->recs_cap, sizeof(*v->recs));
	agg_view__big_free(v->marks, v->marks_cap, sizeof(*v->marks));
	agg_view__big_free(v->order_sum, v->norder, sizeof(*v->order_sum));
	v->recs = NULL;
	v->marks = NULL;
	v->order_sum = NULL;
	v->nrecs = v->recs_cap = v->nmarks = v->marks_cap = v->norder = 0;
	v->recs_off = true;
}

/* Doubles a table of n entries of size bytes (cap: its capacity). */
static void *recs__grow(void *old, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? 2 * *cap : 4096;
	void *t = agg_view__big_alloc(c, size);

	if (!t)
		return NULL;
	if (old)
		memcpy(t, old, n * size);
	agg_view__big_free(old, *cap, size);
	*cap = c;
	return t;
}

void agg_view__recs_mark(struct agg_view *v, const struct agg_thread *t)
{
	struct agg_view_mark *m;

	if (v->recs_off)
		return;
	if (v->nmarks == v->marks_cap) {
		m = recs__grow(v->marks, v->nmarks, &v->marks_cap, sizeof(*m));
		if (!m) {
			agg_view__recs_free(v);
			return;
		}
		v->marks = m;
	}
	v->marks[v->nmarks++] = (struct agg_view_mark){ t, v->nrecs, v->nrecs };
}

void agg_view__recs_add(struct agg_view *v, const struct agg_region *r, size_t order)
{
	struct agg_view_rec *n;

	if (v->recs_off)
		return;
	if (!v->recs) { /* sized once, the threads' counts as a hint */
		size_t hint = 64;

		for (const struct agg_thread *t = v->p->threads; t; t = t->next)
			hint += __atomic_load_n(&t->nregions, __ATOMIC_RELAXED);
		v->recs = agg_view__big_alloc(hint, sizeof(*v->recs));
		if (!v->recs) {
			agg_view__recs_free(v);
			return;
		}
		v->recs_cap = hint;
	} else if (v->nrecs == v->recs_cap) {
		n = recs__grow(v->recs, v->nrecs, &v->recs_cap, sizeof(*n));
		if (!n) {
			agg_view__recs_free(v);
			return;
		}
		v->recs = n;
	}
	v->recs[v->nrecs++] = (struct agg_view_rec){ r, order };
}

/* After the names are chosen: each name's summary by its order. */
void agg_view__recs_sums(struct agg_view *v, size_t n)
{
	if (v->recs_off)
		return;
	v->order_sum = agg_view__big_alloc(n, sizeof(*v->order_sum));
	if (!v->order_sum) {
		agg_view__recs_free(v);
		return;
	}
	v->norder = n;
	for (size_t i = 0; i < v->names_cap; i++)
		if (v->names[i].name && v->names[i].order < n)
			v->order_sum[v->names[i].order] = v->names[i].sum;
}

/* Thread t's records come next: the cursor on its part of recs[].  Marks
 * of threads not written (folded) are passed over. */
void agg_view__recs_thread(struct agg_view *v, const struct agg_thread *t)
{
	v->rthread = NULL;
	if (v->recs_off || !v->order_sum)
		return;
	while (v->mcur < v->nmarks && v->marks[v->mcur].t != t)
		v->mcur++;
	if (v->mcur == v->nmarks)
		return;
	v->rthread = t;
	v->rcur = v->marks[v->mcur].start;
	v->rend = v->marks[v->mcur].end;
}

struct agg_view_name *agg_view__name(struct agg_view *v, const char *name)
{
	return v->names_cap ? agg_view__name_find(v, name, hs_hash__str(HS_HASH_INIT, name)) :
			      NULL;
}
