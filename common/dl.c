/* dl.c - libc's dlsym (dl.h). */
#include <dlfcn.h>
#include <stddef.h>

#include "common/compiler.h"
#include "common/dl.h"

HS_NO_SANITIZE hs_dlsym_fn hs_dl__dlsym(void)
{
	/* The versions of dlsym in glibc: 2.34 moved it into libc. */
	static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17",
						"GLIBC_2.0" };
	static hs_dlsym_fn real_dlsym;
	hs_dlsym_fn f = __atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE);

	/* Two threads may look it up at once: both find the same function. */
	for (size_t i = 0; !f && i < sizeof(versions) / sizeof(versions[0]); i++)
		f = (hs_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
	__atomic_store_n(&real_dlsym, f, __ATOMIC_RELEASE);
	return f;
}
