/* view.c - every reported value, computed once before serialising (view.h):
 * the view's lifecycle and its per-record entry points.  The parts are in
 * view_internal.h.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "aggregate/view_internal.h"

void agg_view__delete(struct agg_view *v)
{
	if (!v)
		return;
	agg_view__mem_free(v);
	agg_view__names_free(v);
	agg_view__recs_free(v);
	free(v);
}

int agg_view__thread(struct agg_view *v, const struct agg_thread *t,
		     struct agg_thread_view *tv)
{
	agg_view__recs_thread(v, t);
	memset(tv, 0, sizeof(*tv));
	tv->t = t;
	if (agg_view__interval(v, t, t->totals, &tv->totals) < 0 ||
	    agg_view__series(v, t, tv) < 0)
		return -1;
	return 0;
}

int agg_view__region(struct agg_view *v, const struct agg_thread *t,
		     const struct agg_region *r, struct agg_region_view *rv)
{
	long sum;

	if (v->rthread == t && v->rcur < v->rend && v->recs[v->rcur].r == r) {
		sum = v->order_sum[v->recs[v->rcur++].order];
	} else {
		const struct agg_view_name *e = agg_view__name(v, r->name);

		/* A record published after the view was built waits for
		 * the next result, like a folded one. */
		if (!e || !e->name)
			return 0;
		sum = e->sum;
	}
	if (sum < 0)
		return 0;
	if (agg_view__region_values(v, t, r, rv) < 0)
		return -1;
	if (v->sums_pending && agg_region_sum__add(v, &v->sum[sum], rv) < 0)
		return -1;
	return 1;
}

void agg_view__sums(struct agg_view *v)
{
	if (!v->sums_pending)
		return;
	agg_view__sums_finish(v);
	v->sums_pending = false;
}

struct agg_view *agg_view__new(const struct agg_process *p)
{
	struct agg_view *v = calloc(1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	v->p = p;
	v->self = (pid_t)syscall(SYS_gettid); /* agg_view__copy: our own records */
	for (const struct agg_thread *t = p->threads; t; t = t->next)
		n++;
	if (agg_view__init_ok(v) < 0 || agg_view__init_metrics(v) < 0 ||
	    agg_sum_view__init(v, &v->totals) < 0 || agg_view__threads(v, n) < 0 ||
	    agg_view__regions(v) < 0) {
		agg_view__delete(v);
		return NULL;
	}
	return v;
}
