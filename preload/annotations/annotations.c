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
 * restarts the region, a double start and a stop of a region not started
 * print LIKWID's warnings and return what LIKWID returns, likwid_markerGetRegion reports the shim's own counts of
 * the thread's region (less what likwid_markerResetRegion set aside);
 * PAPI's calls return PAPI_OK.  Neither library runs: nothing of theirs
 * is written.
 *
 * The results note which API each region name came from, and how many
 * PAPI_hl_read points each had: the top-level "annotations" (schema.md).
 * A thread finds whether it noted a region already in a small cache of
 * its own (the region record's address), so a boundary costs no lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/out.h"
#include "aggregate/section.h"
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

/* ---- the process's notes: which API named which region ---------------- */

struct ann_name {
	struct ann_name *next; /* published with release: read without a lock */
	unsigned bits;         /* enum hs_ann_api, atomic */
	uint64_t reads;        /* PAPI_hl_read points, atomic */
	char name[];
};

static struct ann_name *names; /* newest first */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ann_name *names__get(const char *name)
{
	struct ann_name *n;
	size_t len = strlen(name);

	pthread_mutex_lock(&names_lock);
	for (n = names; n; n = n->next)
		if (strcmp(n->name, name) == 0)
			goto out;
	n = calloc(1, sizeof(*n) + len + 1);
	if (n) {
		memcpy(n->name, name, len + 1);
		n->next = names;
		__atomic_store_n(&names, n, __ATOMIC_RELEASE);
	}
out:
	pthread_mutex_unlock(&names_lock);
	return n;
}

/* ---- per thread: the regions noted, what ResetRegion set aside ---------- */

#define ANN_CACHE 64

/* What likwid_markerGetRegion subtracts: the region's figures at the
 * thread's last likwid_markerResetRegion of it. */
struct ann_base {
	struct ann_base *next;
	const struct agg_region *r;
	uint64_t calls, wall;
	uint64_t v[];
};

struct ann_thread {
	struct {
		const struct agg_region *r;
		struct ann_name *n;
	} cache[ANN_CACHE];
	const char *seen[ANN_CACHE]; /* name pointers whose entry exists */
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

/* Notes that api named region r (the thread's record) and, for a read,
 * one more read point. */
static void ann__note(struct hs_thread *t, const struct agg_region *r, unsigned api,
		      bool read)
{
	struct ann_thread *a = ann__self(t);
	struct ann_name *n = NULL;
	size_t i;

	if (!r)
		return;
	i = ((uintptr_t)r >> 4) & (ANN_CACHE - 1);
	if (a && a->cache[i].r == r)
		n = a->cache[i].n;
	if (!n) {
		n = names__get(r->name);
		if (!n)
			return;
		if (a) {
			a->cache[i].r = r;
			a->cache[i].n = n;
		}
	}
	if (unlikely(!(__atomic_load_n(&n->bits, __ATOMIC_RELAXED) & api)))
		__atomic_fetch_or(&n->bits, api, __ATOMIC_RELAXED);
	if (read)
		__atomic_fetch_add(&n->reads, 1, __ATOMIC_RELAXED);
}

/* The innermost open frame of name on t, or -1. */
static int ann__open(const struct hs_thread *t, const char *name)
{
	for (int k = t->depth - 1; k >= 0; k--)
		if (strcmp(t->frames[k].region->name, name) == 0)
			return k;
	return -1;
}

/* Before a boundary: the thread's state and the name's entry made, so
 * that a first call's allocations (a fresh heap page) come before the
 * counters are read, not inside the region (exact page faults per call).
 * The note after the boundary then finds both.  Keyed by the name's
 * pointer: the same literal on every call costs one load and a compare. */
static void ann__prepare(struct hs_thread *t, const char *name)
{
	struct ann_thread *a = ann__self(t);
	size_t i = ((uintptr_t)name >> 3) & (ANN_CACHE - 1);

	if (a && a->seen[i] == name)
		return;
	if (names__get(name) && a)
		a->seen[i] = name;
}

/* A region boundary through the public entry points, then the note: the
 * region of the frame the begin opened. */
static void ann__begin(unsigned api, const char *name)
{
	struct hs_thread *t = hs_self;
	int depth = t ? t->depth : 0;

	ann__prepare(t, name);
	hpcshim_region_begin(name);
	if (t && t->depth > depth)
		ann__note(t, t->frames[t->depth - 1].region, api, false);
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

/* Names are looked up at every call: registering adds nothing. */
int hs_ann__likwid_register(const char *tag)
{
	(void)tag;
	return likwid__ready() ? 0 : -EFAULT;
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
			ann__begin(HS_ANN_LIKWID, tag);
		return 0;
	}
	ann__begin(HS_ANN_LIKWID, tag);
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
	r = agg_thread__find(t->agg, tag);
	if (!r)
		return -ENOENT; /* LIKWID: no such region on this thread */
	if (ann__open(t, tag) >= 0) {
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

/* ---- PAPI ------------------------------------------------------------ */

int hs_ann__papi_begin(const char *name)
{
	ann__begin(HS_ANN_PAPI, name ? name : "(null)");
	return 0;
}

int hs_ann__papi_end(const char *name)
{
	hpcshim_region_end(name);
	return 0;
}

/* PAPI stores the counts since the region's begin as an intermediate
 * result of the region; here the read point is counted for the region
 * (its "reads" in "annotations"), the counts stay the region's. */
int hs_ann__papi_read(const char *name)
{
	struct hs_thread *t = hs_self;
	int k;

	if (t && name && (k = ann__open(t, name)) >= 0)
		ann__note(t, t->frames[k].region, HS_ANN_PAPI, true);
	return 0;
}

/* Regions still open stay open (closed at the thread's end, as any). */
int hs_ann__papi_stop(void)
{
	return 0;
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

	pthread_mutex_init(&names_lock, NULL);
	if (t && ann_slot >= 0) { /* the forking thread's cache: records change */
		ann__free(t->slot[ann_slot]);
		t->slot[ann_slot] = NULL;
	}
}

static const char *const api_names[] = { "likwid", "papi" };

/* "annotations": {"apis": [...], "regions": {name: {"api": [...],
 * "reads": n}}}, after "wrap"; only when a region came from one. */
static void ann__head(struct agg_out *o, int depth, bool *first,
		      const struct agg_process *p, const void *arg)
{
	struct ann_name *head = __atomic_load_n(&names, __ATOMIC_ACQUIRE);
	struct json_object *top, *apis, *regions;
	int on = __atomic_load_n(&hs_ann__on, __ATOMIC_RELAXED);

	(void)p;
	(void)arg;
	top = json_object_new_object();
	apis = json_object_new_array();
	regions = json_object_new_object();
	for (int i = 0; i < 2; i++)
		if (on & (1 << i))
			json_object_array_add(apis,
					      json_object_new_string(api_names[i]));
	/* Oldest first: the order the names first came. */
	size_t n = 0;
	for (struct ann_name *x = head; x;
	     x = __atomic_load_n(&x->next, __ATOMIC_ACQUIRE))
		n++;
	struct ann_name **v = calloc(n ? n : 1, sizeof(*v));
	size_t k = n;
	for (struct ann_name *x = head; x && v;
	     x = __atomic_load_n(&x->next, __ATOMIC_ACQUIRE))
		v[--k] = x;
	for (size_t i = 0; v && i < n; i++) {
		struct json_object *r = json_object_new_object(),
				   *a = json_object_new_array();
		unsigned bits = __atomic_load_n(&v[i]->bits, __ATOMIC_RELAXED);
		uint64_t reads = __atomic_load_n(&v[i]->reads, __ATOMIC_RELAXED);

		for (int j = 0; j < 2; j++)
			if (bits & (1u << j))
				json_object_array_add(
					a, json_object_new_string(api_names[j]));
		json_object_object_add(r, "api", a);
		if (reads)
			json_object_object_add(r, "reads",
					       json_object_new_uint64(reads));
		json_object_object_add(regions, v[i]->name, r);
	}
	free(v);
	json_object_object_add(top, "apis", apis);
	json_object_object_add(top, "regions", regions);
	agg_out__member(o, depth, first, "annotations", top);
}

static const struct agg_section ann_section = {
	.name = "annotations",
	.order = 40, /* after presets 10, mux 20, wrap 30 */
	.head = ann__head,
};

static void ann__result(struct agg_process *p, bool partial)
{
	(void)partial; /* the notes are safe to read beside running threads */
	if (__atomic_load_n(&names, __ATOMIC_ACQUIRE))
		agg_sections__add(&p->sections, &ann_section, NULL);
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
