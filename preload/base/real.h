/* real.h - the one table of the real libc functions the shim wraps.
 *
 * The shim exports close, sigaction, pthread_create, dlopen, the exec
 * family and a few more (preload/interpose/).  The library is not linked
 * to bind internally, so a plain call to one of those names from the
 * shim's own code would run through the shim's own wrapper.  Internal code
 * therefore calls the real function through this table (GOTCHA's
 * "wrappee"), and the wrappers reach their originals the same way.
 * Entries are looked up with dlsym(RTLD_NEXT) on first use: wrappers can
 * run before our constructor (another object's constructor calls them).
 * Each getter returns NULL when libc has no such function.
 */
#ifndef HPCSHIM_PRELOAD_REAL_H
#define HPCSHIM_PRELOAD_REAL_H

#include <pthread.h>
#include <signal.h>

/* X(name, return type, parameter list) */
#define HS_REAL_TABLE(X)                                                         \
	X(close, int, (int))                                                     \
	X(close_range, int, (unsigned int, unsigned int, int))                   \
	X(closefrom, void, (int))                                                \
	X(dup2, int, (int, int))                                                 \
	X(dup3, int, (int, int, int))                                            \
	X(sigaction, int, (int, const struct sigaction *, struct sigaction *))   \
	X(pthread_create, int,                                                   \
	  (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))      \
	X(dlopen, void *, (const char *, int))                                   \
	X(execve, int, (const char *, char *const[], char *const[]))             \
	X(execvpe, int, (const char *, char *const[], char *const[]))            \
	X(fexecve, int, (int, char *const[], char *const[]))                     \
	X(execveat, int, (int, const char *, char *const[], char *const[], int)) \
	X(execv, int, (const char *, char *const[]))                             \
	X(execvp, int, (const char *, char *const[]))

#define HS_REAL_DECLARE(name, ret, params)        \
	typedef ret(*hs_real_##name##_fn) params; \
	hs_real_##name##_fn hs_real__##name(void);
HS_REAL_TABLE(HS_REAL_DECLARE)
#undef HS_REAL_DECLARE

/* dlsym itself (preload/mpi/ exports a dlsym): libc's, found with dlvsym
 * so that the lookup never runs through the shim's own. */
typedef void *(*hs_real_dlsym_fn)(void *, const char *);
hs_real_dlsym_fn hs_real__dlsym(void);

/* Resolves every entry (the constructor: later calls cost one load). */
void hs_real__init(void);

/* The common internal uses: the real call, or -1 with errno ENOSYS. */
int hs_real_close(int fd);
int hs_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#endif
