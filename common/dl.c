/* dl.c - libc's dlsym, the code's own directory (dl.h). */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/compiler.h"
#include "common/dl.h"
#include "common/sys.h"

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

/* The kernel marks a mapped file that was removed with " (deleted)":
 * strips it, true when it was there. */
static bool dl__strip_deleted(char *path)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(path), k = sizeof(deleted) - 1;

	if (n <= k || strcmp(path + n - k, deleted) != 0)
		return false;
	path[n - k] = '\0';
	return true;
}

/* One line of /proc/self/maps: "start-end perms offset dev inode   path".
 * The mapping that holds a, if it is a file's. */
static bool dl__maps_line(const char *line, uintptr_t a, struct hs_dl_map *m)
{
	unsigned long long lo, hi, off;
	const char *p;
	int n = 0;

	if (sscanf(line, "%llx-%llx %*s %llx%n", &lo, &hi, &off, &n) != 3 ||
	    n == 0 || a < (uintptr_t)lo || a >= (uintptr_t)hi)
		return false;
	p = strchr(line, '/');
	if (!p || strlen(p) >= sizeof(m->path))
		return false;
	snprintf(m->path, sizeof(m->path), "%s", p);
	m->start = lo;
	m->end = hi;
	m->offset = off;
	return true;
}

/* From the kernel (raw syscalls: no wrapper of the shim's, no stdio). */
bool hs_dl__mapping(const void *addr, struct hs_dl_map *m)
{
	char buf[8192];
	size_t have = 0;
	bool found = false;
	int fd = hs_sys__openat(AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return false;
	while (!found) {
		long r = hs_sys__read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = '\0';
		while (!found && (nl = strchr(line, '\n'))) {
			*nl = '\0';
			found = dl__maps_line(line, (uintptr_t)addr, m);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1) /* a line longer than the buffer */
			have = 0;
	}
	hs_sys__close(fd);
	if (found)
		m->deleted = dl__strip_deleted(m->path);
	return found;
}

bool hs_dl__self_dir(const void *addr, char *dir, size_t len)
{
	char file[PATH_MAX], real[PATH_MAX], *slash;
	struct hs_dl_map m;
	Dl_info info;

	if (hs_dl__mapping(addr, &m)) {
		snprintf(file, sizeof(file), "%s", m.path);
	} else if (!dladdr(addr, &info) || !info.dli_fname ||
		   info.dli_fname[0] != '/' || strlen(info.dli_fname) >= sizeof(file)) {
		return false;
	} else {
		snprintf(file, sizeof(file), "%s", info.dli_fname);
	}
	if (!realpath(file, real) || !(slash = strrchr(real, '/')))
		return false;
	*slash = '\0';
	snprintf(dir, len, "%s", real[0] ? real : "/");
	return true;
}
