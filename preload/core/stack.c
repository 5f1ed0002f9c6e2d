/* stack.c - a thread's region stack storage: the frames (each with a
 * start reading and a child sum) and the id -> record array.  Grown by
 * thread start and, rarely, by the region path (region.c); never on the
 * steady-state path. */
#include <stdlib.h>
#include <string.h>

#include "preload/core/core.h"

/* Frame storage: cap frames, each with a start reading and a child sum.
 * New storage is written at once, so that the first BEGIN at a new depth
 * does not page-fault inside its parent region's interval. */
int hs_stack__reserve(struct hs_thread *t, int cap)
{
	struct hs_frame *f = realloc(t->frames, (size_t)cap * sizeof(*f));
	size_t per = 2 * (size_t)t->nev, old = (size_t)t->cap;
	struct count *s;

	if (!f)
		return -1;
	t->frames = f;
	s = realloc(t->store, (size_t)cap * per * sizeof(*s));
	if (!s)
		return -1;
	memset(s + old * per, 0, ((size_t)cap - old) * per * sizeof(*s));
	memset(f + old, 0, ((size_t)cap - old) * sizeof(*f));
	t->store = s;
	t->cap = cap;
	for (int i = 0; i < cap; i++) {
		t->frames[i].start = s + (size_t)i * per;
		t->frames[i].child = t->frames[i].start + t->nev;
	}
	return 0;
}

int hs_stack__reserve_ids(struct hs_thread *t, int n)
{
	int cap = t->nids ? t->nids : 64;
	struct agg_region **a;

	while (cap < n)
		cap *= 2;
	a = realloc(t->byid, (size_t)cap * sizeof(*a));
	if (!a)
		return -1;
	memset(a + t->nids, 0, (size_t)(cap - t->nids) * sizeof(*a));
	t->byid = a;
	t->nids = cap;
	return 0;
}
