/* identity.c - the rank, size and job id of this process, from the table
 * of launcher variables (launchers.c).
 *
 * Read once by the constructor, from the start environment: a variable
 * the program sets later says nothing about how it was started.  The
 * first launcher in the table whose rank variable holds a number wins,
 * and only its own variables give the size and the job id.  Invalid
 * values are skipped silently (the next variable of the row's kind, the
 * next launcher): a rank is a claim made in a file name, never a guess.
 *
 * Under Slurm, the job id is the step's SLURM_JOB_ID.SLURM_STEP_ID
 * whichever launcher gave the rank (srun's PMIx or PMI-2, hydra's proxies
 * started by srun), the launcher's own id in mpi_job: the table's OUTER
 * and OWN rows (launchers.c) say when.
 *
 * MPICH's hydra exposes no job id: its ranks are children (or
 * grandchildren, through a job script) of hydra_pmi_proxy, whose command
 * line holds the control port of the job's mpiexec, host:port, and the
 * process group id.  Every proxy of one job has the same, and no two
 * running mpiexecs share a port: the id is "host:port.pgid".  It is read
 * from /proc with raw system calls (close is the program's to see).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sys.h"
#include "preload/core/identity.h"

#define IDENTITY_ANCESTORS 4 /* the proxy, and up to 3 shells below it */

/* A whole decimal number in [lo, 2^30), or -1. */
static int identity__number(const char *v, long lo)
{
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	n = strtol(v, &end, 10);
	return *end == '\0' && n >= lo && n < (1L << 30) ? (int)n : -1;
}

static bool identity__set(const char *var)
{
	const char *v = getenv(var);

	return v && *v;
}

/* The first bytes of /proc/<pid>/<what> into buf, NUL-terminated; the
 * length read, or -1. */
static long identity__proc(int pid, const char *what, char *buf, size_t len)
{
	char path[64];
	long n, got = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	fd = hs_sys__openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1 &&
	       (n = hs_sys__read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	hs_sys__close(fd);
	buf[got] = '\0';
	return got;
}

static int identity__ppid(int pid)
{
	char buf[1024], *p;

	if (identity__proc(pid, "status", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nPPid:");
	return p ? atoi(p + 6) : -1;
}

/* The value after option opt in a NUL-separated command line. */
static const char *identity__option(const char *cmd, long len, const char *opt)
{
	for (const char *a = cmd; a < cmd + len; a += strlen(a) + 1)
		if (strcmp(a, opt) == 0 && a + strlen(a) + 1 < cmd + len)
			return a + strlen(a) + 1;
	return NULL;
}

/* hydra: "host:port.pgid" of the nearest hydra_pmi_proxy ancestor. */
static bool identity__hydra(char *job, size_t len)
{
	char cmd[4096];
	int pid = getppid();

	for (int i = 0; i < IDENTITY_ANCESTORS && pid > 1; i++) {
		long n = identity__proc(pid, "cmdline", cmd, sizeof(cmd));
		const char *base, *port, *pgid;

		if (n > 0) {
			base = strrchr(cmd, '/');
			base = base ? base + 1 : cmd;
			port = identity__option(cmd, n, "--control-port");
			pgid = identity__option(cmd, n, "--pgid");
			if (strcmp(base, "hydra_pmi_proxy") == 0 && port) {
				snprintf(job, len, "%s.%s", port, pgid ? pgid : "0");
				return true;
			}
		}
		pid = identity__ppid(pid);
	}
	return false;
}

static bool identity__derive(const char *how, char *job, size_t len)
{
	if (strcmp(how, "hydra") == 0)
		return identity__hydra(job, len);
	return false;
}

/* Whether some row of kind what in [first, end) names a set variable. */
static bool identity__holds(const struct hs_id_var *first,
			    const struct hs_id_var *end, enum hs_id_field what)
{
	for (const struct hs_id_var *r = first; r < end; r++)
		if (r->what == what && identity__set(r->var))
			return true;
	return false;
}

/* Whether every REQUIRE row of [first, end) names a set variable. */
static bool identity__required(const struct hs_id_var *first,
			       const struct hs_id_var *end)
{
	for (const struct hs_id_var *r = first; r < end; r++)
		if (r->what == HS_ID_REQUIRE && !identity__set(r->var))
			return false;
	return true;
}

/* The job id of launcher rows [first, end): the first JOB variable set,
 * else a derived one; ".STEP" appended when a STEP variable is set; ""
 * when none. */
static void identity__job(const struct hs_id_var *first,
			  const struct hs_id_var *end, char *job, size_t len)
{
	const struct hs_id_var *r;
	const char *step = NULL;

	job[0] = '\0';
	for (r = first; r < end; r++) {
		const char *v = getenv(r->var);

		if (r->what == HS_ID_JOB && !job[0] && v && *v)
			snprintf(job, len, "%s", v);
		else if (r->what == HS_ID_STEP && !step && v && *v)
			step = v;
	}
	for (r = first; r < end && !job[0]; r++)
		if (r->what == HS_ID_DERIVE)
			identity__derive(r->var, job, len);
	if (job[0] && step) {
		size_t n = strlen(job);

		snprintf(job + n, len - n, ".%s", step);
	}
}

/* Rank, size and job of launcher rows [first, end). */
static bool identity__launcher(const struct hs_id_var *first,
			       const struct hs_id_var *end, struct hs_identity *id)
{
	const struct hs_id_var *r;

	if (!identity__required(first, end))
		return false;
	for (r = first; r < end && id->rank < 0; r++)
		if (r->what == HS_ID_RANK)
			id->rank = identity__number(getenv(r->var), 0);
	if (id->rank < 0)
		return false;
	id->launcher = first->launcher;
	for (r = first; r < end && id->size < 0; r++)
		if (r->what == HS_ID_SIZE)
			id->size = identity__number(getenv(r->var), 1);
	/* a rank beyond the size is no rank of that job: keep the rank */
	if (id->size >= 0 && id->rank >= id->size)
		id->size = -1;
	identity__job(first, end, id->job, sizeof(id->job));
	return true;
}

/* The end of the launcher's rows that start at first. */
static const struct hs_id_var *identity__rows(const struct hs_id_var *first)
{
	const struct hs_id_var *r = first;

	while (r->launcher && strcmp(r->launcher, first->launcher) == 0)
		r++;
	return r;
}

/* Rank launcher [first, end) found: the job id of an outer launcher the
 * rank runs in (a Slurm step), the rank launcher's own in mpi_job; or the
 * own one, also in mpi_job unless the rank launcher is itself an outer
 * one (a task of a Slurm step that no MPI started). */
static void identity__outer(const struct hs_id_var *first,
			    const struct hs_id_var *end, struct hs_identity *id)
{
	const struct hs_id_var *t = hs_launcher_ids, *g, *e;
	char outer[HS_JOB_MAX];

	if (identity__holds(first, end, HS_ID_OUTER))
		return;
	snprintf(id->mpi_job, sizeof(id->mpi_job), "%s", id->job);
	for (g = t; g->launcher; g = identity__rows(g))
		if (identity__holds(g, identity__rows(g), HS_ID_OWN))
			return;
	for (g = t; g->launcher; g = e) {
		e = identity__rows(g);
		if (g == first || !identity__holds(g, e, HS_ID_OUTER) ||
		    !identity__required(g, e))
			continue;
		identity__job(g, e, outer, sizeof(outer));
		if (outer[0]) {
			memcpy(id->job, outer, sizeof(id->job));
			return;
		}
	}
}

void hs_identity__read(struct hs_identity *id)
{
	const struct hs_id_var *t = hs_launcher_ids, *end;

	*id = (struct hs_identity){ .rank = -1, .size = -1 };
	for (; t->launcher; t = end) {
		end = identity__rows(t);
		if (identity__launcher(t, end, id)) {
			identity__outer(t, end, id);
			return;
		}
		*id = (struct hs_identity){ .rank = -1, .size = -1 };
	}
}
