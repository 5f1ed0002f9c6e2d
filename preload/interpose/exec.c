/* exec.c - the exec family and _exit: results are written before the image
 * goes away.
 *
 * exec*() replaces the image without running destructors, and _exit() skips
 * them, so both write the results first.  glibc's exec variants call its
 * internal execve directly, so every variant is interposed, not only
 * execve.  The new image (when LD_PRELOAD persists) is counted as a process
 * entry of its own; HPCSHIM_EXEC_GENERATION="<pid>:<n>" tells it that it is
 * the n-th image of that pid.  A failed exec returns to a program whose
 * results are already written: the rest of that image is not counted.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/core/core.h"
#include "preload/interpose/interpose.h"

extern char **environ;

int hs_exec__generation(void)
{
	const char *v = getenv(HS_EXEC_ENV);
	long pid, gen;

	/* Only our own pid's value counts: a forked child that execs is a
	 * new process, whatever its parent's generation was. */
	if (v && sscanf(v, "%ld:%ld", &pid, &gen) == 2 && pid == getpid() &&
	    gen > 0 && gen < 1000000)
		return (int)gen;
	return 0;
}

/* Writes the results and returns the environment entry for the next image
 * (static storage), or NULL when this exec is not ours to account. */
static const char *exec__prepare(void)
{
	static char entry[64];
	int state = __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE);

	/* After a failed exec the results are written (FINISHED), but the
	 * next image is still the next generation of this pid. */
	if (hs_process__foreign() || state == HS_OFF)
		return NULL;
	hs_process__finish(HS_END_EXEC, 0);
	snprintf(entry, sizeof(entry), HS_EXEC_ENV "=%d:%d", (int)getpid(),
		 hs_proc.exec_generation + 1);
	return entry;
}

/* envp with our entry replacing any earlier one; NULL on ENOMEM. */
static char **exec__envp(char *const envp[], const char *entry)
{
	size_t n = 0, k = 0, len = strlen(HS_EXEC_ENV "=");
	char **out;

	while (envp && envp[n])
		n++;
	out = malloc((n + 2) * sizeof(*out));
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], HS_EXEC_ENV "=", len) != 0)
			out[k++] = envp[i];
	out[k++] = (char *)entry;
	out[k] = NULL;
	return out;
}

static void exec__failed(void)
{
	int saved = errno;

	hs_log(HS_LOG_INFO,
	       "exec failed (%s): results of this image were "
	       "already written; the rest of it is not counted",
	       strerror(saved));
	errno = saved;
}

/* The real function from the table (base/real.h), or fail with ENOSYS. */
#define REAL(name)                                           \
	hs_real_##name##_fn real_##name = hs_real__##name(); \
	if (!real_##name) {                                  \
		errno = ENOSYS;                              \
		return -1;                                   \
	}

/* Calls an envp-taking exec with our entry added to envp. */
#define EXEC_WITH_ENVP(call_real, envp)                                 \
	do {                                                            \
		const char *entry_ = exec__prepare();                   \
		char **env_ = entry_ ? exec__envp(envp, entry_) : NULL; \
		int rc_ = call_real(env_ ? env_ : (char **)(envp));     \
		int saved_ = errno;                                     \
		free(env_);                                             \
		errno = saved_;                                         \
		if (entry_)                                             \
			exec__failed();                                 \
		return rc_;                                             \
	} while (0)

/* Calls an environ-using exec after putting our entry into environ. */
#define EXEC_WITH_ENVIRON(call_real)                  \
	do {                                          \
		const char *entry_ = exec__prepare(); \
		int rc_;                              \
		if (entry_)                           \
			putenv((char *)entry_);       \
		rc_ = call_real;                      \
		if (entry_)                           \
			exec__failed();               \
		return rc_;                           \
	} while (0)

HPCSHIM_API int execve(const char *path, char *const argv[], char *const envp[])
{
	REAL(execve);
#define CALL(e) real_execve(path, argv, e)
	EXEC_WITH_ENVP(CALL, envp);
#undef CALL
}

HPCSHIM_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	REAL(execvpe);
#define CALL(e) real_execvpe(file, argv, e)
	EXEC_WITH_ENVP(CALL, envp);
#undef CALL
}

HPCSHIM_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	REAL(fexecve);
#define CALL(e) real_fexecve(fd, argv, e)
	EXEC_WITH_ENVP(CALL, envp);
#undef CALL
}

HPCSHIM_API int execveat(int dirfd, const char *path, char *const argv[],
			 char *const envp[], int flags)
{
	REAL(execveat);
#define CALL(e) real_execveat(dirfd, path, argv, e, flags)
	EXEC_WITH_ENVP(CALL, envp);
#undef CALL
}

HPCSHIM_API int execv(const char *path, char *const argv[])
{
	REAL(execv);
	EXEC_WITH_ENVIRON(real_execv(path, argv));
}

HPCSHIM_API int execvp(const char *file, char *const argv[])
{
	REAL(execvp);
	EXEC_WITH_ENVIRON(real_execvp(file, argv));
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
