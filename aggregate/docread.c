/* docread.c - the one reader of result documents (docread.h).
 *
 * The handles are the json-c objects themselves, typed: a dr_thread is an
 * entry of threads[], a dr_region a region object, and so on.  Every key
 * of the schema the readers use is named here and nowhere else in the
 * readers; every type is checked here, so a damaged file reads as absent
 * values, never as a crash.  The layout the accessors rely on (the
 * top-level members and their types, a sane rank and size) is checked
 * once by dr_doc__check.  This file: opening, checking, values and the
 * document; threads in docread_thread.c, regions and drill-downs in
 * docread_region.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "aggregate/docread_internal.h"
#include "common/sys.h"

/* ---- opening ------------------------------------------------------------ */

/* json-c's last error ("json_object_from_file: error opening file X: No
 * such file or directory", "json_tokener_parse_ex failed: ...") as the
 * short reason after its last ": ". */
static void load_error(char *why, size_t len)
{
	const char *e = json_util_get_last_err();
	const char *tail = e ? strrchr(e, ':') : NULL;
	int n;

	if (!tail) {
		snprintf(why, len, "cannot read JSON");
		return;
	}
	tail += strspn(tail, ": ");
	n = (int)strcspn(tail, "\n");
	if (!strstr(e, "tokener"))
		snprintf(why, len, "%.*s", n, tail);
	else if (strncmp(tail, "continue", (size_t)n) == 0)
		snprintf(why, len, "truncated JSON: unexpected end of data");
	/* json-c's tokener gives up with "success" when an allocation
	 * fails (the tools' RLIMIT_DATA, tools/membound.h) */
	else if (strncmp(tail, "success", (size_t)n) == 0 || strstr(tail, "memory"))
		snprintf(why, len, "out of memory");
	else
		snprintf(why, len, "not JSON: %.*s", n, tail);
}

/* NaN and Infinity (json-c reads them, JSON has neither) become null:
 * they read as absent, and a tool that copies a member as written writes
 * JSON.  json-c nests at most 32 deep (its tokener's default), so the
 * recursion is bounded. */
static void finite_only(json_object *o)
{
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v)
		{
			if (json_object_is_type(v, json_type_double) &&
			    !isfinite(json_object_get_double(v)))
				json_object_object_add(o, k, NULL);
			else
				finite_only(v);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			json_object *v = json_object_array_get_idx(o, i);

			if (json_object_is_type(v, json_type_double) &&
			    !isfinite(json_object_get_double(v)))
				json_object_array_put_idx(o, i, NULL);
			else
				finite_only(v);
		}
	}
}

/* The bytes dr_text__finite stops at: a quote, a letter. */
static bool text__stop(unsigned char c)
{
	return c == '"' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool dr_text__finite(const char *text, size_t len)
{
	static bool stop[256];
	static bool stop_set;
	const unsigned char *t = (const unsigned char *)text;
	size_t i = 0;

	if (!__atomic_load_n(&stop_set, __ATOMIC_ACQUIRE)) {
		for (int c = 0; c < 256; c++)
			stop[c] = text__stop((unsigned char)c);
		__atomic_store_n(&stop_set, true, __ATOMIC_RELEASE);
	}
	for (;;) {
		while (i < len && !stop[t[i]])
			i++;
		if (i >= len)
			return true;
		if (t[i] == '"') { /* a string: to its closing quote */
			for (;;) {
				const unsigned char *q = memchr(t + i + 1, '"', len - i - 1);
				size_t bs = 0;

				if (!q)
					return false; /* no JSON */
				i = (size_t)(q - t);
				while (t[i - 1 - bs] == '\\')
					bs++;
				if (bs % 2 == 0)
					break; /* not escaped */
			}
			i++;
		} else if ((t[i] == 'e' || t[i] == 'E') && i > 0 &&
			   ((t[i - 1] >= '0' && t[i - 1] <= '9') || t[i - 1] == '.')) {
			size_t d = 0; /* a number's exponent: its digits */

			i++;
			if (i < len && (t[i] == '+' || t[i] == '-'))
				i++;
			for (; i < len && t[i] >= '0' && t[i] <= '9'; i++)
				d++;
			if (d == 0 || d > 2)
				return false;
		} else {
			if (len - i >= 4 && (!memcmp(t + i, "true", 4) || !memcmp(t + i, "null", 4)))
				i += 4;
			else if (len - i >= 5 && !memcmp(t + i, "false", 5))
				i += 5;
			else
				return false; /* NaN, Infinity, nan, inf..., or no JSON */
			if (i < len && text__stop(t[i]))
				return false; /* "nullx", "null\"": not ours to judge */
		}
	}
}

static struct dr_doc *doc__wrap(json_object *root, bool finite)
{
	struct dr_doc *d = calloc(1, sizeof(*d));

	if (!d) {
		json_object_put(root);
		return NULL;
	}
	if (!finite)
		finite_only(root);
	d->root = root;
	d->kind = strncmp(get_str(root, "schema", ""), "hpcshim-job/", 12) == 0 ? DR_JOB :
										  DR_PROCESS;
	return d;
}

struct dr_doc *dr_doc__wrap(json_object *root)
{
	return doc__wrap(root, false);
}

struct dr_doc *dr_doc__wrap_finite(json_object *root)
{
	return doc__wrap(root, true);
}

/* Only a regular file is read: a FIFO or a device among the results (put
 * there by another user of a shared directory) would block open(2) or
 * read(2) for ever.  Opened O_NONBLOCK, so that the open itself returns,
 * and checked with fstat before a byte is read. */
struct dr_doc *dr_doc__load(const char *path, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	json_object *root;
	struct stat st;
	struct dr_doc *d;

	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		hs_sys__close(fd); /* never the shim's close wrapper */
		snprintf(why, len, "not a regular file");
		return NULL;
	}
	root = json_object_from_fd(fd);
	hs_sys__close(fd);
	if (!root) {
		load_error(why, len);
		return NULL;
	}
	d = dr_doc__wrap(root);
	if (!d)
		snprintf(why, len, "out of memory");
	return d;
}

void dr_doc__free(struct dr_doc *d)
{
	if (!d)
		return;
	json_object_put(d->root);
	json_object_put(d->index);
	free(d);
}

json_object *dr_doc__release(struct dr_doc *d)
{
	json_object *root = d->root;

	json_object_put(d->index);
	free(d);
	return root;
}

json_object *dr_doc__json(const struct dr_doc *d)
{
	return d->root;
}

enum dr_kind dr_doc__kind(const struct dr_doc *d)
{
	return d->kind;
}

const char *dr_doc__schema(const struct dr_doc *d, bool *known)
{
	const char *s = get_str(d->root, "schema", "");

	if (known)
		*known = !strcmp(s, d->kind == DR_JOB ? DR_JOB_SCHEMA : DR_PROCESS_SCHEMA);
	return s;
}

/* ---- checking ------------------------------------------------------------- */

struct need {
	const char *key;
	json_type type;
};

static const struct need process_need[] = {
	{ "process", json_type_object }, { "events", json_type_array },
	{ "totals", json_type_object },  { "threads", json_type_array },
	{ "regions", json_type_array },
};

static const struct need job_need[] = {
	{ "job", json_type_object },    { "ranks", json_type_array },
	{ "events", json_type_array },  { "totals", json_type_object },
	{ "regions", json_type_array },
};

/* partial: a member may be absent (or null); one that is there has its
 * type. */
static enum dr_bad check_members(json_object *root, const struct need *need, size_t n,
				 const char *what, bool partial, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		json_object *v = get(root, need[i].key);

		if (!json_object_is_type(v, need[i].type) && !(partial && !v)) {
			snprintf(why, len, "malformed %s: \"%s\" missing or not an %s", what,
				 need[i].key, json_type_to_name(need[i].type));
			return DR_LAYOUT;
		}
	}
	return DR_OK;
}

/* A rank or size: null, or a whole number a launcher could give. */
static enum dr_bad check_rank(json_object *o, const char *key, const char *where,
			      char *why, size_t len)
{
	json_object *v = get(o, key);
	double x;

	if (!v)
		return DR_OK;
	if (!num(v, &x) || !(x >= 0 && x < DR_MAX_RANKS) || x != floor(x)) {
		snprintf(why, len, "malformed result: \"%s%s\" is %.40s, not a rank number",
			 where, key, json_object_to_json_string(v));
		return DR_LAYOUT;
	}
	return DR_OK;
}

enum dr_bad dr_doc__check(struct dr_doc *d, char *why, size_t len)
{
	const char *schema = get_str(d->root, "schema", NULL);
	json_object *ranks;
	enum dr_bad bad;

	if (!json_object_is_type(d->root, json_type_object) || !schema) {
		snprintf(why, len, "not an hpcshim result (no \"schema\")");
		return DR_NO_SCHEMA;
	}
	if (d->kind == DR_PROCESS && strncmp(schema, "hpcshim/", 8) != 0) {
		snprintf(why, len,
			 "schema \"%.60s\" is not a process result (\"hpcshim/N\")"
			 " or a job document (\"hpcshim-job/N\")",
			 schema);
		return DR_SCHEMA;
	}
	if (d->kind == DR_PROCESS) {
		bad = check_members(d->root, process_need,
				    sizeof(process_need) / sizeof(process_need[0]), "result",
				    false, why, len);
		if (!bad)
			bad = check_rank(process(d), "rank", "process.", why, len);
		if (!bad)
			bad = check_rank(process(d), "size", "process.", why, len);
		return bad ? bad : dr__check_deep(d, why, len);
	}
	bad = check_members(d->root, job_need, sizeof(job_need) / sizeof(job_need[0]),
			    "job document", false, why, len);
	if (!bad)
		bad = check_rank(get(d->root, "job"), "size", "job.", why, len);
	ranks = get(d->root, "ranks");
	for (size_t i = 0; !bad && i < arr_len(ranks); i++)
		bad = check_rank(arr_at(ranks, i), "rank", "ranks[].", why, len);
	return bad ? bad : dr__check_deep(d, why, len);
}

bool dr_doc__is_result(const struct dr_doc *d)
{
	return d->kind == DR_PROCESS && strncmp(get_str(d->root, "schema", ""), "hpcshim/", 8) == 0 &&
	       obj(process(d));
}

enum dr_bad dr_doc__check_partial(struct dr_doc *d, char *why, size_t len)
{
	enum dr_bad bad;

	const char *schema = get_str(d->root, "schema", NULL);

	if (d->kind == DR_JOB || (schema && strncmp(schema, "hpcshim/", 8) != 0))
		return dr_doc__check(d, why, len);
	if (!json_object_is_type(d->root, json_type_object)) {
		snprintf(why, len, "not an hpcshim result (not a JSON object)");
		return DR_NO_SCHEMA;
	}
	bad = check_members(d->root, process_need,
			    sizeof(process_need) / sizeof(process_need[0]), "result", true, why,
			    len);
	if (!bad)
		bad = check_rank(process(d), "rank", "process.", why, len);
	if (!bad)
		bad = check_rank(process(d), "size", "process.", why, len);
	return bad ? bad : dr__check_deep(d, why, len);
}

/* ---- values --------------------------------------------------------------- */

/* A value: a number, or a summary's or a job's statistics (their "sum",
 * with the job's "sum_stderr"); then the entry of owner's
 * <key>_multiplexed for ev. */
bool dr__value(json_object *owner, const char *key, const char *ev,
			struct dr_value *out)
{
	static const char mux[] = "_multiplexed";
	char k[64];
	json_object *ko = get(owner, key), *x = NULL, *m;
	size_t kl = strlen(key);
	double d;

	memset(out, 0, sizeof(*out));
	out->se = out->cov = -1;
	/* one lookup of the key and of the event (x: NULL when absent) */
	out->present = obj(ko) && json_object_object_get_ex(ko, ev, &x);
	if (obj(x)) {
		if (num(get(x, "sum_stderr"), &d))
			out->se = d;
		x = get(x, "sum");
	}
	out->has = num(x, &out->v);
	if (kl + sizeof(mux) <= sizeof(k)) {
		memcpy(k, key, kl);
		memcpy(k + kl, mux, sizeof(mux));
	} else {
		snprintf(k, sizeof(k), "%s%s", key, mux);
	}
	m = get(get(owner, k), ev);
	if (!m)
		return out->has;
	out->mux = true;
	out->out = get_int(m, "running", -1) == 0;
	if (num(get(m, "stderr"), &d))
		out->se = d;
	if (num(get(m, "coverage"), &d))
		out->cov = d;
	num(get(m, "enabled"), &out->en);
	num(get(m, "running"), &out->run);
	return out->has;
}

const char *const dr__key_name[] = {
	[DR_TOTALS] = "totals",
	[DR_INCLUSIVE] = "inclusive",
	[DR_EXCLUSIVE] = "exclusive",
};

/* ---- the document ------------------------------------------------------------ */

size_t dr_doc__nranks(const struct dr_doc *d)
{
	return d->kind == DR_JOB ? arr_len(get(d->root, "ranks")) : 1;
}

double dr__wall_of(json_object *o)
{
	double w;

	return num(get(o, "wall_ns"), &w) ? w : -1;
}

void dr_doc__rank(const struct dr_doc *d, size_t k, struct dr_rank *out)
{
	json_object *p = d->kind == DR_JOB ? arr_at(get(d->root, "ranks"), k) : process(d);

	out->rank = get(p, "rank") ? (int)get_int(p, "rank", -1) : -1;
	out->host = get_str(p, "host", "?");
	out->end = get_str(p, "end", "?");
	out->pid = get_int(p, "pid", -1);
	out->wall = dr__wall_of(p);
	if (!num(get(p, "peak_rss_bytes"), &out->peak_rss))
		out->peak_rss = -1;
	out->complete = json_object_get_boolean(get(p, "complete"));
	out->threads = d->kind == DR_JOB ? -1 :
					   get_int(d->root, "thread_count",
						   (long long)arr_len(get(d->root, "threads")));
}

/* A statistic object of a job document ({"n", "sum", ...}). */
bool dr__stat(json_object *o, struct dr_stat *out)
{
	memset(out, 0, sizeof(*out));
	out->min_at = out->max_at = -1;
	out->min_tid = out->max_tid = -1;
	if (!obj(o) || !num(get(o, "sum"), &out->sum))
		return false;
	num(get(o, "n"), &out->n);
	num(get(o, "mean"), &out->mean);
	num(get(o, "min"), &out->min);
	num(get(o, "max"), &out->max);
	num(get(o, "sd"), &out->sd);
	out->min_at = (int)get_int(get(o, "min_at"), "rank", -1);
	out->max_at = (int)get_int(get(o, "max_at"), "rank", -1);
	out->min_tid = get_int(get(o, "min_at"), "tid", -1);
	out->max_tid = get_int(get(o, "max_at"), "tid", -1);
	return true;
}

/* The object of a part (with kind: under mpi_by_kind) in a parts object. */
static json_object *part_of(json_object *parts, const char *part, const char *kind)
{
	return kind ? get(get(parts, "mpi_by_kind"), kind) : get(parts, part);
}

bool dr_doc__job_part(const struct dr_doc *d, bool threads, const char *part, const char *kind,
		      struct dr_stat *out)
{
	json_object *t = d->kind == DR_JOB ? get(d->root, "time_ns") : NULL;

	return dr__stat(part_of(get(t, threads ? "threads" : "main"), part, kind), out);
}

bool dr_doc__job_stat(const struct dr_doc *d, const char *key, struct dr_stat *out)
{
	return dr__stat(d->kind == DR_JOB ? get(d->root, key) : NULL, out);
}

double dr_doc__rank_part(const struct dr_doc *d, size_t k, bool threads, const char *part,
			 const char *kind)
{
	json_object *p = d->kind == DR_JOB ? arr_at(get(d->root, "ranks"), k) : NULL;
	double v;

	return num(part_of(get(p, threads ? "threads_time_ns" : "time_ns"), part, kind), &v) ? v :
												-1;
}

bool dr_doc__rank_value(const struct dr_doc *d, size_t k, const char *ev,
			struct dr_value *out)
{
	json_object *p = d->kind == DR_JOB ? arr_at(get(d->root, "ranks"), k) : d->root;

	return dr__value(p, "totals", ev, out);
}

double dr_doc__start_ns(const struct dr_doc *d)
{
	double t;

	num(get(process(d), "start_ns"), &t);
	return t;
}

const char *dr_doc__job(const struct dr_doc *d)
{
	return d->kind == DR_JOB ? get_str(get(d->root, "job"), "id", NULL) :
				   get_str(process(d), "job", NULL);
}

const char *dr_doc__mpi_job(const struct dr_doc *d)
{
	return d->kind == DR_JOB ? get_str(get(d->root, "job"), "mpi_job", NULL) :
				   get_str(process(d), "mpi_job", NULL);
}

int dr_doc__size(const struct dr_doc *d)
{
	return d->kind == DR_JOB ? (int)get_int(get(d->root, "job"), "size", -1) :
				   (int)get_int(process(d), "size", -1);
}

int dr_doc__generation(const struct dr_doc *d)
{
	return (int)get_int(process(d), "exec_generation", 0);
}

size_t dr_doc__nargs(const struct dr_doc *d)
{
	return arr_len(get(process(d), "command"));
}

const char *dr_doc__arg(const struct dr_doc *d, size_t i)
{
	return json_object_get_string(arr_at(get(process(d), "command"), i));
}

size_t dr_doc__nevents(const struct dr_doc *d)
{
	return arr_len(get(d->root, "events"));
}

void dr_doc__event(const struct dr_doc *d, size_t i, struct dr_event *out)
{
	json_object *e = arr_at(get(d->root, "events"), i);

	memset(out, 0, sizeof(*out));
	if (json_object_is_type(e, json_type_string)) { /* a job's: names */
		out->name = json_object_get_string(e);
		out->status = "ok";
		return;
	}
	out->name = get_str(e, "name", NULL);
	out->status = get_str(e, "status", "");
	out->error = get_str(e, "error", NULL);
	out->reason = get_str(e, "reason", NULL);
}

bool dr_doc__total(const struct dr_doc *d, const char *ev, struct dr_value *out)
{
	return dr__value(d->root, "totals", ev, out);
}

/* The i-th key of owner's member key, an object (file order). */
const char *dr__key_at(json_object *owner, const char *key, size_t i)
{
	struct json_object_iterator it, end;
	json_object *t = obj(get(owner, key));

	if (!t)
		return NULL;
	it = json_object_iter_begin(t);
	end = json_object_iter_end(t);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
		if (i-- == 0)
			return json_object_iter_peek_name(&it);
	return NULL;
}

const char *dr_doc__total_event(const struct dr_doc *d, size_t i)
{
	return dr__key_at(d->root, "totals", i);
}

const char *dr_doc__pmu(const struct dr_doc *d, enum dr_pmu what)
{
	static const char *const key[] = {
		[DR_PMU_PRIVILEGE] = "privilege",
		[DR_PMU_CPU] = "cpu_pmu",
		[DR_PMU_FALLBACK] = "fallback",
	};

	return get_str(get(d->root, "pmu"), key[what], NULL);
}

long long dr_doc__thread_count(const struct dr_doc *d)
{
	return get_int(d->root, "thread_count", (long long)arr_len(get(d->root, "threads")));
}

long long dr_doc__uncovered_calls(const struct dr_doc *d)
{
	return get_int(d->root, "uncovered_region_calls", 0);
}

const char *dr_doc__before_start(const struct dr_doc *d)
{
	json_object *b = get(d->root, "before_start");

	return b ? json_object_to_json_string_ext(b, JSON_C_TO_STRING_SPACED) : NULL;
}

/* ---- presets and metrics ---------------------------------------------------- */

static json_object *sets(const struct dr_doc *d)
{
	return get(get(d->root, "presets"), "sets");
}

double dr_doc__wrap_bytes(const struct dr_doc *d, const char *name)
{
	json_object *a = get(d->root, "wrap");
	double v;

	for (size_t i = 0; i < arr_len(a); i++) {
		json_object *e = arr_at(a, i);
		const char *n = get_str(e, "name", NULL);

		if (n && !strcmp(n, name) && num(get(e, "bytes"), &v))
			return v;
	}
	return -1;
}

const char *dr_doc__model(const struct dr_doc *d)
{
	return get_str(get(d->root, "presets"), "model", NULL);
}

size_t dr_doc__nsets(const struct dr_doc *d)
{
	return arr_len(sets(d));
}

const char *dr_doc__set(const struct dr_doc *d, size_t i, enum dr_set what)
{
	static const char *const key[] = {
		[DR_SET_KIND] = "kind",
		[DR_SET_NAME] = "name",
		[DR_SET_STATUS] = "status",
		[DR_SET_REASON] = "reason",
	};

	return get_str(arr_at(sets(d), i), key[what], NULL);
}

/* The k-th member of object o (file order), with its value. */
const char *dr__member_at(json_object *o, size_t k, json_object **val)
{
	struct json_object_iterator it, end;

	*val = NULL;
	if (!obj(o))
		return NULL;
	it = json_object_iter_begin(o);
	end = json_object_iter_end(o);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
		if (k-- == 0) {
			*val = json_object_iter_peek_value(&it);
			return json_object_iter_peek_name(&it);
		}
	return NULL;
}

size_t dr_doc__set_nmetrics(const struct dr_doc *d, size_t i)
{
	json_object *ms = obj(get(arr_at(sets(d), i), "metrics"));

	return ms ? (size_t)json_object_object_length(ms) : 0;
}

const char *dr_doc__set_metric(const struct dr_doc *d, size_t i, size_t k,
			       const char **formula)
{
	json_object *fo;
	const char *name = dr__member_at(get(arr_at(sets(d), i), "metrics"), k, &fo);

	*formula = json_object_is_type(fo, json_type_string) ? json_object_get_string(fo) :
							       NULL;
	return name;
}

const char *dr_doc__set_alias(const struct dr_doc *d, size_t i, const char *var)
{
	return get_str(get(arr_at(sets(d), i), "events"), var, var);
}

size_t dr_doc__nmetrics(const struct dr_doc *d)
{
	json_object *tm = obj(get(d->root, "totals_metrics"));

	return tm ? (size_t)json_object_object_length(tm) : 0;
}

void dr__metric_read(json_object *m, double *v, bool *has)
{
	*has = num(get(m, "value"), v);
}

const char *dr_doc__metric(const struct dr_doc *d, size_t k, double *v, bool *has,
			   const char **reason)
{
	json_object *m;
	const char *name = dr__member_at(get(d->root, "totals_metrics"), k, &m);

	dr__metric_read(m, v, has);
	*reason = get_str(m, "reason", NULL);
	return name;
}

json_object *dr_doc__as_written(const struct dr_doc *d, enum dr_written what)
{
	return what == DR_WRITTEN_TOTALS ? get(d->root, "totals") : get(process(d), "wall_ns");
}
