/* resolve.c - where the ranges, checkpoints and triggers are.
 *
 * A range resolves to address intervals when the object it names is
 * loaded; a point to one address.  Objects are scanned at start, and again
 * whenever the dynamic linker's load count (dlpi_adds) has moved: before
 * every drain (an IP in a library can only be sampled after the library
 * was mapped, so samples are never attributed before their library is
 * known) and after dlopen while a checkpoint or trigger waits for an
 * object (range.c registers for it).  Each object is scanned once (by
 * base and path); the interval table only grows, under hs_rng.lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "preload/range/internal.h"
#include "preload/range/symbols.h"

/* Object names in the results outlive everything: interned, never freed. */
static const char *intern(const char *path)
{
	static char *pool[256];
	static int npool;

	for (int i = 0; i < npool; i++)
		if (strcmp(pool[i], path) == 0)
			return pool[i];
	if (npool == (int)(sizeof(pool) / sizeof(pool[0])))
		return "(many objects)";
	pool[npool] = strdup(path);
	return pool[npool] ? pool[npool++] : "?";
}

static void iv__add(uint64_t lo, uint64_t hi, int range, const char *object)
{
	if (hs_rng.niv == RNG_MAX_IV) {
		hs_rng.iv_full = true;
		return;
	}
	hs_rng.iv[hs_rng.niv].lo = lo;
	hs_rng.iv[hs_rng.niv].hi = hi;
	hs_rng.iv[hs_rng.niv].range = range;
	hs_rng.iv[hs_rng.niv].object = object;
	hs_rng.niv++;
}

static void iv__segments(const struct sym_object *o, int range)
{
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			iv__add(o->base + ph->p_vaddr,
				o->base + ph->p_vaddr + ph->p_memsz, range,
				intern(o->path));
	}
}

/* Has this object (base and path) been scanned?  Marks it if not. */
static bool seen__check(const struct sym_object *o)
{
	uint64_t h = hs_hash__str(hs_hash__u64(HS_HASH_INIT, o->base), o->path);
	for (int i = 0; i < hs_rng.nseen; i++)
		if (hs_rng.seen[i] == h)
			return true;
	if (hs_rng.nseen == hs_rng.capseen) {
		int cap = hs_rng.capseen ? 2 * hs_rng.capseen : 64;
		uint64_t *n = realloc(hs_rng.seen, (size_t)cap * sizeof(*n));

		if (!n)
			return true; /* out of memory: scan nothing more */
		hs_rng.seen = n;
		hs_rng.capseen = cap;
	}
	hs_rng.seen[hs_rng.nseen++] = h;
	return false;
}

/* Symbol lookups of one object: who asked for names[i]. */
struct lookup {
	const struct sym_object *o;
	const char *names[RNG_MAX_RANGES + RNG_MAX_POINTS + 2];
	int who[RNG_MAX_RANGES + RNG_MAX_POINTS + 2]; /* range r, or ~point */
	int n;
};

static struct rng_point *point__by_index(int i)
{
	return i < RNG_MAX_POINTS ? &hs_rng.cp[i] : &hs_rng.trig[i - RNG_MAX_POINTS];
}

static void lookup__found(void *arg, int i, uint64_t addr, uint64_t size)
{
	struct lookup *lk = arg;
	struct rng_point *pt;

	if (lk->who[i] >= 0) {
		iv__add(addr, addr + (size ? size : 1), lk->who[i],
			intern(lk->o->path));
		return;
	}
	pt = point__by_index(~lk->who[i]);
	pt->defs++;
	if (__atomic_load_n(&pt->addr, __ATOMIC_RELAXED) == 0) {
		pt->object = intern(lk->o->path);
		__atomic_store_n(&pt->addr, addr, __ATOMIC_SEQ_CST);
	}
}

static bool obj_ok(const struct sym_object *o, const char *obj)
{
	return obj[0] == '\0' || hs_range_sym__matches(o, obj);
}

static void point__object(struct lookup *lk, struct rng_point *pt, int idx)
{
	const struct rng_place *pl = pt->pl;

	if (pt->dropped || __atomic_load_n(&pt->addr, __ATOMIC_RELAXED))
		return;
	if (pl->form == RNG_ADDR && pl->obj[0] &&
	    hs_range_sym__matches(lk->o, pl->obj)) {
		pt->object = intern(lk->o->path);
		pt->defs = 1;
		__atomic_store_n(&pt->addr, lk->o->base + pl->lo, __ATOMIC_SEQ_CST);
	} else if (pl->form == RNG_FUNC && obj_ok(lk->o, pl->obj)) {
		lk->names[lk->n] = pl->name;
		lk->who[lk->n++] = ~idx;
	}
}

static void resolve__object(const struct sym_object *o)
{
	const struct hs_range_config *rc = hs_rng.rc;
	struct lookup lk = { .o = o };

	for (int r = 0; r < rc->nranges; r++) {
		const struct rng_place *pl = &rc->range[r];

		if ((pl->form == RNG_SO && hs_range_sym__matches(o, pl->name)) ||
		    (pl->form == RNG_EXE && o->is_exe))
			iv__segments(o, r);
		else if (pl->form == RNG_ADDR && pl->obj[0] &&
			 hs_range_sym__matches(o, pl->obj))
			iv__add(o->base + pl->lo, o->base + pl->hi, r, intern(o->path));
		else if (pl->form == RNG_FUNC && obj_ok(o, pl->obj)) {
			lk.names[lk.n] = pl->name;
			lk.who[lk.n++] = r;
		}
	}
	for (int i = 0; i < hs_rng.ncp; i++)
		point__object(&lk, &hs_rng.cp[i], i);
	for (int k = 0; k < 2; k++)
		if (hs_rng.has_trig[k])
			point__object(&lk, &hs_rng.trig[k], RNG_MAX_POINTS + k);
	if (lk.n)
		hs_range_sym__lookup(o, lk.names, lk.n, lookup__found, &lk);
}

void hs_range_resolve__new_objects(bool install)
{
	unsigned long long adds = hs_range_sym__adds();
	struct sym_object *objs;
	int n;

	if (adds == hs_rng.adds)
		return;
	hs_rng.adds = adds;
	objs = hs_range_sym__objects(&n);
	if (!objs)
		return;
	for (int i = 0; i < n; i++)
		if (!seen__check(&objs[i]))
			resolve__object(&objs[i]);
	free(objs);
	hs_range_points__verify();
	if (install)
		hs_range_points__install();
}

void hs_range_resolve__start(void)
{
	const struct hs_range_config *rc = hs_rng.rc;

	/* addr:START-END without an object: resolved as written, first. */
	for (int r = 0; r < rc->nranges; r++)
		if (rc->range[r].form == RNG_ADDR && !rc->range[r].obj[0])
			iv__add(rc->range[r].lo, rc->range[r].hi, r, NULL);
	pthread_mutex_lock(&hs_rng.lock);
	hs_rng.adds = ~0ull; /* scan even if nothing was ever loaded */
	hs_range_resolve__new_objects(false); /* no thread yet */
	pthread_mutex_unlock(&hs_rng.lock);
}

/* ---- what matched nothing ----------------------------------------------- */

bool hs_range_resolve__range_ok(int r)
{
	const struct rng_place *pl = &hs_rng.rc->range[r];

	if (pl->form == RNG_KERNEL || pl->form == RNG_EXE ||
	    (pl->form == RNG_ADDR && !pl->obj[0]))
		return true;
	for (int i = 0; i < hs_rng.niv; i++)
		if (hs_rng.iv[i].range == r)
			return true;
	return false;
}

void hs_range_place__why(const struct rng_place *pl, char *buf, size_t len)
{
	if (pl->form == RNG_FUNC)
		snprintf(buf, len, "no function named '%.80s' in %s%.80s%s", pl->name,
			 pl->obj[0] ? "an object named '" :
				      "the executable or any "
				      "loaded object",
			 pl->obj, pl->obj[0] ? "'" : "");
	else
		snprintf(buf, len, "no loaded object named '%.80s'",
			 pl->form == RNG_SO ? pl->name : pl->obj);
}
