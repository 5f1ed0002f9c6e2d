/* real.c - the table of real libc functions (real.h). */
#include <dlfcn.h>
#include <errno.h>

#include "preload/base/real.h"

/* One pointer per entry, published with release/acquire: two threads may
 * look one up at once, and both find the same function. */
#define HS_REAL_DEFINE(name, ret, params)                                    \
	static hs_real_##name##_fn real_##name;                              \
	hs_real_##name##_fn hs_real__##name(void)                            \
	{                                                                    \
		hs_real_##name##_fn f = __atomic_load_n(&real_##name,        \
							__ATOMIC_ACQUIRE);   \
		if (!f) {                                                    \
			f = (hs_real_##name##_fn)dlsym(RTLD_NEXT, #name);    \
			__atomic_store_n(&real_##name, f, __ATOMIC_RELEASE); \
		}                                                            \
		return f;                                                    \
	}
HS_REAL_TABLE(HS_REAL_DEFINE)
#undef HS_REAL_DEFINE

void hs_real__init(void)
{
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
