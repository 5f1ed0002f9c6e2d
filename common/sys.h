/* sys.h - system calls that must not run through the shim's wrappers.
 *
 * The shim exports close() (it revokes counter descriptors the program
 * closes); pmu/ and aggregate/ close their own descriptors with the raw
 * system call, the way libuv's uv__close owns its close, so a lower layer
 * never calls up into the interposition layer.
 */
#ifndef HPCSHIM_COMMON_SYS_H
#define HPCSHIM_COMMON_SYS_H

#include <sys/syscall.h>
#include <unistd.h>

static inline int hs_sys__close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

#endif
