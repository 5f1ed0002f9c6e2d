/* dl.h - libc's dlsym, whatever the process exports under that name.
 *
 * The shim exports a dlsym of its own (preload/mpi/dlsym.c hides its MPI
 * wrappers from a program's probes), and a plain call to dlsym from inside
 * the library binds to it.  Code below preload/ (pmu/ loading libpfm4 on
 * demand) and the real-function table (preload/base/real.c) look names up
 * through libc's own, found once with dlvsym.
 */
#ifndef HPCSHIM_COMMON_DL_H
#define HPCSHIM_COMMON_DL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void *(*hs_dlsym_fn)(void *, const char *);

/* libc's dlsym, or NULL when no known version of it is found. */
hs_dlsym_fn hs_dl__dlsym(void);

/* The real directory of the file whose code is at addr (the shim's
 * libhpcshim.so, a tool's executable): from the kernel's mapping
 * (/proc/self/maps: absolute, links resolved, whatever the current
 * directory is now or was at load), else dladdr's name when it is an
 * absolute path (realpath).  Never the current directory: a library
 * preloaded as ./libhpcshim.so, or found with no slash in its name, has
 * no directory but its real one.  false when none is known. */
bool hs_dl__self_dir(const void *addr, char *dir, size_t len);

/* A file mapping of this process, as /proc/self/maps gives it. */
struct hs_dl_map {
	uint64_t start, end; /* the mapping's addresses [start, end)          */
	uint64_t offset;     /* the file offset mapped at start               */
	bool deleted;        /* the file was removed since (path is its old name) */
	char path[PATH_MAX]; /* absolute, links resolved                      */
};

/* The file mapping that holds addr: false when none does (anonymous
 * memory, the vDSO) or /proc is not there.  Raw system calls, no stdio:
 * callable from the shim's start and from tools. */
bool hs_dl__mapping(const void *addr, struct hs_dl_map *m);

#endif
