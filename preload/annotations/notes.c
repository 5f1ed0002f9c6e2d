/* notes.c - the process's notes on the region names LIKWID's and PAPI's
 * calls gave: which API named each, how many PAPI_hl_read points it had
 * (the results' "annotations", docs/schema.md).
 *
 * Every marker boundary finds its name's note, so the lookup is on the
 * hot path: a name already seen is found in constant time with no lock
 * (common/strtab.h, the project's one string table, read lock-free beside
 * its interns); only a name's first call takes names_lock, to intern it.
 * A note is found by the name's index in the table; notes live in
 * segments that never move (segment k holds NOTE_SEG0 << k of them), so a
 * note found stays where it is while more are added.
 */
#include <pthread.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "aggregate/out.h"
#include "aggregate/section.h"
#include "common/compiler.h"
#include "common/strtab.h"
#include "preload/annotations/internal.h"

struct ann_note {
	const char *name; /* the table's copy, set before the note is counted */
	unsigned bits;    /* enum hs_ann_api, atomic */
	uint64_t reads;   /* PAPI_hl_read points, atomic */
};

#define NOTE_SEG0_BITS 6
#define NOTE_SEG0 (1u << NOTE_SEG0_BITS)
#define NOTE_SEGS 40 /* 2^46 notes: more than memory holds */

static struct hs_strtab names;           /* interned under names_lock */
static struct ann_note *segs[NOTE_SEGS]; /* published with release */
static size_t nnotes;                    /* notes with their name (atomic) */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

/* Note ix's segment (index k) and its place there. */
static int note__seg(size_t ix, size_t *off)
{
	size_t j = ix + NOTE_SEG0;
	int k = 63 - __builtin_clzll(j) - NOTE_SEG0_BITS;

	*off = j - ((size_t)NOTE_SEG0 << k);
	return k;
}

static struct ann_note *note__at(size_t ix)
{
	size_t off;
	int k = note__seg(ix, &off);

	return __atomic_load_n(&segs[k], __ATOMIC_ACQUIRE) + off;
}

/* The note of a name not found without the lock (under names_lock): its
 * segment made before the name is interned, since a lookup that finds the
 * name goes straight to its note. */
static struct ann_note *note__add(const char *name)
{
	size_t off;
	int k = note__seg(names.n, &off);
	struct ann_note *n;
	bool added;
	long ix;

	if (!segs[k]) {
		n = calloc((size_t)NOTE_SEG0 << k, sizeof(*n));
		if (!n)
			return NULL;
		__atomic_store_n(&segs[k], n, __ATOMIC_RELEASE);
	}
	ix = hs_strtab__intern(&names, name, &added);
	if (ix < 0)
		return NULL;
	n = note__at((size_t)ix);
	if (added) {
		n->name = names.name[ix];
		__atomic_store_n(&nnotes, (size_t)ix + 1, __ATOMIC_RELEASE);
	}
	return n;
}

struct ann_note *hs_ann__note_find(const char *name)
{
	long ix = name ? hs_strtab__lookup(&names, name) : -1;

	return ix >= 0 ? note__at((size_t)ix) : NULL;
}

struct ann_note *hs_ann__note_get(const char *name)
{
	struct ann_note *n = hs_ann__note_find(name);

	if (likely(n) || !name)
		return n;
	pthread_mutex_lock(&names_lock);
	n = note__add(name);
	pthread_mutex_unlock(&names_lock);
	return n;
}

void hs_ann__note_api(struct ann_note *n, unsigned api)
{
	if (unlikely(!(__atomic_load_n(&n->bits, __ATOMIC_RELAXED) & api)))
		__atomic_fetch_or(&n->bits, api, __ATOMIC_RELAXED);
}

void hs_ann__note_read(struct ann_note *n)
{
	__atomic_fetch_add(&n->reads, 1, __ATOMIC_RELAXED);
}

/* fork(): the child has only the forking thread, so no intern may be
 * half done then (the table's count and its slots apart): the lock is
 * held across the fork. */
static void notes__fork_prepare(void)
{
	pthread_mutex_lock(&names_lock);
}

static void notes__fork_done(void)
{
	pthread_mutex_unlock(&names_lock);
}

static void notes__init(void)
{
	pthread_atfork(notes__fork_prepare, notes__fork_done, notes__fork_done);
}

void hs_ann__notes_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, notes__init);
}

/* ---- the results ------------------------------------------------------- */

static const char *const api_names[] = { "likwid", "papi" };

static struct json_object *notes__apis(unsigned bits)
{
	struct json_object *a = json_object_new_array();

	for (int j = 0; j < 2; j++)
		if (bits & (1u << j))
			json_object_array_add(a, json_object_new_string(api_names[j]));
	return a;
}

/* {name: {"api": [...], "reads": n}}, in the order the names first came
 * (their index). */
static struct json_object *notes__regions(void)
{
	struct json_object *regions = json_object_new_object();
	size_t n = __atomic_load_n(&nnotes, __ATOMIC_ACQUIRE);

	for (size_t i = 0; i < n; i++) {
		const struct ann_note *x = note__at(i);
		struct json_object *r = json_object_new_object();
		uint64_t reads = __atomic_load_n(&x->reads, __ATOMIC_RELAXED);

		json_object_object_add(r, "api",
				       notes__apis(__atomic_load_n(&x->bits, __ATOMIC_RELAXED)));
		if (reads)
			json_object_object_add(r, "reads", json_object_new_uint64(reads));
		json_object_object_add(regions, x->name, r);
	}
	return regions;
}

/* "annotations": {"apis": [...], "regions": {...}}, after "wrap"; arg:
 * the APIs taken over (an int of enum hs_ann_api bits, atomic). */
static void notes__head(struct agg_out *o, int depth, bool *first,
			const struct agg_process *p, const void *arg)
{
	struct json_object *top = json_object_new_object();

	(void)p;
	json_object_object_add(top, "apis",
			       notes__apis((unsigned)__atomic_load_n((const int *)arg,
								     __ATOMIC_RELAXED)));
	json_object_object_add(top, "regions", notes__regions());
	agg_out__member(o, depth, first, "annotations", top);
}

static const struct agg_section notes_section = {
	.name = "annotations",
	.order = 40, /* after presets 10, mux 20, wrap 30 */
	.head = notes__head,
};

/* Only when a region came from one of the APIs. */
void hs_ann__notes_result(struct agg_process *p, const int *apis)
{
	if (__atomic_load_n(&nnotes, __ATOMIC_ACQUIRE))
		agg_sections__add(&p->sections, &notes_section, apis);
}
