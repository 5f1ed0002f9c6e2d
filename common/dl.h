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

typedef void *(*hs_dlsym_fn)(void *, const char *);

/* libc's dlsym, or NULL when no known version of it is found. */
hs_dlsym_fn hs_dl__dlsym(void);

#endif
