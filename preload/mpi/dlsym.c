/* dlsym.c - the shim's MPI exports kept out of a program's probes.
 *
 * libhpcshim.so exports MPI_Init, MPI_Finalize... (mpi.c) in every
 * process, MPI or not.  A program or library that asks
 * dlsym(RTLD_DEFAULT, "MPI_Init") to learn whether MPI is present (an
 * optional-MPI build, a Python module, a plugin loader) would find ours
 * and believe it.  The shim therefore exports dlsym too: a lookup by
 * RTLD_DEFAULT whose answer is one of our MPI wrappers is answered with
 * the next definition after the shim (the one the program would have
 * found without it), or NULL.  Every other lookup goes to libc's dlsym by
 * a tail call, so libc sees the caller's own return address: RTLD_NEXT
 * keeps meaning "after the caller", not "after the shim".  (GCC makes the
 * tail call at -O1 and above; tests/mpi/test_mpi_job.py checks RTLD_NEXT from
 * a library preloaded after the shim.)  Limit: RTLD_DEFAULT of one of our
 * MPI names from an object loaded RTLD_LOCAL searches the shim's scope,
 * not the caller's local group.
 */
#include <dlfcn.h>

#include "common/compiler.h"
#include "preload/base/real.h"
#include "preload/mpi/mpi.h"

HS_NO_SANITIZE __attribute__((visibility("default"), optimize("optimize-sibling-calls"))) void *
dlsym(void *handle, const char *name)
{
	hs_real_dlsym_fn real = hs_real__dlsym();
	void *f;

	if (handle != RTLD_DEFAULT ||
	    !((name[0] | 0x20) == 'm' && (name[1] | 0x20) == 'p' && (name[2] | 0x20) == 'i'))
		return real(handle, name); /* tail call: the caller's RTLD_NEXT */
	f = real(handle, name);
	if (f && hs_mpi__is_wrapper(f)) {
		f = real(RTLD_NEXT, name);
		/* Not a tail call: this RTLD_NEXT is "after the shim". */
		__asm__ volatile("" : "+r"(f));
	}
	return f;
}
