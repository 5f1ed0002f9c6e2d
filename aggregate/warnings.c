/* warnings.c - the "warnings" array at the top of a result document: what
 * the results lack, so that nobody reads partial totals as whole ones. */
#include <json-c/json.h>

#include "aggregate/jsonutil.h"
#include "aggregate/warnings.h"

json_object *agg_warnings__json(const struct agg_warning *w, int n)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "what", json_object_new_string(w[i].what));
		json_object_object_add(o, "threads", agg_json__u64(w[i].threads));
		json_object_object_add(o, "of", agg_json__u64(w[i].of));
		json_object_object_add(o, "reason",
				       json_object_new_string(w[i].reason));
		json_object_array_add(a, o);
	}
	return a;
}
