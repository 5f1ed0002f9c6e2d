/* jobdoc_internal.h - what jobdoc.c and jobdoc_drill.c share; nothing
 * outside the job document's files includes it.
 */
#ifndef HPCSHIM_AGGREGATE_JOBDOC_INTERNAL_H
#define HPCSHIM_AGGREGATE_JOBDOC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "aggregate/docread.h"
#include "aggregate/job.h"
#include "aggregate/jobdoc.h"

/* The tree of the ranks' drill-down, or why there is none. */
struct jobdrill {
	const struct tree *t;
	const char *name; /* the ranks' set, "topdown" or "topdown2"; NULL: none */
	int level;
	char why[512];
};

/* Rank k's region of that name, or NULL. */
static inline const struct dr_region *jobdoc__rank_region(const struct agg_jobdoc *j,
							  size_t k, const char *name)
{
	return dr_doc__region_named(j->r[k].doc, name);
}

/* jobdoc_drill.c: whether any rank carries a drill-down, and the tree
 * (or why none); then "<key>_drilldown" of the totals (region NULL) or
 * of a region, on the sums over the ranks. */
bool jobdoc_drill__find(const struct agg_jobdoc *j, struct jobdrill *d);
void jobdoc_drill__scope(const struct agg_jobdoc *j, const struct jobdrill *d,
			 json_object *out, const char *region, enum dr_key which,
			 const char *key, struct agg_job_sample *buf);

#endif
