/* docread.c - the one reader of result documents (docread.h).
 *
 * The handles are the json-c objects themselves, typed: a dr_thread is an
 * entry of threads[], a dr_region a region object, and so on.  Every key
 * of the schema the readers use is named here and nowhere else in the
 * readers; every type is checked here, so a damaged file reads as absent
 * values, never as a crash.  The layout the accessors rely on (the
 * top-level members and their types, a sane rank and size) is checked
 * once by dr_doc__check.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/docread.h"

struct dr_doc {
	json_object *root;
	enum dr_kind kind;
	json_object *index; /* regions[] by name, built at the first lookup */
};

/* ---- lookups that treat a damaged or absent value as absent ------------ */

/* Member `key` of object o, or NULL when o is not an object, the key is
 * absent or its value is JSON null: callers treat all three alike. */
static inline json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	json_object_object_get_ex(o, key, &v);
	return v;
}

static inline const char *get_str(json_object *o, const char *key, const char *dflt)
{
	json_object *v = get(o, key);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) :
							  dflt;
}

static inline long long get_int(json_object *o, const char *key, long long dflt)
{
	json_object *v = get(o, key);

	if (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double))
		return (long long)json_object_get_int64(v);
	return dflt;
}

/* json_object_array_length asserts on non-arrays; a damaged file must
 * not crash the tool, so every array access goes through these two. */
static inline size_t arr_len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) :
							 0;
}

static inline json_object *arr_at(json_object *a, size_t i)
{
	return json_object_array_get_idx(a, i);
}

/* The handles are the objects. */
#define J(x) ((json_object *)(uintptr_t)(x))

static bool is_num(json_object *v)
{
	return json_object_is_type(v, json_type_int) ||
	       json_object_is_type(v, json_type_double);
}

static bool num(json_object *v, double *out)
{
	*out = is_num(v) ? json_object_get_double(v) : 0;
	return is_num(v);
}

static json_object *obj(json_object *v)
{
	return json_object_is_type(v, json_type_object) ? v : NULL;
}

static json_object *process(const struct dr_doc *d)
{
	return get(d->root, "process");
}

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
	else
		snprintf(why, len, "not JSON: %.*s", n, tail);
}

struct dr_doc *dr_doc__wrap(json_object *root)
{
	struct dr_doc *d = calloc(1, sizeof(*d));

	if (!d) {
		json_object_put(root);
		return NULL;
	}
	d->root = root;
	d->kind = strncmp(get_str(root, "schema", ""), "hpcshim-job/", 12) == 0 ? DR_JOB :
										  DR_PROCESS;
	return d;
}

struct dr_doc *dr_doc__load(const char *path, char *why, size_t len)
{
	json_object *root = json_object_from_file(path);
	struct dr_doc *d;

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
		return bad;
	}
	bad = check_members(d->root, job_need, sizeof(job_need) / sizeof(job_need[0]),
			    "job document", false, why, len);
	if (!bad)
		bad = check_rank(get(d->root, "job"), "size", "job.", why, len);
	ranks = get(d->root, "ranks");
	for (size_t i = 0; !bad && i < arr_len(ranks); i++)
		bad = check_rank(arr_at(ranks, i), "rank", "ranks[].", why, len);
	return bad;
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
	return bad;
}

/* ---- values --------------------------------------------------------------- */

/* A value: a number, or a summary's or a job's statistics (their "sum",
 * with the job's "sum_stderr"); then the entry of owner's
 * <key>_multiplexed for ev. */
static bool value__read(json_object *owner, const char *key, const char *ev,
			struct dr_value *out)
{
	char k[64];
	json_object *x = get(get(owner, key), ev), *m;
	double d;

	memset(out, 0, sizeof(*out));
	out->se = out->cov = -1;
	out->present = obj(get(owner, key)) && json_object_object_get_ex(get(owner, key), ev, NULL);
	if (obj(x)) {
		if (num(get(x, "sum_stderr"), &d))
			out->se = d;
		x = get(x, "sum");
	}
	out->has = num(x, &out->v);
	snprintf(k, sizeof(k), "%s_multiplexed", key);
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

static const char *const key_name[] = {
	[DR_TOTALS] = "totals",
	[DR_INCLUSIVE] = "inclusive",
	[DR_EXCLUSIVE] = "exclusive",
};

/* ---- the document ------------------------------------------------------------ */

size_t dr_doc__nranks(const struct dr_doc *d)
{
	return d->kind == DR_JOB ? arr_len(get(d->root, "ranks")) : 1;
}

static double wall_of(json_object *o)
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
	out->wall = wall_of(p);
	out->complete = json_object_get_boolean(get(p, "complete"));
	out->threads = d->kind == DR_JOB ? -1 :
					   get_int(d->root, "thread_count",
						   (long long)arr_len(get(d->root, "threads")));
}

bool dr_doc__rank_value(const struct dr_doc *d, size_t k, const char *ev,
			struct dr_value *out)
{
	json_object *p = d->kind == DR_JOB ? arr_at(get(d->root, "ranks"), k) : d->root;

	return value__read(p, "totals", ev, out);
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
	return value__read(d->root, "totals", ev, out);
}

/* The i-th key of owner's member key, an object (file order). */
static const char *key_at(json_object *owner, const char *key, size_t i)
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
	return key_at(d->root, "totals", i);
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
static const char *member_at(json_object *o, size_t k, json_object **val)
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
	const char *name = member_at(get(arr_at(sets(d), i), "metrics"), k, &fo);

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

static void metric_read(json_object *m, double *v, bool *has)
{
	*has = num(get(m, "value"), v);
}

const char *dr_doc__metric(const struct dr_doc *d, size_t k, double *v, bool *has,
			   const char **reason)
{
	json_object *m;
	const char *name = member_at(get(d->root, "totals_metrics"), k, &m);

	metric_read(m, v, has);
	*reason = get_str(m, "reason", NULL);
	return name;
}

/* ---- threads, regions ---------------------------------------------------------- */

size_t dr_doc__nthreads(const struct dr_doc *d)
{
	return arr_len(get(d->root, "threads"));
}

const struct dr_thread *dr_doc__thread(const struct dr_doc *d, size_t i)
{
	return (const struct dr_thread *)arr_at(get(d->root, "threads"), i);
}

size_t dr_doc__nregions(const struct dr_doc *d)
{
	return arr_len(get(d->root, "regions"));
}

const struct dr_region *dr_doc__region(const struct dr_doc *d, size_t i)
{
	return (const struct dr_region *)arr_at(get(d->root, "regions"), i);
}

/* The index of the regions by name (json-c hashes an object's keys):
 * the first region of a name; built once, for the job document, which
 * looks every region name up in every rank. */
static json_object *region_index(struct dr_doc *d)
{
	if (d->index)
		return d->index;
	d->index = json_object_new_object();
	for (size_t i = 0; d->index && i < dr_doc__nregions(d); i++) {
		json_object *g = J(dr_doc__region(d, i));
		const char *name = get_str(g, "name", NULL);

		if (name && !json_object_object_get_ex(d->index, name, NULL))
			json_object_object_add(d->index, name, json_object_get(g));
	}
	return d->index;
}

const struct dr_region *dr_doc__region_named(const struct dr_doc *d, const char *name)
{
	/* the index is a cache: not part of what the document says */
	return (const struct dr_region *)get(region_index((struct dr_doc *)(uintptr_t)d), name);
}

json_object *dr_doc__as_written(const struct dr_doc *d, enum dr_written what)
{
	return what == DR_WRITTEN_TOTALS ? get(d->root, "totals") : get(process(d), "wall_ns");
}

const struct dr_drill *dr_doc__drill(const struct dr_doc *d)
{
	return (const struct dr_drill *)get(d->root, "totals_drilldown");
}

long long dr_thread__tid(const struct dr_thread *t)
{
	return get_int(J(t), "tid", -1);
}

long long dr_thread__omp(const struct dr_thread *t)
{
	return get_int(J(t), "omp_thread", -1);
}

long long dr_thread__start_ns(const struct dr_thread *t)
{
	return get_int(J(t), "start_ns", 0);
}

const char *dr_thread__name(const struct dr_thread *t)
{
	return get_str(J(t), "name", NULL);
}

const char *dr_thread__error(const struct dr_thread *t)
{
	return get_str(J(t), "error", NULL);
}

double dr_thread__wall(const struct dr_thread *t)
{
	return wall_of(J(t));
}

bool dr_thread__total(const struct dr_thread *t, const char *ev, struct dr_value *out)
{
	return value__read(J(t), "totals", ev, out);
}

const char *dr_thread__total_event(const struct dr_thread *t, size_t i)
{
	return key_at(J(t), "totals", i);
}

long long dr_thread__warnings(const struct dr_thread *t)
{
	json_object *w = obj(get(J(t), "warnings"));
	long long n = 0;

	if (!w)
		return 0;
	json_object_object_foreach(w, k, v)
	{
		(void)k;
		n += json_object_get_int64(v);
	}
	return n;
}

size_t dr_thread__nregions(const struct dr_thread *t)
{
	return arr_len(get(J(t), "regions"));
}

const struct dr_region *dr_thread__region(const struct dr_thread *t, size_t i)
{
	return (const struct dr_region *)arr_at(get(J(t), "regions"), i);
}

const struct dr_series *dr_thread__series(const struct dr_thread *t)
{
	return (const struct dr_series *)obj(get(J(t), "series"));
}

bool dr_thread__has_trace(const struct dr_thread *t)
{
	return get(J(t), "trace") != NULL;
}

const char *dr_thread__trace_event(const struct dr_thread *t)
{
	return get_str(get(J(t), "trace"), "event", NULL);
}

size_t dr_thread__nspans(const struct dr_thread *t)
{
	return arr_len(get(get(J(t), "trace"), "records"));
}

const struct dr_span *dr_thread__span(const struct dr_thread *t, size_t i)
{
	return (const struct dr_span *)arr_at(get(get(J(t), "trace"), "records"), i);
}

const char *dr_span__region(const struct dr_span *s)
{
	return get_str(J(s), "region", "?");
}

long long dr_span__begin(const struct dr_span *s)
{
	return get_int(J(s), "begin_ns", 0);
}

long long dr_span__end(const struct dr_span *s)
{
	return get_int(J(s), "end_ns", 0);
}

json_object *dr_span__delta(const struct dr_span *s)
{
	return get(J(s), "delta");
}

json_object *dr_span__depth(const struct dr_span *s)
{
	return get(J(s), "depth");
}

/* A series' events: its arrays other than "t". */
const char *dr_series__event(const struct dr_series *s, size_t i)
{
	json_object *v;
	const char *name;

	for (size_t k = 0; (name = member_at(J(s), k, &v)); k++)
		if (json_object_is_type(v, json_type_array) && strcmp(name, "t") && i-- == 0)
			return name;
	return NULL;
}

size_t dr_series__npoints(const struct dr_series *s, const char *ev)
{
	return arr_len(get(J(s), ev));
}

size_t dr_series__len(const struct dr_series *s, const char *ev)
{
	size_t a = arr_len(get(J(s), ev)), b = arr_len(get(J(s), "t"));

	return a < b ? a : b;
}

bool dr_series__t(const struct dr_series *s, size_t j, double *t)
{
	return num(arr_at(get(J(s), "t"), j), t);
}

bool dr_series__point(const struct dr_series *s, const char *ev, size_t j, double *v)
{
	return num(arr_at(get(J(s), ev), j), v);
}

json_object *dr_series__json(const struct dr_series *s, const char *ev, size_t j)
{
	return arr_at(get(J(s), ev), j);
}

const char *dr_region__name(const struct dr_region *r)
{
	return get_str(J(r), "name", "?");
}

const char *dr_region__id(const struct dr_region *r)
{
	return get_str(J(r), "name", NULL);
}

bool dr_region__calls_num(const struct dr_region *r, double *v)
{
	return num(get(J(r), "calls"), v);
}

const char *dr_region__parent(const struct dr_region *r)
{
	return get_str(J(r), "parent", NULL);
}

long long dr_region__calls(const struct dr_region *r)
{
	json_object *c = get(J(r), "calls");

	return obj(c) ? get_int(c, "sum", 0) : /* a job's statistics */
			get_int(J(r), "calls", 0);
}

long long dr_region__threads(const struct dr_region *r)
{
	json_object *t = get(J(r), "threads");
	long long n = 0;

	if (!obj(t)) /* a process summary's count */
		return get_int(J(r), "threads", 0);
	json_object_object_foreach(t, ev, x) /* a job's extremes per event */
	{
		(void)ev;
		if (get_int(x, "n", 0) > n)
			n = get_int(x, "n", 0);
	}
	return n;
}

long long dr_region__ranks(const struct dr_region *r)
{
	return get_int(J(r), "ranks", 1);
}

double dr_region__wall(const struct dr_region *r, enum dr_key which)
{
	json_object *w = get(get(J(r), "wall_ns"), key_name[which]);
	double v;

	if (obj(w)) /* a job's statistics */
		w = get(w, "sum");
	return num(w, &v) ? v : -1;
}

bool dr_region__value(const struct dr_region *r, enum dr_key which, const char *ev,
		      struct dr_value *out)
{
	return value__read(J(r), key_name[which], ev, out);
}

static void percall_read(json_object *o, struct dr_percall *out)
{
	bool c, a, b, m;

	memset(out, 0, sizeof(*out));
	out->present = o != NULL;
	out->event = get_str(o, "event", NULL);
	c = num(get(o, "calls"), &out->calls);
	a = num(get(o, "min"), &out->min);
	b = num(get(o, "mean"), &out->mean);
	m = num(get(o, "max"), &out->max);
	out->has = c && out->calls > 0 && a && b && m;
}

const char *dr_region__event(const struct dr_region *r, enum dr_key which, size_t i)
{
	return key_at(J(r), key_name[which], i);
}

void dr_region__percall(const struct dr_region *r, struct dr_percall *out)
{
	percall_read(get(J(r), "per_call"), out);
}

void dr_region__percall_wall(const struct dr_region *r, struct dr_percall *out)
{
	percall_read(get(J(r), "per_call_wall_ns"), out);
}

bool dr_region__metric(const struct dr_region *r, const char *name, double *v)
{
	bool has;

	metric_read(get(get(J(r), "inclusive_metrics"), name), v, &has);
	return has;
}

const struct dr_drill *dr_region__drill(const struct dr_region *r, enum dr_key which)
{
	return (const struct dr_drill *)get(J(r), which == DR_EXCLUSIVE ?
							  "exclusive_drilldown" :
							  "inclusive_drilldown");
}

/* ---- drill-downs ------------------------------------------------------------ */

const char *dr_drill__get(const struct dr_drill *x, enum dr_drill_str what)
{
	json_object *b = get(J(x), "bottleneck"); /* offline: an object */

	switch (what) {
	case DR_DRILL_TREE: return get_str(J(x), "tree", NULL);
	case DR_DRILL_BOTTLENECK:
		return obj(b) ? get_str(b, "id", NULL) : get_str(J(x), "bottleneck", NULL);
	case DR_DRILL_WHY:
		return obj(b) ? get_str(b, "next_step", NULL) :
				get_str(get(J(x), "next"), "why", NULL);
	case DR_DRILL_SETTING:
		return obj(b) ? get_str(b, "run_next", NULL) :
				get_str(get(J(x), "next"), "setting", NULL);
	case DR_DRILL_SCOPE: return get_str(J(x), "scope", NULL);
	}
	return NULL;
}

size_t dr_drill__nnodes(const struct dr_drill *x)
{
	return arr_len(get(J(x), "nodes"));
}

const struct dr_node *dr_drill__node(const struct dr_drill *x, size_t i)
{
	return (const struct dr_node *)arr_at(get(J(x), "nodes"), i);
}

const char *dr_node__get(const struct dr_node *n, enum dr_node_str what)
{
	static const char *const key[] = {
		[DR_NODE_ID] = "id",	     [DR_NODE_NAME] = "name",
		[DR_NODE_UNIT] = "unit",     [DR_NODE_PARENT] = "parent",
		[DR_NODE_REASON] = "reason",
	};

	return get_str(J(n), key[what], NULL);
}

bool dr_node__value(const struct dr_node *n, double *v)
{
	return num(get(J(n), "value"), v);
}

bool dr_node__error(const struct dr_node *n, double *e)
{
	return num(get(J(n), "error"), e);
}

int dr_node__over(const struct dr_node *n)
{
	json_object *o = get(J(n), "over");

	return json_object_is_type(o, json_type_boolean) ? json_object_get_boolean(o) : -1;
}

/* ---- the output of `hpcshim drilldown --json` ------------------------------ */

bool dr_doc__is_offline(const struct dr_doc *d)
{
	return json_object_is_type(get(d->root, "scopes"), json_type_array);
}

const char *dr_doc__offline_tree(const struct dr_doc *d, const char **models)
{
	*models = get_str(d->root, "models", NULL);
	return get_str(d->root, "tree", NULL);
}

size_t dr_doc__nscopes(const struct dr_doc *d)
{
	return arr_len(get(d->root, "scopes"));
}

const struct dr_drill *dr_doc__scope(const struct dr_doc *d, size_t i)
{
	return (const struct dr_drill *)arr_at(get(d->root, "scopes"), i);
}
