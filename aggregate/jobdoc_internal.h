/* jobdoc_internal.h - what jobdoc.c and jobdoc_drill.c share; nothing
 * outside the job document's files includes it.
 */
#ifndef HPCSHIM_AGGREGATE_JOBDOC_INTERNAL_H
#define HPCSHIM_AGGREGATE_JOBDOC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "aggregate/docread.h"
#include "aggregate/jobsum.h"
#include "aggregate/jobdoc.h"

/* The tree of the ranks' drill-down, or why there is none. */
struct jobdrill {
	const struct tree *t;
	const char *name; /* the ranks' set, "topdown" or "topdown2"; NULL: none */
	int level;
	char why[512];
};

/* jobdoc_drill.c: a rank's inputs of the drill-down (its tree found by
 * its CPU model) into the summary; whether any rank carries a drill-down,
 * and the tree (or why none; said on stderr after prog unless NULL); then "<key>_drilldown" of the totals
 * (region AGG_NONE) or of a region, on the sums over the ranks. */
void jobdoc_drill__facts(struct agg_jobsum *s, const struct dr_doc *doc, int rank,
			 struct agg_who who, agg_jobdoc_tree_fn tree, void *tree_ctx);
bool jobdoc_drill__find(const struct agg_jobsum *s, const char *prog,
			agg_jobdoc_tree_fn tree, void *tree_ctx, struct jobdrill *d);
void jobdoc_drill__scope(const struct agg_jobsum *s, const struct jobdrill *d,
			 json_object *out, uint32_t region, enum dr_key which,
			 const char *key);

#endif
