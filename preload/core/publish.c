/* publish.c - the results file: HPCSHIM_OUTPUT, else a fallback; written
 * once at the end of the image and, with HPCSHIM_FLUSH, every period
 * before that.
 *
 * Every write renders into a file nobody sees yet (aggregate/json.c:
 * O_TMPFILE, else a hidden temporary name) and only then gives it a name,
 * so a reader, or a process killed while writing, never leaves half a
 * file.  The image's first publication takes a name no other file has
 * (link(2)); later ones, flushes and the end, replace that file with one
 * rename(2).  The placing step runs under one lock: a flush checks there
 * that the end has not begun, and the end sets HS_FINISHED before it
 * takes the lock, so a flush can never replace the end's file.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fcntl.h>

#include "aggregate/result.h"
#include "common/lock.h"
#include "common/sys.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/core/core.h"

static pthread_mutex_t place_lock = PTHREAD_MUTEX_INITIALIZER;
static char claimed[4096]; /* this image's file once published, under place_lock */
static size_t claimed_dirlen; /* its directory: claimed[0, dirlen)    */
static bool swept;            /* leftovers of this pid removed         */
static pid_t final_writer;    /* thread writing the end's file, or 0 (atomic) */
static bool suppressed;       /* hs_publish__suppress: no file (atomic) */
static __thread char *rendered; /* hs_publish__render's text, or NULL */
static __thread size_t rendered_len;

static pid_t publish__tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

void hs_publish__final_begin(void)
{
	__atomic_store_n(&final_writer, publish__tid(), __ATOMIC_RELEASE);
}

void hs_publish__final_end(void)
{
	__atomic_store_n(&final_writer, 0, __ATOMIC_RELEASE);
}

static bool publish__final_done(void *arg)
{
	(void)arg;
	return __atomic_load_n(&final_writer, __ATOMIC_ACQUIRE) == 0;
}

/* A fatal signal that arrives while another thread writes the end's file
 * (exit, or an earlier signal) waits for it, up to the lock patience
 * (common/lock.h), rather than kill the process in the middle of it.  Not
 * when this very thread is the writer: the handler interrupted it. */
void hs_publish__wait(void)
{
	pid_t w = __atomic_load_n(&final_writer, __ATOMIC_ACQUIRE);

	if (w == 0 || w == publish__tid())
		return;
	hs_lock__bounded(publish__final_done, NULL);
}

/* A fork child is an image of its own: its first file takes a new name. */
void hs_publish__fork_child(void)
{
	pthread_mutex_init(&place_lock, NULL);
	claimed[0] = '\0';
	claimed_dirlen = 0;
	swept = false;
	final_writer = 0;
	suppressed = false;
}

void hs_publish__suppress(void)
{
	pthread_mutex_lock(&place_lock);
	__atomic_store_n(&suppressed, true, __ATOMIC_RELEASE);
	if (claimed[0])
		unlink(claimed);
	claimed[0] = '\0';
	pthread_mutex_unlock(&place_lock);
}

/* Rendered into an unnamed file of the output directory (the same writer
 * as the published file: aggregate/json.c), then read back through
 * /proc (the file is write-only) or its temporary name. */
void hs_publish__render(const struct agg_process *p)
{
	struct agg_result_file f;
	char err[4400], proc[64];
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL;
	int fd;

	free(rendered);
	rendered = NULL;
	if (agg_result__create(&f, p, hs_proc.cfg.output, 's', err, sizeof(err)) < 0) {
		hs_log(HS_LOG_DEBUG, "snapshot: %.1000s", err);
		return;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f.fd);
	fd = hs_sys__openat(AT_FDCWD, f.anon ? proc : f.tmp, O_RDONLY | O_CLOEXEC, 0);
	agg_result__discard(&f);
	if (fd < 0)
		return;
	for (;;) {
		char *b = n + 1 >= cap || !buf ? realloc(buf, cap *= 2) : buf;
		long r;

		if (!b)
			goto fail;
		buf = b;
		r = syscall(SYS_read, fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	hs_sys__close(fd);
	buf[n] = '\0';
	rendered = buf;
	rendered_len = n;
	return;
fail:
	hs_sys__close(fd);
	free(buf);
}

/* The end's writer thread (aggregate/json.c): the real pthread_create,
 * so the program's wrapper never sees it, with every signal blocked so
 * that none of the program's is delivered to it; a small stack (it only
 * calls write(2)).  Done before the file is published; then parked
 * until the process is gone (aggregate/json.c). */
int hs_publish__spawn(pthread_t *th, void *(*fn)(void *), void *arg)
{
	hs_real_pthread_create_fn create = hs_real__pthread_create();
	sigset_t all, old;
	pthread_attr_t attr;
	int rc;

	if (!create)
		return ENOSYS;
	sigfillset(&all);
	if (pthread_attr_init(&attr) != 0)
		return ENOMEM;
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = create(th, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return rc;
}

char *hs_publish__take_rendered(size_t *len)
{
	char *t = rendered;

	*len = rendered_len;
	rendered = NULL;
	return t;
}

/* The temporaries a killed process of this pid (an earlier image, or an
 * earlier process that had the pid) may have left, once per image. */
static void publish__sweep(const struct agg_process *p, const char *dir)
{
	char tmp[4096];

	if (swept)
		return;
	swept = true;
	agg_result__tmp_name(tmp, sizeof(tmp), dir, p->host, p->pid, 'f');
	unlink(tmp);
	agg_result__tmp_name(tmp, sizeof(tmp), dir, p->host, p->pid, 'x');
	unlink(tmp);
}

/* Gives f its place: over this image's file when it has one in dir, else
 * under a new name.  0, or -1 with errno; 1 when a flush came too late. */
static int publish__place(struct agg_result_file *f, const struct agg_process *p,
			  const char *dir, bool flush, bool in_signal, char *path,
			  size_t pathlen)
{
	size_t dirlen = strlen(dir);
	char old[4096] = "", base[256];
	int rc;

	if (!hs_lock__mutex(&place_lock, in_signal)) {
		errno = EDEADLK;
		return -1;
	}
	/* A flush rendered before hs_publish__suppress must not place its
	 * file after it. */
	if ((flush && __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) != HS_RUNNING) ||
	    __atomic_load_n(&suppressed, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&place_lock);
		return 1;
	}
	publish__sweep(p, dir);
	if (claimed[0] && claimed_dirlen == dirlen &&
	    strncmp(claimed, dir, dirlen) == 0) {
		snprintf(path, pathlen, "%s", claimed);
		rc = agg_result__replace(f, claimed);
	} else {
		agg_result__base(p, base, sizeof(base));
		rc = agg_result__link_new(f, dir, base, path, pathlen);
		if (rc == 0) {
			/* The end went to the fallback: the flushed file in
			 * the output directory would only repeat an older
			 * state of this image. */
			snprintf(old, sizeof(old), "%s", claimed);
			snprintf(claimed, sizeof(claimed), "%s", path);
			claimed_dirlen = dirlen;
		}
	}
	pthread_mutex_unlock(&place_lock);
	if (old[0])
		unlink(old);
	return rc;
}

static int publish__to(const struct agg_process *p, const char *dir, bool flush,
		       bool in_signal, char *path, size_t pathlen, char *err,
		       size_t errlen)
{
	struct agg_result_file f;
	int rc;

	if (__atomic_load_n(&suppressed, __ATOMIC_ACQUIRE))
		return 1;
	if (agg_result__create(&f, p, dir, flush ? 'f' : 'x', err, errlen) < 0)
		return -1;
	rc = publish__place(&f, p, dir, flush, in_signal, path, pathlen);
	if (rc < 0)
		snprintf(err, errlen, "cannot publish %s: %s", path, strerror(errno));
	agg_result__discard(&f);
	return rc;
}

/* The fallback when HPCSHIM_OUTPUT cannot take the file (missing,
 * unwritable, full): $TMPDIR, else /tmp.  One line says where it went.
 * A flush that fails says so only at verbosity 2 (it will be tried again
 * next period, and the end reports for good). */
void hs_publish__results(const struct agg_process *p, bool flush, bool in_signal)
{
	const char *dir = hs_proc.cfg.output, *tmp = getenv("TMPDIR");
	char path[4096] = "", err[4400] = "", err2[4400] = "";
	int rc;

	if (__atomic_load_n(&suppressed, __ATOMIC_ACQUIRE)) {
		hs_log(HS_LOG_DEBUG, "results not written: published elsewhere");
		return;
	}
	rc = publish__to(p, dir, flush, in_signal, path, sizeof(path), err, sizeof(err));

	if (flush) {
		if (rc < 0)
			hs_log(HS_LOG_DEBUG, "flush: %.1000s", err);
		else if (rc == 0)
			hs_log(HS_LOG_DEBUG, "results so far written to %s", path);
		return;
	}
	if (rc == 0) {
		hs_log(HS_LOG_INFO, "results written to %s", path);
		return;
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (strcmp(tmp, dir) != 0 && publish__to(p, tmp, false, in_signal, path,
						 sizeof(path), err2, sizeof(err2)) == 0)
		hs_log(HS_LOG_ERROR, "%.1000s; results written to %s instead", err,
		       path);
	else
		hs_log(HS_LOG_ERROR, "%.1000s; results lost", err);
}
