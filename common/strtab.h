/* strtab.h - a table of strings in the order first seen: each string's
 * index, found in O(1) (open addressing on FNV-1a, common/hash.h).  The
 * table copies the strings.  Allocation failures are returned, never
 * handled here: the caller decides (the tools end, the shim gives up the
 * object).
 *
 * Lookups may run beside an intern, with no lock (the shim's marker names,
 * preload/annotations/): interns are the caller's to serialise (a lock),
 * lookups read only the slots, each published whole (its index before its
 * name), and a grown table keeps the slot arrays it replaced until
 * hs_strtab__free, since a lookup may still be reading one (together less
 * than the current one).  A lookup beside the intern of its own string may
 * miss it; the name[] array and n are the interning side's. */
#ifndef HPCSHIM_COMMON_STRTAB_H
#define HPCSHIM_COMMON_STRTAB_H

#include <stdbool.h>
#include <stddef.h>

struct hs_strtab_slot {
	const char *name; /* the table's copy, NULL: empty (atomic) */
	size_t ix;        /* its index (atomic) */
};

struct hs_strtab_slots {
	size_t n;                      /* a power of 2 */
	struct hs_strtab_slots *older; /* the array this one replaced */
	struct hs_strtab_slot s[];
};

struct hs_strtab {
	char **name; /* [n], in order first seen */
	size_t n, cap;
	struct hs_strtab_slots *slots; /* published with release */
};

/* The index of s, added if new (*added tells which); -1 when out of
 * memory (the table unchanged). */
long hs_strtab__intern(struct hs_strtab *t, const char *s, bool *added);
/* The index of s, or -1. */
long hs_strtab__lookup(const struct hs_strtab *t, const char *s);
void hs_strtab__free(struct hs_strtab *t);

#endif
