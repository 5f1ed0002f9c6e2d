/* annotations.c - the regions other tools' annotations already carry:
 * LIKWID's Marker API and PAPI's high-level regions become hpcshim
 * regions (docs/annotations.md, "LIKWID and PAPI annotations").
 *
 * names.c exports the two APIs' functions (C and Fortran names) and sends
 * each call here while the shim counts; here a call is a region boundary
 * of the calling thread through the public entry points
 * (hpcshim_region_begin/end: regions named at run time, by hash), with
 * what each API defines around it kept: LIKWID's calls before
 * likwid_markerInit do nothing and return -EFAULT, a double start
 * restarts the region, a double start, a stop of a region not started
 * and a reset of one not stopped print LIKWID's warnings and return what
 * LIKWID 5.2 returns, likwid_markerGetRegion reports the shim's own
 * counts of the thread's region (less what likwid_markerResetRegion set
 * aside).  PAPI's calls (papi.c) return what PAPI 7 returns.  Neither
 * library runs: nothing of theirs is written.
 *
 * The results note which API each region name came from, and how many
 * PAPI_hl_read points each had: the top-level "annotations" (schema.md,
 * notes.c), found at each boundary in constant time with no lock.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/hpcshim.h"
#include "common/compiler.h"
#include "preload/annotations/annotations.h"
#include "preload/annotations/internal.h"
#include "preload/config/varparse.h"
#include "preload/core/core.h"
#include "preload/core/feature.h"

int hs_ann__on;

static int ann_slot = -1; /* set by the core (hs_features__set) */
static int likwid_init;   /* likwid_markerInit called, atomic */

/* ---- per thread: what ResetRegion set aside ----------------------------- */

/* What likwid_markerGetRegion subtracts: the region's figures at the
 * thread's last likwid_markerResetRegion of it. */
struct ann_base {
	struct ann_base *next;
	const struct agg_region *r;
	uint64_t calls, wall;
	uint64_t v[];
};

struct ann_thread {
	struct ann_base *bases;
};

static void ann__free(struct ann_thread *a)
{
	if (!a)
		return;
	while (a->bases) {
		struct ann_base *b = a->bases;

		a->bases = b->next;
		free(b);
	}
	free(a);
}

/* The calling thread's state, made on its first use; NULL when the thread
 * is not counted (or out of memory). */
static struct ann_thread *ann__self(struct hs_thread *t)
{
	struct ann_thread *a;

	if (!t || ann_slot < 0)
		return NULL;
	a = t->slot[ann_slot];
	if (unlikely(!a)) {
		a = calloc(1, sizeof(*a));
		t->slot[ann_slot] = a;
	}
	return a;
}

/* The innermost open frame of name on t, or -1. */
static int ann__open(const struct hs_thread *t, const char *name)
{
	for (int k = t->depth - 1; k >= 0; k--)
		if (strcmp(t->frames[k].region->name, name) == 0)
			return k;
	return -1;
}

/* A region boundary through the public entry points.  The name's note is
 * found (or made: a first call's allocations) before the boundary, so
 * that nothing but the note's bit falls inside the region (exact page
 * faults per call); it notes api once the begin opened a frame. */
struct ann_note *hs_ann__begin(unsigned api, const char *name)
{
	struct hs_thread *t = hs_self;
	int depth = t ? t->depth : 0;
	struct ann_note *n = hs_ann__note_get(name);

	if (unlikely(!n))
		return NULL;
	hpcshim_region_begin(name);
	if (t && t->depth > depth)
		hs_ann__note_api(n, api);
	return n;
}

/* ---- LIKWID ---------------------------------------------------------- */

void hs_ann__likwid_init(void)
{
	__atomic_store_n(&likwid_init, 1, __ATOMIC_RELAXED);
}

/* Writes nothing: the regions are in hpcshim's results. */
void hs_ann__likwid_close(void)
{
}

static bool likwid__ready(void)
{
	return __atomic_load_n(&likwid_init, __ATOMIC_RELAXED) != 0;
}

/* What registering is for in LIKWID: the name's bookkeeping made now, not
 * at its first start (inside whatever region encloses it); LIKWID lists a
 * registered name, so the note says it is LIKWID's. */
int hs_ann__likwid_register(const char *tag)
{
	struct ann_note *n;

	if (!likwid__ready() || !tag)
		return -EFAULT;
	n = hs_ann__note_get(tag);
	if (n)
		hs_ann__note_api(n, HS_ANN_LIKWID);
	return 0;
}

int hs_ann__likwid_start(const char *tag)
{
	struct hs_thread *t = hs_self;

	if (!likwid__ready())
		return -EFAULT;
	if (!tag)
		return -EFAULT;
	/* LIKWID keeps one state per region and thread: a second start
	 * warns and the measurement restarts there.  So here when the region
	 * is the innermost open one; below other open regions the first
	 * start stands (the stack has one frame for it, under theirs). */
	if (t && ann__open(t, tag) >= 0) {
		fprintf(stderr, "WARN: Region %s was already started\n", tag);
		if (hs_region__drop_top(tag))
			(void)hs_ann__begin(HS_ANN_LIKWID, tag);
		return 0;
	}
	(void)hs_ann__begin(HS_ANN_LIKWID, tag);
	return 0;
}

int hs_ann__likwid_stop(const char *tag)
{
	struct hs_thread *t = hs_self;
	uint64_t before;

	if (!likwid__ready())
		return -EFAULT;
	if (!tag)
		return -EFAULT;
	if (!t) { /* not counted: the core counts the call */
		hpcshim_region_end(tag);
		return 0;
	}
	before = __atomic_load_n(&t->agg->warn.unmatched_end, __ATOMIC_RELAXED);
	hpcshim_region_end(tag); /* an unmatched end is the shim's warning too */
	if (__atomic_load_n(&t->agg->warn.unmatched_end, __ATOMIC_RELAXED) != before) {
		fprintf(stderr, "WARN: Stopping an unknown/not-started region %s\n",
			tag);
		return -EFAULT;
	}
	return 0;
}

/* Inclusive figures of r now: what GetRegion reports before the base. */
static void likwid__figures(const struct hs_thread *t, const struct agg_region *r,
			    uint64_t *calls, uint64_t *wall, uint64_t *v)
{
	*calls = __atomic_load_n(&r->calls, __ATOMIC_RELAXED) +
		 __atomic_load_n(&r->unmeasured, __ATOMIC_RELAXED);
	*wall = __atomic_load_n(&r->wall.incl, __ATOMIC_RELAXED);
	for (int e = 0; e < t->nev && v; e++)
		v[e] = __atomic_load_n(&r->c[e].value, __ATOMIC_RELAXED);
}

static struct ann_base *likwid__base(struct ann_thread *a, const struct agg_region *r)
{
	for (struct ann_base *b = a ? a->bases : NULL; b; b = b->next)
		if (b->r == r)
			return b;
	return NULL;
}

int hs_ann__likwid_reset(const char *tag)
{
	struct hs_thread *t = hs_self;
	struct agg_region *r;
	struct ann_thread *a;
	struct ann_base *b;

	if (!likwid__ready())
		return -EFAULT;
	if (!t || !tag)
		return -EFAULT;
	/* LIKWID 5.2 resets a stopped region only: one never started on
	 * this thread is a new one to it (libperfctr.c: MARKER_STATE_NEW),
	 * refused as a running one is. */
	r = agg_thread__find(t->agg, tag);
	if (!r || ann__open(t, tag) >= 0) {
		fprintf(stderr, "ERROR: Can only reset stopped regions\n");
		return -EFAULT;
	}
	a = ann__self(t);
	if (!a)
		return -ENOMEM;
	b = likwid__base(a, r);
	if (!b) {
		b = calloc(1, sizeof(*b) + (size_t)t->nev * sizeof(b->v[0]));
		if (!b)
			return -ENOMEM;
		b->r = r;
		b->next = a->bases;
		a->bases = b;
	}
	likwid__figures(t, r, &b->calls, &b->wall, b->v);
	return 0;
}

/* The calling thread's region: its call count, inclusive wall time in
 * seconds and inclusive counts in the shim's event order (the results'
 * "events"), as counted (not scaled), since the last ResetRegion.  A
 * region this thread never ran: 0 calls, 0 s, zeros. */
void hs_ann__likwid_get(const char *tag, int *nevents, double *events, double *time,
			int *count)
{
	struct hs_thread *t = hs_self;
	uint64_t calls = 0, wall = 0, v[PMU_MAX_EVENTS] = { 0 };
	const struct agg_region *r;
	const struct ann_base *b;
	int nev;

	if (!likwid__ready()) { /* as LIKWID 5.2: nothing measured */
		if (nevents)
			*nevents = 0;
		if (time)
			*time = 0;
		if (count)
			*count = 0;
		return;
	}
	nev = t ? t->nev : 0;
	r = t && tag ? agg_thread__find(t->agg, tag) : NULL;
	if (r) {
		likwid__figures(t, r, &calls, &wall, v);
		b = likwid__base(ann_slot >= 0 ? t->slot[ann_slot] : NULL, r);
		if (b) {
			calls -= b->calls;
			wall -= b->wall;
			for (int e = 0; e < nev; e++)
				v[e] -= b->v[e];
		}
	}
	if (count)
		*count = (int)calls;
	if (time)
		*time = (double)wall * 1e-9;
	if (nevents && events && *nevents > 0) {
		int n = *nevents < nev ? *nevents : nev;

		for (int e = 0; e < n; e++)
			events[e] = (double)v[e];
		*nevents = n;
	}
}

/* ---- the feature ------------------------------------------------------ */

/* HPCSHIM_ANNOTATIONS: the APIs whose calls become hpcshim regions,
 * "likwid", "papi" (default both) or "off"; the others forward to their
 * library. */
static void ann__config(struct hs_config *cfg)
{
	const char *v = getenv("HPCSHIM_ANNOTATIONS");
	int bits = hs_ann__parse(v);

	(void)cfg;
	if (bits < 0) {
		hs_var__bad("HPCSHIM_ANNOTATIONS", v,
			    "is not a list of likwid and papi, nor off; using likwid,papi");
		bits = HS_ANN_LIKWID | HS_ANN_PAPI;
	}
	hs_ann__notes_init();
	__atomic_store_n(&hs_ann__on, bits, __ATOMIC_RELAXED);
}

static void ann__thread_end(struct hs_thread *t)
{
	if (ann_slot < 0)
		return;
	ann__free(t->slot[ann_slot]);
	t->slot[ann_slot] = NULL;
}

/* The parent's per-thread state, copied into the child: its records are
 * the child's no more. */
static void ann__thread_forget(struct hs_thread *t)
{
	ann__thread_end(t);
}

static void ann__fork_child(void)
{
	struct hs_thread *t = hs_self;

	if (t && ann_slot >= 0) { /* the forking thread's bases: records change */
		ann__free(t->slot[ann_slot]);
		t->slot[ann_slot] = NULL;
	}
}

static void ann__result(struct agg_process *p, bool partial)
{
	(void)partial; /* the notes are safe to read beside running threads */
	hs_ann__notes_result(p, &hs_ann__on);
}

const struct hs_feature hs_annotations_feature = {
	.name = "annotations",
	.config = ann__config,
	.thread_end = ann__thread_end,
	.thread_forget = ann__thread_forget,
	.fork_child = ann__fork_child,
	.result = ann__result,
	.slot = &ann_slot,
};
