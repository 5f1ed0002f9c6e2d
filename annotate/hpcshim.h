/* hpcshim.h - source annotations for hpcshim (public API).
 *
 *   #include <hpcshim.h>
 *
 *   HPC_BEGIN("solve");            explicit pair
 *   ... work ...
 *   HPC_END("solve");
 *
 *   HPC_REGION("halo") {           scoped: ends when the block is left,
 *       ... work ...               by break, return or goto too
 *   }
 *
 *   HPC_THREAD_NAME("io");         labels the calling thread in the results
 *   if (HPC_ACTIVE()) ...          1 when this thread is being counted
 *
 * Regions are per thread and nest.  Each region reports inclusive counts
 * and exclusive (self) counts; a region nested in itself (recursion) adds
 * to its inclusive counts only once, from the outermost instance.  An END
 * closes the innermost open region of that name; regions opened inside it
 * and not yet ended are closed too and counted as a warning.  An END with
 * no matching BEGIN is counted as a warning and ignored.
 *
 * Names: with a string literal, the call site caches the region's handle
 * after its first call, so later calls do no hashing and no string
 * comparison.  Names built at run time work too (they are copied on first
 * use and looked up by hash on every call).
 *
 * No link dependency: the functions are weak references, bound only when
 * libhpcshim.so is preloaded.  Without the shim each annotation costs one
 * load and one branch.  In position-dependent programs (-no-pie, no -fPIC)
 * a weak reference cannot bind at run time, so there the functions are
 * looked up with dlsym() once per translation unit instead (link with -ldl
 * on glibc older than 2.34).  Define HPCSHIM_DISABLE to compile the
 * annotations out entirely.
 *
 * C++: <hpcshim.hpp> adds HPC_SCOPE("name") and HPC_FUNCTION().
 * Fortran: the module `hpcshim` (hpcshim.mod) has hpc_begin/hpc_end.
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

/* A call site's cached region handle.  Zero-initialised (static storage);
 * owned by the shim once passed to it: do not write to it. */
struct hpcshim_site {
	const char *name;
	int id;
};

/* Opens region `name` on the calling thread. */
HPCSHIM_API void hpcshim_region_begin(const char *name) HPCSHIM_WEAK;
/* Closes the innermost open region `name` on the calling thread. */
HPCSHIM_API void hpcshim_region_end(const char *name) HPCSHIM_WEAK;
/* The same with a per-call-site cache; `name` must be a string whose
 * contents never change (a literal).  The macros choose for you. */
HPCSHIM_API void hpcshim_site_begin(struct hpcshim_site *site,
				    const char *name) HPCSHIM_WEAK;
HPCSHIM_API void hpcshim_site_end(struct hpcshim_site *site,
				  const char *name) HPCSHIM_WEAK;
/* 1 when the calling thread is being counted, else 0. */
HPCSHIM_API int hpcshim_active(void) HPCSHIM_WEAK;
/* Names the calling thread in the results (copied; the last call wins). */
HPCSHIM_API void hpcshim_thread_name(const char *name) HPCSHIM_WEAK;

#ifdef __cplusplus
}
#endif

/* A name of its own for each scope variable: __COUNTER__ keeps two scopes
 * on one line (from one macro) apart. */
#define HPCSHIM__CAT2(a, b) a##b
#define HPCSHIM__CAT(a, b) HPCSHIM__CAT2(a, b)
#ifdef __COUNTER__
#define HPCSHIM__UNIQUE(prefix) HPCSHIM__CAT(prefix, __COUNTER__)
#else
#define HPCSHIM__UNIQUE(prefix) HPCSHIM__CAT(prefix, __LINE__)
#endif

#if defined(HPCSHIM_BUILDING)
/* The shim's own sources use the functions, not the macros. */
#elif defined(HPCSHIM_DISABLE)

#define HPC_BEGIN(name) ((void)0)
#define HPC_END(name) ((void)0)
/* Still a one-pass loop, so that break and continue in the block leave
 * the block, as they do when the annotations are on. */
#define HPCSHIM__REGION_OFF(v) for (int v = 1; v; v = 0)
#define HPC_REGION(name) HPCSHIM__REGION_OFF(HPCSHIM__UNIQUE(hpcshim__scope_))
#define HPC_THREAD_NAME(name) ((void)0)
#define HPC_ACTIVE() 0

#else /* !HPCSHIM_DISABLE */

#if defined(__PIC__) || defined(__PIE__)
/* The weak reference itself says whether the shim is there. */
#define HPCSHIM__FN(f) (f)
#else
/* Position-dependent code: the static linker resolved the weak references
 * to 0 for good, so ask the dynamic linker once per translation unit. */
#include <dlfcn.h>
struct hpcshim__fns {
	int looked;
	void (*hpcshim_region_begin)(const char *);
	void (*hpcshim_region_end)(const char *);
	void (*hpcshim_site_begin)(struct hpcshim_site *, const char *);
	void (*hpcshim_site_end)(struct hpcshim_site *, const char *);
	int (*hpcshim_active)(void);
	void (*hpcshim_thread_name)(const char *);
};
static struct hpcshim__fns hpcshim__fns __attribute__((unused));
#define HPCSHIM__SYM(f)                                                     \
	__atomic_store_n(&hpcshim__fns.f,                                   \
			 __extension__(__typeof__(hpcshim__fns.f))dlsym(h, #f), \
			 __ATOMIC_RELAXED)
static inline const struct hpcshim__fns *
hpcshim__lookup(void)
{
	if (!__atomic_load_n(&hpcshim__fns.looked, __ATOMIC_ACQUIRE)) {
		void *h = dlopen(0, RTLD_LAZY);
		if (h) {
			HPCSHIM__SYM(hpcshim_region_begin);
			HPCSHIM__SYM(hpcshim_region_end);
			HPCSHIM__SYM(hpcshim_site_begin);
			HPCSHIM__SYM(hpcshim_site_end);
			HPCSHIM__SYM(hpcshim_active);
			HPCSHIM__SYM(hpcshim_thread_name);
			dlclose(h);
		}
		__atomic_store_n(&hpcshim__fns.looked, 1, __ATOMIC_RELEASE);
	}
	return &hpcshim__fns;
}
#define HPCSHIM__FN(f) (hpcshim__lookup()->f)
#endif

/* A string literal gets a static call-site cache; any other name goes by
 * name (__builtin_constant_p is 1 only for string literals, GCC and Clang).
 * Statement expressions: a GNU extension that GCC and Clang accept in C
 * and C++. */
#define HPCSHIM__SITE(name)                                                 \
	__extension__({                                                                  \
		static struct hpcshim_site hpcshim__site;                   \
		__builtin_constant_p(name) ? &hpcshim__site                 \
					   : (struct hpcshim_site *)0;      \
	})

static inline __attribute__((always_inline)) void
hpcshim__begin(struct hpcshim_site *site, const char *name)
{
	if (site) {
		if (HPCSHIM__FN(hpcshim_site_begin))
			HPCSHIM__FN(hpcshim_site_begin)(site, name);
	} else if (HPCSHIM__FN(hpcshim_region_begin)) {
		HPCSHIM__FN(hpcshim_region_begin)(name);
	}
}

static inline __attribute__((always_inline)) void
hpcshim__end(struct hpcshim_site *site, const char *name)
{
	if (site) {
		if (HPCSHIM__FN(hpcshim_site_end))
			HPCSHIM__FN(hpcshim_site_end)(site, name);
	} else if (HPCSHIM__FN(hpcshim_region_end)) {
		HPCSHIM__FN(hpcshim_region_end)(name);
	}
}

#define HPC_BEGIN(name) hpcshim__begin(HPCSHIM__SITE(name), (name))
#define HPC_END(name) hpcshim__end(HPCSHIM__SITE(name), (name))
#define HPC_ACTIVE()                                                        \
	(HPCSHIM__FN(hpcshim_active) ? HPCSHIM__FN(hpcshim_active)() : 0)
#define HPC_THREAD_NAME(name)                                               \
	do {                                                                \
		if (HPCSHIM__FN(hpcshim_thread_name))                       \
			HPCSHIM__FN(hpcshim_thread_name)(name);             \
	} while (0)

/* HPC_REGION: a one-pass for loop whose control variable ends the region
 * in its cleanup handler, whichever way the block is left. */
struct hpcshim__scope {
	struct hpcshim_site *site;
	const char *name;
	int once;
};
static inline __attribute__((always_inline)) struct hpcshim__scope
hpcshim__scope_begin(struct hpcshim_site *site, const char *name)
{
	struct hpcshim__scope s = {site, name, 1};
	hpcshim__begin(site, name);
	return s;
}
static inline __attribute__((always_inline)) void
hpcshim__scope_end(struct hpcshim__scope *s)
{
	hpcshim__end(s->site, s->name);
}
#define HPCSHIM__REGION(name, v)                                            \
	for (struct hpcshim__scope v                                        \
		     __attribute__((cleanup(hpcshim__scope_end))) =         \
		     hpcshim__scope_begin(HPCSHIM__SITE(name), (name));     \
	     v.once; v.once = 0)
#define HPC_REGION(name) HPCSHIM__REGION(name, HPCSHIM__UNIQUE(hpcshim__scope_))

#endif /* HPCSHIM_BUILDING, HPCSHIM_DISABLE */

#endif /* HPCSHIM_H */
