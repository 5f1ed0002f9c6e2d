/* jsonutil.c - the JSON value helpers of aggregate/ (jsonutil.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "aggregate/aggregate.h"
#include "aggregate/jsonutil.h"

json_object *agg_json__u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

json_object *agg_json__dbl(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

json_object *agg_json__text(const char *s)
{
	char *clean = agg_utf8__clean(s);
	json_object *o = json_object_new_string(clean ? clean : "?");

	free(clean);
	return o;
}

json_object *agg_json__hex(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_object_new_string(buf);
}

void agg_json__add_key(json_object *o, const char *key, json_object *v)
{
	char *clean = agg_utf8__clean(key);

	json_object_object_add(o, clean ? clean : "?", v);
	free(clean);
}

void agg_json__add_sibling(json_object *o, const char *key, const char *suffix,
			   json_object *v)
{
	char k[64];

	snprintf(k, sizeof(k), "%s%s", key, suffix);
	json_object_object_add(o, k, v);
}
