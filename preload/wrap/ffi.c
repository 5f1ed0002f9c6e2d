/* ffi.c - libffi, loaded when the first wrapped function needs it.
 *
 * Only HPCSHIM_WRAP uses libffi; linked, its mapping and relocations cost
 * every process start about 0.04 ms (bench/start.sh).  dlmopen in the base
 * namespace is dlopen without the shim's dlopen wrapper, and names are
 * looked up with libc's dlsym (common/dl.h), not the shim's own.  The
 * soname is the one the build was configured against (configure.ac): the
 * layout of ffi_cif is that version's.
 */
#include <dlfcn.h>
#include <pthread.h>

#include "common/dl.h"
#include "preload/wrap/internal.h"

struct wrap_ffi hs_wrap_ffi;

static pthread_once_t ffi_once = PTHREAD_ONCE_INIT;
static bool ffi_loaded;

static void ffi__load(void)
{
	hs_dlsym_fn sym = hs_dl__dlsym();
	void *h;

	if (!sym || !(h = dlmopen(LM_ID_BASE, HS_FFI_SONAME, RTLD_NOW | RTLD_LOCAL)))
		return;
#define X(field, name)                                                           \
	if (!(hs_wrap_ffi.field = (__typeof__(hs_wrap_ffi.field))sym(h, #name))) \
		return;
	WRAP_FFI_NAMES(X)
#undef X
	ffi_loaded = true;
}

bool hs_wrap_ffi__load(void)
{
	pthread_once(&ffi_once, ffi__load);
	return ffi_loaded;
}
