/* json_region.h - the records of the document there are many of
 * (json_region.c): written with the emitter (out.h).
 */
#ifndef HPCSHIM_AGGREGATE_JSON_REGION_H
#define HPCSHIM_AGGREGATE_JSON_REGION_H

#include <stdbool.h>
#include <stddef.h>

struct agg_out;
struct agg_process;
struct agg_interval_view;
struct agg_region_view;
struct agg_region_sum;
struct agg_view;

/* "key": {"event": number|null, ...} of one thread interval and its
 * siblings ("<key>_multiplexed", the sections' counts), a member at
 * depth; lit is "\"key\":{" (AGG_JSON_COUNTS for a literal key that needs
 * no escaping). */
void agg_json__counts(struct agg_out *o, int depth, bool *first, const char *key,
		      const char *lit, size_t litlen, const struct agg_process *p,
		      const struct agg_interval_view *iv);
#define AGG_JSON_COUNTS(o, depth, first, key, p, iv) \
	agg_json__counts(o, depth, first, key, "\"" key "\":{", sizeof(key) + 3, p, iv)

/* Where the records are in the document: elements of "threads"[i]
 * "regions" (depth 4) and of the top-level "regions" (depth 2). */
#define AGG_JSON_REGION_DEPTH 4
#define AGG_JSON_SUM_DEPTH 2
/* One region record of a thread (rv), an array element. */
void agg_json__region(struct agg_out *o, const struct agg_process *p,
		      const struct agg_region_view *rv);
/* One region name across threads (rs), an array element. */
void agg_json__region_sum(struct agg_out *o, const struct agg_view *v,
			  const struct agg_region_sum *rs);

#endif
