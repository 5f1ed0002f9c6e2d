/* reach.h - whether LD_PRELOAD can bring the shim into a program, for
 * hpcshim run to say so before it runs one it cannot count (docs/reach.md).
 *
 * Only the dynamic loader reads LD_PRELOAD: a static executable has none,
 * and under secure execution (AT_SECURE: set-user-ID, set-group-ID, file
 * capabilities) glibc's loader ignores every LD_PRELOAD entry with a '/'.
 */
#ifndef HPCSHIM_TOOLS_REACH_H
#define HPCSHIM_TOOLS_REACH_H

#include <stddef.h>
#include <sys/types.h>

enum reach_kind {
	REACH_OK,     /* the loader will preload it (or we cannot tell) */
	REACH_STATIC, /* no PT_INTERP: no dynamic loader runs at all */
	REACH_SECURE, /* AT_SECURE: the loader ignores LD_PRELOAD */
};

/* The file execvp(3) would run for name: name itself when it has a '/',
 * else the first executable regular file of that name in PATH (execvp's
 * /bin:/usr/bin when PATH is unset; an empty entry is the current
 * directory).  0, or -1 when there is none: execvp will say so. */
int reach__resolve(const char *name, char *out, size_t len);

/* 1 when path is an ELF file without a PT_INTERP program header (a
 * static executable, static-pie included), 0 when it has one, -1 when it
 * is not an ELF file of this machine's byte order that we can read. */
int reach__elf_static(const char *path);

/* The caller as exec will see it.  apply: set-ID bits and file
 * capabilities take effect (not on a nosuid mount, not under
 * no_new_privs). */
struct reach_ids {
	uid_t ruid, euid;
	gid_t rgid, egid;
	int apply;
};

/* 1, with the reason in why, when exec'ing a file of this mode and owner
 * (fcaps: it has a security.capability attribute) by ids sets AT_SECURE,
 * as the kernel decides it (commoncap: the new effective ids differ from
 * the real ones, or a caller other than root gains capabilities); else 0. */
int reach__secure(unsigned mode, uid_t fuid, gid_t fgid, int fcaps,
		  const struct reach_ids *ids, char *why, size_t len);

/* Whether LD_PRELOAD reaches the program at path (resolved), for the
 * calling process; a "#!" script is judged by its interpreter, one level
 * down.  Not REACH_OK: why says why, as words that follow the program's
 * name ("is a static executable (...)"). */
enum reach_kind reach__check(const char *path, char *why, size_t len);

#endif
