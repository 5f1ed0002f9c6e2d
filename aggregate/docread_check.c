/* docread_check.c - the reader's check of a document's members below the
 * top level (docread.h, dr_doc__check): every member an accessor reads
 * must have one of the types the accessor reads, at any depth (a thread's
 * region record's inclusive values as much as the top-level totals), or
 * the document is rejected with the member's path and what it is:
 *
 *   malformed result: "threads[0].regions[3].inclusive" is a string, not an object
 *
 * A member that is absent or null always passes (it reads as absent); a
 * NaN or an Infinity is null by now (dr_doc__wrap: json-c reads them,
 * JSON has neither).  One pass over the document, linear in its size.
 */
#include <stdio.h>
#include <string.h>

#include "aggregate/docread_internal.h"

/* The types a member may have: a mask. */
enum { T_NUM = 1, T_STR = 2, T_OBJ = 4, T_ARR = 8, T_BOOL = 16 };

struct ck {
	const char *what; /* "result", "job document" */
	char *why;
	size_t len;
	bool bad;
};

static int type_bit(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_int:
	case json_type_double: return T_NUM;
	case json_type_string: return T_STR;
	case json_type_object: return T_OBJ;
	case json_type_array: return T_ARR;
	case json_type_boolean: return T_BOOL;
	default: return 0;
	}
}

static const char *type_words(int mask)
{
	switch (mask) {
	case T_NUM: return "a number";
	case T_STR: return "a string";
	case T_OBJ: return "an object";
	case T_ARR: return "an array";
	case T_BOOL: return "a boolean";
	case T_NUM | T_OBJ: return "a number or an object";
	case T_NUM | T_ARR: return "a number or an array";
	case T_STR | T_OBJ: return "a string or an object";
	default: return "of another type";
	}
}

/* v (the member at path, key appended) is null, absent or of the types
 * in mask; else the reason, once. */
static bool ck_is(struct ck *c, json_object *v, const char *path, const char *key, int mask)
{
	if (c->bad)
		return false;
	if (!v || (type_bit(v) & mask))
		return true;
	snprintf(c->why, c->len, "malformed %s: \"%.200s%s%.80s\" is %s, not %s", c->what, path,
		 *path && *key ? "." : "", key, type_words(type_bit(v)), type_words(mask));
	c->bad = true;
	return false;
}

/* An array or object at path with n entries, more events than a result
 * has. */
static void ck_too_many(struct ck *c, const char *path, size_t n)
{
	if (c->bad)
		return;
	snprintf(c->why, c->len, "malformed %s: \"%.200s\" has %zu events, more than %d",
		 c->what, path, n, DR_MAX_EVENTS);
	c->bad = true;
}

/* Member key of o: its type; returns it when it has one of mask's. */
static json_object *ck_get(struct ck *c, json_object *o, const char *path, const char *key,
			   int mask)
{
	json_object *v = get(o, key);

	return ck_is(c, v, path, key, mask) ? v : NULL;
}

/* A member's key and the types it may have: the layout of one kind of
 * object is a table of these (what the accessors read), walked by
 * ck_keys. */
struct key_type {
	const char *key;
	int mask;
};

#define NKEYS(t) (sizeof(t) / sizeof((t)[0]))

/* Each key of the table t[n] in o: of its types, or absent or null. */
static void ck_keys(struct ck *c, json_object *o, const char *path, const struct key_type *t,
		    size_t n)
{
	for (size_t i = 0; i < n && !c->bad; i++)
		ck_get(c, o, path, t[i].key, t[i].mask);
}

/* s appended to buf at k, cut at len; the new end. */
static size_t put(char *buf, size_t len, size_t k, const char *s)
{
	size_t n = strlen(s);

	if (n > len - 1 - k)
		n = len - 1 - k;
	memcpy(buf + k, s, n);
	buf[k + n] = 0;
	return k + n;
}

/* path "p" + ".key", then "[i]" when i >= 0, into buf (cut when long: it
 * is only for the message). */
static const char *sub(char *buf, size_t len, const char *path, const char *key, long i)
{
	char idx[32];
	size_t k = put(buf, len, 0, path);

	k = put(buf, len, k, *path && *key ? "." : "");
	k = put(buf, len, k, key);
	if (i >= 0) {
		snprintf(idx, sizeof(idx), "[%ld]", i);
		put(buf, len, k, idx);
	}
	return buf;
}

/* Each member of o (an object) of the types of mask. */
static void ck_members(struct ck *c, json_object *o, const char *path, int mask)
{
	if (!obj(o))
		return;
	json_object_object_foreach(o, k, v)
	{
		if (!ck_is(c, v, path, k, mask))
			return;
	}
}

static const struct key_type stats_keys[] = { { "sum", T_NUM }, { "sum_stderr", T_NUM } };

/* Values by event: a number, or statistics with a numeric "sum" (and
 * "sum_stderr"). */
static void ck_values(struct ck *c, json_object *o, const char *path, const char *key)
{
	char p[320];
	json_object *vals = ck_get(c, o, path, key, T_OBJ);

	if (!vals)
		return;
	sub(p, sizeof(p), path, key, -1);
	if (json_object_object_length(vals) > DR_MAX_EVENTS) {
		ck_too_many(c, p, (size_t)json_object_object_length(vals));
		return;
	}
	json_object_object_foreach(vals, ev, v)
	{
		char q[400];

		if (!ck_is(c, v, p, ev, T_NUM | T_OBJ) || !obj(v))
			continue;
		sub(q, sizeof(q), p, ev, -1);
		ck_keys(c, v, q, stats_keys, NKEYS(stats_keys));
	}
}

static const struct key_type mux_keys[] = {
	{ "running", T_NUM }, { "enabled", T_NUM }, { "stderr", T_NUM }, { "coverage", T_NUM }
};

/* <key>_multiplexed: per event, an object of numbers. */
static void ck_mux(struct ck *c, json_object *o, const char *path, const char *key)
{
	char k[64], p[320];
	json_object *m;

	snprintf(k, sizeof(k), "%s_multiplexed", key);
	m = ck_get(c, o, path, k, T_OBJ);
	if (!m)
		return;
	sub(p, sizeof(p), path, k, -1);
	json_object_object_foreach(m, ev, e)
	{
		char q[400];

		if (!ck_is(c, e, p, ev, T_OBJ) || !e)
			continue;
		sub(q, sizeof(q), p, ev, -1);
		ck_keys(c, e, q, mux_keys, NKEYS(mux_keys));
	}
}

static void ck_percall(struct ck *c, json_object *o, const char *path, const char *key)
{
	static const struct key_type keys[] = { { "event", T_STR }, { "calls", T_NUM },
						{ "min", T_NUM },   { "mean", T_NUM },
						{ "max", T_NUM } };
	json_object *pc = ck_get(c, o, path, key, T_OBJ);
	char p[320];

	if (pc)
		ck_keys(c, pc, sub(p, sizeof(p), path, key, -1), keys, NKEYS(keys));
}

/* A drill-down object: its strings and its nodes. */
static void ck_drill(struct ck *c, json_object *o, const char *path, const char *key)
{
	static const struct key_type node_keys[] = {
		{ "id", T_STR },     { "name", T_STR },	 { "unit", T_STR },  { "parent", T_STR },
		{ "reason", T_STR }, { "value", T_NUM }, { "error", T_NUM }, { "over", T_BOOL }
	};
	static const struct key_type keys[] = { { "tree", T_STR },
						{ "bottleneck", T_STR | T_OBJ },
						{ "next", T_OBJ } };
	json_object *d = ck_get(c, o, path, key, T_OBJ), *nodes;
	char p[320], q[400];

	if (!d)
		return;
	sub(p, sizeof(p), path, key, -1);
	ck_keys(c, d, p, keys, NKEYS(keys));
	nodes = ck_get(c, d, p, "nodes", T_ARR);
	for (size_t i = 0; !c->bad && i < arr_len(nodes); i++) {
		json_object *n = arr_at(nodes, i);

		sub(q, sizeof(q), p, "nodes", (long)i);
		if (!ck_is(c, n, q, "", T_OBJ) || !n)
			continue;
		ck_keys(c, n, q, node_keys, NKEYS(node_keys));
	}
}

/* A region: a process's or job's summary, or a thread's record. */
static void ck_region(struct ck *c, json_object *g, const char *path)
{
	static const struct key_type keys[] = {
		{ "name", T_STR },	     { "parent", T_STR },
		{ "calls", T_NUM | T_OBJ },   { "threads", T_NUM | T_OBJ },
		{ "ranks", T_NUM },	     { "inclusive_metrics", T_OBJ },
		{ "bytes", T_OBJ },	     { "measurement_ns", T_NUM | T_OBJ },
	};
	static const struct key_type wall_keys[] = { { "inclusive", T_NUM | T_OBJ },
						     { "exclusive", T_NUM | T_OBJ } };
	json_object *w;
	char p[320];

	if (!ck_is(c, g, path, "", T_OBJ) || !g)
		return;
	ck_keys(c, g, path, keys, NKEYS(keys));
	/* named here, not through docread.c's table: no call back into it */
	ck_values(c, g, path, "inclusive");
	ck_mux(c, g, path, "inclusive");
	ck_values(c, g, path, "exclusive");
	ck_mux(c, g, path, "exclusive");
	w = ck_get(c, g, path, "wall_ns", T_OBJ);
	ck_keys(c, w, sub(p, sizeof(p), path, "wall_ns", -1), wall_keys, NKEYS(wall_keys));
	ck_percall(c, g, path, "per_call");
	ck_percall(c, g, path, "per_call_wall_ns");
	ck_drill(c, g, path, "inclusive_drilldown");
	ck_drill(c, g, path, "exclusive_drilldown");
}

static void ck_regions(struct ck *c, json_object *o, const char *path)
{
	json_object *rs = ck_get(c, o, path, "regions", T_ARR);
	char p[320];

	for (size_t i = 0; !c->bad && i < arr_len(rs); i++)
		ck_region(c, arr_at(rs, i), sub(p, sizeof(p), path, "regions", (long)i));
}

static void ck_series(struct ck *c, json_object *th, const char *path)
{
	json_object *s = ck_get(c, th, path, "series", T_OBJ);
	char p[320], r[400];

	if (!s)
		return;
	sub(p, sizeof(p), path, "series", -1);
	json_object_object_foreach(s, ev, pts)
	{
		/* "t" and the events' points: arrays of numbers (beside
		 * numbers: interval_ns, points) */
		if (!ck_is(c, pts, p, ev, T_ARR | T_NUM) || !arr_len(pts))
			continue;
		for (size_t j = 0; !c->bad && j < arr_len(pts); j++) {
			ck_is(c, arr_at(pts, j), sub(r, sizeof(r), p, ev, (long)j), "", T_NUM);
		}
	}
}

static void ck_trace(struct ck *c, json_object *th, const char *path)
{
	static const struct key_type rec_keys[] = { { "region", T_STR },
						    { "begin_ns", T_NUM },
						    { "end_ns", T_NUM } };
	json_object *t = ck_get(c, th, path, "trace", T_OBJ), *recs;
	char p[320], q[400];

	if (!t)
		return;
	sub(p, sizeof(p), path, "trace", -1);
	ck_get(c, t, p, "event", T_STR);
	recs = ck_get(c, t, p, "records", T_ARR);
	for (size_t i = 0; !c->bad && i < arr_len(recs); i++) {
		json_object *s = arr_at(recs, i);

		sub(q, sizeof(q), p, "records", (long)i);
		if (!ck_is(c, s, q, "", T_OBJ) || !s)
			continue;
		ck_keys(c, s, q, rec_keys, NKEYS(rec_keys));
	}
}

static void ck_thread(struct ck *c, json_object *th, const char *path)
{
	static const struct key_type keys[] = {
		{ "tid", T_NUM },     { "omp_thread", T_NUM }, { "start_ns", T_NUM },
		{ "wall_ns", T_NUM }, { "name", T_STR },       { "error", T_STR },
	};
	char p[320];

	if (!ck_is(c, th, path, "", T_OBJ) || !th)
		return;
	ck_keys(c, th, path, keys, NKEYS(keys));
	ck_values(c, th, path, "totals");
	ck_mux(c, th, path, "totals");
	ck_members(c, ck_get(c, th, path, "warnings", T_OBJ), sub(p, sizeof(p), path, "warnings", -1),
		   T_NUM);
	ck_regions(c, th, path);
	ck_series(c, th, path);
	ck_trace(c, th, path);
}

/* A rank: a process result's process, or an entry of a job's ranks[]. */
static void ck_rank(struct ck *c, json_object *p, const char *path)
{
	static const struct key_type keys[] = {
		{ "host", T_STR },	   { "end", T_STR },
		{ "job", T_STR },	   { "pid", T_NUM },
		{ "wall_ns", T_NUM },	   { "peak_rss_bytes", T_NUM },
		{ "start_ns", T_NUM },	   { "exec_generation", T_NUM },
		{ "complete", T_BOOL },
	};
	json_object *cmd;
	char q[320];

	if (!ck_is(c, p, path, "", T_OBJ) || !p)
		return;
	ck_keys(c, p, path, keys, NKEYS(keys));
	cmd = ck_get(c, p, path, "command", T_ARR);
	for (size_t i = 0; !c->bad && i < arr_len(cmd); i++)
		ck_is(c, arr_at(cmd, i), sub(q, sizeof(q), path, "command", (long)i), "", T_STR);
}

static void ck_events(struct ck *c, json_object *root)
{
	static const struct key_type keys[] = {
		{ "name", T_STR }, { "status", T_STR }, { "error", T_STR }, { "reason", T_STR }
	};
	json_object *evs = get(root, "events");
	char p[64];

	if (arr_len(evs) > DR_MAX_EVENTS) {
		ck_too_many(c, "events", arr_len(evs));
		return;
	}
	for (size_t i = 0; !c->bad && i < arr_len(evs); i++) {
		json_object *e = arr_at(evs, i);

		snprintf(p, sizeof(p), "events[%zu]", i);
		if (!ck_is(c, e, p, "", T_OBJ | T_STR) || !obj(e))
			continue;
		ck_keys(c, e, p, keys, NKEYS(keys));
	}
}

static void ck_presets(struct ck *c, json_object *root)
{
	static const struct key_type keys[] = {
		{ "kind", T_STR },   { "name", T_STR },	  { "status", T_STR },
		{ "reason", T_STR }, { "metrics", T_OBJ }, { "events", T_OBJ },
	};
	json_object *pr = ck_get(c, root, "", "presets", T_OBJ), *sets;
	char p[64];

	ck_get(c, pr, "presets", "model", T_STR);
	sets = ck_get(c, pr, "presets", "sets", T_ARR);
	for (size_t i = 0; !c->bad && i < arr_len(sets); i++) {
		json_object *s = arr_at(sets, i);

		snprintf(p, sizeof(p), "presets.sets[%zu]", i);
		if (!ck_is(c, s, p, "", T_OBJ) || !s)
			continue;
		ck_keys(c, s, p, keys, NKEYS(keys));
	}
	ck_get(c, root, "", "totals_metrics", T_OBJ);
	ck_get(c, root, "", "pmu", T_OBJ);
}

/* ranges: the members docread_range.c reads. */
static void ck_ranges(struct ck *c, json_object *root)
{
	static const struct key_type cp_keys[] = {
		{ "checkpoint", T_STR }, { "status", T_STR }, { "reason", T_STR }
	};
	static const struct key_type pt_keys[] = {
		{ "point", T_STR }, { "status", T_STR }, { "reason", T_STR }
	};
	json_object *r = ck_get(c, root, "", "ranges", T_OBJ), *a, *tr;
	char p[64];

	ck_get(c, r, "ranges", "point_method", T_STR);
	ck_get(c, r, "ranges", "point_method_note", T_STR);
	a = ck_get(c, r, "ranges", "checkpoints", T_ARR);
	for (size_t i = 0; !c->bad && i < arr_len(a); i++) {
		snprintf(p, sizeof(p), "ranges.checkpoints[%zu]", i);
		if (ck_is(c, arr_at(a, i), p, "", T_OBJ) && arr_at(a, i))
			ck_keys(c, arr_at(a, i), p, cp_keys, NKEYS(cp_keys));
	}
	tr = ck_get(c, r, "ranges", "trigger", T_OBJ);
	ck_get(c, tr, "ranges.trigger", "state", T_STR);
	for (int k = 0; !c->bad && k < 2; k++) {
		json_object *pt = ck_get(c, tr, "ranges.trigger", k ? "stop" : "start", T_OBJ);

		if (pt)
			ck_keys(c, pt, k ? "ranges.trigger.stop" : "ranges.trigger.start",
				pt_keys, NKEYS(pt_keys));
	}
	a = ck_get(c, ck_get(c, r, "ranges", "totals", T_OBJ), "ranges.totals", "checkpoints",
		   T_OBJ);
	ck_members(c, a, "ranges.totals.checkpoints", T_NUM);
}

enum dr_bad dr__check_deep(const struct dr_doc *d, char *why, size_t len)
{
	json_object *root = d->root, *ranks;
	struct ck c = { d->kind == DR_JOB ? "job document" : "result", why, len, false };
	char p[64];

	ck_events(&c, root);
	ck_values(&c, root, "", "totals");
	ck_get(&c, root, "", "thread_count", T_NUM);
	ck_get(&c, root, "", "uncovered_region_calls", T_NUM);
	ck_presets(&c, root);
	ck_ranges(&c, root);
	ck_drill(&c, root, "", "totals_drilldown");
	ck_regions(&c, root, "");
	if (d->kind == DR_JOB) {
		ck_get(&c, get(root, "job"), "job", "id", T_STR);
		ck_get(&c, root, "", "peak_rss_bytes", T_OBJ);
		ck_get(&c, root, "", "time_ns", T_OBJ);
		ranks = get(root, "ranks");
		for (size_t i = 0; !c.bad && i < arr_len(ranks); i++) {
			snprintf(p, sizeof(p), "ranks[%zu]", i);
			ck_rank(&c, arr_at(ranks, i), p);
			ck_values(&c, arr_at(ranks, i), p, "totals");
			ck_get(&c, arr_at(ranks, i), p, "time_ns", T_OBJ);
			ck_get(&c, arr_at(ranks, i), p, "threads_time_ns", T_OBJ);
		}
		return c.bad ? DR_LAYOUT : DR_OK;
	}
	ck_rank(&c, get(root, "process"), "process");
	ranks = get(root, "threads");
	for (size_t i = 0; !c.bad && i < arr_len(ranks); i++) {
		snprintf(p, sizeof(p), "threads[%zu]", i);
		ck_thread(&c, arr_at(ranks, i), p);
	}
	return c.bad ? DR_LAYOUT : DR_OK;
}
