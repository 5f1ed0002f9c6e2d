/* region.c - HPC_BEGIN / HPC_END: the region stack of one thread.
 *
 * One group read per boundary.  BEGIN reads last and END reads first, so
 * the bookkeeping falls outside the measured interval.  Exclusive counts
 * are the frame's delta minus its children's inclusive deltas; the
 * inclusive delta of a region nested in itself is only added by the
 * outermost instance, so recursion is not double counted.
 */
#include <dlfcn.h>
#include <string.h>

#include "annotate/hpcshim.h"
#include "preload/shim.h"

#define MAX_DEPTH 4096

static void region__uncovered(void)
{
	if (__atomic_load_n(&hs_proc.state, __ATOMIC_RELAXED) == HS_RUNNING)
		__atomic_fetch_add(&hs_proc.uncovered_calls, 1, __ATOMIC_RELAXED);
}

/* Pops frame i.  Without both readings the interval is unknown: the call
 * is not accounted (read_errors says so) rather than reported as 0 or as
 * everything since the thread started. */
static void frame__close(struct hs_thread *t, int i, bool now_ok)
{
	struct hs_frame *f = &t->frames[i];
	struct count delta[t->nev], excl[t->nev];
	bool recursive = false;

	t->depth = i;
	if (!now_ok || !f->valid)
		return;
	for (int e = 0; e < t->nev; e++) {
		count__sub(&delta[e], &t->now[e], &f->start[e]);
		count__sub(&excl[e], &delta[e], &f->child[e]);
	}
	for (int j = 0; j < i && !recursive; j++)
		recursive = t->frames[j].region == f->region;
	agg_region__add(f->region, recursive ? NULL : delta, excl, t->nev);
	if (i > 0)
		for (int e = 0; e < t->nev; e++)
			count__add(&t->frames[i - 1].child[e], &delta[e]);
}

void hs_thread__close_all(struct hs_thread *t, bool now_ok)
{
	agg_acc(&t->agg->warn.auto_closed, (uint64_t)t->depth);
	while (t->depth > 0)
		frame__close(t, t->depth - 1, now_ok);
}

typedef int (*omp_num_fn)(void);

/* The OpenMP thread number labels a thread in the results.  Asked once per
 * thread, at its first region, when the program has an OpenMP runtime. */
static void thread__omp_label(struct hs_thread *t)
{
	static omp_num_fn omp_fn;
	static int looked;
	omp_num_fn omp_num;

	/* Two threads may look it up at once: both find the same symbol. */
	if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&omp_fn, (omp_num_fn)dlsym(RTLD_DEFAULT,
			"omp_get_thread_num"), __ATOMIC_RELAXED);
		__atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
	}
	omp_num = __atomic_load_n(&omp_fn, __ATOMIC_RELAXED);
	t->omp_checked = true;
	if (omp_num) /* read by the exit path while this thread runs */
		__atomic_store_n(&t->agg->omp_thread, omp_num(), __ATOMIC_RELAXED);
}

static bool thread__read(struct hs_thread *t, struct count *out)
{
	if (pmu_counters__read(&t->ctr, out) == 0)
		return true;
	agg_acc(&t->agg->warn.read_errors, 1);
	return false;
}

HPCSHIM_API void hpcshim_region_begin(const char *name)
{
	struct hs_thread *t = hs_self;
	struct agg_region *r;
	struct hs_frame *f;

	if (!t) {
		region__uncovered();
		return;
	}
	if (t->depth == t->cap &&
	    (t->cap >= MAX_DEPTH || hs_thread__reserve(t, 2 * t->cap) < 0)) {
		/* Its END must not close an outer frame of the same name. */
		t->skipped++;
		agg_acc(&t->agg->warn.depth_overflow, 1);
		return;
	}
	if (!t->omp_checked)
		thread__omp_label(t);
	r = agg_thread__region(t->agg, name ? name : "(null)");
	if (!r) {
		t->skipped++;
		return;
	}
	f = &t->frames[t->depth];
	f->region = r;
	memset(f->child, 0, (size_t)t->nev * sizeof(struct count));
	f->valid = thread__read(t, f->start);
	t->depth++;
}

HPCSHIM_API void hpcshim_region_end(const char *name)
{
	struct hs_thread *t = hs_self;
	bool ok;
	int k;

	if (!t) {
		region__uncovered();
		return;
	}
	if (t->skipped > 0) { /* the innermost BEGIN was not recorded */
		t->skipped--;
		return;
	}
	if (!name)
		name = "(null)";
	/* Usually the top frame; a deeper match closes the ones above it. */
	for (k = t->depth - 1; k >= 0; k--)
		if (strcmp(t->frames[k].region->name, name) == 0)
			break;
	if (k < 0) {
		agg_acc(&t->agg->warn.unmatched_end, 1);
		return;
	}
	ok = thread__read(t, t->now);
	agg_acc(&t->agg->warn.auto_closed, (uint64_t)(t->depth - 1 - k));
	while (t->depth > k)
		frame__close(t, t->depth - 1, ok);
}

HPCSHIM_API int hpcshim_active(void)
{
	return hs_self != NULL;
}
