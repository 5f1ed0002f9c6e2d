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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/hash.h"
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

static bool object__skipped(const struct object *o)
{
	Dl_info self;
	const char *slash = strrchr(o->name, '/');
	const char *base = slash ? slash + 1 : o->name;

	if (dladdr((void *)object__skipped, &self) &&
	    (uintptr_t)self.dli_fbase == o->base)
		return true;
	for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++)
		if (!strncmp(base, never[i], strlen(never[i])))
			return true;
	return false;
}

struct objlist {
	struct object *o;
	int n, cap;
};

static int objects__cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct objlist *l = data;

	(void)size;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 64;
		struct object *o = realloc(l->o, (size_t)cap * sizeof(*o));

		if (!o)
			return 1;
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

static void slot__wrap(const struct object *o, void *lm, void **slot,
		       const char *name, uintptr_t own, const struct relro *r)
{
	void *v = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *def;
	size_t j;

	if (!strcmp(name, "dlsym") || !strcmp(name, "dlvsym")) {
		void *ours = !strcmp(name, "dlsym") ? (void *)hs_wrap_dlsym__dlsym :
						      (void *)hs_wrap_dlsym__dlvsym;
		if (v != ours)
			slot__store(slot, ours, r);
		return;
	}
	for (j = hs_hash__str(HS_HASH_INIT, name) & (hs_wrap.cap - 1);
	     hs_wrap.tab[j] >= 0; j = (j + 1) & (hs_wrap.cap - 1)) {
		struct wrap_spec *s = &hs_wrap.spec[hs_wrap.tab[j]];
		struct wrap_target *tg;

		if (s->state != WS_PENDING || strcmp(s->name, name))
			continue;
		if (hs_wrap_closure__by_code(v))
			return; /* ours already */
		def = v;
		/* Lazy and unused: the slot leads to the object's own PLT. */
		if ((uintptr_t)v != own && object__inside(o, (uintptr_t)v))
			def = hs_wrap_dlsym__resolve(name, lm);
		if (!def || (s->object && !def__in_object(def, s->object)))
			continue;
		tg = hs_wrap_closure__target(s, def);
		if (!tg)
			return;
		if (!s->defobj[0]) {
			Dl_info di;

			if (dladdr(def, &di) && di.dli_fname)
				snprintf(s->defobj, sizeof(s->defobj), "%s",
					 di.dli_fname);
		}
		slot__store(slot, tg->code, r);
		__atomic_fetch_add(&s->slots, 1, __ATOMIC_RELAXED);
		return;
	}
}

static void relas__walk(const struct object *o, void *lm, const ElfW(Rela) * rel,
			size_t size, const ElfW(Sym) * symtab, const char *strtab,
			const struct relro *r)
{
	for (size_t i = 0; i < size / sizeof(*rel); i++) {
		unsigned type = (unsigned)ELF64_R_TYPE(rel[i].r_info);
		const ElfW(Sym) * sym;
		unsigned st;

		if (type != R_JUMP_SLOT && type != R_GLOB_DAT)
			continue;
		sym = &symtab[ELF64_R_SYM(rel[i].r_info)];
		st = ELF64_ST_TYPE(sym->st_info);
		if (!sym->st_name ||
		    (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE))
			continue;
		slot__wrap(o, lm, (void **)(o->base + rel[i].r_offset),
			   strtab + sym->st_name,
			   sym->st_shndx == SHN_UNDEF ? 0 : o->base + sym->st_value,
			   r);
	}
}

static void object__patch(const struct object *o)
{
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const ElfW(Rela) *jmprel = NULL, *rela = NULL;
	size_t pltsz = 0, relasz = 0;
	struct relro r = { 0, 0 };
	long pg = sysconf(_SC_PAGESIZE);
	Dl_info di;
	void *lm = NULL;

	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];

		if (p->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(o->base + p->p_vaddr);
		else if (p->p_type == PT_GNU_RELRO) {
			r.start = (o->base + p->p_vaddr) & ~((uintptr_t)pg - 1);
			r.end = (o->base + p->p_vaddr + p->p_memsz + (uintptr_t)pg - 1) &
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
	/* The object's link map: its own scope for lazy slots. */
	if (o->phnum && !dladdr1((void *)(o->base + o->phdr[0].p_vaddr), &di, &lm,
				 RTLD_DL_LINKMAP))
		lm = NULL;
	if (jmprel)
		relas__walk(o, lm, jmprel, pltsz, symtab, strtab, &r);
	if (rela)
		relas__walk(o, lm, rela, relasz, symtab, strtab, &r);
}

void hs_wrap_got__patch_all(void)
{
	struct objlist l = { 0 };

	/* Collected first: the lookups below take the loader's locks. */
	dl_iterate_phdr(objects__cb, &l);
	for (int i = 0; i < l.n; i++)
		if (!object__skipped(&l.o[i]))
			object__patch(&l.o[i]);
	free(l.o);
}
