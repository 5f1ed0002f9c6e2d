/* reach.c - what LD_PRELOAD cannot reach (reach.h, docs/reach.md). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tools/reach.h"

/* ---- the file execvp runs ------------------------------------------------ */

static int reach__runnable(const char *p)
{
	struct stat st;

	return access(p, X_OK) == 0 && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int reach__resolve(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *dir, *end;

	if (!*name)
		return -1;
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return 0;
	}
	if (!path)
		path = "/bin:/usr/bin"; /* glibc's execvp: confstr(_CS_PATH) */
	for (dir = path;; dir = end + 1) {
		size_t n;

		end = strchrnul(dir, ':');
		n = (size_t)(end - dir);
		if (n == 0)
			snprintf(out, len, "%s", name);
		else
			snprintf(out, len, "%.*s/%s", (int)n, dir, name);
		if (reach__runnable(out))
			return 0;
		if (!*end)
			return -1;
	}
}

/* ---- ELF: a PT_INTERP or none ------------------------------------------ */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define REACH_ELFDATA ELFDATA2LSB
#else
#define REACH_ELFDATA ELFDATA2MSB
#endif

/* More program headers than any linker writes: a corrupt header. */
#define REACH_MAX_PHDRS 4096

static int reach__read_at(int fd, void *buf, size_t n, off_t at)
{
	ssize_t r = pread(fd, buf, n, at);

	return r == (ssize_t)n ? 0 : -1;
}

/* The p_type of each of phnum headers of size phentsize at phoff:
 * 1 when none is PT_INTERP, 0 when one is, -1 when unreadable. */
static int reach__no_interp(int fd, int is64, unsigned long long phoff,
			    unsigned phnum, unsigned phentsize)
{
	unsigned want = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

	if (phentsize != want || phnum == 0 || phnum > REACH_MAX_PHDRS)
		return -1;
	for (unsigned i = 0; i < phnum; i++) {
		uint32_t type; /* p_type is the first member of both forms */

		if (reach__read_at(fd, &type, sizeof(type),
				   (off_t)(phoff + (unsigned long long)i * phentsize)) < 0)
			return -1;
		if (type == PT_INTERP)
			return 0;
	}
	return 1;
}

int reach__elf_static(const char *path)
{
	union {
		unsigned char ident[EI_NIDENT];
		Elf32_Ehdr h32;
		Elf64_Ehdr h64;
	} h;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0)
		return -1;
	if (reach__read_at(fd, h.ident, EI_NIDENT, 0) < 0 ||
	    memcmp(h.ident, ELFMAG, SELFMAG) != 0 || h.ident[EI_DATA] != REACH_ELFDATA)
		goto out;
	if (h.ident[EI_CLASS] == ELFCLASS64) {
		if (reach__read_at(fd, &h.h64, sizeof(h.h64), 0) == 0 &&
		    (h.h64.e_type == ET_EXEC || h.h64.e_type == ET_DYN))
			rc = reach__no_interp(fd, 1, h.h64.e_phoff, h.h64.e_phnum,
					      h.h64.e_phentsize);
	} else if (h.ident[EI_CLASS] == ELFCLASS32) {
		if (reach__read_at(fd, &h.h32, sizeof(h.h32), 0) == 0 &&
		    (h.h32.e_type == ET_EXEC || h.h32.e_type == ET_DYN))
			rc = reach__no_interp(fd, 0, h.h32.e_phoff, h.h32.e_phnum,
					      h.h32.e_phentsize);
	}
out:
	close(fd);
	return rc;
}

/* ---- secure execution -------------------------------------------------- */

int reach__secure(unsigned mode, uid_t fuid, gid_t fgid, int fcaps,
		  const struct reach_ids *ids, char *why, size_t len)
{
	/* The ids after exec (fs/exec.c, bprm_fill_uid): set-group-ID needs
	 * the group execute bit (without it the bit means mandatory
	 * locking). */
	int suid = ids->apply && (mode & S_ISUID);
	int sgid = ids->apply && (mode & S_ISGID) && (mode & S_IXGRP);
	uid_t euid = suid ? fuid : ids->euid;
	gid_t egid = sgid ? fgid : ids->egid;

	if (euid != ids->ruid) {
		if (suid)
			snprintf(why, len, "is set-user-ID (owner uid %u, run by uid %u)",
				 (unsigned)fuid, (unsigned)ids->ruid);
		else
			snprintf(why, len, "would run with effective uid %u, real uid %u",
				 (unsigned)euid, (unsigned)ids->ruid);
		return 1;
	}
	if (egid != ids->rgid) {
		if (sgid)
			snprintf(why, len, "is set-group-ID (group gid %u, run by gid %u)",
				 (unsigned)fgid, (unsigned)ids->rgid);
		else
			snprintf(why, len, "would run with effective gid %u, real gid %u",
				 (unsigned)egid, (unsigned)ids->rgid);
		return 1;
	}
	/* Capabilities a caller other than root gains (root has them all
	 * and is exempt).  Taken as gained whenever the file has some: the
	 * caller's own permitted set rarely holds them already. */
	if (ids->apply && fcaps && ids->ruid != 0) {
		snprintf(why, len, "has file capabilities (security.capability, run by uid %u)",
			 (unsigned)ids->ruid);
		return 1;
	}
	return 0;
}

static void reach__ids(const char *path, struct reach_ids *ids)
{
	struct statvfs vfs;

	ids->ruid = getuid();
	ids->euid = geteuid();
	ids->rgid = getgid();
	ids->egid = getegid();
	ids->apply = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1 &&
		     !(statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID));
}

/* An ELF file itself: static, secure, or fine. */
static enum reach_kind reach__elf(const char *path, char *why, size_t len)
{
	struct reach_ids ids;
	struct stat st;
	char sec[160];
	int fcaps;

	switch (reach__elf_static(path)) {
	case 1:
		snprintf(why, len, "is a static executable (no PT_INTERP program header), "
				   "so no dynamic loader runs to read LD_PRELOAD");
		return REACH_STATIC;
	case 0:
		break;
	default:
		return REACH_OK;
	}
	if (stat(path, &st) < 0)
		return REACH_OK;
	reach__ids(path, &ids);
	fcaps = getxattr(path, "security.capability", NULL, 0) > 0;
	if (!reach__secure(st.st_mode, st.st_uid, st.st_gid, fcaps, &ids, sec, sizeof(sec)))
		return REACH_OK;
	snprintf(why, len, "%s, so it runs with AT_SECURE and the dynamic loader "
			   "ignores LD_PRELOAD", sec);
	return REACH_SECURE;
}

/* The interpreter of a "#!" line (the kernel reads at most 256 bytes of
 * it), or "" when path is not a script. */
static void reach__interp(const char *path, char *out, size_t len)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	size_t i = 2, k = 0;

	out[0] = '\0';
	if (fd >= 0)
		close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return;
	buf[n] = '\0';
	while (buf[i] == ' ' || buf[i] == '\t')
		i++;
	while (buf[i] && !strchr(" \t\n", buf[i]) && k < len - 1)
		out[k++] = buf[i++];
	out[k] = '\0';
}

enum reach_kind reach__check(const char *path, char *why, size_t len)
{
	char interp[256], inner[400];
	enum reach_kind k;

	reach__interp(path, interp, sizeof(interp));
	if (!interp[0])
		return reach__elf(path, why, len);
	/* The kernel ignores a script's own set-ID bits: only its
	 * interpreter's file counts. */
	k = reach__elf(interp, inner, sizeof(inner));
	if (k != REACH_OK)
		snprintf(why, len, "runs %s, which %s", interp, inner);
	return k;
}
