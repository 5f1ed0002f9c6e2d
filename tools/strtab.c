/* strtab.c - interned strings (strtab.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/strtab.h"
#include "tools/xalloc.h"

static size_t strtab__hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)h;
}

void strtab__init(struct strtab *t)
{
	t->s = NULL;
	t->n = 0;
	t->nslot = 64;
	t->slot = xrealloc(NULL, t->nslot * sizeof(*t->slot));
	memset(t->slot, 0, t->nslot * sizeof(*t->slot));
}

void strtab__exit(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
}

static size_t *strtab__slot(const struct strtab *t, const char *s)
{
	size_t m = t->nslot - 1, i = strtab__hash(s) & m;

	while (t->slot[i] && strcmp(t->s[t->slot[i] - 1], s) != 0)
		i = (i + 1) & m;
	return &t->slot[i];
}

/* Twice the slots when half are taken: the probes stay short. */
static void strtab__grow(struct strtab *t)
{
	size_t *old = t->slot, n = t->nslot;

	t->nslot *= 2;
	t->slot = xrealloc(NULL, t->nslot * sizeof(*t->slot));
	memset(t->slot, 0, t->nslot * sizeof(*t->slot));
	for (size_t i = 0; i < n; i++)
		if (old[i])
			*strtab__slot(t, t->s[old[i] - 1]) = old[i];
	free(old);
}

size_t strtab__id(struct strtab *t, const char *s, int *added)
{
	size_t *sl = strtab__slot(t, s);

	if (added)
		*added = !*sl;
	if (*sl)
		return *sl - 1;
	t->s = xrealloc(t->s, (t->n + 1) * sizeof(*t->s));
	t->s[t->n] = xstrdup(s);
	*sl = ++t->n;
	if (t->n * 2 > t->nslot)
		strtab__grow(t);
	return t->n - 1;
}

size_t strtab__find(const struct strtab *t, const char *s)
{
	size_t *sl = strtab__slot(t, s);

	return *sl ? *sl - 1 : (size_t)-1;
}
