/* real.c - the table of real libc functions (real.h). */
#include <dlfcn.h>
#include <errno.h>

#include "common/compiler.h"
#include "common/dl.h"
#include "preload/base/real.h"

static void *real__next(const char *name)
{
	hs_real_dlsym_fn ds = hs_real__dlsym();

	return ds ? ds(RTLD_NEXT, name) : NULL;
}

/* One pointer per entry, published with release/acquire: two threads may
 * look one up at once, and both find the same function. */
#define HS_REAL_DEFINE(name, ret, params)                                    \
	static hs_real_##name##_fn real_##name;                              \
	hs_real_##name##_fn hs_real__##name(void)                            \
	{                                                                    \
		hs_real_##name##_fn f = __atomic_load_n(&real_##name,        \
							__ATOMIC_ACQUIRE);   \
		if (!f) {                                                    \
			f = (hs_real_##name##_fn)real__next(#name);          \
			__atomic_store_n(&real_##name, f, __ATOMIC_RELEASE); \
		}                                                            \
		return f;                                                    \
	}
HS_REAL_TABLE(HS_REAL_DEFINE)
#undef HS_REAL_DEFINE

HS_NO_SANITIZE hs_real_dlsym_fn hs_real__dlsym(void)
{
	return hs_dl__dlsym();
}

void hs_real__init(void)
{
	(void)hs_real__dlsym();
#define HS_REAL_RESOLVE(name, ret, params) (void)hs_real__##name();
	HS_REAL_TABLE(HS_REAL_RESOLVE)
#undef HS_REAL_RESOLVE
}

int hs_real_close(int fd)
{
	hs_real_close_fn f = hs_real__close();

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	return f(fd);
}

int hs_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	hs_real_sigaction_fn f = hs_real__sigaction();

	if (!f) {
		errno = ENOSYS;
		return -1;
	}
	return f(sig, act, old);
}
