/* strtab.h - a table of strings in the order first seen: each string's
 * index, found in O(1) (open addressing on FNV-1a, common/hash.h).  The
 * table copies the strings.  Allocation failures are returned, never
 * handled here: the caller decides (the tools end, the shim gives up the
 * object). */
#ifndef HPCSHIM_COMMON_STRTAB_H
#define HPCSHIM_COMMON_STRTAB_H

#include <stdbool.h>
#include <stddef.h>

struct hs_strtab {
	char **name; /* [n], in order first seen */
	size_t n, cap;
	size_t *slot; /* index + 1, 0 = empty */
	size_t nslot;
};

/* The index of s, added if new (*added tells which); -1 when out of
 * memory (the table unchanged). */
long hs_strtab__intern(struct hs_strtab *t, const char *s, bool *added);
/* The index of s, or -1. */
long hs_strtab__lookup(const struct hs_strtab *t, const char *s);
void hs_strtab__free(struct hs_strtab *t);

#endif
