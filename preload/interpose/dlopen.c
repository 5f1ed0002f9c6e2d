/* dlopen.c - learn about objects that dlopen loads, without changing what
 * it loads.
 *
 * glibc's dlopen looks at its return address to find the calling object:
 * that object's DT_RPATH/DT_RUNPATH and namespace decide where a bare name
 * is searched.  A wrapper that calls the real dlopen makes the shim the
 * caller and breaks programs that find their plugins through their own
 * RUNPATH (a known problem of sanitizers and other preloaded tools).  So
 * the exported dlopen is a one-instruction trampoline (below, per
 * architecture) that *jumps* to hs_dlopen_target with the program's return
 * address untouched:
 *
 *   - normally the target is glibc's dlopen itself: the call is exactly
 *     the program's own;
 *   - only while an on-load callback is registered (hs_dlopen__on_load: a
 *     feature waits for a function in an object not loaded yet) is the
 *     target dl__hooked, which loads the object as the caller would (see
 *     dl__open_as) and then runs the callback.
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/real.h"
#include "preload/interpose/dlopen.h"

typedef hs_real_dlopen_fn dlopen_fn;

static void *dl__first(const char *file, int mode);

/* Read by the trampoline: not static, but hidden (never exported). */
__attribute__((used, visibility("hidden"))) dlopen_fn hs_dlopen_target = dl__first;

#if defined(__x86_64__)
__asm__(".text\n"
	".globl dlopen\n"
	".type dlopen, @function\n"
	".p2align 4\n"
	"dlopen:\n"
	"	.cfi_startproc\n"
	"	.byte 0xf3, 0x0f, 0x1e, 0xfa\n" /* endbr64: a NOP without CET */
	"	jmp *hs_dlopen_target(%rip)\n"
	"	.cfi_endproc\n"
	".size dlopen, .-dlopen\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl dlopen\n"
	".type dlopen, %function\n"
	".p2align 4\n"
	"dlopen:\n"
	"	.cfi_startproc\n"
	"	hint #34\n" /* bti c: a NOP without BTI */
	"	adrp x16, hs_dlopen_target\n"
	"	ldr x16, [x16, :lo12:hs_dlopen_target]\n"
	"	br x16\n"
	"	.cfi_endproc\n"
	".size dlopen, .-dlopen\n");
#else
/* No trampoline for this architecture: a call (a bare name is then
 * searched as if the shim had asked). */
__attribute__((visibility("default"))) void *dlopen(const char *file, int mode);
__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	return hs_dlopen_target(file, mode);
}
#endif

/* The observers, if any (hs_dlopen__on_load, hs_dlopen__observe). */
static void (*dl_on_load)(void);
static void (*dl_observer)(void);

static dlopen_fn dl__real(void)
{
	return hs_real__dlopen();
}

/* The first call, if it comes before our constructor (another object's
 * constructor): find the real dlopen, jump straight to it from now on. */
static void *dl__first(const char *file, int mode)
{
	dlopen_fn f = dl__real(), expected = dl__first;

	if (!f)
		return NULL;
	__atomic_compare_exchange_n(&hs_dlopen_target, &expected, f, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	return f(file, mode);
}

/* "$ORIGIN" and "${ORIGIN}" mean the calling object's directory. */
static bool dl__expand_origin(const char *file, struct link_map *lm, char *out,
			      size_t len)
{
	char origin[PATH_MAX];
	size_t n = 0;

	if (dlinfo(lm, RTLD_DI_ORIGIN, origin) != 0)
		return false;
	for (const char *p = file; *p;) {
		const char *tok = strncmp(p, "$ORIGIN", 7) == 0   ? "$ORIGIN" :
				  strncmp(p, "${ORIGIN}", 9) == 0 ? "${ORIGIN}" :
								    NULL;
		int w = tok ? snprintf(out + n, len - n, "%s", origin) :
			      snprintf(out + n, len - n, "%c", *p);

		if (w < 0 || (size_t)w >= len - n)
			return false;
		n += (size_t)w;
		p += tok ? strlen(tok) : 1;
	}
	return true;
}

/* The caller's search for a bare name, as far as it differs from the
 * shim's: its DT_RPATH chain, LD_LIBRARY_PATH and its DT_RUNPATH, in that
 * order (what RTLD_DI_SERINFO lists before the system directories).  The
 * cache and system directories are left to the real dlopen. */
static void *dl__search(const char *file, int mode, struct link_map *lm)
{
	Dl_serinfo size, *si;
	void *h = NULL;

	if (dlinfo(lm, RTLD_DI_SERINFOSIZE, &size) != 0)
		return NULL;
	si = malloc(size.dls_size);
	if (!si)
		return NULL;
	*si = size;
	if (dlinfo(lm, RTLD_DI_SERINFOSIZE, si) == 0 &&
	    dlinfo(lm, RTLD_DI_SERINFO, si) == 0) {
		for (unsigned i = 0; i < si->dls_cnt && !h; i++) {
			char path[PATH_MAX];

			if (si->dls_serpath[i].dls_flags & LA_SER_DEFAULT)
				break;
			if (snprintf(path, sizeof(path), "%s/%s",
				     si->dls_serpath[i].dls_name,
				     file) >= (int)sizeof(path) ||
			    access(path, F_OK) != 0)
				continue;
			h = dl__real()(path, mode);
			if (!h)
				(void)dlerror(); /* not that one: go on, like ld.so */
		}
	}
	free(si);
	return h;
}

static void *dl__open_as(const char *file, int mode, const void *caller)
{
	dlopen_fn real = dl__real();
	struct link_map *lm = NULL;
	char path[PATH_MAX];
	Dl_info info;
	void *h;

	if (!file || !*file ||
	    !dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return real(file, mode);
	if (strchr(file, '$'))
		return real(dl__expand_origin(file, lm, path, sizeof(path)) ? path : file,
			    mode);
	if (strchr(file, '/'))
		return real(file, mode);
	/* Already loaded (by name or soname): what dlopen would return. */
	h = real(file, mode | RTLD_NOLOAD);
	if (h)
		return h;
	(void)dlerror();
	h = dl__search(file, mode, lm);
	return h ? h : real(file, mode);
}

/* The trampoline jumped here: our return address is the program's. */
static void *dl__hooked(const char *file, int mode)
{
	void *h = dl__open_as(file, mode, __builtin_return_address(0));
	/* Unhooked meanwhile (by another thread, or by the callback of an
	 * earlier call): nothing to tell. */
	void (*fn)(void) = __atomic_load_n(&dl_on_load, __ATOMIC_ACQUIRE);

	if (h && fn)
		fn();
	fn = __atomic_load_n(&dl_observer, __ATOMIC_ACQUIRE);
	if (h && fn)
		fn();
	return h;
}

void hs_dlopen__on_load(void (*fn)(void))
{
	dlopen_fn f = fn || __atomic_load_n(&dl_observer, __ATOMIC_ACQUIRE) ?
			      dl__hooked :
			      dl__real();

	__atomic_store_n(&dl_on_load, fn, __ATOMIC_RELEASE);
	if (f)
		__atomic_store_n(&hs_dlopen_target, f, __ATOMIC_RELEASE);
}

void hs_dlopen__observe(void (*fn)(void))
{
	__atomic_store_n(&dl_observer, fn, __ATOMIC_RELEASE);
	__atomic_store_n(&hs_dlopen_target, (dlopen_fn)dl__hooked, __ATOMIC_RELEASE);
}
