/* out.h - the streaming JSON emitter of the result file.
 *
 * The file is written piece by piece, so memory holds one record, never
 * the document.  The text is what json-c's pretty printer gives for the
 * whole document (two spaces per level), so that it reads the same whether
 * a value was written here directly or built with json-c and handed over
 * (agg_out__value): the records there are many of (regions, region
 * summaries) are written directly, what is rare or optional still goes
 * through json-c.
 *
 * The writer keeps its place itself: an object's members are written
 * with the depth of the member and a `first` flag of that object (the
 * separator and the line break come before each member).
 *
 *   agg_out         the buffer, the file and the per-event key texts
 *                   (out.c); the hot writers are inline here
 *   agg_out_writer  the helper thread that writes full buffers while the
 *                   next one is formatted (out_writer.c)
 */
#ifndef HPCSHIM_AGGREGATE_OUT_H
#define HPCSHIM_AGGREGATE_OUT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/compiler.h"
#include "aggregate/aggregate.h"
#include "aggregate/jsonutil.h"

struct json_object;
struct agg_out_writer;

#define AGG_OUT_BUF (1024 * 1024)
#define AGG_OUT_SLACK 64 /* the longest key agg_out__lit_key writes in one piece */

struct agg_out {
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
	struct agg_out_writer *w; /* NULL: agg_out__flush writes itself */
	/* How to start a writer (agg_process.spawn), at the first full
	 * buffer: a document that fits in one is written by the caller, with
	 * no thread and no second buffer.  NULL once tried. */
	agg_spawn_fn *spawn;
};

/* o writes p's document to fd (a writer thread by spawn when it grows
 * past one buffer, NULL: never): -1 on ENOMEM.  agg_out__finish writes
 * what is left and waits for the writer (the first error in o->err);
 * agg_out__free releases everything, after either. */
int agg_out__init(struct agg_out *o, int fd, const struct agg_process *p);
void agg_out__finish(struct agg_out *o);
void agg_out__free(struct agg_out *o, const struct agg_process *p);

/* The slow paths of the inline writers below. */
void agg_out__flush(struct agg_out *o);
void agg_out__full(struct agg_out *o);
void agg_out__write_slow(struct agg_out *o, const char *s, size_t len);

/* After a write error the bytes still go to the buffer: the next flush
 * drops them. */
static inline void agg_out__write(struct agg_out *o, const char *s, size_t len)
{
	if (unlikely(o->n + len > AGG_OUT_BUF)) {
		agg_out__write_slow(o, s, len);
		return;
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

void agg_out__str(struct agg_out *o, const char *s);

/* Room for len <= AGG_OUT_BUF bytes at o->buf + o->n. */
static inline char *agg_out__room(struct agg_out *o, size_t len)
{
	if (unlikely(o->n + len > AGG_OUT_BUF))
		agg_out__full(o);
	return o->buf + o->n;
}

/* A line break and up to 31 levels of indentation, copied as one block. */
#define AGG_OUT_NL 64
extern const char agg_out_nl[AGG_OUT_NL + 1];

/* A line break, then two spaces per level. */
static inline void agg_out__newline(struct agg_out *o, int depth)
{
	size_t n = 1 + 2 * (size_t)depth;
	char *b;

	if (likely(n <= AGG_OUT_NL)) { /* one block, the rest overwritten later */
		b = agg_out__room(o, AGG_OUT_NL);
		memcpy(b, agg_out_nl, AGG_OUT_NL);
	} else {
		b = agg_out__room(o, n);
		b[0] = '\n';
		memset(b + 1, ' ', n - 1);
	}
	o->n += n;
}

/* The separator and indentation before an entry of an object or array. */
static inline void agg_out__next(struct agg_out *o, int depth, bool *first)
{
	if (!*first)
		agg_out__write(o, ",", 1);
	*first = false;
	agg_out__newline(o, depth);
}

/* v's text at nesting depth (its inner lines indented to match); frees v. */
void agg_out__value(struct agg_out *o, int depth, struct json_object *v);
/* "key": at depth, after the separator. */
void agg_out__key(struct agg_out *o, int depth, bool *first, const char *key);
/* "key": v, a member built with json-c (v may be NULL: null); frees v. */
void agg_out__member(struct agg_out *o, int depth, bool *first, const char *key,
		     struct json_object *v);
/* Every member of obj in order, at depth; frees obj (NULL: nothing). */
void agg_out__members(struct agg_out *o, int depth, bool *first,
		      struct json_object *obj);
/* Closes an object or array opened at depth - 1 with c. */
void agg_out__close(struct agg_out *o, int depth, bool empty, const char *c);

/* Closes an object written directly, opened at depth - 1: json-c puts
 * the brace of an empty object on a line of its own too. */
static inline void agg_out__end(struct agg_out *o, int depth)
{
	agg_out__newline(o, depth - 1);
	agg_out__write(o, "}", 1);
}

/* A key known to need no escaping, with its separator: "key": */
#define AGG_OUT_KEY(o, depth, first, key) \
	agg_out__lit_key(o, depth, first, "\"" key "\":", sizeof(key) + 2, false)

/* With padded, k has AGG_OUT_SLACK readable bytes and is copied as one
 * block. */
static inline __attribute__((always_inline)) void
agg_out__lit_key(struct agg_out *o, int depth, bool *first, const char *k, size_t len,
		 bool padded)
{
	size_t nl = 1 + 2 * (size_t)depth;
	char *b;

	if (unlikely(nl > AGG_OUT_NL || len + 1 > AGG_OUT_SLACK)) {
		agg_out__next(o, depth, first);
		agg_out__write(o, k, len);
		return;
	}
	b = agg_out__room(o, 1 + AGG_OUT_NL + AGG_OUT_SLACK);
	if (!*first)
		*b++ = ',';
	*first = false;
	/* The indentation copied as one block (room was asked for it): no
	 * copy of a length known only here. */
	memcpy(b, agg_out_nl, AGG_OUT_NL);
	if (padded)
		memcpy(b + nl, k, AGG_OUT_SLACK);
	else
		memcpy(b + nl, k, len);
	o->n = (size_t)(b + nl + len - o->buf);
}

/* A string from outside between quotes (null for NULL), as agg_json__text
 * would give. */
static inline void agg_out__text(struct agg_out *o, int depth, const char *s)
{
	size_t len;
	char *b;

	if (!s) {
		agg_out__write(o, "null", 4);
		return;
	}
	if (!agg_json__plain(s, &len) || len + 2 > AGG_OUT_BUF) {
		agg_out__value(o, depth, agg_json__text(s));
		return;
	}
	b = agg_out__room(o, len + 2);
	b[0] = '"';
	memcpy(b + 1, s, len);
	b[len + 1] = '"';
	o->n += len + 2;
}

/* A key from outside (an event name): as json-c escapes an object key. */
void agg_out__name_key(struct agg_out *o, int depth, bool *first, const char *key);

/* Event e's name as a key: prepared by agg_out__init. */
static inline __attribute__((always_inline)) void
agg_out__ev_key(struct agg_out *o, int depth, bool *first, const struct agg_process *p,
		int e)
{
	if (!o->evkey || !o->evkey[e]) {
		agg_out__key(o, depth, first, p->ev[e].name);
		return;
	}
	agg_out__lit_key(o, depth, first, o->evkey[e], o->evlen[e], true);
}

static inline void agg_out__u64(struct agg_out *o, uint64_t v)
{
	o->n += agg_json__fmt_u64(agg_out__room(o, AGG_JSON_NUM_MAX), v);
}

static inline void agg_out__i64(struct agg_out *o, int64_t v)
{
	o->n += agg_json__fmt_i64(agg_out__room(o, AGG_JSON_NUM_MAX), v);
}

/* A double, null when not finite (agg_json__dbl). */
static inline void agg_out__dbl(struct agg_out *o, double v)
{
	if (!isfinite(v))
		agg_out__write(o, "null", 4);
	else
		o->n += agg_json__fmt_dbl(agg_out__room(o, AGG_JSON_NUM_MAX), v);
}

/* out_writer.c: the helper thread and the buffers it takes turns with. */
/* Every byte of buf to fd (EINTR retried): 0, or -1 with errno. */
int agg_out__write_all(int fd, const char *buf, size_t len);
/* An output buffer of AGG_OUT_BUF bytes, NULL on failure; populate: its
 * pages in place now. */
char *agg_out_buf__new(bool populate);
void agg_out_buf__free(char *b);
/* A writer for o, or none (o->w stays NULL) when o has no way to start
 * one or anything fails: tried once, when the first buffer is full. */
void agg_out_writer__start(struct agg_out *o);
/* Hands the full buffer to the writer (once it is done with the other
 * one) and continues in the other. */
void agg_out_writer__hand(struct agg_out *o);
/* Waits until the writer holds no buffer; its error, or 0. */
int agg_out_writer__idle(struct agg_out_writer *w);
/* Every buffer written: the writer stopped, its error in o->err, its
 * buffer freed. */
void agg_out_writer__stop(struct agg_out *o);

#endif
