/* drill.h - stall-tree drill-down in the results (HPCSHIM_PRESET=topdown).
 *
 * preload/presets/ picks the host's tree and maps its events to the
 * process's event list; the JSON writer calls these next to each
 * "<key>_metrics": the tree is evaluated (common/tree.c, first-order
 * errors) on that object's counts and written as "<key>_drilldown"
 * (docs/schema.md).
 */
#ifndef HPCSHIM_AGGREGATE_DRILL_H
#define HPCSHIM_AGGREGATE_DRILL_H

#include "aggregate/aggregate.h"
#include "common/tree.h"

struct json_object;
struct agg_value;
struct agg_sum;

struct agg_drill {
	const struct tree *t;
	const char *name;           /* the requested set: "topdown" or "topdown2" */
	int level;                  /* nodes up to this level are reported        */
	int evidx[TREE_MAX_EVENTS]; /* tree event -> p->ev[], or -1 */
	const char *why[TREE_MAX_EVENTS]; /* evidx -1: why               */
};

/* "<key>_drilldown" in parent over one thread interval (ev[p->nev]) or
 * over the sums across threads (sum[p->nev]).  Nothing without a tree. */
void agg_drill__interval(struct json_object *parent, const char *key,
			 const struct agg_process *p, const struct agg_value *ev);
void agg_drill__sum(struct json_object *parent, const char *key,
		    const struct agg_process *p, const struct agg_sum *sum);

/* "<key>_drilldown" in parent: tree t evaluated on in[t->nevents], its
 * nodes up to level; name is the set ("topdown", "topdown2").  The job
 * document (jobdoc.c) writes its sums through this too, so the ranks' and
 * the job's drill-downs have one shape. */
void agg_drill__write(struct json_object *parent, const char *key,
		      const struct tree *t, const char *name, int level,
		      const struct tree_input *in);

#endif
