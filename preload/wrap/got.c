/* got.c - point the GOT slots of wrapped names at their wrappers.
 *
 * Every call from one object to a function of another goes through a slot
 * of the caller's GOT: a JUMP_SLOT (the PLT's, DT_JMPREL) or, for -fno-plt
 * code and address-taken functions, a GLOB_DAT (DT_RELA).  Rewriting those
 * slots (GOTCHA's way) reaches every call that can be reached without
 * touching code.  Each object's relocations are walked; a slot of a
 * wrapped name gets the closure of the definition it leads to:
 *
 *   - bound (now, or lazily already used): its value is the definition;
 *   - lazy and not used yet (its value is inside the object's own PLT):
 *     the definition the dynamic linker would pick, the global scope first
 *     and then the object's own (a library dlopen'ed RTLD_LOCAL);
 *   - already a wrapper: left alone, so walking again is harmless.
 *
 * Each loaded object is walked once (hs_wrap_got__patch_new): at start,
 * then after each dlopen the objects it loaded.  What the walk found in an
 * object is kept: each slot of a wrapped name and the value left in it.
 * A slot that may still change (lazy, unbound, no definition yet) is
 * pending and tried again at every later pass, so a definition that
 * arrives with a later library reaches the callers loaded before it.  A
 * new load at a known link map (dlclose, dlopen again) is told by the
 * loader's load count and by the slots: they no longer hold what was left.
 *
 * Slots inside PT_GNU_RELRO (-z relro -z now) are read-only: the page is
 * made writable for the store and read-only again.  The store is one
 * aligned 8-byte atomic write: a thread calling through the slot meanwhile
 * sees the old or the new target, never a mix.
 *
 * Never patched: the shim and its MPI plugins (their calls are its own), the libraries it
 * brought (libffi, libpfm4, json-c: their calls serve the shim), libc and
 * the dynamic linker (their internal calls are not the program's) and the
 * vDSO.  The calls to dlsym and dlvsym of every other object are pointed
 * at dlsym.c, so that a pointer the program looks up is the wrapper too.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/hash.h"
#include "preload/base/log.h"
#include "preload/wrap/internal.h"

#if defined(__x86_64__)
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#else
#error "HPCSHIM_WRAP: GOT patching for this architecture is not written"
#endif

struct object {
	uintptr_t base;
	const char *name;
	const ElfW(Phdr) * phdr;
	int phnum;
};

static const char *const never[] = {
	"libffi.so", "libpfm.so",  "libjson-c.so", "libc.so.",   "ld-linux",
	"ld64.so",   "linux-vdso", "linux-gate",   "libhpcshim",
	"hpcshim-mpi-", /* the shim's MPI plugins: their calls are the shim's */
};

/* The shim's own load address, found once. */
static uintptr_t self_base;

static bool object__skipped(const struct object *o)
{
	const char *slash = strrchr(o->name, '/');
	const char *base = slash ? slash + 1 : o->name;

	if (!self_base) {
		Dl_info self;

		if (dladdr((void *)object__skipped, &self))
			self_base = (uintptr_t)self.dli_fbase;
	}
	if (self_base == o->base)
		return true;
	for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++)
		if (!strncmp(base, never[i], strlen(never[i])))
			return true;
	return false;
}

/* The objects dl_iterate_phdr lists, and the loader's counts of loads and
 * unloads so far (every entry carries the same two). */
struct objlist {
	struct object *o;
	int n, cap;
	unsigned long long adds, subs;
	bool counted; /* adds and subs known (glibc 2.4 and later)     */
	bool first;   /* the counts only: stop after the first entry  */
	bool failed;  /* no memory: the list is short                  */
};

static int objects__cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct objlist *l = data;

	if (!l->n && !l->counted &&
	    size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		l->adds = info->dlpi_adds;
		l->subs = info->dlpi_subs;
		l->counted = true;
	}
	if (l->first)
		return 1;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		struct object *o = realloc(l->o, (size_t)cap * sizeof(*o));

		if (!o) {
			l->failed = true;
			return 1;
		}
		l->o = o;
		l->cap = cap;
	}
	l->o[l->n++] = (struct object){ info->dlpi_addr,
					info->dlpi_name ? info->dlpi_name : "",
					info->dlpi_phdr, info->dlpi_phnum };
	return 0;
}

/* A dynamic-section address: relocated by ld.so on most targets, not in
 * the vDSO or on some architectures. */
static uintptr_t dyn__ptr(const struct object *o, uintptr_t v)
{
	return v < o->base ? v + o->base : v;
}

struct relro {
	uintptr_t start, end; /* page-aligned, or 0 */
};

static void slot__store(void **slot, void *v, const struct relro *r)
{
	uintptr_t a = (uintptr_t)slot;
	bool ro = a >= r->start && a < r->end;
	long pg = sysconf(_SC_PAGESIZE);
	void *page = (void *)(a & ~((uintptr_t)pg - 1));

	if (ro && mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE) != 0)
		return;
	__atomic_store_n(slot, v, __ATOMIC_RELEASE);
	if (ro)
		mprotect(page, (size_t)pg, PROT_READ);
}

static bool object__inside(const struct object *o, uintptr_t v)
{
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];

		if (p->p_type == PT_LOAD && v >= o->base + p->p_vaddr &&
		    v < o->base + p->p_vaddr + p->p_memsz)
			return true;
	}
	return false;
}

static bool def__in_object(void *def, const char *object)
{
	Dl_info di;
	const char *slash, *base;

	if (!dladdr(def, &di) || !di.dli_fname)
		return false;
	slash = strrchr(di.dli_fname, '/');
	base = slash ? slash + 1 : di.dli_fname;
	return strstr(base, object) != NULL;
}

/* One slot of a wrapped name (or of dlsym/dlvsym) in a known object:
 * what the walk left in it.  "pending": not patched, and its value may
 * still change (lazy, not bound yet: its definition may arrive with a
 * later library, or the program's first call binds it): tried again on
 * every pass. */
struct slotrec {
	void **slot;
	void *left;
	const char *name; /* in the object's string table */
	uintptr_t own;
	bool pending;
};

/* A loaded object as the walk knows it: its identity (its link map, its
 * base, its name and program headers: the same load keeps them all) and
 * the load generation it was first seen in (the loader's dlpi_adds then),
 * the slots of wrapped names and what was left in them. */
struct known {
	struct object o; /* o.name: our copy */
	ElfW(Phdr) * ph; /* a copy of o.phdr[]: an unloaded one's is gone */
	void *lm;
	unsigned long long gen;
	struct relro r;
	bool skipped, live;
	struct slotrec *rec;
	int nrec, caprec, npending;
};

enum slot_outcome {
	SLOT_OTHER,   /* no wrapped name: nothing to keep             */
	SLOT_FINAL,   /* patched, or left alone for good              */
	SLOT_PENDING, /* not patched: may be later (struct slotrec)  */
};

static bool name__dl(const char *name)
{
	return name[0] == 'd' && name[1] == 'l' &&
	       (!strcmp(name, "dlsym") || !strcmp(name, "dlvsym"));
}

static enum slot_outcome slot__wrap(const struct object *o, void *lm, void **slot,
				    const char *name, uintptr_t own,
				    const struct relro *r)
{
	void *v = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *def;
	enum slot_outcome out = SLOT_OTHER;
	bool lazy;
	size_t j;

	if (name__dl(name)) {
		void *ours = !strcmp(name, "dlsym") ? (void *)hs_wrap_dlsym__dlsym :
						      (void *)hs_wrap_dlsym__dlvsym;
		if (v != ours)
			slot__store(slot, ours, r);
		return SLOT_FINAL;
	}
	/* Lazy and unused: the slot leads to the object's own PLT. */
	lazy = (uintptr_t)v != own && object__inside(o, (uintptr_t)v);
	for (j = hs_hash__str(HS_HASH_INIT, name) & (hs_wrap.cap - 1);
	     hs_wrap.tab[j] >= 0; j = (j + 1) & (hs_wrap.cap - 1)) {
		struct wrap_spec *s = &hs_wrap.spec[hs_wrap.tab[j]];
		struct wrap_target *tg;

		if (s->state != WS_PENDING || strcmp(s->name, name))
			continue;
		if (hs_wrap_closure__by_code(v))
			return SLOT_FINAL; /* ours already */
		out = lazy ? SLOT_PENDING : SLOT_FINAL;
		def = lazy ? hs_wrap_dlsym__resolve(name, lm) : v;
		if (!def || (s->object && !def__in_object(def, s->object)))
			continue;
		tg = hs_wrap_closure__target(s, def);
		if (!tg)
			return SLOT_PENDING;
		if (!s->defobj[0]) {
			Dl_info di;

			if (dladdr(def, &di) && di.dli_fname)
				snprintf(s->defobj, sizeof(s->defobj), "%s",
					 di.dli_fname);
		}
		slot__store(slot, tg->code, r);
		__atomic_fetch_add(&s->slots, 1, __ATOMIC_RELAXED);
		return SLOT_FINAL;
	}
	return out;
}

static void known__keep(struct known *k, void **slot, const char *name, uintptr_t own,
			enum slot_outcome out)
{
	if (k->nrec == k->caprec) {
		int cap = k->caprec ? 2 * k->caprec : 16;
		struct slotrec *n = realloc(k->rec, (size_t)cap * sizeof(*n));

		if (!n)
			return; /* not verifiable: a reload of it is walked again */
		k->rec = n;
		k->caprec = cap;
	}
	k->rec[k->nrec++] = (struct slotrec){ slot, __atomic_load_n(slot, __ATOMIC_ACQUIRE),
					      name, own, out == SLOT_PENDING };
	k->npending += out == SLOT_PENDING;
}

static void relas__walk(struct known *k, const ElfW(Rela) * rel, size_t size,
			const ElfW(Sym) * symtab, const char *strtab)
{
	const struct object *o = &k->o;

	for (size_t i = 0; i < size / sizeof(*rel); i++) {
		unsigned type = (unsigned)ELF64_R_TYPE(rel[i].r_info);
		const ElfW(Sym) * sym;
		void **slot;
		const char *name;
		uintptr_t own;
		enum slot_outcome out;
		unsigned st;

		if (type != R_JUMP_SLOT && type != R_GLOB_DAT)
			continue;
		sym = &symtab[ELF64_R_SYM(rel[i].r_info)];
		st = ELF64_ST_TYPE(sym->st_info);
		if (!sym->st_name ||
		    (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE))
			continue;
		slot = (void **)(o->base + rel[i].r_offset);
		name = strtab + sym->st_name;
		own = sym->st_shndx == SHN_UNDEF ? 0 : o->base + sym->st_value;
		out = slot__wrap(o, k->lm, slot, name, own, &k->r);
		if (out != SLOT_OTHER)
			known__keep(k, slot, name, own, out);
	}
}

/* Walks every relocation of k's object (its record made anew). */
static void known__walk(struct known *k)
{
	const struct object *o = &k->o;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const ElfW(Rela) *jmprel = NULL, *rela = NULL;
	size_t pltsz = 0, relasz = 0;
	long pg = sysconf(_SC_PAGESIZE);

	k->nrec = k->npending = 0;
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];

		if (p->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(o->base + p->p_vaddr);
		else if (p->p_type == PT_GNU_RELRO) {
			k->r.start = (o->base + p->p_vaddr) & ~((uintptr_t)pg - 1);
			k->r.end = (o->base + p->p_vaddr + p->p_memsz + (uintptr_t)pg - 1) &
				   ~((uintptr_t)pg - 1);
		}
	}
	if (!dyn)
		return;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			symtab = (void *)dyn__ptr(o, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = (void *)dyn__ptr(o, dyn->d_un.d_ptr);
			break;
		case DT_JMPREL:
			jmprel = (void *)dyn__ptr(o, dyn->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			pltsz = dyn->d_un.d_val;
			break;
		case DT_RELA:
			rela = (void *)dyn__ptr(o, dyn->d_un.d_ptr);
			break;
		case DT_RELASZ:
			relasz = dyn->d_un.d_val;
			break;
		default:
			break;
		}
	}
	if (!symtab || !strtab)
		return;
	if (jmprel)
		relas__walk(k, jmprel, pltsz, symtab, strtab);
	if (rela)
		relas__walk(k, rela, relasz, symtab, strtab);
}

/* The pending slots of a known object, tried again: a definition that
 * arrived with a later library, a slot the program's call has bound. */
static void known__retry(struct known *k)
{
	for (int i = 0; i < k->nrec && k->npending; i++) {
		struct slotrec *s = &k->rec[i];

		if (!s->pending)
			continue;
		s->pending = slot__wrap(&k->o, k->lm, s->slot, s->name, s->own, &k->r) ==
			     SLOT_PENDING;
		s->left = __atomic_load_n(s->slot, __ATOMIC_ACQUIRE);
		k->npending -= !s->pending;
	}
}

/* Whether k's slots hold what the walk left in them: a new load at the
 * same link map (dlclose, then dlopen again) has its relocations' values
 * there, never a wrapper.  A pending slot the program's call bound since
 * counts as changed too: the object is walked again, which patches it. */
static bool known__intact(const struct known *k)
{
	for (int i = 0; i < k->nrec; i++)
		if (__atomic_load_n(k->rec[i].slot, __ATOMIC_ACQUIRE) != k->rec[i].left)
			return false;
	return true;
}

/* The objects walked so far, under hs_wrap.lock, and the loader's counts
 * at the last pass. */
static struct known *known;
static int nknown, capknown;
static unsigned long long known_adds, known_subs;
static bool known_counted;

/* The link map of o, or NULL while the object is still being loaded by
 * another thread's dlopen (glibc adds an object to _dl_find_object's data
 * only once it is relocated: walking it earlier would patch slots that
 * its relocation then overwrites). */
static void *object__lm(const struct object *o)
{
	void *at = NULL;

	for (int i = 0; i < o->phnum && !at; i++)
		if (o->phdr[i].p_type == PT_LOAD)
			at = (void *)(o->base + o->phdr[i].p_vaddr);
	if (!at)
		return NULL;
#ifdef DLFO_EH_SEGMENT_TYPE
	{
		struct dl_find_object f;

		return _dl_find_object(at, &f) == 0 ? f.dlfo_link_map : NULL;
	}
#else
	{
		Dl_info di;
		void *lm = NULL;

		return dladdr1(at, &di, &lm, RTLD_DL_LINKMAP) ? lm : NULL;
	}
#endif
}

static bool known__same(const struct known *k, const struct object *o, void *lm)
{
	return k->lm == lm && k->o.base == o->base && k->o.phnum == o->phnum &&
	       k->o.phdr == o->phdr && !strcmp(k->o.name, o->name) &&
	       !memcmp(k->ph, o->phdr, (size_t)o->phnum * sizeof(*o->phdr));
}

static void known__free(struct known *k)
{
	free((void *)k->o.name);
	free(k->ph);
	free(k->rec);
}

static struct known *known__add(const struct object *o, void *lm, unsigned long long gen)
{
	struct known *k;
	ElfW(Phdr) * ph;
	char *name;

	if (nknown == capknown) {
		int cap = capknown ? 2 * capknown : 128;
		struct known *n = realloc(known, (size_t)cap * sizeof(*n));

		if (!n)
			return NULL;
		known = n;
		capknown = cap;
	}
	name = strdup(o->name);
	ph = malloc((size_t)o->phnum * sizeof(*ph) + 1);
	if (!name || !ph) {
		free(name);
		free(ph);
		return NULL;
	}
	memcpy(ph, o->phdr, (size_t)o->phnum * sizeof(*ph));
	k = &known[nknown++];
	*k = (struct known){ .o = *o, .ph = ph, .lm = lm, .gen = gen, .live = true };
	k->o.name = name;
	k->skipped = object__skipped(o);
	return k;
}

/* Patches what is new since the last call: the objects loaded since
 * (each walked once), and in the known ones the pending slots.
 *
 * The loader counts loads and unloads (dlpi_adds, dlpi_subs): when
 * neither moved, nothing was loaded and only the pending slots are tried
 * again (a library promoted to RTLD_GLOBAL, a lazy slot bound since).
 * Otherwise the objects are listed and matched with the known ones by
 * link map, base, name and program headers; the known ones not listed
 * any more were unloaded and are forgotten.  A library unloaded and
 * loaded again may get the same link map at the same address: a new
 * load generation under the same identity.  When the loads since the
 * last pass are exactly the new link maps listed, no known one can be a
 * new load; when they are more (a reload, or a load undone by a failed
 * dlopen), every known object whose slots no longer hold what the walk
 * left in them is walked again (known__intact). */
void hs_wrap_got__patch_new(void)
{
	struct objlist l = { .first = true };
	void **lms;
	int fresh = 0, old = nknown, j, walked = 0, again = 0;
	bool complete, trusted, first = !known_adds && !nknown;

	dl_iterate_phdr(objects__cb, &l);
	if (l.counted && known_counted && l.adds == known_adds && l.subs == known_subs) {
		for (int i = 0; i < nknown; i++)
			if (!known[i].skipped)
				known__retry(&known[i]);
		return;
	}
	/* Collected first: the lookups below take the loader's locks. */
	l = (struct objlist){ 0 };
	dl_iterate_phdr(objects__cb, &l);
	lms = calloc((size_t)l.n + 1, sizeof(*lms));
	if (!lms || l.failed) {
		free(lms);
		free(l.o);
		return; /* no memory: the next dlopen's pass tries again */
	}
	complete = l.counted;
	for (int i = 0; i < nknown; i++)
		known[i].live = false;
	/* Each listed object: a known one (live again) or a new one (its link
	 * map kept in lms[i]). */
	for (int i = 0; i < l.n; i++) {
		struct object *o = &l.o[i];
		void *lm = object__lm(o);

		if (!lm && !object__skipped(o)) {
			complete = false; /* not relocated yet: next time */
			continue;
		}
		for (j = 0; j < old; j++)
			if (!known[j].live && known__same(&known[j], o, lm))
				break;
		if (j < old) {
			known[j].live = true;
			continue;
		}
		lms[i] = lm ? lm : (void *)o; /* non-NULL: new */
		fresh++;
	}
	/* The unloaded ones: forgotten. */
	for (int i = j = 0; i < old; i++) {
		if (known[i].live)
			known[j++] = known[i];
		else
			known__free(&known[i]);
	}
	nknown = old = j;
	/* The known ones: when the loads since the last pass are more than
	 * the new link maps, some known link map may be a new load. */
	trusted = l.counted && known_counted && l.adds - known_adds == (unsigned long long)fresh;
	for (int i = 0; i < old; i++) {
		struct known *k = &known[i];

		if (k->skipped)
			continue;
		if (!trusted && !known__intact(k)) {
			k->gen = l.adds; /* maybe a new load: walked again */
			known__walk(k);
			again++;
		} else {
			known__retry(k);
		}
	}
	/* The new ones, walked once. */
	for (int i = 0; i < l.n; i++) {
		struct known *k;

		if (!lms[i])
			continue;
		k = known__add(&l.o[i], lms[i] == (void *)&l.o[i] ? NULL : lms[i], l.adds);
		if (!k) {
			complete = false;
			continue;
		}
		if (!k->skipped) {
			known__walk(k);
			walked++;
		}
	}
	/* Counts kept only when every object listed is known: otherwise the
	 * next pass lists them again. */
	known_counted = complete;
	known_adds = l.adds;
	known_subs = l.subs;
	hs_log(HS_LOG_DEBUG,
	       "HPCSHIM_WRAP: %s: %d new object%s walked, %d walked again (a new load "
	       "at a known link map), %d known",
	       first ? "start" : "dlopen", walked, walked == 1 ? "" : "s", again, nknown);
	free(lms);
	free(l.o);
}
