/* strtab.c - a table of strings in the order first seen (strtab.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strtab.h"

static uint64_t strtab__hash(const char *s)
{
	return hs_hash__str(HS_HASH_INIT, s);
}

/* The slot of s in sl, or the empty one where it would go; *seen is the
 * name read there (NULL: empty).  The caller must use *seen, not read the
 * slot again: an intern may fill an empty slot with another name. */
static struct hs_strtab_slot *slots__find(struct hs_strtab_slots *sl, const char *s,
					  uint64_t h, const char **seen)
{
	size_t i = h & (sl->n - 1);
	const char *x;

	while ((x = __atomic_load_n(&sl->s[i].name, __ATOMIC_ACQUIRE)) && strcmp(x, s) != 0)
		i = (i + 1) & (sl->n - 1);
	*seen = x;
	return &sl->s[i];
}

/* Twice the slots, every name placed again, then published; the old array
 * stays (a lookup may be reading it).  -1 when out of memory. */
static int strtab__grow(struct hs_strtab *t)
{
	struct hs_strtab_slots *old = t->slots, *sl;
	size_t n = old ? 2 * old->n : 64;
	const char *seen;

	sl = calloc(1, sizeof(*sl) + n * sizeof(sl->s[0]));
	if (!sl)
		return -1;
	sl->n = n;
	sl->older = old;
	for (size_t k = 0; k < t->n; k++) {
		struct hs_strtab_slot *e =
			slots__find(sl, t->name[k], strtab__hash(t->name[k]), &seen);

		e->name = t->name[k]; /* not published yet */
		e->ix = k;
	}
	__atomic_store_n(&t->slots, sl, __ATOMIC_RELEASE);
	return 0;
}

/* Room for one more name; -1 when out of memory. */
static int strtab__room(struct hs_strtab *t)
{
	char **name;
	size_t cap;

	if (t->n < t->cap)
		return 0;
	cap = t->cap ? 2 * t->cap : 16;
	name = realloc(t->name, cap * sizeof(*name));
	if (!name)
		return -1;
	t->name = name;
	t->cap = cap;
	return 0;
}

long hs_strtab__intern(struct hs_strtab *t, const char *s, bool *added)
{
	struct hs_strtab_slot *e;
	const char *seen;
	char *copy;

	*added = false;
	if ((!t->slots || 2 * (t->n + 1) > t->slots->n) && strtab__grow(t) < 0)
		return -1;
	e = slots__find(t->slots, s, strtab__hash(s), &seen);
	if (seen)
		return (long)e->ix;
	if (strtab__room(t) < 0 || !(copy = strdup(s)))
		return -1;
	t->name[t->n] = copy;
	/* The index first: a lookup that sees the name sees its index. */
	__atomic_store_n(&e->ix, t->n, __ATOMIC_RELAXED);
	__atomic_store_n(&e->name, copy, __ATOMIC_RELEASE);
	*added = true;
	return (long)t->n++;
}

long hs_strtab__lookup(const struct hs_strtab *t, const char *s)
{
	struct hs_strtab_slots *sl = __atomic_load_n(&t->slots, __ATOMIC_ACQUIRE);
	struct hs_strtab_slot *e;
	const char *seen;

	if (!sl)
		return -1;
	e = slots__find(sl, s, strtab__hash(s), &seen);
	return seen ? (long)__atomic_load_n(&e->ix, __ATOMIC_RELAXED) : -1;
}

void hs_strtab__free(struct hs_strtab *t)
{
	for (size_t k = 0; k < t->n; k++)
		free(t->name[k]);
	free(t->name);
	while (t->slots) {
		struct hs_strtab_slots *older = t->slots->older;

		free(t->slots);
		t->slots = older;
	}
	memset(t, 0, sizeof(*t));
}
