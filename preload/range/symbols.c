/* symbols.c - loaded objects (dl_iterate_phdr) and their function symbols.
 *
 * A symbol's file is mapped read-only, its section headers found and the
 * symbol table walked with every offset checked against the file size: a
 * truncated or odd file yields no symbol, never a crash.  Static functions
 * are only in .symtab, which stripped objects (most system libraries) do
 * not have; their exported functions are still found in .dynsym.  IFUNC
 * symbols (STT_GNU_IFUNC, e.g. libc's memcpy) are skipped: their address
 * is the resolver, not the code that runs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/base/real.h"
#include "preload/range/symbols.h"

#if __SIZEOF_POINTER__ == 8
#define SYM_CLASS ELFCLASS64
#else
#define SYM_CLASS ELFCLASS32
#endif

struct collect {
	struct sym_object *v;
	int n, cap;
	char exe[PATH_MAX];
};

static int collect__one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct collect *c = arg;
	struct sym_object *o;

	(void)size;
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 32;
		struct sym_object *nv = realloc(c->v, (size_t)cap * sizeof(*nv));

		if (!nv)
			return 1;
		c->v = nv;
		c->cap = cap;
	}
	o = &c->v[c->n];
	/* The executable is the first entry, with an empty name. */
	o->is_exe = c->n == 0 && (!info->dlpi_name || !info->dlpi_name[0]);
	snprintf(o->path, sizeof(o->path), "%s",
		 o->is_exe       ? c->exe :
		 info->dlpi_name ? info->dlpi_name :
				   "");
	o->base = info->dlpi_addr;
	o->phdr = info->dlpi_phdr;
	o->phnum = info->dlpi_phnum;
	c->n++;
	return 0;
}

struct sym_object *hs_range_sym__objects(int *n)
{
	struct collect c = { 0 };
	ssize_t len = readlink("/proc/self/exe", c.exe, sizeof(c.exe) - 1);

	c.exe[len > 0 ? len : 0] = '\0';
	dl_iterate_phdr(collect__one, &c);
	*n = c.n;
	return c.v;
}

static int adds__one(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(unsigned long long *)arg = info->dlpi_adds;
	return 1; /* every entry carries the same counter */
}

unsigned long long hs_range_sym__adds(void)
{
	unsigned long long adds = 0;

	dl_iterate_phdr(adds__one, &adds);
	return adds;
}

bool hs_range_sym__matches(const struct sym_object *o, const char *obj)
{
	const char *base = strrchr(o->path, '/');
	size_t n = strlen(obj);

	if (strcmp(obj, "exe") == 0)
		return o->is_exe;
	if (strchr(obj, '/'))
		return strcmp(o->path, obj) == 0;
	base = base ? base + 1 : o->path;
	return strncmp(base, obj, n) == 0 &&
	       (base[n] == '\0' || base[n] == '.' || base[n] == '-');
}

/* The section headers, if the file is an ELF object of our class whose
 * header table lies inside the file. */
static const ElfW(Shdr) * elf__sections(const unsigned char *map, size_t size, int *nsec)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != SYM_CLASS ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff == 0 ||
	    eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum)
		return NULL;
	*nsec = eh->e_shnum;
	return (const ElfW(Shdr) *)(map + eh->e_shoff);
}

static bool section_ok(const ElfW(Shdr) * s, size_t size)
{
	return s->sh_type != SHT_NOBITS && s->sh_offset <= size &&
	       s->sh_size <= size - s->sh_offset;
}

/* Does symbol name s (in a string table ending at end) answer to want? */
static bool name_is(const char *s, const char *end, const char *want, size_t wl)
{
	return (size_t)(end - s) > wl && strncmp(s, want, wl) == 0 &&
	       (s[wl] == '\0' || s[wl] == '@');
}

static void elf__scan(const struct sym_object *o, const unsigned char *map, size_t size,
		      const char *const *names, int n, sym_found_fn found, void *arg)
{
	const ElfW(Shdr) * sh, *sym = NULL, *str;
	int nsec;

	sh = elf__sections(map, size, &nsec);
	if (!sh)
		return;
	for (int pass = 0; pass < 2 && !sym; pass++)
		for (int i = 0; i < nsec && !sym; i++)
			if (sh[i].sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) &&
			    section_ok(&sh[i], size) && sh[i].sh_link < (unsigned)nsec)
				sym = &sh[i];
	if (!sym || sym->sh_entsize != sizeof(ElfW(Sym)))
		return;
	str = &sh[sym->sh_link];
	if (!section_ok(str, size) || str->sh_size == 0)
		return;
	const char *strtab = (const char *)map + str->sh_offset;
	const char *strend = strtab + str->sh_size;
	const ElfW(Sym) *s = (const ElfW(Sym) *)(map + sym->sh_offset);
	size_t nsym = sym->sh_size / sizeof(ElfW(Sym));
	size_t wl[n > 0 ? n : 1];

	for (int i = 0; i < n; i++)
		wl[i] = strlen(names[i]);
	for (size_t k = 0; k < nsym; k++) {
		const char *nm;

		if ((s[k].st_info & 0xf) != STT_FUNC ||
		    s[k].st_shndx == SHN_UNDEF || s[k].st_name >= str->sh_size)
			continue;
		nm = strtab + s[k].st_name;
		for (int i = 0; i < n; i++)
			if (name_is(nm, strend, names[i], wl[i]))
				found(arg, i, o->base + s[k].st_value, s[k].st_size);
	}
}

int hs_range_sym__lookup(const struct sym_object *o, const char *const *names,
			 int n, sym_found_fn found, void *arg)
{
	int fd = o->path[0] ? open(o->path, O_RDONLY | O_CLOEXEC) : -1;
	struct stat st;
	void *map;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_size <= 0 || !S_ISREG(st.st_mode)) {
		hs_real_close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	hs_real_close(fd);
	if (map == MAP_FAILED)
		return -1;
	elf__scan(o, map, (size_t)st.st_size, names, n, found, arg);
	munmap(map, (size_t)st.st_size);
	return 0;
}
