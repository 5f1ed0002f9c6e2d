/* symbols.h - loaded objects and their function symbols (internal).
 *
 * The objects come from dl_iterate_phdr (the executable first, then the
 * shared objects in load order); function symbols are read from each
 * object's file: the full symbol table (.symtab, which has static
 * functions) when the file has one, else the dynamic one (.dynsym).
 */
#ifndef HPCSHIM_RANGE_SYMBOLS_H
#define HPCSHIM_RANGE_SYMBOLS_H

#include <link.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

struct sym_object {
	char path[PATH_MAX]; /* the file (the executable: /proc/self/exe's
				  target); for the vDSO just its name      */
	uint64_t base;       /* load bias (dlpi_addr)                    */
	const ElfW(Phdr) * phdr;
	int phnum;
	bool is_exe;
};

/* The loaded objects, malloc'd; *n of them.  NULL on ENOMEM. */
struct sym_object *hs_range_sym__objects(int *n);
/* Objects loaded so far by the dynamic linker (dlpi_adds): changes when
 * dlopen maps something new. */
unsigned long long hs_range_sym__adds(void);
/* Does o answer to OBJ?  "exe": the main executable; a name with '/': the
 * file's path; otherwise the file name itself, or its start up to a '.'
 * or '-' ("libm" and "libm.so" both name libm.so.6). */
bool hs_range_sym__matches(const struct sym_object *o, const char *obj);
/* Calls found(arg, i, address, size) for every defined function symbol
 * (STT_FUNC) named names[i] (or names[i]@VERSION) in o.  -1 when o has no
 * readable ELF file. */
typedef void (*sym_found_fn)(void *arg, int i, uint64_t addr, uint64_t size);
int hs_range_sym__lookup(const struct sym_object *o, const char *const *names,
			 int n, sym_found_fn found, void *arg);

#endif
