/* jsonread.h - what the result readers (hpcshim-report, hpcshim-merge)
 * share: allocation that stops the tool when memory runs out, and the
 * lookups of aggregate/jsonread.h.  Before including, define TOOL_PROG
 * (the tool's name for messages) and TOOL_OOM_STATUS (its exit status when out of memory). */
#ifndef HPCSHIM_TOOLS_JSONREAD_H
#define HPCSHIM_TOOLS_JSONREAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static inline void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, TOOL_PROG ": out of memory\n");
		exit(TOOL_OOM_STATUS);
	}
	return p;
}

static inline char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

/* json-c's last error ("json_object_from_file: error opening file X: No
 * such file or directory", "json_tokener_parse_ex failed: ...") as the
 * short reason after its last ": ". */
static inline void json_load_error(char *why, size_t len)
{
	const char *e = json_util_get_last_err();
	const char *tail = e ? strrchr(e, ':') : NULL;
	int n;

	if (!tail) {
		snprintf(why, len, "cannot read JSON");
		return;
	}
	tail += strspn(tail, ": ");
	n = (int)strcspn(tail, "\n");
	if (!strstr(e, "tokener"))
		snprintf(why, len, "%.*s", n, tail);
	else if (strncmp(tail, "continue", (size_t)n) == 0)
		snprintf(why, len, "truncated JSON: unexpected end of data");
	else
		snprintf(why, len, "not JSON: %.*s", n, tail);
}

#include "aggregate/jsonread.h"

#endif
