/* json.h - the process result as a JSON document (json.c, docs/schema.md).
 */
#ifndef HPCSHIM_AGGREGATE_JSON_H
#define HPCSHIM_AGGREGATE_JSON_H

struct agg_out;
struct agg_view;

/* The document of v's process through o, "{" to "}\n": 0, or -1 on
 * ENOMEM (the view could not compute a record). */
int agg_json__document(struct agg_out *o, struct agg_view *v);

#endif
