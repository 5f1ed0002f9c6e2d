/* view_internal.h - what the files of the view (view.h) share.
 *
 *   view.c        the view's lifecycle and its per-record entry points
 *   view_mem.c    its memory: blocks freed at once, the record scratch,
 *                 mapped tables
 *   view_value.c  the values of one interval and the sums across threads
 *   view_names.c  the region names' table and pass 1's answer per record
 *   view_fold.c   the process-wide passes: what a limit folds, the
 *                 region summaries
 *
 * The calls go one way: view.c -> view_fold.c -> view_value.c,
 * view_names.c -> view_mem.c.
 */
#ifndef HPCSHIM_AGGREGATE_VIEW_INTERNAL_H
#define HPCSHIM_AGGREGATE_VIEW_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/view.h"

struct agg_view_chunk {
	struct agg_view_chunk *next;
	size_t cap, used; /* bytes of data[]: the scratch's bump allocator */
	max_align_t data[];
};


struct agg_view_name {
	const char *name; /* the first thread record's; NULL: free slot */
	uint64_t hash;
	double key;      /* the folding key, summed over threads          */
	uint64_t calls;
	size_t order;    /* first appearance along the thread list        */
	long sum;        /* index in v->sum, or -1 when folded            */
};

/* ---- pass 1's answer per record --------------------------------------
 *
 * Pass 1 finds each record's name in the table (a hash of the name, a
 * comparison with the first record's copy: two cache misses per record).
 * It keeps the answer, record by record in list order, so that writing
 * the records, in that same order, finds each one's summary without
 * touching its name again.  A record the cursor does not expect (published
 * after pass 1, or no memory for the list) is looked up by name. */
struct agg_view_rec {
	const struct agg_region *r;
	size_t order; /* its name's first appearance (agg_view_name.order) */
};

struct agg_view_mark {
	const struct agg_thread *t;
	size_t start, end; /* its records in recs[] */
};

/* ---- view_mem.c ---- */

/* What lives as long as the view: zeroed, freed with it. */
void *agg_view__alloc(struct agg_view *v, size_t n, size_t size);
/* Frees the view's blocks and its scratch. */
void agg_view__mem_free(struct agg_view *v);
/* A table apart from the heap (zeroed), and its release. */
void *agg_view__big_alloc(size_t n, size_t size);
void agg_view__big_free(void *p, size_t n, size_t size);

/* One record's values: zeroed memory from a block kept from record to
 * record (agg_view__release), so that the 2-3 passes over every region
 * record allocate nothing once the first record is done. */
#define SCRATCH_BLOCK (64 * 1024)

static inline void *agg_view__scratch_take(struct agg_view *v, size_t n, size_t size)
{
	struct agg_view_chunk *c = v->scratch;
	size_t al = sizeof(max_align_t), len;
	void *r;

	if (n && size > (SIZE_MAX - 2 * al - sizeof(*c)) / n)
		return NULL;
	len = n * size;
	len = len ? (len + al - 1) / al * al : al;
	if (!c || c->cap - c->used < len) {
		size_t cap = len > SCRATCH_BLOCK ? len : SCRATCH_BLOCK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = v->scratch;
		v->scratch = c;
	}
	r = (char *)c->data + c->used;
	c->used += len;
	return r;
}

static inline void *agg_view__scratch(struct agg_view *v, size_t n, size_t size)
{
	void *r = agg_view__scratch_take(v, n, size);

	if (r)
		memset(r, 0, n * size);
	return r;
}

/* ---- view_names.c ---- */

struct agg_view_name *agg_view__name_find(struct agg_view *v, const char *name,
					  uint64_t h);
void agg_view__names_free(struct agg_view *v);
int agg_view__names_grow(struct agg_view *v);
void agg_view__recs_free(struct agg_view *v);
void agg_view__recs_mark(struct agg_view *v, const struct agg_thread *t);
void agg_view__recs_add(struct agg_view *v, const struct agg_region *r, size_t order);
void agg_view__recs_sums(struct agg_view *v, size_t n);
void agg_view__recs_thread(struct agg_view *v, const struct agg_thread *t);
struct agg_view_name *agg_view__name(struct agg_view *v, const char *name);

/* ---- view_value.c ---- */

int agg_view__init_ok(struct agg_view *v);
int agg_view__init_metrics(struct agg_view *v);
int agg_view__interval(struct agg_view *v, const struct agg_thread *t,
		       const struct count *c, struct agg_interval_view *iv);
int agg_sum_view__init(struct agg_view *v, struct agg_sum_view *s);
void agg_sum_view__add(struct agg_sum_view *s, const struct agg_view *v,
		       const struct agg_interval_view *iv);
void agg_sum_view__finish(const struct agg_view *v, struct agg_sum_view *s);
void agg_percall__merge(struct agg_percall *acc, const struct agg_percall *pc);
void agg_wall__merge(struct agg_wall *acc, const struct agg_wall *w);
int agg_view__series(struct agg_view *v, const struct agg_thread *t,
		     struct agg_thread_view *tv);
const struct agg_region *agg_region__first(const struct agg_thread *t);
const struct agg_region *agg_region__next(const struct agg_region *r);
const struct agg_region *agg_view__copy(struct agg_view *v, const struct agg_thread *t,
					const struct agg_region *r);
int agg_view__region_values(struct agg_view *v, const struct agg_thread *t,
			    const struct agg_region *r, struct agg_region_view *rv);
double agg_view__key(const struct agg_view *v, const struct agg_interval_view *iv);

/* ---- view_fold.c ---- */

int agg_view__threads(struct agg_view *v, size_t n);
int agg_view__regions(struct agg_view *v);
void agg_view__sums_finish(struct agg_view *v);
int agg_region_sum__add(struct agg_view *v, struct agg_region_sum *rs,
			const struct agg_region_view *rv);

#endif
