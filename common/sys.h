/* sys.h - system calls that must not run through the shim's wrappers.
 *
 * The shim exports close() (it revokes counter descriptors the program
 * closes); pmu/ and aggregate/ close their own descriptors with the raw
 * system call, the way libuv's uv__close owns its close, so a lower layer
 * never calls up into the interposition layer.
 */
#ifndef HPCSHIM_COMMON_SYS_H
#define HPCSHIM_COMMON_SYS_H

#include <errno.h>
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

/* read(2) as the instruction itself where we know it: a region boundary
 * reads its counters this way twice per pair, and glibc's syscall() costs
 * about a dozen instructions more per call (its variadic arguments moved
 * into place).  -1 with errno on failure, as syscall() gives. */
static inline long hs_sys__read(int fd, void *buf, unsigned long len)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(len)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_read;
	register long x0 __asm__("x0") = fd;
	register long x1 __asm__("x1") = (long)buf;
	register long x2 __asm__("x2") = (long)len;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	long r = x0;
#else
	return syscall(SYS_read, fd, buf, len);
#endif
#if defined(__x86_64__) || defined(__aarch64__)
	if ((unsigned long)r > -4096UL) {
		errno = (int)-r;
		return -1;
	}
	return r;
#endif
}

#endif
