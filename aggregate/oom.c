/* oom.c - allocation that gives up as a whole (oom.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/oom.h"

/* Where a guarded builder returns when memory runs out; per thread. */
static __thread jmp_buf *oom_guard;

_Noreturn void agg_oom(void)
{
	if (oom_guard)
		longjmp(*oom_guard, 1);
	fputs("hpcshim: job document: out of memory\n", stderr);
	abort();
}

void *agg_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		agg_oom();
	return p;
}

void *agg_xcalloc(size_t n, size_t size)
{
	void *p = agg_xrealloc(NULL, (n ? n : 1) * (size ? size : 1));

	return memset(p, 0, (n ? n : 1) * (size ? size : 1));
}

char *agg_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(agg_xrealloc(NULL, n), s, n);
}

int agg_oom__guard(int (*fn)(void *), void *arg)
{
	jmp_buf env, *prev = oom_guard;
	volatile int rc = -1;

	if (setjmp(env) == 0) {
		oom_guard = &env;
		rc = fn(arg);
	} else {
		errno = ENOMEM;
	}
	oom_guard = prev;
	return rc;
}
