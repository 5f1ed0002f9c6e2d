/* result.c - result files: created unseen, the process rendered into one
 * (json.c), published without replacing another, replaced in one step
 * (result.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/filemode.h"
#include "common/mkdirs.h"
#include "common/sys.h"
#include "aggregate/aggregate.h"
#include "aggregate/json.h"
#include "aggregate/out.h"
#include "aggregate/result.h"
#include "aggregate/view.h"

/* The mode files are created with (agg_result__set_mode): 0600 until the
 * writer says otherwise (common/filemode.h). */
static unsigned result_mode = 0600;

void agg_result__set_mode(unsigned mode)
{
	result_mode = mode & 0666;
}

/* f->tmp with a random part added: the usual name is held by a file this
 * process cannot remove (another user's, in a sticky directory). */
static void result__random_tmp(struct agg_result_file *f)
{
	size_t n = strlen(f->tmp);

	if (n > 4 && n + 20 < sizeof(f->tmp))
		snprintf(f->tmp + n - 4, sizeof(f->tmp) - n + 4, ".%016llx.tmp",
			 (unsigned long long)hs_filemode__random());
}

/* The file as one process writes it: unnamed (O_TMPFILE) where the file
 * system allows, so a process killed while writing leaves nothing behind;
 * else under the hidden name .hpcshim-<host>-<pid>.<tag>.tmp, the same
 * for every image of that pid, so the next write of this pid (or the next
 * process that gets it) removes what a killed one left.  A name held by
 * what this process cannot remove (a FIFO, a link or a file of another
 * user in a sticky directory) is never opened: O_EXCL, and a name with a
 * random part instead. */
int agg_result__open(struct agg_result_file *f, const char *dir, const char *host,
		     pid_t pid, char tag)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;

	f->fd = hs_sys__openat(AT_FDCWD, dir, O_TMPFILE | O_WRONLY | O_CLOEXEC,
			       (int)result_mode);
	f->anon = f->fd >= 0;
	agg_result__tmp_name(f->tmp, sizeof(f->tmp), dir, host, pid, tag);
	if (f->anon)
		return 0;
	unlink(f->tmp);
	f->fd = hs_sys__openat(AT_FDCWD, f->tmp, flags, (int)result_mode);
	if (f->fd < 0 && errno == EEXIST) {
		result__random_tmp(f);
		f->fd = hs_sys__openat(AT_FDCWD, f->tmp, flags, (int)result_mode);
	}
	if (f->fd < 0)
		f->tmp[0] = '\0'; /* not ours: discard must not remove it */
	return f->fd < 0 ? -1 : 0;
}

void agg_result__tmp_name(char *buf, size_t len, const char *dir, const char *host,
			  pid_t pid, char tag)
{
	snprintf(buf, len, "%s/.hpcshim-%s-%d.%c.tmp", dir, host, (int)pid, tag);
	for (char *c = buf + strlen(dir) + 1; *c; c++) /* a host name is no path */
		if (*c == '/')
			*c = '_';
}


/* Links the file under name; EEXIST when name exists. */
static int result__link(struct agg_result_file *f, const char *name)
{
	char proc[64];

	if (!f->anon)
		return link(f->tmp, name);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT) /* no /proc: needs CAP_DAC_READ_SEARCH */
		return -1;
	return linkat(f->fd, "", AT_FDCWD, name, AT_EMPTY_PATH);
}

/* Publishes the file under base.json, base-1.json, ...: link(2) never
 * replaces an existing file, so a result of an earlier process (pid reuse)
 * or another host with the same name is never lost. */
int agg_result__link_new(struct agg_result_file *f, const char *dir,
			 const char *base, char *path, size_t pathlen)
{
	for (int k = 0; k < 1000; k++) {
		if (k == 0)
			snprintf(path, pathlen, "%s/%s.json", dir, base);
		else
			snprintf(path, pathlen, "%s/%s-%d.json", dir, base, k);
		if (result__link(f, path) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* Replaces path (this image's own earlier publication) in one rename(2):
 * a reader sees the old file or the new one, never a part. */
int agg_result__replace(struct agg_result_file *f, const char *path)
{
	if (f->anon && result__link(f, f->tmp) < 0) {
		if (errno != EEXIST)
			return -1;
		if (unlink(f->tmp) < 0)
			result__random_tmp(f); /* held by what is not ours */
		if (result__link(f, f->tmp) < 0)
			return -1;
	}
	if (rename(f->tmp, path) == 0)
		return 0;
	unlink(f->tmp);
	return -1;
}

void agg_result__discard(struct agg_result_file *f)
{
	if (f->fd >= 0)
		hs_sys__close(f->fd);
	f->fd = -1;
	if (!f->anon && f->tmp[0])
		unlink(f->tmp);
	f->tmp[0] = '\0';
}

static bool result__name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '+';
}

/* "-j<job>" or "" (no job): the job id keeps the files of two jobs in one
 * directory apart (a pid and a rank repeat from job to job).  Only
 * [A-Za-z0-9._+] of it are kept, the rest become '_' (a PMIx namespace has
 * '@', hydra's id a ':'), cut to 64. */
void agg_result__job_suffix(const char *id, char *out, size_t len)
{
	size_t n = 0;

	if (len < 3 || !id || !id[0]) {
		if (len)
			out[0] = '\0';
		return;
	}
	out[n++] = '-';
	out[n++] = 'j';
	for (const char *c = id; *c && n < len - 1 && n < 66; c++)
		out[n++] = result__name_char(*c) ? *c : '_';
	out[n] = '\0';
}

/* hpcshim-<host>-<pid>[-j<job>][-r<rank>][-x<exec generation>]. */
void agg_result__base(const struct agg_process *p, char *base, size_t len)
{
	char rank[16] = "", gen[16] = "", job[72];

	agg_result__job_suffix(p->job, job, sizeof(job));
	if (p->rank >= 0)
		snprintf(rank, sizeof(rank), "-r%d", p->rank);
	/* Every exec'd image of a pid has its own file. */
	if (p->exec_generation > 0)
		snprintf(gen, sizeof(gen), "-x%d", p->exec_generation);
	snprintf(base, len, "hpcshim-%s-%d%s%s%s", p->host, p->pid, job, rank, gen);
	for (char *c = base; *c; c++) /* a host name is no path */
		if (*c == '/')
			*c = '_';
}

/* A name of a descriptor the caller has open (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N): what it reaches is written, whatever it is; a file
 * made beside it would land in /dev or /proc. */
static bool result__fd_name(const char *path)
{
	return strncmp(path, "/dev/fd/", 8) == 0 || strcmp(path, "/dev/stdout") == 0 ||
	       strcmp(path, "/dev/stderr") == 0 || strncmp(path, "/proc/", 6) == 0;
}

/* Writes text whole to what path already is, a device, a pipe or a FIFO
 * (-o /dev/null, /dev/stdout, a process substitution): never replaced by
 * a regular file.  Opened without O_CREAT, so nothing is made; a regular
 * file reached through a descriptor's name (stdout redirected to a file)
 * is appended to, as the shell's `>` and `>>` leave it. */
static int result__write_through(const char *path, const char *text, size_t n, bool nl,
				 bool regular, char *err, size_t errlen)
{
	const int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | (regular ? O_APPEND : 0);
	size_t off = 0;
	int fd = hs_sys__openat(AT_FDCWD, path, flags, 0);
	long w = 0;

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (off < n + nl) {
		const char *b = off < n ? text + off : "\n";
		size_t len = off < n ? n - off : 1;

		w = hs_sys__write(fd, b, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	if (off < n + nl) {
		snprintf(err, errlen, "%s: %s", path,
			 w < 0 ? strerror(errno) : "short write");
		hs_sys__close(fd);
		return -1;
	}
	if (hs_sys__close(fd) < 0 && errno != EINTR) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The job document (aggregate/jobdoc.c): written whole, beside path, then
 * renamed over it, so that a reader never sees a part.  The temporary has
 * a random part and is made with O_EXCL|O_NOFOLLOW: nothing planted
 * beside path is followed, truncated or written.  A path the user named
 * (named) that is not a regular file, or names a descriptor, is written
 * through (a device: /dev/null stays a device) or refused (a directory);
 * one the shim made up is only ever replaced. */
static int result__write(const char *path, const char *text, size_t n, bool nl, bool named,
			 char *err, size_t errlen)
{
	size_t len = strlen(path) + 48;
	char *tmp;
	struct stat st;
	int fd, rc = -1;
	FILE *f;

	if (named && stat(path, &st) == 0 &&
	    (!S_ISREG(st.st_mode) || result__fd_name(path))) {
		if (!S_ISDIR(st.st_mode))
			return result__write_through(path, text, n, nl, S_ISREG(st.st_mode),
						     err, errlen);
		snprintf(err, errlen, "%s: %s", path, strerror(EISDIR));
		return -1;
	}
	tmp = malloc(len);
	if (!tmp) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	snprintf(tmp, len, "%s.tmp.%d.%016llx", path, (int)getpid(),
		 (unsigned long long)hs_filemode__random());
	fd = hs_sys__openat(AT_FDCWD, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    (int)result_mode);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd >= 0) {
			hs_sys__close(fd); /* never the shim's close wrapper */
			unlink(tmp);
		}
		free(tmp);
		return -1;
	}
	if (fwrite(text, 1, n, f) == n && (!nl || fputc('\n', f) != EOF) && fflush(f) == 0 &&
	    fsync(fd) == 0)
		rc = 0;
	if (fclose(f) != 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -1;
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

int agg_result__write_text(const char *path, const char *text, bool named,
			   char *err, size_t errlen)
{
	return result__write(path, text, strlen(text), true, named, err, errlen);
}

int agg_result__write_bytes(const char *path, const void *buf, size_t n, bool named,
			    char *err, size_t errlen)
{
	return result__write(path, buf, n, false, named, err, errlen);
}

int agg_result__create(struct agg_result_file *f, const struct agg_process *p,
		       const char *dir, char tag, char *err, size_t errlen)
{
	struct agg_view *v = agg_view__new(p);
	struct agg_out o = { 0 };
	int rc = -1, built;

	f->fd = -1;
	f->tmp[0] = '\0';
	if (!v || agg_out__init(&o, -1, p) < 0) {
		snprintf(err, errlen, "cannot build the results: %s", strerror(ENOMEM));
		goto out;
	}
	/* A directory that is not there yet is made, parents too (the
	 * rule of docs/environment.md, HPCSHIM_OUTPUT), then tried again. */
	if (agg_result__open(f, dir, p->host, p->pid, tag) < 0 &&
	    (errno != ENOENT || hs_mkdirs(dir, 0777) < 0 ||
	     agg_result__open(f, dir, p->host, p->pid, tag) < 0)) {
		snprintf(err, errlen, "cannot create a file in %s: %s", dir,
			 strerror(errno));
		goto out;
	}
	o.fd = f->fd;
	built = agg_json__document(&o, v);
	agg_out__finish(&o);
	if (built < 0 || o.err) {
		if (built < 0)
			snprintf(err, errlen, "cannot build the results: %s",
				 strerror(ENOMEM));
		else
			snprintf(err, errlen, "cannot write to %s: %s", dir,
				 strerror(o.err));
		agg_result__discard(f);
		goto out;
	}
	rc = 0;
out:
	agg_out__free(&o, p);
	agg_view__delete(v);
	return rc;
}

int agg_process__write(const struct agg_process *p, const char *dir, char *path,
		       size_t pathlen, char *err, size_t errlen)
{
	struct agg_result_file f;
	char base[256];
	int rc = 0;

	if (agg_result__create(&f, p, dir, 'x', err, errlen) < 0)
		return -1;
	agg_result__base(p, base, sizeof(base));
	if (agg_result__link_new(&f, dir, base, path, pathlen) < 0) {
		snprintf(err, errlen, "cannot publish %s: %s", path, strerror(errno));
		rc = -1;
	}
	agg_result__discard(&f);
	return rc;
}
