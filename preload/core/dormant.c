/* dormant.c - processes the shim leaves alone.
 *
 * Decided first thing in the constructor, before the configuration, the
 * counters or the signal handlers exist: a dormant process keeps the state
 * HS_OFF, so every wrapper passes straight through to libc, the destructor
 * writes nothing and exec passes the program's environment (LD_PRELOAD
 * included, so a descendant that should be counted still is).
 *
 * The program's name is the basename of /proc/self/exe and that of
 * argv[0] (a leading '-' of a login shell dropped); either may match.
 * HPCSHIM_PROGRAMS, when it has a valid glob, decides alone: a process
 * whose name matches none stays dormant.  Without it, the default
 * (launchers.c) keeps launchers dormant, and the shells and wrappers
 * between a launcher and a rank: a helper name with a launcher's variable
 * in the environment.  One line at HPCSHIM_VERBOSE >= 1 says so.
 *
 * A program in secure execution (getauxval(AT_SECURE): set-user-ID,
 * set-group-ID, file capabilities; the shim reaches one only from
 * /etc/ld.so.preload or as a trusted library) is dormant before anything
 * else, whatever the environment says: its environment is the invoking
 * user's, and every HPCSHIM_* variable would let that user steer a
 * privileged process (an output directory it may not write, a preset path
 * through a link to a file it may not read, plugins).  Counting it with
 * built-in defaults only would still write a file owned by the privileged
 * user into the invoker's current directory, of no use to either.  One
 * line says so when an HPCSHIM_* variable asked for counting; a program
 * without any (the system-wide preload) stays silent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "preload/base/log.h"
#include "preload/config/config.h"
#include "preload/core/quiet.h"

/* 0 undecided, 1 counted, 2 dormant */
static int decision;

static const char *dormant__base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* The basename of the running executable into buf, "" if unknown. */
static void dormant__exe(char *buf, size_t len)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	const char *deleted = " (deleted)", *base;
	size_t dl = strlen(deleted);

	buf[0] = '\0';
	if (n <= 0)
		return;
	path[n] = '\0';
	if ((size_t)n > dl && strcmp(path + n - dl, deleted) == 0)
		path[n - dl] = '\0';
	base = dormant__base(path);
	n = (ssize_t)strnlen(base, len - 1);
	memcpy(buf, base, (size_t)n);
	buf[n] = '\0';
}

static bool dormant__any_var(void)
{
	for (int i = 0; hs_launcher_vars[i]; i++) {
		const char *v = getenv(hs_launcher_vars[i]);

		if (v && *v)
			return true;
	}
	return false;
}

static bool dormant__listed(const char *const *table, const char *a, const char *b)
{
	int n = 0;

	while (table[n])
		n++;
	return hs_programs__match(table, n, a) || hs_programs__match(table, n, b);
}

/* HPCSHIM_VERBOSE without its diagnostics: config.c reports a bad value
 * when the process is counted; a dormant one stays silent about it. */
static void dormant__verbosity(void)
{
	const char *v = getenv("HPCSHIM_VERBOSE");

	if (v && v[0] >= '0' && v[0] <= '2' && !v[1])
		hs_log_set_level(v[0] - '0');
}

/* Whether the environment has an HPCSHIM_* variable. */
static bool dormant__asked(void)
{
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "HPCSHIM_", 8) == 0)
			return true;
	return false;
}

/* Secure execution: dormant, the environment unread (but for the line). */
static bool dormant__secure(void)
{
	if (!getauxval(AT_SECURE))
		return false;
	if (dormant__asked())
		hs_log(HS_LOG_ERROR,
		       "secure execution (set-user-ID, set-group-ID or capabilities; "
		       "pid %d): HPCSHIM_* ignored; nothing counted",
		       (int)getpid());
	return true;
}

/* Why this process stays dormant, or NULL when it is counted. */
static const char *dormant__why(const char *exe, const char *arg0)
{
	struct hs_programs p;
	const char *why = NULL;

	hs_programs__from_env(&p);
	if (p.n > 0) {
		if (!hs_programs__match((const char *const *)p.glob, p.n, exe) &&
		    !hs_programs__match((const char *const *)p.glob, p.n, arg0))
			why = "not in HPCSHIM_PROGRAMS";
	} else if (dormant__listed(hs_launcher_programs, exe, arg0)) {
		why = "a launcher";
	} else if (dormant__listed(hs_launcher_helpers, exe, arg0) &&
		   dormant__any_var()) {
		why = "a shell or wrapper under a launcher";
	}
	hs_programs__free(&p);
	return why;
}

bool hs_dormant__decide(int argc, char **argv)
{
	char exe[256];
	const char *arg0 = argc > 0 && argv && argv[0] ? argv[0] :
							 program_invocation_name;
	const char *why;
	int saved = errno;

	if (decision)
		return decision == 2;
	if (dormant__secure()) {
		decision = 2;
		errno = saved;
		return true;
	}
	arg0 = arg0 ? dormant__base(arg0) : "";
	if (arg0[0] == '-')
		arg0++;
	dormant__exe(exe, sizeof(exe));
	why = dormant__why(exe, arg0);
	decision = why ? 2 : 1;
	if (why) {
		dormant__verbosity();
		hs_log(HS_LOG_INFO, "dormant in %s (pid %d): %s; nothing counted",
		       exe[0] ? exe : arg0, (int)getpid(), why);
	}
	errno = saved;
	return why != NULL;
}

bool hs_dormant__is(void)
{
	return decision == 2;
}
