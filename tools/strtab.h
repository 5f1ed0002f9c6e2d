/* strtab.h - interned strings numbered 0, 1, 2... in order of first
 * appearance: the string tables and frame lists of hpcshim convert's
 * formats (pprof's string_table, speedscope's shared frames, OTF2's
 * string and region definitions).  An open-addressing hash; the strings
 * are copied. */
#ifndef HPCSHIM_TOOLS_STRTAB_H
#define HPCSHIM_TOOLS_STRTAB_H

#include <stddef.h>

struct strtab {
	char **s;       /* by number */
	size_t n;
	size_t *slot;   /* number + 1, 0 for empty */
	size_t nslot;   /* a power of two */
};

void strtab__init(struct strtab *t);
void strtab__exit(struct strtab *t);
/* s's number, added when new; *added (may be NULL): it was. */
size_t strtab__id(struct strtab *t, const char *s, int *added);
/* s's number, or (size_t)-1 when absent. */
size_t strtab__find(const struct strtab *t, const char *s);

#endif
