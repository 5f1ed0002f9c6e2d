/* thread.c - one thread's totals and region table.
 *
 * Lookup is a string hash into an open-addressing table owned by the thread.
 * Records are allocated once and linked in first-use order; the process-exit
 * path may walk another thread's list while that thread still runs, so the
 * link is published with a release store and accumulators use relaxed
 * atomics (plain moves on x86-64 and arm64, no locked instructions).
 */
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "aggregate/aggregate.h"
#include "aggregate/mux.h"
#include "aggregate/range.h"

#define HASH_INIT 64

struct agg_thread *agg_thread__new(pid_t tid, int nev)
{
	struct agg_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tid = tid;
	t->omp_thread = -1;
	t->nev = nev;
	t->totals = calloc((size_t)(nev ? nev : 1), sizeof(struct count));
	if (!t->totals) {
		free(t);
		return NULL;
	}
	return t;
}

void agg_thread__delete(struct agg_thread *t)
{
	struct agg_region *r, *n;

	if (!t)
		return;
	free(t->trace);
	for (r = t->head; r; r = n) {
		n = r->next;
		free((char *)r->name);
		free(r->sq);
		free(r);
	}
	for (struct agg_name *nm = t->name, *p; nm; nm = p) {
		p = nm->prev;
		free(nm);
	}
	free(t->hash);
	free(t->totals);
	agg_range_thread__delete(t->range);
	agg_rotation__free(t->rot);
	agg_series__free(t->series);
	free(t);
}

static uint64_t hash_str(const char *s)
{
	return hs_hash__str(HS_HASH_INIT, s);
}

static int thread__rehash(struct agg_thread *t)
{
	size_t cap = t->hash_cap ? t->hash_cap * 2 : HASH_INIT;
	struct agg_region **h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	for (struct agg_region *r = t->head; r; r = r->next) {
		size_t i = hash_str(r->name) & (cap - 1);
		while (h[i])
			i = (i + 1) & (cap - 1);
		h[i] = r;
	}
	free(t->hash);
	t->hash = h;
	t->hash_cap = cap;
	return 0;
}

static struct agg_region *region__new(const char *name, int nev)
{
	struct agg_region *r = calloc(1, sizeof(*r) + 2 * (size_t)nev *
							      sizeof(struct count));

	if (!r)
		return NULL;
	r->name = strdup(name);
	if (!r->name) {
		free(r);
		return NULL;
	}
	r->nev = nev;
	return r;
}

struct agg_region *agg_thread__find(struct agg_thread *t, const char *name)
{
	struct agg_region *r;

	if (!t->hash_cap)
		return NULL;
	for (size_t i = hash_str(name) & (t->hash_cap - 1); (r = t->hash[i]);
	     i = (i + 1) & (t->hash_cap - 1))
		if (strcmp(r->name, name) == 0)
			return r;
	return NULL;
}

struct agg_region *agg_thread__region(struct agg_thread *t, const char *name)
{
	struct agg_region *r = agg_thread__find(t, name);

	return r ? r : agg_thread__add(t, name, NULL);
}

struct agg_region *agg_thread__add(struct agg_thread *t, const char *name,
				   const struct agg_region *parent)
{
	struct agg_region *r;
	size_t i;

	/* Keep the load factor at or below 1/2. */
	if (2 * (t->nregions + 1) > t->hash_cap && thread__rehash(t) < 0)
		return NULL;
	r = region__new(name, t->nev);
	if (!r)
		return NULL;
	r->parent = parent; /* before the record is published */
	for (i = hash_str(name) & (t->hash_cap - 1); t->hash[i];
	     i = (i + 1) & (t->hash_cap - 1))
		;
	t->hash[i] = r;
	/* One writer; the view reads it from another thread as a size hint. */
	__atomic_store_n(&t->nregions, t->nregions + 1, __ATOMIC_RELAXED);
	if (t->tail)
		__atomic_store_n(&t->tail->next, r, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&t->head, r, __ATOMIC_RELEASE);
	t->tail = r;
	return r;
}

void agg_region__add(struct agg_region *r, const struct count *incl,
		     const struct count *excl, int nev)
{
	hs_atomic__add(&r->calls, 1);
	for (int i = 0; i < nev; i++)
		agg_region__add_event(r, i, incl ? &incl[i] : NULL, &excl[i]);
}

void agg_region__percall_scaled(struct agg_region *r, const struct count *d)
{
	double est;

	if (hs_count__estimate(d, &est))
		agg_percall__add(&r->percall, (uint64_t)(est + 0.5));
}

/* The squares, and room for the first stratum's sums after them when
 * strata: one allocation, one pointer in the record. */
static int region__sq(struct agg_region *r, uint32_t every, bool strata)
{
	size_t nsq = 2 * (size_t)r->nev + 2, nbase = strata ? 2 * (size_t)r->nev + 1 : 0;

	if (every <= 1)
		return 0;
	r->sq = calloc(1, nsq * sizeof(double) + nbase * sizeof(struct count));
	if (!r->sq)
		return -1;
	__atomic_store_n(&r->every, every, __ATOMIC_RELAXED); /* a flush copies it */
	return 0;
}

int agg_region__sample(struct agg_region *r, uint32_t every)
{
	return region__sq(r, every, false);
}

int agg_region__sample_after(struct agg_region *r, uint32_t every, uint32_t exact)
{
	if (every <= 1 || exact == 0)
		return region__sq(r, every, false);
	if (region__sq(r, every, true) < 0)
		return -1;
	r->exact_left = (uint16_t)(exact < UINT16_MAX ? exact : UINT16_MAX);
	r->strata = AGG_STRATA_BASE;
	return 0;
}

void agg_region__sample_base(struct agg_region *r)
{
	struct count *base = (struct count *)(r->sq + 2 * r->nev + 2);

	for (int i = 0; i < 2 * r->nev; i++)
		base[i] = (struct count){ hs_atomic__get(&r->c[i].value),
					  hs_atomic__get(&r->c[i].enabled),
					  hs_atomic__get(&r->c[i].running) };
	base[2 * r->nev].value = hs_atomic__get(&r->calls);
	/* The first stratum's squares are not the second's. */
	for (int i = 0; i < 2 * r->nev + 2; i++) {
		double z = 0;

		__atomic_store(&r->sq[i], &z, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&r->strata, AGG_STRATA_BASE | AGG_STRATA_TAKEN, __ATOMIC_RELEASE);
}

static void sq__add(double *p, uint64_t v)
{
	double x = (double)v, o;

	__atomic_load(p, &o, __ATOMIC_RELAXED);
	o += x * x;
	__atomic_store(p, &o, __ATOMIC_RELAXED);
}

void agg_region__sample_sq(struct agg_region *r, const uint64_t *d,
			   const uint64_t *x, uint64_t wd, uint64_t wx)
{
	for (int e = 0; e < r->nev; e++) {
		sq__add(&r->sq[e], d[e]);
		sq__add(&r->sq[r->nev + e], x[e]);
	}
	sq__add(&r->sq[2 * r->nev], wd);
	sq__add(&r->sq[2 * r->nev + 1], wx);
}

int agg_thread__set_name(struct agg_thread *t, const char *name)
{
	size_t len = strlen(name);
	struct agg_name *nm = malloc(sizeof(*nm) + len + 1);

	if (!nm)
		return -1;
	memcpy(nm->s, name, len + 1);
	nm->prev = t->name;
	__atomic_store_n(&t->name, nm, __ATOMIC_RELEASE);
	return 0;
}

void agg_thread__seal(struct agg_thread *t)
{
	free(t->hash);
	t->hash = NULL;
	t->hash_cap = 0;
}

void agg_thread__set_totals(struct agg_thread *t, const struct count *totals)
{
	memcpy(t->totals, totals, (size_t)t->nev * sizeof(struct count));
}
