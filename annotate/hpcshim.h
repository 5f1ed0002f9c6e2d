/* hpcshim.h - source annotations for hpcshim (public API).
 *
 *   #include <hpcshim.h>
 *   HPC_BEGIN("solve");
 *   ... work ...
 *   HPC_END("solve");
 *
 * Regions are per thread and nest; names are string literals or strings
 * built at run time (copied on first use).  An END closes the innermost
 * open region of that name; regions above it are closed too and counted as
 * a warning, an END without a matching BEGIN is counted and ignored.
 *
 * No link dependency: the functions are weak references, resolved only when
 * libhpcshim.so is preloaded.  Without the shim each macro costs one load
 * and one branch.  The program must be position independent (PIE, the
 * default on Debian and most distributions) or built with -fPIC for the
 * weak references to bind at run time.  Define HPCSHIM_DISABLE to compile
 * the annotations out entirely.
 */
#ifndef HPCSHIM_H
#define HPCSHIM_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HPCSHIM_BUILDING)
#define HPCSHIM_API __attribute__((visibility("default")))
#define HPCSHIM_WEAK
#else
#define HPCSHIM_API
#define HPCSHIM_WEAK __attribute__((weak))
#endif

/* Opens region `name` on the calling thread. */
HPCSHIM_API void hpcshim_region_begin(const char *name) HPCSHIM_WEAK;
/* Closes the innermost open region `name` on the calling thread. */
HPCSHIM_API void hpcshim_region_end(const char *name) HPCSHIM_WEAK;
/* 1 when the calling thread is being counted, else 0. */
HPCSHIM_API int hpcshim_active(void) HPCSHIM_WEAK;

#ifdef __cplusplus
}
#endif

#if defined(HPCSHIM_DISABLE)
#define HPC_BEGIN(name) ((void)0)
#define HPC_END(name) ((void)0)
#define HPC_ACTIVE() 0
#else
#define HPC_BEGIN(name)                                                     \
	do {                                                                \
		if (hpcshim_region_begin)                                   \
			hpcshim_region_begin(name);                         \
	} while (0)
#define HPC_END(name)                                                       \
	do {                                                                \
		if (hpcshim_region_end)                                     \
			hpcshim_region_end(name);                           \
	} while (0)
#define HPC_ACTIVE() (hpcshim_active ? hpcshim_active() : 0)
#endif

#endif /* HPCSHIM_H */
