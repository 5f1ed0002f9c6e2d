/* next_lib.c - an interposer preloaded after libhpcshim.so
 * (tests/mpi/test_mpi_job.py): getppid through dlsym(RTLD_NEXT), as every
 * LD_PRELOAD tool does.  If the shim's dlsym lost the caller, RTLD_NEXT
 * would mean "after the shim", this very function, and recurse. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>

pid_t getppid(void)
{
	pid_t (*next)(void) = (pid_t(*)(void))dlsym(RTLD_NEXT, "getppid");

	return next == getppid ? -1 : next();
}
