/* exec.c - the exec family and _exit: results are written before the image
 * goes away.
 *
 * exec*() replaces the image without running destructors, and _exit() skips
 * them, so both write the results first.  glibc's exec variants call its
 * internal execve directly, so every variant is interposed, not only
 * execve.  The new image (when LD_PRELOAD persists) is counted as a process
 * entry of its own.  A failed exec returns to a program whose results are
 * already written: the rest of that image is not counted.
 *
 * The new image gets exactly the environment the program passed: nothing
 * is added.  What it must know, its exec generation (how many images of
 * this process wrote a file before it), goes through a marker file next
 * to the results, named by what identifies a process across exec: the pid
 * and its start time (/proc/self/stat field 22, which exec keeps).  The
 * marker holds the generation of the last file published; it is written
 * (atomically) only by an image that wrote a file and execs, and read and
 * removed by the next counted image.  An image with nothing measurable
 * (core/quiet.c) writes no file and takes no generation: it only passes
 * the marker on, and keeps counting if the exec fails.
 *
 * The output directory may be shared (1777) with users who plant names
 * there.  The marker is written under a temporary name with a random part
 * (O_EXCL|O_NOFOLLOW, mode 0600: nothing planted is opened, followed or
 * truncated) and renamed onto the first of a few slot names (.exec,
 * .exec1, ...) that does not hold another user's file; it is read with
 * O_NONBLOCK|O_NOFOLLOW (a FIFO does not block) and only believed when it
 * is a regular file of this effective user with one link: a planted
 * marker never sets the generation, and one that cannot be removed only
 * moves ours to the next slot.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "common/filemode.h"
#include "common/sys.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/core/core.h"
#include "preload/core/quiet.h"
#include "preload/interpose/interpose.h"

/* The process's start time in clock ticks since boot, 0 if unknown. */
static unsigned long long exec__start_time(void)
{
	char buf[1024], *p;
	unsigned long long v = 0;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	hs_sys__close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The command name (field 2) may hold blanks and ')': fields 3 on
	 * start after the last ')'; field 22 is the 20th of them. */
	p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%llu", &v);
	return v;
}

/* The slot names a marker may take: .exec, then .exec1 .. .exec3 when
 * another user holds the ones before. */
#define EXEC_SLOTS 4

/* The slot written by exec__pass, for exec__failed. */
static int exec_slot = -1;

/* <dir>/.hpcshim-<host>-<pid>-<start>.exec[<slot>], or "" if the start
 * time is unknown (no /proc: every image is then generation 0). */
static void exec__marker(char *path, size_t len, int slot)
{
	char host[256] = "unknown";
	unsigned long long start = exec__start_time();

	path[0] = '\0';
	if (!start)
		return;
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	for (char *c = host; *c; c++) /* a host name is no path */
		if (*c == '/')
			*c = '_';
	if (slot > 0)
		snprintf(path, len, "%s/.hpcshim-%s-%d-%llu.exec%d",
			 hs_proc.cfg.output, host, (int)getpid(), start, slot);
	else
		snprintf(path, len, "%s/.hpcshim-%s-%d-%llu.exec",
			 hs_proc.cfg.output, host, (int)getpid(), start);
}

/* The generation a marker at path holds when it is ours (a regular file
 * of this effective user, one link), else -1; -2 when there is none. */
static long exec__read(const char *path)
{
	char buf[32];
	long last = -1;
	struct stat st;
	ssize_t n;
	const int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
	int fd = hs_sys__openat(AT_FDCWD, path, flags, 0);

	if (fd < 0)
		return errno == ENOENT ? -2 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		hs_sys__close(fd);
		hs_log(HS_LOG_DEBUG, "exec: %s is not this user's marker; ignored",
		       path);
		return -1;
	}
	n = hs_sys__read(fd, buf, sizeof(buf) - 1);
	hs_sys__close(fd);
	unlink(path);
	if (n > 0) {
		buf[n] = '\0';
		if (sscanf(buf, "%ld", &last) != 1 || last < 0 || last >= 999999)
			last = -1;
	}
	return last;
}

int hs_exec__generation(void)
{
	char path[PATH_MAX + 400];

	hs_quiet__mark();
	for (int slot = 0; slot < EXEC_SLOTS; slot++) {
		long last;

		exec__marker(path, sizeof(path), slot);
		if (!path[0])
			return 0;
		last = exec__read(path);
		if (last == -2) /* no marker here: none after it either */
			return 0;
		if (last >= 0)
			return (int)(last + 1);
	}
	return 0;
}

/* Tells the next image that generation gen of this process has a file
 * (nothing when gen < 0).  Written under a temporary name no one can
 * guess and renamed, so a reader never sees half a number; onto the
 * first slot that takes it. */
static void exec__pass(int gen)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK |
			  O_CLOEXEC;
	char path[PATH_MAX + 400], tmp[PATH_MAX + 440], num[16];
	int fd, len, ok;

	exec_slot = -1;
	if (gen < 0)
		return;
	exec__marker(path, sizeof(path), 0);
	if (!path[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s.%016llx.tmp", path,
		 (unsigned long long)hs_filemode__random());
	len = snprintf(num, sizeof(num), "%d\n", gen);
	fd = hs_sys__openat(AT_FDCWD, tmp, flags, 0600);
	if (fd < 0) {
		hs_log(HS_LOG_DEBUG, "exec: cannot write %s: %s", tmp, strerror(errno));
		return;
	}
	ok = hs_sys__write(fd, num, (size_t)len) == len;
	if (hs_sys__close(fd) < 0 || !ok) {
		hs_log(HS_LOG_DEBUG, "exec: cannot write %s", tmp);
		unlink(tmp);
		return;
	}
	for (int slot = 0; slot < EXEC_SLOTS; slot++) {
		exec__marker(path, sizeof(path), slot);
		if (rename(tmp, path) == 0) {
			exec_slot = slot;
			return;
		}
	}
	hs_log(HS_LOG_DEBUG, "exec: cannot place the marker %s: %s", path,
	       strerror(errno));
	unlink(tmp);
}

/* What exec__prepare did: the failure path depends on it. */
enum exec_prep { PREP_NONE, PREP_WROTE, PREP_PASSED };

/* Before the real exec.  The environment is never touched. */
static enum exec_prep exec__prepare(void)
{
	int saved = errno, state = __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE);
	enum exec_prep prep = PREP_NONE;

	if (hs_process__foreign() || state != HS_RUNNING) {
		/* HS_FINISHED: written at a failed exec, which passed the
		 * marker already. */
	} else if (hs_quiet__nothing()) {
		/* The next image gets the generation this one would have
		 * had; counting goes on if the exec fails. */
		if (hs_proc.exec_generation > 0) {
			exec__pass(hs_proc.exec_generation - 1);
			prep = PREP_PASSED;
		}
		hs_log(HS_LOG_DEBUG, "exec: nothing measured in this image; no file");
	} else {
		hs_process__finish(HS_END_EXEC, 0);
		exec__pass(hs_proc.exec_generation);
		prep = PREP_WROTE;
	}
	errno = saved;
	return prep;
}

static void exec__failed(enum exec_prep prep)
{
	int saved = errno;
	char path[PATH_MAX + 400];

	if (prep == PREP_WROTE) {
		hs_log(HS_LOG_INFO,
		       "exec failed (%s): results of this image were "
		       "already written; the rest of it is not counted",
		       strerror(saved));
	} else if (prep == PREP_PASSED && exec_slot >= 0) {
		/* This image goes on and takes the generation itself. */
		exec__marker(path, sizeof(path), exec_slot);
		if (path[0])
			unlink(path);
	}
	errno = saved;
}

/* The real function from the table (base/real.h), or fail with ENOSYS. */
#define REAL(name)                                           \
	hs_real_##name##_fn real_##name = hs_real__##name(); \
	if (!real_##name) {                                  \
		errno = ENOSYS;                              \
		return -1;                                   \
	}

/* The accounting, then the real call with the program's own arguments. */
#define EXEC(call_real)                                 \
	do {                                            \
		enum exec_prep prep_ = exec__prepare(); \
		int rc_;                                \
		pmu_fdspace__exec_begin();              \
		rc_ = call_real;                        \
		pmu_fdspace__exec_failed();             \
		exec__failed(prep_);                    \
		return rc_;                             \
	} while (0)

HPCSHIM_API int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve);
	EXEC(real_execve(path, argv, envp));
}

HPCSHIM_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe);
	EXEC(real_execvpe(file, argv, envp));
}

HPCSHIM_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	REAL(fexecve);
	EXEC(real_fexecve(fd, argv, envp));
}

HPCSHIM_API int execveat(int dirfd, const char *path, char *const argv[],
			 char *const envp[], int flags)
{
	REAL(execveat);
	EXEC(real_execveat(dirfd, path, argv, envp, flags));
}

HPCSHIM_API int execv(const char *path, char *const argv[])
{
	REAL(execv);
	EXEC(real_execv(path, argv));
}

HPCSHIM_API int execvp(const char *file, char *const argv[])
{
	REAL(execvp);
	EXEC(real_execvp(file, argv));
}

/* The list forms: collect the arguments, then take the vector path
 * (which does the accounting). */
enum list_form { LIST_PATH, LIST_SEARCH, LIST_ENVP };

static int exec__list(enum list_form form, const char *file, const char *arg0,
		      va_list ap)
{
	size_t n = 1;
	va_list count;

	va_copy(count, ap);
	while (va_arg(count, char *))
		n++;
	va_end(count);

	char *argv[n + 1];

	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++) /* argv[n] is the terminating NULL */
		argv[i] = va_arg(ap, char *);
	switch (form) {
	case LIST_PATH:
		return execv(file, argv);
	case LIST_SEARCH:
		return execvp(file, argv);
	case LIST_ENVP: /* execle: envp follows the terminating NULL */
		return execve(file, argv, va_arg(ap, char *const *));
	}
	errno = EINVAL;
	return -1;
}

HPCSHIM_API int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = exec__list(LIST_PATH, path, arg, ap);
	va_end(ap);
	return rc;
}

HPCSHIM_API int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = exec__list(LIST_SEARCH, file, arg, ap);
	va_end(ap);
	return rc;
}

HPCSHIM_API int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = exec__list(LIST_ENVP, path, arg, ap);
	va_end(ap);
	return rc;
}

/* _exit and _Exit skip destructors: write first, then leave for real. */
HPCSHIM_API void _exit(int status)
{
	hs_process__finish(HS_END_EXIT_NOW, 0);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

HPCSHIM_API void _Exit(int status)
{
	hs_process__finish(HS_END_EXIT_NOW, 0);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}
