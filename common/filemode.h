/* filemode.h - the permissions of the files hpcshim writes, and names no
 * one can guess.
 *
 * A result file holds the command line, the host name and what the
 * program did: like perf record's perf.data it is the owner's alone by
 * default (0600).  HPCSHIM_UMASK, octal like umask(1), takes bits away
 * from 0666 instead (022: 0644, readable by all), and the process's own
 * umask applies on top, as for any file.  The shim (preload/config) and
 * the tools (merge -o) read the variable through this one parser.
 */
#ifndef HPCSHIM_COMMON_FILEMODE_H
#define HPCSHIM_COMMON_FILEMODE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HS_FILEMODE_MASK 077u /* HPCSHIM_UMASK unset: 0600 */

/* 1 to 4 octal digits, at most 0777, into *mask; false when malformed. */
static inline bool hs_filemode__parse(const char *v, unsigned *mask)
{
	unsigned m = 0;
	int n = 0;

	if (!v || !*v)
		return false;
	for (; *v; v++, n++) {
		if (*v < '0' || *v > '7' || n == 4)
			return false;
		m = m * 8 + (unsigned)(*v - '0');
	}
	if (m > 0777)
		return false;
	*mask = m;
	return true;
}

/* The creation mode for HPCSHIM_UMASK's mask. */
static inline unsigned hs_filemode__mode(unsigned mask)
{
	return 0666u & ~mask;
}

/* 64 bits no other user can predict, for a temporary name in a shared
 * directory (getrandom(2), raw: no libc wrapper of the shim's in the
 * way; the clock and the pid if the kernel has none). */
static inline uint64_t hs_filemode__random(void)
{
	uint64_t r = 0;
	struct timespec ts;

	if (syscall(SYS_getrandom, &r, sizeof(r), 1 /* GRND_NONBLOCK */) ==
	    (long)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
	       ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&r;
}

#endif
