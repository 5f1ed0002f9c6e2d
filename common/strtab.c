/* strtab.c - a table of strings in the order first seen (strtab.h). */
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strtab.h"

static size_t strtab__find(const struct hs_strtab *t, const char *s, uint64_t h)
{
	size_t i = h & (t->nslot - 1);

	while (t->slot[i] && strcmp(t->name[t->slot[i] - 1], s) != 0)
		i = (i + 1) & (t->nslot - 1);
	return i;
}

/* Twice the slots, every name placed again; -1 when out of memory. */
static int strtab__grow(struct hs_strtab *t)
{
	size_t nslot = t->nslot ? 2 * t->nslot : 64;
	size_t *slot = calloc(nslot, sizeof(*slot));

	if (!slot)
		return -1;
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
	for (size_t k = 0; k < t->n; k++)
		t->slot[strtab__find(t, t->name[k], hs_hash__str(HS_HASH_INIT, t->name[k]))] =
			k + 1;
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
	uint64_t h = hs_hash__str(HS_HASH_INIT, s);
	size_t i;
	char *copy;

	*added = false;
	if (2 * (t->n + 1) > t->nslot && strtab__grow(t) < 0)
		return -1;
	i = strtab__find(t, s, h);
	if (t->slot[i])
		return (long)t->slot[i] - 1;
	if (strtab__room(t) < 0 || !(copy = strdup(s)))
		return -1;
	t->name[t->n] = copy;
	t->slot[i] = ++t->n;
	*added = true;
	return (long)t->n - 1;
}

long hs_strtab__lookup(const struct hs_strtab *t, const char *s)
{
	size_t i;

	if (!t->nslot)
		return -1;
	i = strtab__find(t, s, hs_hash__str(HS_HASH_INIT, s));
	return t->slot[i] ? (long)t->slot[i] - 1 : -1;
}

void hs_strtab__free(struct hs_strtab *t)
{
	for (size_t k = 0; k < t->n; k++)
		free(t->name[k]);
	free(t->name);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
