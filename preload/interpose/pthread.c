/* pthread.c - pthread_create: every thread the program creates counted.
 *
 * Every thread created through pthread_create runs a trampoline that opens
 * the thread's own counters before the start routine and, through a cleanup
 * handler, folds the final counts into the process results whether the
 * routine returns, calls pthread_exit or is cancelled.
 *
 * A constructor of an object initialised before ours (a library the
 * program links, OpenBLAS's thread pool) can create threads before our
 * constructor runs: the first such call starts the shim there and then
 * (the HS_EARLY_START entry, interpose.h), so those threads are counted
 * like any other.
 */
#include <errno.h>
#include <stdlib.h>

#include "annotate/hpcshim.h"
#include "preload/base/real.h"
#include "preload/core/core.h"
#include "preload/interpose/interpose.h"

struct trampoline {
	void *(*fn)(void *);
	void *arg;
};

/* The linker's bounds of the section hs_early (interpose.h); weak: a
 * build without an entry has none. */
extern const hs_early_fn __start_hs_early[]
	__attribute__((weak, visibility("hidden")));
extern const hs_early_fn __stop_hs_early[] __attribute__((weak, visibility("hidden")));

static bool pthread__early(void)
{
	for (const hs_early_fn *f = __start_hs_early; f && f < __stop_hs_early; f++)
		if (!(*f)())
			return false;
	return true;
}

static void pthread__cleanup(void *unused)
{
	struct hs_thread *t = hs_self;

	(void)unused;
	hs_self = NULL;
	if (t)
		hs_thread__stop(t);
}

static void *pthread__trampoline(void *p)
{
	struct trampoline tr = *(struct trampoline *)p;
	void *ret;

	free(p);
	hs_self = hs_thread__start();
	pthread_cleanup_push(pthread__cleanup, NULL);
	ret = tr.fn(tr.arg);
	pthread_cleanup_pop(1);
	return ret;
}

HPCSHIM_API int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			       void *(*fn)(void *), void *arg)
{
	hs_real_pthread_create_fn real = hs_real__pthread_create();
	int state = __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE);
	struct trampoline *tr;
	int rc;

	if (!real)
		return EAGAIN;
	if (state == HS_OFF && pthread__early())
		state = __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE);
	if (state != HS_RUNNING)
		return real(thread, attr, fn, arg);
	tr = malloc(sizeof(*tr));
	if (!tr) /* uncounted beats failing the host's thread creation */
		return real(thread, attr, fn, arg);
	tr->fn = fn;
	tr->arg = arg;
	rc = real(thread, attr, pthread__trampoline, tr);
	if (rc != 0)
		free(tr);
	return rc;
}
