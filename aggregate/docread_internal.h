/* docread_internal.h - what the files of the reader share (docread.c:
 * opening, checking, values, the document; docread_thread.c: threads,
 * their series and traces; docread_region.c: regions and drill-downs).
 * Nothing outside aggregate/docread*.c includes it. */
#ifndef HPCSHIM_AGGREGATE_DOCREAD_INTERNAL_H
#define HPCSHIM_AGGREGATE_DOCREAD_INTERNAL_H

#include <math.h>
#include <stdint.h>

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

/* A number: an integer, or a finite double (json-c reads NaN and
 * Infinity, which no writer of ours writes: a damaged file's, absent). */
static inline bool is_num(json_object *v)
{
	return json_object_is_type(v, json_type_int) ||
	       (json_object_is_type(v, json_type_double) &&
		isfinite(json_object_get_double(v)));
}

static inline long long get_int(json_object *o, const char *key, long long dflt)
{
	json_object *v = get(o, key);

	return is_num(v) ? (long long)json_object_get_int64(v) : dflt;
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

static inline bool num(json_object *v, double *out)
{
	*out = is_num(v) ? json_object_get_double(v) : 0;
	return is_num(v);
}

static inline json_object *obj(json_object *v)
{
	return json_object_is_type(v, json_type_object) ? v : NULL;
}

static inline json_object *process(const struct dr_doc *d)
{
	return get(d->root, "process");
}

/* docread.c */
extern const char *const dr__key_name[]; /* enum dr_key -> its member */
/* A value of ev in owner's member key (a number, or statistics' "sum"),
 * with owner's <key>_multiplexed entry. */
bool dr__value(json_object *owner, const char *key, const char *ev, struct dr_value *out);
/* The i-th key of owner's object member key; the k-th member of o. */
const char *dr__key_at(json_object *owner, const char *key, size_t i);
const char *dr__member_at(json_object *o, size_t k, json_object **val);
double dr__wall_of(json_object *o); /* its "wall_ns", -1: none */
struct dr_stat;
bool dr__stat(json_object *o, struct dr_stat *out); /* a job's statistic object */
void dr__metric_read(json_object *m, double *v, bool *has);
/* docread_check.c: the members below the top level, by type. */
enum dr_bad dr__check_deep(const struct dr_doc *d, char *why, size_t len);

#endif
