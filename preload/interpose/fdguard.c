/* fdguard.c - the program may close our counter descriptors; we notice.
 *
 * Every libc entry that closes a descriptor by number is interposed and
 * revokes the number in pmu/'s table before the real call, so the shim
 * never reads from (or closes) a number the program may reuse for its own
 * file.  The thread that owned it reports its events as not counted, with
 * the reason.  Raw syscalls bypass this; libc's own FILE closes never
 * touch descriptors they did not open.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "pmu/pmu.h"
#include "preload/base/real.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* The real function from the table (base/real.h); NULL if libc lacks it. */
#define REAL(name) hs_real_##name##_fn real_##name = hs_real__##name()

HPCSHIM_API int close(int fd)
{
	REAL(close);
	pmu_fdtab__revoke(fd);
	if (!real_close) {
		errno = ENOSYS;
		return -1;
	}
	return real_close(fd);
}

HPCSHIM_API int close_range(unsigned int first, unsigned int last, int flags)
{
	REAL(close_range);
	/* CLOEXEC only marks them: they stay open until an exec. */
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		pmu_fdtab__revoke_range(first, last);
	if (!real_close_range) {
		errno = ENOSYS;
		return -1;
	}
	return real_close_range(first, last, flags);
}

HPCSHIM_API void closefrom(int lowfd)
{
	REAL(closefrom);
	if (lowfd >= 0)
		pmu_fdtab__revoke_range((unsigned int)lowfd, ~0u);
	if (real_closefrom)
		real_closefrom(lowfd);
}

/* dup2/dup3 onto one of ours closes it implicitly (unless oldfd is
 * invalid, when the call fails and closes nothing). */
static void revoke_dup_target(int oldfd, int newfd)
{
	if (oldfd != newfd && fcntl(oldfd, F_GETFD) != -1)
		pmu_fdtab__revoke(newfd);
}

HPCSHIM_API int dup2(int oldfd, int newfd)
{
	REAL(dup2);
	revoke_dup_target(oldfd, newfd);
	if (!real_dup2) {
		errno = ENOSYS;
		return -1;
	}
	return real_dup2(oldfd, newfd);
}

HPCSHIM_API int dup3(int oldfd, int newfd, int flags)
{
	REAL(dup3);
	revoke_dup_target(oldfd, newfd);
	if (!real_dup3) {
		errno = ENOSYS;
		return -1;
	}
	return real_dup3(oldfd, newfd, flags);
}
