/* jsonread.h - lookups in a result document that treat a damaged or
 * absent value as absent, never crash: shared by the readers in tools/
 * and by the job document (jobdoc.c), which reads the ranks' results. */
#ifndef HPCSHIM_AGGREGATE_JSONREAD_H
#define HPCSHIM_AGGREGATE_JSONREAD_H

#include <json-c/json.h>

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

#endif
