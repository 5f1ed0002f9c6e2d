/* xalloc.h - allocation for the hpcshim command: running out of memory
 * ends the tool (status 2) with one line; a tool has no half-result worth
 * keeping.  (The shim itself never ends its program: aggregate/ returns
 * errors instead.) */
#ifndef HPCSHIM_TOOLS_XALLOC_H
#define HPCSHIM_TOOLS_XALLOC_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab.h"

/* The tool's exit status then: 2, hpcshim run's own failures 125. */
#ifndef XALLOC_STATUS
#define XALLOC_STATUS 2
#endif

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("hpcshim: out of memory\n", stderr);
		exit(XALLOC_STATUS);
	}
	return p;
}

/* s's index in t (common/strtab.h), added when new (*added, may be
 * NULL, says so). */
static inline size_t xintern(struct hs_strtab *t, const char *s, bool *added)
{
	bool a;
	long i = hs_strtab__intern(t, s, &a);

	if (i < 0) {
		fputs("hpcshim: out of memory\n", stderr);
		exit(XALLOC_STATUS);
	}
	if (added)
		*added = a;
	return (size_t)i;
}

static inline char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

#endif
