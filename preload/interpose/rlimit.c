/* rlimit.c - the program sees, and sets, its own RLIMIT_NOFILE.
 *
 * Our counter descriptors live above the program's soft limit, under a
 * real limit raised for them (pmu/fdspace.c).  getrlimit, setrlimit and
 * prlimit (and their 64-bit names, separate symbols in glibc) answer
 * RLIMIT_NOFILE of this process from the program's view kept there, and a
 * change goes through it so our space follows.  Other resources and other
 * processes go to the kernel untouched.  Raw prlimit64 for those: the libc
 * names are the ones interposed here.  (struct rlimit is struct rlimit64
 * on the 64-bit targets we build for; pmu/fdspace.c asserts it.)
 *
 * Not instrumented by sanitizers (HS_NO_SANITIZE): a sanitizer's runtime
 * sets its limits while it starts, through these, before it can track a
 * call.
 */
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "common/compiler.h"
#include "pmu/pmu.h"

HS_NO_SANITIZE static bool rlimit__ours(int resource, pid_t pid)
{
	return resource == RLIMIT_NOFILE && (pid == 0 || pid == getpid());
}

HS_NO_SANITIZE static int rlimit__nofile(const struct rlimit *set, struct rlimit *old)
{
	struct rlimit view;

	pmu_fdspace__program(&view);
	if (set) {
		int rc = pmu_fdspace__set_program(set);

		if (rc < 0) {
			errno = -rc;
			return -1;
		}
	}
	if (old)
		*old = view;
	return 0;
}

HS_NO_SANITIZE static int rlimit__call(pid_t pid, int resource, const void *set, void *old)
{
	if (rlimit__ours(resource, pid))
		return rlimit__nofile(set, old);
	return (int)syscall(SYS_prlimit64, pid, resource, set, old);
}

HS_NO_SANITIZE static int rlimit__get(int resource, void *old)
{
	if (!old) {
		errno = EFAULT;
		return -1;
	}
	return rlimit__call(0, resource, NULL, old);
}

HS_NO_SANITIZE static int rlimit__set(int resource, const void *set)
{
	if (!set) {
		errno = EFAULT;
		return -1;
	}
	return rlimit__call(0, resource, set, NULL);
}

HS_NO_SANITIZE HPCSHIM_API int getrlimit(__rlimit_resource_t resource, struct rlimit *rlim)
{
	return rlimit__get(resource, rlim);
}

HS_NO_SANITIZE HPCSHIM_API int getrlimit64(__rlimit_resource_t resource, struct rlimit64 *rlim)
{
	return rlimit__get(resource, rlim);
}

HS_NO_SANITIZE HPCSHIM_API int setrlimit(__rlimit_resource_t resource, const struct rlimit *rlim)
{
	return rlimit__set(resource, rlim);
}

HS_NO_SANITIZE HPCSHIM_API int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *rlim)
{
	return rlimit__set(resource, rlim);
}

HS_NO_SANITIZE HPCSHIM_API int prlimit(pid_t pid, __rlimit_resource_t resource,
			const struct rlimit *set, struct rlimit *old)
{
	return rlimit__call(pid, resource, set, old);
}

HS_NO_SANITIZE HPCSHIM_API int prlimit64(pid_t pid, __rlimit_resource_t resource,
			  const struct rlimit64 *set, struct rlimit64 *old)
{
	return rlimit__call(pid, resource, set, old);
}
