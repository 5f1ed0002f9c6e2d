/* wrap.c - the "wrap" array of the results (wrap.h, docs/schema.md). */
#include <json-c/json.h>

#include "aggregate/jsonutil.h"
#include "aggregate/out.h"
#include "aggregate/wrap.h"

static void add_str(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

static json_object *wrap__json(const struct agg_wrap *w)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < w->n; i++) {
		const struct agg_wrap_spec *s = &w->spec[i];
		json_object *o = json_object_new_object();

		add_str(o, "name", s->name);
		add_str(o, "object", s->object);
		add_str(o, "set", s->set);
		add_str(o, "signature", s->signature);
		add_str(o, "status", s->status);
		add_str(o, "reason", s->reason);
		add_str(o, "definition", s->definition);
		add_str(o, "path", s->path);
		json_object_object_add(o, "slots", agg_json__u64(s->slots));
		json_object_object_add(o, "dlsym", agg_json__u64(s->dlsym));
		if (s->bytes >= 0)
			json_object_object_add(o, "bytes", agg_json__u64((uint64_t)s->bytes));
		json_object_array_add(a, o);
	}
	return a;
}

void agg_wrap__head(struct agg_out *o, int depth, bool *first,
		    const struct agg_process *p, const void *arg)
{
	(void)p;
	agg_out__member(o, depth, first, "wrap", wrap__json(arg));
}
