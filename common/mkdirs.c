/* mkdirs.c - mkdir -p (mkdirs.h).
 *
 * Raw system calls only: the shim calls this while it writes its results,
 * possibly in a fatal signal's handler, so nothing here allocates, locks
 * or goes through a libc function the shim could be wrapping.
 */
#include <fcntl.h>
#include <string.h>

#include "common/mkdirs.h"
#include "common/sys.h"

#define MKDIRS_MAX 4096

static int mkdirs__one(const char *path, int mode)
{
	return (int)syscall(SYS_mkdirat, AT_FDCWD, path, mode);
}

/* EEXIST says something is there, not what: only a directory will do.
 * O_DIRECTORY opens it (following a symbolic link, as mkdir -p accepts
 * one) or fails with ENOTDIR. */
static int mkdirs__is_dir(const char *path)
{
	int fd = hs_sys__openat(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	hs_sys__close(fd);
	return 0;
}

int hs_mkdirs(const char *path, int mode)
{
	char buf[MKDIRS_MAX];
	size_t len = strlen(path);

	if (len == 0) {
		errno = ENOENT;
		return -1;
	}
	if (len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	/* The usual case first: the parent is there. */
	if (mkdirs__one(path, mode) == 0)
		return 0;
	if (errno == EEXIST)
		return mkdirs__is_dir(path);
	if (errno != ENOENT)
		return -1;
	/* A parent is missing: every prefix from the top, each one either
	 * made here or found made (by us earlier, or by a concurrent rank).
	 * A prefix that is a file makes the next mkdir fail with ENOTDIR. */
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i < len; i++) {
		if (buf[i] != '/' || buf[i - 1] == '/')
			continue;
		buf[i] = '\0';
		if (mkdirs__one(buf, mode) < 0 && errno != EEXIST)
			return -1;
		buf[i] = '/';
	}
	if (mkdirs__one(path, mode) == 0)
		return 0;
	return errno == EEXIST ? mkdirs__is_dir(path) : -1;
}
