/* series.c - one thread's counter readings at the end of each interval.
 *
 * Points are cumulative readings (each event's value, each group's enabled
 * and running times), so an interval's counts are the difference of two
 * adjacent points and merging two intervals is dropping the point between
 * them.  The buffer holds cap points (cap even).  When it is full, every
 * other point goes (intervals merge in pairs) and from then on a point is
 * kept every 2 x stride ticks: memory stays bounded and the whole run stays
 * covered at a coarser step.
 *
 * The thread's signal handler appends; the process-exit path may read a
 * live thread's series from another thread, so every element is stored and
 * loaded with relaxed atomics and n is published with release.  A merge in
 * progress when the results are collected may show a mixed point (best
 * effort, like the rest of a live thread's figures at exit).
 */
#include <stdlib.h>

#include "aggregate/mux.h"

struct agg_series *agg_series__new(int nev, int ngroups, const int *leader, int cap,
				   uint64_t period_ns)
{
	struct agg_series *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->period_ns = period_ns;
	s->stride = 1;
	s->cap = (uint32_t)(cap & ~1);
	s->nev = nev;
	s->ngroups = ngroups;
	s->leader = leader;
	s->t = calloc(s->cap, sizeof(*s->t));
	s->val = calloc((size_t)s->cap * (size_t)(nev ? nev : 1), sizeof(*s->val));
	s->en = calloc((size_t)s->cap * (size_t)(ngroups ? ngroups : 1),
		       sizeof(*s->en));
	s->run = calloc((size_t)s->cap * (size_t)(ngroups ? ngroups : 1),
			sizeof(*s->run));
	if (!s->t || !s->val || !s->en || !s->run || s->cap < 2) {
		agg_series__free(s);
		return NULL;
	}
	return s;
}

void agg_series__free(struct agg_series *s)
{
	if (!s)
		return;
	free(s->t);
	free(s->val);
	free(s->en);
	free(s->run);
	free(s);
}

static void put(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static uint64_t get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Point k := point j. */
static void series__move(struct agg_series *s, uint32_t k, uint32_t j)
{
	size_t ne = (size_t)s->nev, ng = (size_t)s->ngroups;

	put(&s->t[k], get(&s->t[j]));
	for (size_t e = 0; e < ne; e++)
		put(&s->val[k * ne + e], get(&s->val[j * ne + e]));
	for (size_t g = 0; g < ng; g++) {
		put(&s->en[k * ng + g], get(&s->en[j * ng + g]));
		put(&s->run[k * ng + g], get(&s->run[j * ng + g]));
	}
}

/* Intervals merge in pairs: the points that end pairs stay. */
static void series__halve(struct agg_series *s)
{
	uint32_t half = s->cap / 2;

	for (uint32_t k = 0; k < half; k++)
		series__move(s, k, 2 * k + 1);
	__atomic_store_n(&s->n, half, __ATOMIC_RELEASE);
	s->stride *= 2;
}

/* A point is due every stride ticks.  When one is due and the buffer is
 * full, the intervals merge in pairs first; the latest point stays, and
 * under the doubled stride this tick is not due yet. */
bool agg_series__tick(struct agg_series *s)
{
	uint32_t t = s->ticks + 1;

	if (t < s->stride) {
		s->ticks = t;
		return false;
	}
	if (s->n == s->cap) {
		series__halve(s);
		s->ticks = t;
		return false;
	}
	s->ticks = 0;
	return true;
}

void agg_series__append(struct agg_series *s, uint64_t t_ns, const struct count *c)
{
	size_t ne = (size_t)s->nev, ng = (size_t)s->ngroups, k;

	if (s->n == s->cap) /* the final point at a thread's end */
		series__halve(s);
	k = s->n;
	put(&s->t[k], t_ns);
	for (size_t e = 0; e < ne; e++)
		put(&s->val[k * ne + e], c[e].value);
	for (size_t g = 0; g < ng; g++) {
		put(&s->en[k * ng + g], c[s->leader[g]].enabled);
		put(&s->run[k * ng + g], c[s->leader[g]].running);
	}
	__atomic_store_n(&s->n, (uint32_t)(k + 1), __ATOMIC_RELEASE);
}
