/* out.c - the streaming JSON emitter: its buffer, its slow paths and the
 * values built with json-c (out.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/out.h"

const char agg_out_nl[AGG_OUT_NL + 1] = "\n                                "
					"                               ";

/* Writes what the buffer holds: by the writer when there is one. */
__attribute__((noinline)) void agg_out__flush(struct agg_out *o)
{
	if (o->w && !o->err && o->n)
		agg_out_writer__hand(o);
	else if (!o->err && o->n && agg_out__write_all(o->fd, o->buf, o->n) < 0)
		o->err = errno ? errno : EIO;
	o->n = 0;
}

/* The same when the buffer is full and more is to come: the document is
 * large, its writer starts now (if it may). */
__attribute__((noinline)) void agg_out__full(struct agg_out *o)
{
	if (unlikely(o->spawn) && !o->err)
		agg_out_writer__start(o);
	agg_out__flush(o);
}

__attribute__((noinline)) void agg_out__write_slow(struct agg_out *o, const char *s,
						   size_t len)
{
	agg_out__full(o);
	if (len <= AGG_OUT_BUF) {
		memcpy(o->buf, s, len);
		o->n = len;
		return;
	}
	if (o->w) { /* in order: after what the writer holds */
		int err = agg_out_writer__idle(o->w);

		if (err && !o->err)
			o->err = err;
	}
	if (!o->err && agg_out__write_all(o->fd, s, len) < 0)
		o->err = errno ? errno : EIO;
}

void agg_out__str(struct agg_out *o, const char *s)
{
	agg_out__write(o, s, strlen(s));
}

void agg_out__value(struct agg_out *o, int depth, json_object *v)
{
	const char *s = json_object_to_json_string_ext(
		v, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	const char *nl;

	while ((nl = strchr(s, '\n'))) {
		agg_out__write(o, s, (size_t)(nl - s));
		agg_out__newline(o, depth);
		s = nl + 1;
	}
	agg_out__str(o, s);
	json_object_put(v);
}

void agg_out__key(struct agg_out *o, int depth, bool *first, const char *key)
{
	json_object *k = json_object_new_string(key);

	agg_out__next(o, depth, first);
	agg_out__value(o, depth, k);
	agg_out__write(o, ":", 1);
}

void agg_out__member(struct agg_out *o, int depth, bool *first, const char *key,
		     json_object *v)
{
	agg_out__key(o, depth, first, key);
	agg_out__value(o, depth, v);
}

void agg_out__members(struct agg_out *o, int depth, bool *first, json_object *obj)
{
	if (!obj)
		return;
	json_object_object_foreach(obj, key, val)
	{
		agg_out__key(o, depth, first, key);
		agg_out__value(o, depth, json_object_get(val));
	}
	json_object_put(obj);
}

void agg_out__close(struct agg_out *o, int depth, bool empty, const char *c)
{
	if (!empty)
		agg_out__newline(o, depth - 1);
	agg_out__str(o, c);
}

void agg_out__name_key(struct agg_out *o, int depth, bool *first, const char *key)
{
	size_t len;
	char *b;

	if (!agg_json__plain(key, &len) || len + 3 > AGG_OUT_BUF) {
		agg_out__key(o, depth, first, key);
		return;
	}
	agg_out__next(o, depth, first);
	b = agg_out__room(o, len + 3);
	b[0] = '"';
	memcpy(b + 1, key, len);
	memcpy(b + len + 1, "\":", 2);
	o->n += len + 3;
}

/* Prepares every event's key text; on ENOMEM agg_out__ev_key escapes
 * each. */
static void out__ev_keys(struct agg_out *o, const struct agg_process *p)
{
	size_t len;

	o->evkey = calloc((size_t)(p->nev ? p->nev : 1), sizeof(*o->evkey));
	o->evlen = calloc((size_t)(p->nev ? p->nev : 1), sizeof(*o->evlen));
	if (!o->evkey || !o->evlen)
		return;
	for (int e = 0; e < p->nev; e++) {
		if (!agg_json__plain(p->ev[e].name, &len) || len + 3 > AGG_OUT_SLACK)
			continue;
		/* AGG_OUT_SLACK bytes: copied as one block (agg_out__ev_key). */
		o->evkey[e] = calloc(1, AGG_OUT_SLACK + 1);
		if (!o->evkey[e])
			continue;
		snprintf(o->evkey[e], AGG_OUT_SLACK + 1, "\"%s\":", p->ev[e].name);
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

int agg_out__init(struct agg_out *o, int fd, const struct agg_process *p)
{
	*o = (struct agg_out){ .fd = fd, .spawn = p->spawn };
	o->buf = agg_out_buf__new(false);
	if (!o->buf)
		return -1;
	out__ev_keys(o, p);
	return 0;
}

void agg_out__finish(struct agg_out *o)
{
	agg_out__flush(o);
	agg_out_writer__stop(o);
}

void agg_out__free(struct agg_out *o, const struct agg_process *p)
{
	for (int e = 0; o->evkey && e < p->nev; e++)
		free(o->evkey[e]);
	free(o->evkey);
	free(o->evlen);
	free(o->mainval);
	free(o->ok);
	agg_out_buf__free(o->buf);
	o->evkey = NULL;
	o->evlen = NULL;
	o->mainval = NULL;
	o->ok = NULL;
	o->buf = NULL;
}
