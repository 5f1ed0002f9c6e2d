/* json.c - the process result as JSON (json-c), written atomically.
 *
 * Layout: docs/schema.md.  Counts are JSON numbers: the exact count, or the
 * scaled estimate when the event was multiplexed (then a "multiplexed" entry
 * next to it carries raw, enabled, running and coverage).  An event that
 * never ran in an interval is null, never 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/compiler.h"
#include "common/mkdirs.h"
#include "common/sys.h"
#include "aggregate/trace.h"
#include "aggregate/aggregate.h"
#include "aggregate/drill.h"
#include "aggregate/jsonutil.h"
#include "aggregate/metric.h"
#include "aggregate/mux.h"
#include "aggregate/view.h"
#include "aggregate/wrap.h"

/* The optional siblings of the interval object "<key>": "<key>_multiplexed"
 * when coverage < 1 somewhere, "<key>_metrics" and the drill-down with
 * presets; NULL when there are none. */
static json_object *counts__extras(const char *key, const struct agg_process *p,
				   const struct agg_interval_view *iv)
{
	json_object *x, *mux = NULL;

	if (!iv->partial && !p->metrics) /* the common case: no sibling */
		return NULL;
	for (int i = 0; i < p->nev; i++) {
		const struct agg_value *v = &iv->ev[i];

		if (v->state == AGG_VALUE_ABSENT || v->state == AGG_VALUE_MISSING ||
		    !v->partial)
			continue;
		if (!mux)
			mux = json_object_new_object();
		json_object_object_add(mux, p->ev[i].name, agg_mux__entry(v));
	}
	if (!mux && !p->metrics)
		return NULL;
	x = json_object_new_object();
	if (mux)
		agg_json__add_sibling(x, key, "_multiplexed", mux);
	agg_metrics__json(x, key, p, iv->m);
	agg_drill__interval(x, key, p, iv->ev);
	return x;
}

/* {"event": number|null, ...} over counted events, then its siblings
 * (counts__extras): one thread interval of the view. */
static void add_counts(json_object *parent, const char *key,
		       const struct agg_process *p, const struct agg_interval_view *iv)
{
	json_object *vals = json_object_new_object();
	json_object *x = counts__extras(key, p, iv);

	for (int i = 0; i < p->nev; i++) {
		const struct agg_value *v = &iv->ev[i];

		if (v->state == AGG_VALUE_ABSENT)
			continue;
		json_object_object_add(
			vals, p->ev[i].name,
			v->state == AGG_VALUE_KNOWN ? agg_json__u64(v->shown) : NULL);
	}
	json_object_object_add(parent, key, vals);
	if (!x)
		return;
	json_object_object_foreach(x, k, val)
		json_object_object_add(parent, k, json_object_get(val));
	json_object_put(x);
}

static json_object *json_process(const struct agg_process *p)
{
	json_object *o = json_object_new_object(), *cmd = json_object_new_array();

	json_object_object_add(o, "pid", json_object_new_int(p->pid));
	json_object_object_add(o, "ppid", json_object_new_int(p->ppid));
	json_object_object_add(o, "host", agg_json__text(p->host));
	json_object_object_add(o, "rank",
			       p->rank >= 0 ? json_object_new_int(p->rank) : NULL);
	json_object_object_add(o, "size",
			       p->size > 0 ? json_object_new_int(p->size) : NULL);
	json_object_object_add(o, "job",
			       p->job && p->job[0] ? agg_json__text(p->job) : NULL);
	json_object_object_add(
		o, "mpi_job",
		p->mpi_job && p->mpi_job[0] ? agg_json__text(p->mpi_job) : NULL);
	for (int i = 0; i < p->argc; i++)
		json_object_array_add(cmd, agg_json__text(p->argv[i]));
	json_object_object_add(o, "command", cmd);
	json_object_object_add(o, "start_ns", agg_json__u64(p->start_ns));
	json_object_object_add(o, "end_ns", agg_json__u64(p->end_ns));
	json_object_object_add(o, "wall_ns", agg_json__u64(p->wall_ns));
	json_object_object_add(o, "complete", json_object_new_boolean(p->complete));
	json_object_object_add(o, "end", json_object_new_string(p->end));
	if (p->signal) {
		json_object_object_add(o, "signal", json_object_new_int(p->signal));
		json_object_object_add(
			o, "signal_name",
			json_object_new_string(sigabbrev_np(p->signal) ?
						       sigabbrev_np(p->signal) :
						       "?"));
	}
	json_object_object_add(o, "exec_generation",
			       json_object_new_int(p->exec_generation));
	/* Visible in /proc/self/task, never a program thread. */
	if (p->shim_tid > 0) {
		json_object *st = json_object_new_array();
		json_object_array_add(st, json_object_new_int(p->shim_tid));
		json_object_object_add(o, "shim_threads", st);
	}
	return o;
}

static json_object *json_events(const struct agg_process *p)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < p->nev; i++) {
		const struct agg_event *e = &p->ev[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", agg_json__text(e->name));
		json_object_object_add(
			o, "status", json_object_new_string(e->ok ? "ok" : "dropped"));
		json_object_object_add(o, "source", json_object_new_string(e->source));
		if (e->encoding && e->encoding[0])
			json_object_object_add(o, "encoding",
					       json_object_new_string(e->encoding));
		if (e->ok) {
			json_object_object_add(o, "privilege",
					       json_object_new_string(e->privilege));
			if (e->downgraded)
				json_object_object_add(o, "downgraded",
						       json_object_new_boolean(true));
			json_object_object_add(o, "group",
					       json_object_new_int(e->group));
			if (e->group_time)
				json_object_object_add(o, "from_group_time",
						       json_object_new_boolean(true));
		} else {
			json_object_object_add(o, "errno", json_object_new_int(e->err));
			json_object_object_add(o, "error",
					       json_object_new_string(e->errname));
			json_object_object_add(o, "reason", agg_json__text(e->reason));
		}
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_pmu(const struct agg_process *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(
		o, "cpu_pmu",
		p->pmu.cpu_pmu[0] ? json_object_new_string(p->pmu.cpu_pmu) : NULL);
	json_object_object_add(o, "hardware", json_object_new_boolean(p->pmu.hardware));
	json_object_object_add(
		o, "fallback",
		p->pmu.fallback ? json_object_new_string(p->pmu.fallback) : NULL);
	json_object_object_add(o, "privilege",
			       json_object_new_string(p->pmu.privilege));
	json_object_object_add(o, "perf_event_paranoid",
			       json_object_new_int(p->pmu.paranoid));
	json_object_object_add(o, "privilege_requested",
			       json_object_new_string(p->pmu.privilege_requested ?
							      p->pmu.privilege_requested :
							      "all"));
	json_object_object_add(o, "privilege_note",
			       p->pmu.privilege_note ?
				       json_object_new_string(p->pmu.privilege_note) :
				       NULL);
	return o;
}

static json_object *json_warnings(const struct agg_thread_warnings *w)
{
	json_object *o = json_object_new_object();
#define WARN(field)             \
	json_object_object_add( \
		o, #field,      \
		agg_json__u64(__atomic_load_n(&w->field, __ATOMIC_RELAXED)))
	WARN(unmatched_end);
	WARN(auto_closed);
	WARN(depth_overflow);
	WARN(read_errors);
#undef WARN
	return o;
}

/* A region's wall time, always present: "wall_ns" (inclusive, exclusive)
 * and "per_call_wall_ns" (null when no call completed). */
static void json_wall(json_object *o, const struct agg_wall *w)
{
	json_object *t = json_object_new_object(), *c = NULL;

	json_object_object_add(t, "inclusive", agg_json__u64(w->incl));
	json_object_object_add(t, "exclusive", agg_json__u64(w->excl));
	json_object_object_add(o, "wall_ns", t);
	if (w->call.n) {
		c = json_object_new_object();
		json_object_object_add(c, "calls", agg_json__u64(w->call.n));
		json_object_object_add(c, "min", agg_json__u64(w->call.min));
		json_object_object_add(c, "max", agg_json__u64(w->call.max));
		json_object_object_add(
			c, "mean",
			agg_json__dbl((double)w->call.sum / (double)w->call.n));
	}
	json_object_object_add(o, "per_call_wall_ns", c);
}

/* How this thread's counters were read: "user" (mmap page, no system
 * call), "syscall" (read()), "mixed", or "none" (never read). */
static json_object *json_reads(const struct agg_thread *t)
{
	json_object *o = json_object_new_object();
	uint64_t u = __atomic_load_n(&t->reads_user, __ATOMIC_RELAXED);
	uint64_t s = __atomic_load_n(&t->reads_syscall, __ATOMIC_RELAXED);

	json_object_object_add(o, "method",
			       json_object_new_string(u && s ? "mixed" :
						      u      ? "user" :
						      s      ? "syscall" :
							       "none"));
	json_object_object_add(o, "user", agg_json__u64(u));
	json_object_object_add(o, "syscall", agg_json__u64(s));
	return o;
}

/* The features' parts of a thread object, in document order. */
static const struct {
	const char *name;
	agg_section_fn *add;
} sections[] = {
	{ "ranges", agg_range__section },
	{ "rotation", agg_rotation__section },
	{ "series", agg_series__section },
	{ "trace", agg_trace__section },
};

static json_object *json_stats(const struct agg_process *p, const struct agg_sum *sum)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < p->nev; i++) {
		const struct agg_stat *st = &sum[i].st;
		json_object *so;

		if (!p->ev[i].ok)
			continue;
		if (st->n == 0) {
			json_object_object_add(o, p->ev[i].name, NULL);
			continue;
		}
		so = json_object_new_object();
		json_object_object_add(so, "sum", agg_json__dbl(st->sum));
		json_object_object_add(so, "min", agg_json__dbl(st->min));
		json_object_object_add(so, "max", agg_json__dbl(st->max));
		json_object_object_add(so, "mean", agg_json__dbl(agg_stat__mean(st)));
		json_object_object_add(so, "threads",
				       json_object_new_int64((int64_t)st->n));
		json_object_object_add(o, p->ev[i].name, so);
	}
	return o;
}

/* "parent": the enclosing region's name when every thread agrees (null:
 * the top level); else null and "parents" lists the threads' parents. */
static void json_region_parents(json_object *o, const struct agg_parent *pa)
{
	json_object *a;

	if (!pa || !pa->next) {
		json_object_object_add(o, "parent",
				       pa && pa->name ? agg_json__text(pa->name) :
							NULL);
		return;
	}
	json_object_object_add(o, "parent", NULL);
	a = json_object_new_array();
	for (; pa; pa = pa->next)
		json_object_array_add(a, pa->name ? agg_json__text(pa->name) : NULL);
	json_object_object_add(o, "parents", a);
}

/* Process totals: per event the sum of the threads' estimates, the metrics
 * over those sums, and their coverage and standard error. */
static void json_totals(json_object *doc, const struct agg_process *p,
			const struct agg_sum_view *s)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < p->nev; i++) {
		if (!p->ev[i].ok)
			continue;
		json_object_object_add(o, p->ev[i].name,
				       s->ev[i].st.n ? agg_json__u64(s->ev[i].shown) :
						       NULL);
	}
	json_object_object_add(doc, "totals", o);
	agg_metrics__json(doc, "totals", p, s->m);
	agg_drill__sum(doc, "totals", p, s->ev);
	agg_mux_sum__json(doc, "totals", p, s->ev);
}

/* ---- the document, streamed ------------------------------------------- */

/* The file is written piece by piece, so memory holds one record, never
 * the document: the head and each thread's head and tail are built with
 * json-c, serialised, written and freed; the region records and summaries
 * (64,000 of them for 64 threads x 1000 names) are written directly
 * (below).  The text is what json-c's pretty printer gives for the whole
 * document: two spaces per level. */
struct out {
	int fd;
	int err; /* errno of the first failed write, or 0 */
	size_t n;
	char *buf;
	/* Per event its key as written, "\"name\":" (NULL: needs escaping);
	 * made once, written 10 times per region record. */
	char **evkey;
	size_t *evlen;
	/* The main event's name as a value, "\"name\"" (NULL: needs
	 * escaping): "event" of every per-call object. */
	char *mainval;
	size_t mainlen;
	/* The events not dropped (the only ones with a key), in order;
	 * NULL: every event is checked. */
	int *ok;
	int nok;
	struct out_writer *w; /* NULL: out__flush writes itself */
	/* How to start a writer (agg_process.spawn), at the first full
	 * buffer: a document that fits in one is written by the caller, with
	 * no thread and no second buffer.  NULL once tried. */
	agg_spawn_fn *spawn;
};

#define OUT_BUF (1024 * 1024)
#define OUT_SLACK 64 /* the longest key out__lit_key writes in one piece */

static int write_all(int fd, const char *buf, size_t len);

/* An output buffer; NULL on failure.  The first one's pages come as
 * they fill (most documents use a few of them); a second one, for a
 * document that outgrew the first, with its pages in place
 * (populate: MAP_POPULATE, one system call rather than one page fault per
 * 4 KiB, and a fault costs more in a virtual machine). */
static char *out__buf_new(bool populate)
{
	void *b = mmap(NULL, OUT_BUF, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0),
		       -1, 0);

	return b == MAP_FAILED ? NULL : b;
}

static void out__buf_free(char *b)
{
	if (b)
		munmap(b, OUT_BUF);
}

/* ---- the writer thread -------------------------------------------------
 *
 * At the end of a process (agg_process.spawn set: exit()), once the
 * document outgrows its first buffer (out__full), a
 * helper thread writes each full buffer while the next one is formatted:
 * the kernel's copy into the page cache (about a third of the exit path
 * for 54 MB) runs beside the formatting on a second CPU.  Two buffers
 * take turns; the formatter hands one over only once the writer is done
 * with the previous one, so the bytes go out in order.  Every byte is
 * written and the writer done with everything here before
 * agg_result__create returns; the thread itself stays parked until the
 * process is gone (out_writer__main says why).  Without a thread (no spawn, or it cannot start) the formatter
 * writes itself, as before. */
struct out_writer {
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

static void out_writer__reserve(struct out_writer *w, size_t len)
{
	if (w->no_reserve || w->off < 2 * OUT_BUF || w->off + (off_t)len <= w->alloc)
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
static void out_writer__trim(struct out_writer *w)
{
	struct stat st;

	if (w->alloc == 0 || w->err)
		return;
	if (fstat(w->fd, &st) < 0 || ftruncate(w->fd, st.st_size) < 0)
		w->err = errno ? errno : EIO;
}

static void *out_writer__main(void *arg)
{
	struct out_writer *w = arg;

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
		if (!err && write_all(w->fd, b, len) < 0)
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

/* Waits until the writer holds no buffer; its error, or 0. */
static int out_writer__idle(struct out_writer *w)
{
	int err;

	pthread_mutex_lock(&w->mu);
	while (w->job)
		pthread_cond_wait(&w->cv, &w->mu);
	err = w->err;
	pthread_mutex_unlock(&w->mu);
	return err;
}

/* A writer for o, or none (o->w stays NULL) when o has no way to start
 * one or anything fails: tried once, when the first buffer is full. */
static void out_writer__start(struct out *o)
{
	agg_spawn_fn *spawn = o->spawn;
	struct out_writer *w;

	o->spawn = NULL;
	if (!spawn || !(w = calloc(1, sizeof(*w))))
		return;
	w->fd = o->fd;
	w->spare = out__buf_new(true);
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
	out__buf_free(w->spare);
	free(w);
}

/* Every buffer written: the writer stopped and joined, its error in
 * o->err, its buffer freed. */
static void out_writer__stop(struct out *o)
{
	struct out_writer *w = o->w;
	int err;

	if (!w)
		return;
	err = out_writer__idle(w);
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
	out__buf_free(w->spare);
	free(w);
	o->w = NULL;
}

/* Hands the full buffer to the writer (once it is done with the other
 * one) and continues in the other. */
static void out_writer__hand(struct out *o)
{
	struct out_writer *w = o->w;
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

/* Writes what the buffer holds: by the writer when there is one. */
static __attribute__((noinline)) void out__flush(struct out *o)
{
	if (o->w && !o->err && o->n)
		out_writer__hand(o);
	else if (!o->err && o->n && write_all(o->fd, o->buf, o->n) < 0)
		o->err = errno ? errno : EIO;
	o->n = 0;
}

/* The same when the buffer is full and more is to come: the document is
 * large, its writer starts now (if it may). */
static __attribute__((noinline)) void out__full(struct out *o)
{
	if (unlikely(o->spawn) && !o->err)
		out_writer__start(o);
	out__flush(o);
}

static __attribute__((noinline)) void out__write_slow(struct out *o, const char *s,
						      size_t len)
{
	out__full(o);
	if (len <= OUT_BUF) {
		memcpy(o->buf, s, len);
		o->n = len;
		return;
	}
	if (o->w) { /* in order: after what the writer holds */
		int err = out_writer__idle(o->w);

		if (err && !o->err)
			o->err = err;
	}
	if (!o->err && write_all(o->fd, s, len) < 0)
		o->err = errno ? errno : EIO;
}

/* After a write error the bytes still go to the buffer: the next flush
 * drops them. */
static inline void out__write(struct out *o, const char *s, size_t len)
{
	if (unlikely(o->n + len > OUT_BUF)) {
		out__write_slow(o, s, len);
		return;
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

static void out__str(struct out *o, const char *s)
{
	out__write(o, s, strlen(s));
}

/* Room for len <= OUT_BUF bytes at o->buf + o->n. */
static inline char *out__room(struct out *o, size_t len)
{
	if (unlikely(o->n + len > OUT_BUF))
		out__full(o);
	return o->buf + o->n;
}

/* A line break and up to 31 levels of indentation, copied as one block. */
#define OUT_NL 64
static const char out_nl[OUT_NL + 1] = "\n                                "
				       "                               ";

/* A line break, then two spaces per level. */
static inline void out__newline(struct out *o, int depth)
{
	size_t n = 1 + 2 * (size_t)depth;
	char *b;

	if (likely(n <= OUT_NL)) { /* one block, the rest overwritten later */
		b = out__room(o, OUT_NL);
		memcpy(b, out_nl, OUT_NL);
	} else {
		b = out__room(o, n);
		b[0] = '\n';
		memset(b + 1, ' ', n - 1);
	}
	o->n += n;
}

/* v's text at nesting depth (its inner lines indented to match); frees v. */
static void out__value(struct out *o, int depth, json_object *v)
{
	const char *s = json_object_to_json_string_ext(
		v, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	const char *nl;

	while ((nl = strchr(s, '\n'))) {
		out__write(o, s, (size_t)(nl - s));
		out__newline(o, depth);
		s = nl + 1;
	}
	out__str(o, s);
	json_object_put(v);
}

/* The separator and indentation before an entry of an object or array. */
static inline void out__next(struct out *o, int depth, bool *first)
{
	if (!*first)
		out__write(o, ",", 1);
	*first = false;
	out__newline(o, depth);
}

/* "key": at depth, after the separator. */
static void out__key(struct out *o, int depth, bool *first, const char *key)
{
	json_object *k = json_object_new_string(key);

	out__next(o, depth, first);
	out__value(o, depth, k);
	out__write(o, ":", 1);
}

/* Every member of obj in order, at depth; frees obj. */
static void out__members(struct out *o, int depth, bool *first, json_object *obj)
{
	json_object_object_foreach(obj, key, val)
	{
		out__key(o, depth, first, key);
		out__value(o, depth, json_object_get(val));
	}
	json_object_put(obj);
}

/* Closes an object or array opened at depth - 1 with c. */
static void out__close(struct out *o, int depth, bool empty, const char *c)
{
	if (!empty)
		out__newline(o, depth - 1);
	out__str(o, c);
}

static json_object *json_se(double se)
{
	return isnan(se) ? NULL : agg_json__dbl(se);
}

/* HPCSHIM_REGION_SAMPLE: how a sampled region's values were estimated
 * (docs/sampling.md). */
static json_object *json_sample(const struct agg_process *p,
				const struct agg_sample_view *s)
{
	json_object *o = json_object_new_object(), *se = json_object_new_object();
	json_object *in = json_object_new_object(), *ex = json_object_new_object();
	json_object *w = json_object_new_object();

	json_object_object_add(o, "every", json_object_new_int64(s->every));
	json_object_object_add(o, "measured", agg_json__u64(s->measured));
	for (int i = 0; i < p->nev; i++) {
		if (!p->ev[i].ok)
			continue;
		json_object_object_add(in, p->ev[i].name, json_se(s->se[i]));
		json_object_object_add(ex, p->ev[i].name, json_se(s->se[p->nev + i]));
	}
	json_object_object_add(w, "inclusive", json_se(s->se[2 * p->nev]));
	json_object_object_add(w, "exclusive", json_se(s->se[2 * p->nev + 1]));
	json_object_object_add(se, "inclusive", in);
	json_object_object_add(se, "exclusive", ex);
	json_object_object_add(se, "wall_ns", w);
	json_object_object_add(o, "stderr", se);
	return o;
}

/* Closes an object written directly, opened at depth - 1: json-c puts
 * the brace of an empty object on a line of its own too. */
static void out__end(struct out *o, int depth)
{
	out__newline(o, depth - 1);
	out__write(o, "}", 1);
}

/* ---- values written directly --------------------------------------------
 *
 * The records there are many of (a thread's regions, the region
 * summaries) are written straight into the buffer, in the text json-c
 * gives for the same values (jsonutil.h): no object per value.  What is
 * rare or optional (multiplexed entries, metrics, drill-down, strings that
 * need escaping) still goes through json-c. */

/* A key known to need no escaping, with its separator: "key": */
#define OUT_KEY(o, depth, first, key) \
	out__lit_key(o, depth, first, "\"" key "\":", sizeof(key) + 2, false)

/* With padded, k has OUT_SLACK readable bytes and is copied as one block. */
static inline __attribute__((always_inline)) void
out__lit_key(struct out *o, int depth, bool *first, const char *k, size_t len,
	     bool padded)
{
	size_t nl = 1 + 2 * (size_t)depth;
	char *b;

	if (unlikely(nl > OUT_NL || len + 1 > OUT_SLACK)) {
		out__next(o, depth, first);
		out__write(o, k, len);
		return;
	}
	b = out__room(o, 1 + OUT_NL + OUT_SLACK);
	if (!*first)
		*b++ = ',';
	*first = false;
	/* The indentation copied as one block (room was asked for it): no
	 * copy of a length known only here. */
	memcpy(b, out_nl, OUT_NL);
	if (padded)
		memcpy(b + nl, k, OUT_SLACK);
	else
		memcpy(b + nl, k, len);
	o->n = (size_t)(b + nl + len - o->buf);
}

/* A string from outside between quotes, as agg_json__text would give. */
static void out__text(struct out *o, int depth, const char *s)
{
	size_t len;
	char *b;

	if (!s) {
		out__write(o, "null", 4);
		return;
	}
	if (!agg_json__plain(s, &len) || len + 2 > OUT_BUF) {
		out__value(o, depth, agg_json__text(s));
		return;
	}
	b = out__room(o, len + 2);
	b[0] = '"';
	memcpy(b + 1, s, len);
	b[len + 1] = '"';
	o->n += len + 2;
}

/* A key from outside (an event name): as json-c escapes an object key. */
static void out__name_key(struct out *o, int depth, bool *first, const char *key)
{
	size_t len;
	char *b;

	if (!agg_json__plain(key, &len) || len + 3 > OUT_BUF) {
		out__key(o, depth, first, key);
		return;
	}
	out__next(o, depth, first);
	b = out__room(o, len + 3);
	b[0] = '"';
	memcpy(b + 1, key, len);
	memcpy(b + len + 1, "\":", 2);
	o->n += len + 3;
}

/* Event e's name as a key: prepared by out__ev_keys. */
static inline __attribute__((always_inline)) void
out__ev_key(struct out *o, int depth, bool *first, const struct agg_process *p, int e)
{
	if (!o->evkey || !o->evkey[e]) {
		out__key(o, depth, first, p->ev[e].name);
		return;
	}
	out__lit_key(o, depth, first, o->evkey[e], o->evlen[e], true);
}

/* Prepares every event's key text; on ENOMEM out__ev_key escapes each. */
static void out__ev_keys(struct out *o, const struct agg_process *p)
{
	size_t len;

	o->evkey = calloc((size_t)(p->nev ? p->nev : 1), sizeof(*o->evkey));
	o->evlen = calloc((size_t)(p->nev ? p->nev : 1), sizeof(*o->evlen));
	if (!o->evkey || !o->evlen)
		return;
	for (int e = 0; e < p->nev; e++) {
		if (!agg_json__plain(p->ev[e].name, &len) || len + 3 > OUT_SLACK)
			continue;
		/* OUT_SLACK bytes: copied as one block (out__ev_key). */
		o->evkey[e] = calloc(1, OUT_SLACK + 1);
		if (!o->evkey[e])
			continue;
		snprintf(o->evkey[e], OUT_SLACK + 1, "\"%s\":", p->ev[e].name);
		o->evlen[e] = len + 3;
	}
	o->ok = malloc((p->nev > 0 ? (size_t)p->nev : 1) * sizeof(*o->ok));
	for (int e = 0; o->ok && e < p->nev; e++)
		if (p->ev[e].ok)
			o->ok[o->nok++] = e;
	if (p->main_ev >= 0 && p->main_ev < p->nev &&
	    agg_json__plain(p->ev[p->main_ev].name, &len) &&
	    (o->mainval = malloc(len + 3))) {
		snprintf(o->mainval, len + 3, "\"%s\"", p->ev[p->main_ev].name);
		o->mainlen = len + 2;
	}
}

static void out__ev_keys_free(struct out *o, const struct agg_process *p)
{
	for (int e = 0; o->evkey && e < p->nev; e++)
		free(o->evkey[e]);
	free(o->evkey);
	free(o->evlen);
	free(o->mainval);
	free(o->ok);
}

static void out__u64(struct out *o, uint64_t v)
{
	o->n += agg_json__fmt_u64(out__room(o, AGG_JSON_NUM_MAX), v);
}

static void out__i64(struct out *o, int64_t v)
{
	o->n += agg_json__fmt_i64(out__room(o, AGG_JSON_NUM_MAX), v);
}

/* A double, null when not finite (agg_json__dbl). */
static void out__dbl(struct out *o, double v)
{
	if (!isfinite(v))
		out__write(o, "null", 4);
	else
		o->n += agg_json__fmt_dbl(out__room(o, AGG_JSON_NUM_MAX), v);
}

/* The optional siblings json-c built (metrics, drill-down, multiplexed):
 * their members at depth, in order; nothing when x is NULL. */
static void out__extras(struct out *o, int depth, bool *first, json_object *x)
{
	if (x)
		out__members(o, depth, first, x);
}

/* "key": {"event": number|null, ...} and its siblings (add_counts); key
 * a literal that needs no escaping (OUT_COUNTS). */
#define OUT_COUNTS(o, depth, first, key, p, iv) \
	out__counts(o, depth, first, key, "\"" key "\":{", sizeof(key) + 3, p, iv)

static void out__counts(struct out *o, int depth, bool *first, const char *key,
			const char *lit, size_t litlen, const struct agg_process *p,
			const struct agg_interval_view *iv)
{
	bool f = true;

	out__lit_key(o, depth, first, lit, litlen, false);
	for (int k = 0, n = o->ok ? o->nok : p->nev; k < n; k++) {
		int i = o->ok ? o->ok[k] : k;
		const struct agg_value *x = &iv->ev[i];

		if (x->state == AGG_VALUE_ABSENT) /* dropped: no key */
			continue;
		out__ev_key(o, depth + 1, &f, p, i);
		if (x->state == AGG_VALUE_KNOWN)
			out__u64(o, x->shown);
		else
			out__write(o, "null", 4);
	}
	out__end(o, depth + 1);
	if (iv->partial || p->metrics)
		out__extras(o, depth, first, counts__extras(key, p, iv));
}

/* {"calls", "min", "max", "mean"} of per-call statistics, after "event"
 * when ev is set (json_percall, json_wall). */
static void out__calls(struct out *o, int depth, const char *ev,
		       const struct agg_percall *pc)
{
	bool f = true;

	out__write(o, "{", 1);
	if (ev) {
		OUT_KEY(o, depth + 1, &f, "event");
		if (o->mainval)
			out__write(o, o->mainval, o->mainlen);
		else
			out__text(o, depth + 1, ev);
	}
	OUT_KEY(o, depth + 1, &f, "calls");
	out__u64(o, pc->n);
	OUT_KEY(o, depth + 1, &f, "min");
	out__u64(o, pc->min);
	OUT_KEY(o, depth + 1, &f, "max");
	out__u64(o, pc->max);
	OUT_KEY(o, depth + 1, &f, "mean");
	out__dbl(o, (double)pc->sum / (double)pc->n);
	out__end(o, depth + 1);
}

/* "per_call" (json_percall). */
static void out__percall(struct out *o, int depth, bool *first,
			 const struct agg_process *p, const struct agg_percall *pc)
{
	OUT_KEY(o, depth, first, "per_call");
	if (p->main_ev < 0 || pc->n == 0)
		out__write(o, "null", 4);
	else
		out__calls(o, depth, p->ev[p->main_ev].name, pc);
}

/* "wall_ns" and "per_call_wall_ns" (json_wall). */
static void out__wall(struct out *o, int depth, bool *first, const struct agg_wall *w)
{
	bool f = true;

	OUT_KEY(o, depth, first, "wall_ns");
	out__write(o, "{", 1);
	OUT_KEY(o, depth + 1, &f, "inclusive");
	out__u64(o, w->incl);
	OUT_KEY(o, depth + 1, &f, "exclusive");
	out__u64(o, w->excl);
	out__end(o, depth + 1);
	OUT_KEY(o, depth, first, "per_call_wall_ns");
	if (w->call.n)
		out__calls(o, depth, NULL, &w->call);
	else
		out__write(o, "null", 4);
}

/* One region record of a thread, an array element at depth. */
static void write_region(struct out *o, int depth, const struct agg_process *p,
			 const struct agg_region_view *rv)
{
	bool f = true;

	out__write(o, "{", 1);
	OUT_KEY(o, depth + 1, &f, "name");
	out__text(o, depth + 1, rv->name);
	OUT_KEY(o, depth + 1, &f, "parent");
	out__text(o, depth + 1, rv->parent);
	OUT_KEY(o, depth + 1, &f, "calls");
	out__u64(o, rv->calls);
	OUT_COUNTS(o, depth + 1, &f, "inclusive", p, &rv->incl);
	OUT_COUNTS(o, depth + 1, &f, "exclusive", p, &rv->excl);
	out__percall(o, depth + 1, &f, p, &rv->percall);
	out__wall(o, depth + 1, &f, &rv->wall);
	if (rv->sample.every > 1) {
		out__key(o, depth + 1, &f, "sample");
		out__value(o, depth + 1, json_sample(p, &rv->sample));
	}
	out__end(o, depth + 1);
}

/* "key": per event {"sum", "min", "max", "mean", "threads"} or null
 * (json_stats). */
static void out__stats(struct out *o, int depth, bool *first, const char *key,
		       const struct agg_process *p, const struct agg_sum *sum)
{
	bool f = true;

	out__name_key(o, depth, first, key);
	out__write(o, "{", 1);
	for (int i = 0; i < p->nev; i++) {
		const struct agg_stat *st = &sum[i].st;
		bool g = true;

		if (!p->ev[i].ok)
			continue;
		out__ev_key(o, depth + 1, &f, p, i);
		if (st->n == 0) {
			out__write(o, "null", 4);
			continue;
		}
		out__write(o, "{", 1);
		OUT_KEY(o, depth + 2, &g, "sum");
		out__dbl(o, st->sum);
		OUT_KEY(o, depth + 2, &g, "min");
		out__dbl(o, st->min);
		OUT_KEY(o, depth + 2, &g, "max");
		out__dbl(o, st->max);
		OUT_KEY(o, depth + 2, &g, "mean");
		out__dbl(o, agg_stat__mean(st));
		OUT_KEY(o, depth + 2, &g, "threads");
		out__i64(o, (int64_t)st->n);
		out__end(o, depth + 2);
	}
	out__end(o, depth + 1);
}

/* "key" of a region summary and its "_multiplexed" sibling. */
static void out__sum(struct out *o, int depth, bool *first, const char *key,
		     const struct agg_process *p, const struct agg_sum *sum)
{
	out__stats(o, depth, first, key, p, sum);
	for (int i = 0; i < p->nev; i++) {
		if (p->ev[i].ok && sum[i].partial) {
			json_object *x = json_object_new_object();

			agg_mux_sum__json(x, key, p, sum);
			out__members(o, depth, first, x);
			return;
		}
	}
}

/* One region name across threads, an array element at depth
 * (json_region_sum). */
static void write_region_sum(struct out *o, int depth, const struct agg_view *v,
			     const struct agg_region_sum *rs)
{
	const struct agg_process *p = v->p;
	const struct agg_parent *pa = rs->parents;
	bool f = true;

	out__write(o, "{", 1);
	OUT_KEY(o, depth + 1, &f, "name");
	out__text(o, depth + 1, rs->name);
	if (!pa || !pa->next) {
		OUT_KEY(o, depth + 1, &f, "parent");
		out__text(o, depth + 1, pa ? pa->name : NULL);
	} else {
		json_object *x = json_object_new_object();

		json_region_parents(x, pa);
		out__members(o, depth + 1, &f, x);
	}
	OUT_KEY(o, depth + 1, &f, "calls");
	out__u64(o, rs->calls);
	OUT_KEY(o, depth + 1, &f, "threads");
	out__i64(o, rs->threads);
	out__sum(o, depth + 1, &f, "inclusive", p, rs->incl.ev);
	out__sum(o, depth + 1, &f, "exclusive", p, rs->excl.ev);
	out__percall(o, depth + 1, &f, p, &rs->percall);
	out__wall(o, depth + 1, &f, &rs->wall);
	if (p->metrics) {
		json_object *x = json_object_new_object();

		agg_metrics__json(x, "inclusive", p, rs->incl.m);
		agg_metrics__json(x, "exclusive", p, rs->excl.m);
		agg_drill__sum(x, "inclusive", p, rs->incl.ev);
		agg_drill__sum(x, "exclusive", p, rs->excl.ev);
		out__members(o, depth + 1, &f, x);
	}
	out__end(o, depth + 1);
}

/* One thread object at depth: its head, then its regions one by one
 * (those whose name is folded only counted), then the rest. */
static int write_thread(struct out *o, int depth, struct agg_view *v,
			const struct agg_thread *t)
{
	const struct agg_process *p = v->p;
	const struct agg_name *nm = __atomic_load_n(&t->name, __ATOMIC_ACQUIRE);
	json_object *head, *tail;
	struct agg_thread_view tv;
	uint64_t folded = 0, folded_calls = 0;
	bool first = true, rfirst = true;

	if (agg_view__thread(v, t, &tv) < 0)
		return -1;
	head = json_object_new_object();
	json_object_object_add(head, "tid", json_object_new_int(t->tid));
	json_object_object_add(head, "start_ns", agg_json__u64(t->start_ns));
	json_object_object_add(head, "end_ns", agg_json__u64(t->end_ns));
	json_object_object_add(head, "wall_ns", agg_json__u64(agg_thread__wall_ns(t)));
	json_object_object_add(head, "alive_at_exit",
			       json_object_new_boolean(t->alive_at_exit));
	int omp = __atomic_load_n(&t->omp_thread, __ATOMIC_RELAXED);

	if (omp >= 0)
		json_object_object_add(head, "omp_thread", json_object_new_int(omp));
	if (nm)
		json_object_object_add(head, "name", agg_json__text(nm->s));
	json_object_object_add(head, "reads", json_reads(t));
	if (t->missing) {
		json_object_object_add(
			head, "error",
			json_object_new_string(t->reason ? t->reason :
							   "counters not opened"));
		if (t->err && strerrorname_np(t->err))
			json_object_object_add(
				head, "errno",
				json_object_new_string(strerrorname_np(t->err)));
	}
	add_counts(head, "totals", p, &tv.totals);
	agg_kernel__add_before(head, p, &t->before);
	/* The sections read the thread view (series): built before the
	 * regions release it. */
	tail = json_object_new_object();
	json_object_object_add(tail, "warnings", json_warnings(&t->warn));
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		sections[i].add(tail, sections[i].name, p, &tv);
	agg_view__release(v);

	out__str(o, "{");
	out__members(o, depth + 1, &first, head);
	out__key(o, depth + 1, &first, "regions");
	out__str(o, "[");
	for (const struct agg_region *r = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
	     r; r = __atomic_load_n(&r->next, __ATOMIC_ACQUIRE)) {
		struct agg_region_view rv;
		int rc = agg_view__region(v, t, r, &rv);

		if (rc < 0) {
			json_object_put(tail);
			return -1;
		}
		if (rc == 0) {
			folded++;
			folded_calls += __atomic_load_n(&r->calls, __ATOMIC_RELAXED);
			continue;
		}
		out__next(o, depth + 2, &rfirst);
		write_region(o, depth + 2, p, &rv);
		agg_view__release(v);
	}
	out__close(o, depth + 2, rfirst, "]");
	if (folded) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "count", agg_json__u64(folded));
		json_object_object_add(f, "calls", agg_json__u64(folded_calls));
		out__key(o, depth + 1, &first, "regions_folded");
		out__value(o, depth + 1, f);
	}
	out__members(o, depth + 1, &first, tail);
	out__close(o, depth + 1, first, "}");
	return 0;
}

/* Distribution of the folded records' keys (sorted): min, median, max. */
static json_object *json_keydist(const struct agg_folded *f)
{
	json_object *o = json_object_new_object();
	const double *k = f->key;
	size_t n = f->count;
	double med = n % 2 ? k[n / 2] : (k[n / 2 - 1] + k[n / 2]) / 2;

	json_object_object_add(o, "min", k[0] >= 0 ? agg_json__dbl(k[0]) : NULL);
	json_object_object_add(o, "median", med >= 0 ? agg_json__dbl(med) : NULL);
	json_object_object_add(o, "max", k[n - 1] >= 0 ? agg_json__dbl(k[n - 1]) : NULL);
	return o;
}

/* The records a limit folded (docs/schema.md "folded"), or null. */
static json_object *json_folded(const struct agg_view *v, const struct agg_folded *f,
				bool regions)
{
	const struct agg_process *p = v->p;
	json_object *o;
	char key[160];

	if (!f->count)
		return NULL;
	o = json_object_new_object();
	if (p->main_ev < 0)
		snprintf(key, sizeof(key), regions ? "calls" : "none");
	else
		snprintf(key, sizeof(key), "%s %.120s", regions ? "inclusive" : "totals",
			 p->ev[p->main_ev].name);
	json_object_object_add(o, "limit", json_object_new_int(f->limit));
	json_object_object_add(o, "key", agg_json__text(key));
	json_object_object_add(o, "kept", agg_json__u64(f->kept));
	json_object_object_add(o, "count", agg_json__u64(f->count));
	json_object_object_add(o, "key_folded", json_keydist(f));
	json_object_object_add(o, "key_smallest_kept",
			       f->kept_min >= 0 && isfinite(f->kept_min) ?
				       agg_json__dbl(f->kept_min) :
				       NULL);
	if (regions) {
		json_object_object_add(o, "largest", agg_json__text(f->largest));
		json_object_object_add(o, "calls", agg_json__u64(f->calls));
		json_object_object_add(o, "inclusive", json_stats(p, f->incl.ev));
		json_object_object_add(o, "exclusive", json_stats(p, f->excl.ev));
		json_wall(o, &f->wall);
	} else {
		json_object *tot = json_object_new_object();

		json_object_object_add(o, "largest", json_object_new_int(f->largest_tid));
		for (int i = 0; i < p->nev; i++)
			if (p->ev[i].ok)
				json_object_object_add(
					tot, p->ev[i].name,
					f->incl.ev[i].st.n ?
						agg_json__u64(f->incl.ev[i].shown) :
						NULL);
		json_object_object_add(o, "totals", tot);
		json_object_object_add(o, "wall_ns", agg_json__u64(f->wall.incl));
	}
	return o;
}

/* Everything before the "threads" array. */
static json_object *json_head(const struct agg_view *v)
{
	const struct agg_process *p = v->p;
	json_object *doc = json_object_new_object();
	json_object *tool = json_object_new_object(), *f = json_object_new_object();

	json_object_object_add(doc, "schema", json_object_new_string(AGG_SCHEMA));
	json_object_object_add(tool, "name", json_object_new_string("hpcshim"));
	json_object_object_add(tool, "version", json_object_new_string(p->version));
	json_object_object_add(doc, "tool", tool);
	json_object_object_add(doc, "warnings",
			       agg_warnings__json(p->warnings, p->nwarnings));
	json_object_object_add(doc, "process", json_process(p));
	json_object_object_add(doc, "pmu", json_pmu(p));
	json_object_object_add(doc, "events", json_events(p));
	agg_metrics__add_sets(doc, p);
	if (p->mux) {
		json_object_object_add(doc, "mux", agg_mux__json(p));
		json_object_object_add(doc, "groups", agg_groups__json(p));
	}
	if (p->wrap)
		json_object_object_add(doc, "wrap", agg_wrap__json(p->wrap));
	json_totals(doc, p, &v->totals);
	agg_kernel__add_process_before(doc, p);
	json_object_object_add(doc, "thread_count", json_object_new_int(v->nthreads));
	json_object_object_add(doc, "uncovered_region_calls",
			       agg_json__u64(p->uncovered_calls));
	json_object_object_add(doc, "uncovered_threads", agg_kernel__uncovered(p));
	json_object_object_add(f, "threads", json_folded(v, &v->threads_folded, false));
	json_object_object_add(f, "regions", json_folded(v, &v->regions_folded, true));
	json_object_object_add(doc, "folded", f);
	return doc;
}

static int write_document(struct out *o, struct agg_view *v)
{
	const struct agg_process *p = v->p;
	const struct agg_thread *t;
	bool first = true, afirst = true;
	size_t i = 0;

	out__str(o, "{");
	out__members(o, 1, &first, json_head(v));
	out__key(o, 1, &first, "threads");
	out__str(o, "[");
	for (t = p->threads; t; t = t->next, i++) {
		if (!v->thread_kept[i])
			continue;
		out__next(o, 2, &afirst);
		if (write_thread(o, 2, v, t) < 0)
			return -1;
	}
	out__close(o, 2, afirst, "]");
	agg_view__sums(v);
	out__key(o, 1, &first, "regions");
	out__str(o, "[");
	afirst = true;
	for (size_t k = 0; k < v->nsums; k++) {
		out__next(o, 2, &afirst);
		write_region_sum(o, 2, v, &v->sum[k]);
	}
	out__close(o, 2, afirst, "]");
	if (p->range) {
		out__key(o, 1, &first, "ranges");
		out__value(o, 1, agg_range__process_json(p));
	}
	out__close(o, 1, first, "}\n");
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
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

/* The file as one process writes it: unnamed (O_TMPFILE) where the file
 * system allows, so a process killed while writing leaves nothing behind;
 * else under the hidden name .hpcshim-<host>-<pid>.<tag>.tmp, the same
 * for every image of that pid, so the next write of this pid (or the next
 * process that gets it) removes what a killed one left. */
static int result__open(struct agg_result_file *f, const struct agg_process *p,
			const char *dir, char tag)
{
	f->fd = hs_sys__openat(AT_FDCWD, dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	f->anon = f->fd >= 0;
	agg_result__tmp_name(f->tmp, sizeof(f->tmp), dir, p->host, p->pid, tag);
	if (f->anon)
		return 0;
	unlink(f->tmp);
	f->fd = hs_sys__openat(AT_FDCWD, f->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0644);
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

int agg_result__create(struct agg_result_file *f, const struct agg_process *p,
		       const char *dir, char tag, char *err, size_t errlen)
{
	struct agg_view *v = agg_view__new(p);
	struct out o = { .buf = out__buf_new(false), .spawn = p->spawn };
	int rc = -1, built;

	f->fd = -1;
	f->tmp[0] = '\0';
	if (!v || !o.buf) {
		snprintf(err, errlen, "cannot build the results: %s", strerror(ENOMEM));
		goto out;
	}
	/* A directory that is not there yet is made, parents too (the
	 * rule of docs/environment.md, HPCSHIM_OUTPUT), then tried again. */
	if (result__open(f, p, dir, tag) < 0 &&
	    (errno != ENOENT || hs_mkdirs(dir, 0777) < 0 ||
	     result__open(f, p, dir, tag) < 0)) {
		snprintf(err, errlen, "cannot create a file in %s: %s", dir,
			 strerror(errno));
		goto out;
	}
	o.fd = f->fd;
	out__ev_keys(&o, p);
	built = write_document(&o, v);
	out__flush(&o);
	out_writer__stop(&o);
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
	out__ev_keys_free(&o, p);
	out__buf_free(o.buf);
	agg_view__delete(v);
	return rc;
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
		if (errno != EEXIST || unlink(f->tmp) < 0 || result__link(f, f->tmp) < 0)
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
