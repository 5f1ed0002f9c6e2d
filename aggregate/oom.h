/* oom.h - allocation for the builders that cannot go on without memory
 * (the job document): out of memory ends a tool (abort, one line), and
 * inside the shim, under agg_oom__guard, returns to the guard instead:
 * the program must never be ended by its tool, and what was allocated is
 * lost, which is all a process out of memory can do. */
#ifndef HPCSHIM_AGGREGATE_OOM_H
#define HPCSHIM_AGGREGATE_OOM_H

#include <stddef.h>

void *agg_xrealloc(void *p, size_t n);
void *agg_xcalloc(size_t n, size_t size); /* zeroed; n or size 0 gives 1 */
char *agg_xstrdup(const char *s);
/* The allocation failed: to the guard, or the end. */
_Noreturn void agg_oom(void);
/* fn(arg), with running out of memory in these functions turned into a
 * return of -1 (errno ENOMEM). */
int agg_oom__guard(int (*fn)(void *), void *arg);

#endif
