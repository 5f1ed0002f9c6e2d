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

/* The results file is opened and written raw as well: the flush writes it
 * from a thread of its own, and a sanitizer that saw the open would pair
 * that descriptor number with the program's next use of it (a false race:
 * the close it cannot see is raw). */
static inline int hs_sys__openat(int dirfd, const char *path, int flags, int mode)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

static inline long hs_sys__write(int fd, const void *buf, unsigned long len)
{
	return syscall(SYS_write, fd, buf, len);
}

static inline long hs_sys__read(int fd, void *buf, unsigned long len)
{
	return syscall(SYS_read, fd, buf, len);
}

#endif
