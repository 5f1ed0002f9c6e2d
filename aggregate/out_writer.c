/* out_writer.c - the result file's writer thread and its buffers (out.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sys.h"
#include "aggregate/out.h"

int agg_out__write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = hs_sys__write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* An output buffer; NULL on failure.  The first one's pages come as
 * they fill (most documents use a few of them); a second one, for a
 * document that outgrew the first, with its pages in place
 * (populate: MAP_POPULATE, one system call rather than one page fault per
 * 4 KiB, and a fault costs more in a virtual machine). */
char *agg_out_buf__new(bool populate)
{
	void *b = mmap(NULL, AGG_OUT_BUF, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0),
		       -1, 0);

	return b == MAP_FAILED ? NULL : b;
}

void agg_out_buf__free(char *b)
{
	if (b)
		munmap(b, AGG_OUT_BUF);
}

/* ---- the writer thread -------------------------------------------------
 *
 * At the end of a process (agg_process.spawn set: exit()), once the
 * document outgrows its first buffer (agg_out__full), a
 * helper thread writes each full buffer while the next one is formatted:
 * the kernel's copy into the page cache (about a third of the exit path
 * for 54 MB) runs beside the formatting on a second CPU.  Two buffers
 * take turns; the formatter hands one over only once the writer is done
 * with the previous one, so the bytes go out in order.  Every byte is
 * written and the writer done with everything here before
 * agg_out__finish returns; the thread itself stays parked until the
 * process is gone (out_writer__main says why).  Without a thread (no spawn, or it cannot start) the formatter
 * writes itself, as before. */
struct agg_out_writer {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	int fd;
	const char *job; /* the buffer being written, or NULL */
	size_t len;
	bool quit;
	bool gone;   /* the writer touches w no more (out_writer__main) */
	int err;     /* errno of the first failed write, or 0 */
	char *spare; /* the formatter's other buffer */
	off_t off;   /* bytes written */
	off_t alloc; /* blocks reserved up to here (out_writer__reserve) */
	bool no_reserve;
};

/* A large file's blocks reserved ahead (FALLOC_FL_KEEP_SIZE, the size
 * unchanged), OUT_RESERVE at a time once it passes 2 buffers: ext4 then
 * maps the reserved extents instead of reserving each 4 KiB block as it
 * is written (about a quarter less of the kernel's time per byte here).
 * The excess is cut off at the end (out_writer__trim).  Where the file
 * system cannot, or the space is not there, the writes go on as they
 * are; a small file reserves nothing. */
#define OUT_RESERVE ((off_t)16 << 20)

static void out_writer__reserve(struct agg_out_writer *w, size_t len)
{
	if (w->no_reserve || w->off < 2 * AGG_OUT_BUF || w->off + (off_t)len <= w->alloc)
		return;
	if (w->alloc < w->off)
		w->alloc = w->off;
	if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, w->alloc, OUT_RESERVE) == 0)
		w->alloc += OUT_RESERVE;
	else
		w->no_reserve = true;
}

/* Blocks reserved past the end are released: a truncation to the file's
 * own size (what was written, whoever wrote it). */
static void out_writer__trim(struct agg_out_writer *w)
{
	struct stat st;

	if (w->alloc == 0 || w->err)
		return;
	if (fstat(w->fd, &st) < 0 || ftruncate(w->fd, st.st_size) < 0)
		w->err = errno ? errno : EIO;
}

static void *out_writer__main(void *arg)
{
	struct agg_out_writer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		const char *b;
		size_t len;
		int err;

		while (!w->job && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->job)
			break;
		b = w->job;
		len = w->len;
		err = w->err;
		pthread_mutex_unlock(&w->mu);
		if (!err)
			out_writer__reserve(w, len);
		if (!err && agg_out__write_all(w->fd, b, len) < 0)
			err = errno ? errno : EIO;
		w->off += (off_t)len;
		pthread_mutex_lock(&w->mu);
		w->err = err;
		w->job = NULL;
		pthread_cond_broadcast(&w->cv);
	}
	w->gone = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	/* Never returns: the end is exit(), and exit() may be the one the
	 * process's last thread makes on its way out (after pthread_exit in
	 * every thread).  glibc counts threads: this one ending would bring
	 * the count back to 0 and call exit() a second time, from here, in
	 * the middle of the first one.  Parked with every signal blocked, it
	 * goes with the process a moment later. */
	for (;;)
		pause();
	return NULL;
}

int agg_out_writer__idle(struct agg_out_writer *w)
{
	int err;

	pthread_mutex_lock(&w->mu);
	while (w->job)
		pthread_cond_wait(&w->cv, &w->mu);
	err = w->err;
	pthread_mutex_unlock(&w->mu);
	return err;
}

void agg_out_writer__start(struct agg_out *o)
{
	agg_spawn_fn *spawn = o->spawn;
	struct agg_out_writer *w;

	o->spawn = NULL;
	if (!spawn || !(w = calloc(1, sizeof(*w))))
		return;
	w->fd = o->fd;
	w->spare = agg_out_buf__new(true);
	if (!w->spare)
		goto fail;
	if (pthread_mutex_init(&w->mu, NULL) != 0)
		goto fail;
	if (pthread_cond_init(&w->cv, NULL) != 0)
		goto fail_mu;
	if (spawn(&w->th, out_writer__main, w) != 0)
		goto fail_cv;
	pthread_detach(w->th);
	o->w = w;
	return;
fail_cv:
	pthread_cond_destroy(&w->cv);
fail_mu:
	pthread_mutex_destroy(&w->mu);
fail:
	agg_out_buf__free(w->spare);
	free(w);
}

/* Every buffer written: the writer stopped and joined, its error in
 * o->err, its buffer freed. */
void agg_out_writer__stop(struct agg_out *o)
{
	struct agg_out_writer *w = o->w;
	int err;

	if (!w)
		return;
	err = agg_out_writer__idle(w);
	if (err && !o->err)
		o->err = err;
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->cv);
	while (!w->gone)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	out_writer__trim(w);
	if (w->err && !o->err)
		o->err = w->err;
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	agg_out_buf__free(w->spare);
	free(w);
	o->w = NULL;
}

void agg_out_writer__hand(struct agg_out *o)
{
	struct agg_out_writer *w = o->w;
	char *b = o->buf;

	pthread_mutex_lock(&w->mu);
	while (w->job)
		pthread_cond_wait(&w->cv, &w->mu);
	if (w->err && !o->err)
		o->err = w->err;
	w->job = b;
	w->len = o->n;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	o->buf = w->spare;
	w->spare = b;
}
