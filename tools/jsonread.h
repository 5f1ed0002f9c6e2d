/* jsonread.h - what hpcshim run's summary of the file it had written
 * (cmd_run.c) uses: allocation that stops the tool when memory runs out,
 * and the lookups of aggregate/jsonread.h.  Every other subcommand reads
 * results through aggregate/docread.h.  Before including, define
 * TOOL_PROG (the tool's name for messages) and TOOL_OOM_STATUS (its exit
 * status when out of memory). */
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

#include "aggregate/jsonread.h"

#endif
