/* jobdoc_drill.c - the job document's drill-down: the ranks' stall tree
 * evaluated on the job's sums (docs/drilldown.md, "Jobs").
 *
 * Apart from jobdoc.c because it is its own concern: which tree the ranks
 * evaluated, where each rank's number for a tree event is and why one is
 * missing, and the errors the sums carry.  Each rank's inputs go into its
 * summary (jobsum.h: per tree event its number and error, whether an
 * estimate had no error figure, or why it has none, the lowest rank's
 * reason kept), so the in-job reduction and the offline merge evaluate
 * the tree on the same sums.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "common/fmath.h"
#include "common/tree.h"
#include "aggregate/docread.h"
#include "aggregate/drill.h"
#include "aggregate/jobsum.h"
#include "aggregate/jobdoc.h"
#include "aggregate/jobdoc_internal.h"
#include "aggregate/jsonutil.h"

/* Whether any rank carries a drill-down; then the tree they evaluated,
 * found by the name of their set's tree and their CPU model.  Ranks that
 * disagree on either leave the job without one: a sum of counts of two
 * microarchitectures fits neither tree. */
bool jobdoc_drill__find(const struct agg_jobsum *s, const char *prog,
			agg_jobdoc_tree_fn tree, void *tree_ctx, struct jobdrill *d)
{
	const struct agg_jobsum_drill *x = &s->drill;

	*d = (struct jobdrill){ .name = NULL };
	if (!x->has)
		return false;
	d->name = x->name;
	if (x->kind == 1)
		snprintf(d->why, sizeof(d->why),
			 "the ranks asked for different trees ('%s' in rank %d, '%s' in rank %d)",
			 x->name, x->first, x->other, x->orank);
	else if (x->kind == 2)
		snprintf(d->why, sizeof(d->why),
			 "the ranks ran on different CPU models ('%s' in rank %d, '%s' in rank "
			 "%d)",
			 x->model, x->first, x->other, x->orank);
	d->level = strcmp(d->name, "topdown2") == 0 ? 2 : 1;
	if (!d->why[0]) {
		d->t = tree ? tree(tree_ctx, "topdown", x->model) : NULL;
		if (!d->t)
			snprintf(d->why, sizeof(d->why),
				 "no stall tree 'topdown' for CPU model '%s' on the "
				 "preset path",
				 x->model);
	}
	if (!d->t && prog)
		fprintf(stderr, "%s: job drill-down: %s\n", prog, d->why);
	return true;
}

/* The event name of the totals (region NULL) or region values that holds
 * tree event ev: its alias or its spec in any case, as the offline tool
 * matches them. */
static const char *job__drill_key(const struct dr_doc *doc, const struct dr_region *g,
				  enum dr_key which, const struct tree_event *ev)
{
	const char *k;

	for (size_t i = 0;
	     (k = g ? dr_region__event(g, which, i) : dr_doc__total_event(doc, i)); i++)
		if (!strcmp(k, ev->alias) || !strcasecmp(k, ev->spec))
			return k;
	return NULL;
}

/* Why a rank has no number for ev: its probe's drop reason when the
 * events[] list has one. */
static void job__drill_absent(const struct dr_doc *doc, int rank,
			      const struct tree_event *ev, char *why, size_t len)
{
	for (size_t i = 0; i < dr_doc__nevents(doc); i++) {
		struct dr_event e;

		dr_doc__event(doc, i, &e);
		if (!strcasecmp(e.name ? e.name : "", ev->spec) &&
		    !strcmp(e.status, "dropped")) {
			snprintf(why, len, "rank %d: event '%s' dropped: %s", rank, ev->spec,
				 e.reason ? e.reason : "?");
			return;
		}
	}
	snprintf(why, len, "rank %d: event '%s' not in its results", rank, ev->spec);
}

/* The threads' errors of a process total, combined as independent:
 * *has_err turns false when an estimate has no error figure. */
static double job__drill_threads_err(const struct dr_doc *doc, const char *name,
				     bool *has_err)
{
	double se = 0;

	for (size_t i = 0; i < dr_doc__nthreads(doc); i++) {
		struct dr_value y;

		dr_thread__total(dr_doc__thread(doc, i), name, &y);
		if (!y.mux)
			continue;
		if (y.se >= 0)
			se = hs_hypot(se, y.se);
		else
			*has_err = false;
	}
	return se;
}

/* The rank's count of ev in its totals (g NULL) or region g's values, with
 * its standard error (what the job's sums carry): from the `_multiplexed`
 * sibling, or, for the process totals, which have none, the threads'
 * errors combined as independent, as the rank's own totals_drilldown
 * does.  *has_err turns false when an estimate has no error figure.
 * false with why when the rank has no number. */
static bool job__drill_rank(const struct dr_doc *doc, int rank, const struct dr_region *g,
			    enum dr_key which, const struct tree_event *ev, double *v,
			    double *err, bool *has_err, char *why, size_t len)
{
	const char *name = job__drill_key(doc, g, which, ev);
	struct dr_value x;
	bool m, out;

	*err = 0;
	if (!name) {
		job__drill_absent(doc, rank, ev, why, len);
		return false;
	}
	if (g)
		dr_region__value(g, which, name, &x);
	else
		dr_doc__total(doc, name, &x);
	m = x.mux;
	out = x.out;
	/* the process totals have no _multiplexed entry: a thread's tells */
	for (size_t i = 0; !m && !x.has && !g && i < dr_doc__nthreads(doc); i++) {
		struct dr_value y;

		dr_thread__total(dr_doc__thread(doc, i), name, &y);
		m = y.mux;
		out = y.out;
	}
	if (!x.has) {
		snprintf(why, len, "rank %d: event '%s' %s", rank, ev->spec,
			 m && out ? "multiplexed out (never on a counter)" :
				    "not counted (null in its results)");
		return false;
	}
	*v = x.v;
	if (x.mux) {
		if (x.se >= 0)
			*err = x.se;
		else
			*has_err = false;
		return true;
	}
	if (!g)
		*err = job__drill_threads_err(doc, name, has_err);
	return true;
}

/* One scope's inputs of one rank into the summary. */
static void job__drill_facts_scope(struct agg_jobsum *s, const struct dr_doc *doc, int rank,
				   struct agg_who who, const struct tree *t,
				   const struct dr_region *g, uint32_t region, enum dr_key which)
{
	enum agg_what base = which == DR_TOTALS ? AGG_DRILL_TOT :
			     which == DR_INCLUSIVE ? AGG_DRILL_IN : AGG_DRILL_EX;

	for (int e = 0; e < t->nevents; e++) {
		char why[400];
		double v, err;
		bool has_err = true;

		if (job__drill_rank(doc, rank, g, which, &t->ev[e], &v, &err, &has_err, why,
				    sizeof(why))) {
			agg_jobsum__add_cell(s, region, (uint32_t)e, base, v, err, who);
			if (!has_err)
				agg_jobsum__add_cell(s, region, (uint32_t)e,
						     base + (AGG_DRILL_NOERR_TOT - AGG_DRILL_TOT), 1,
						     0, who);
		} else {
			struct agg_who w = who;

			w.tid = agg_jobsum__name(s, &s->whys, why);
			agg_jobsum__add_cell(s, region, (uint32_t)e,
					     base + (AGG_DRILL_WHY_TOT - AGG_DRILL_TOT), rank, 0,
					     w);
		}
	}
}

void jobdoc_drill__facts(struct agg_jobsum *s, const struct dr_doc *doc, int rank,
			 struct agg_who who, agg_jobdoc_tree_fn tree, void *tree_ctx)
{
	const struct dr_drill *dd = dr_doc__drill(doc);
	const char *name = dd ? dr_drill__get(dd, DR_DRILL_TREE) : NULL;
	const char *model = dr_doc__model(doc);
	const struct tree *t;

	if (!dd)
		return;
	name = name ? name : "topdown";
	model = model ? model : "";
	agg_jobsum__add_drill(s, rank, name, model);
	t = tree ? tree(tree_ctx, "topdown", model) : NULL;
	if (!t)
		return;
	job__drill_facts_scope(s, doc, rank, who, t, NULL, AGG_NONE, DR_TOTALS);
	for (size_t i = 0; i < dr_doc__nregions(doc); i++) {
		const struct dr_region *g = dr_doc__region(doc, i);
		const char *id = dr_region__id(g);
		long r = id ? hs_strtab__lookup(&s->regions, id) : -1;

		if (r < 0)
			continue;
		job__drill_facts_scope(s, doc, rank, who, t, g, (uint32_t)r, DR_INCLUSIVE);
		job__drill_facts_scope(s, doc, rank, who, t, g, (uint32_t)r, DR_EXCLUSIVE);
	}
}

/* "<key>_drilldown" in out: the tree on the sums over the ranks that have
 * the object (every rank for the totals, those that ran the region); an
 * event is known only when each of those ranks has a number for it, a
 * partial sum would mix the ranks' shares. */
void jobdoc_drill__scope(const struct agg_jobsum *s, const struct jobdrill *d,
			 json_object *out, uint32_t region, enum dr_key which,
			 const char *key)
{
	struct tree_input in[TREE_MAX_EVENTS];
	const struct tree *t = d->t;
	enum agg_what base = which == DR_TOTALS ? AGG_DRILL_TOT :
			     which == DR_INCLUSIVE ? AGG_DRILL_IN : AGG_DRILL_EX;

	if (!t) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "tree", json_object_new_string(d->name));
		json_object_object_add(o, "nodes", NULL);
		json_object_object_add(o, "reason", json_object_new_string(d->why));
		json_object_object_add(o, "bottleneck", NULL);
		json_object_object_add(o, "next", NULL);
		agg_json__add_sibling(out, key, "_drilldown", o);
		return;
	}
	for (int e = 0; e < t->nevents; e++) {
		const struct agg_cell *why = agg_jobsum__cell(
			s, region, (uint32_t)e, base + (AGG_DRILL_WHY_TOT - AGG_DRILL_TOT));
		const struct agg_cell *val = agg_jobsum__cell(s, region, (uint32_t)e, base);
		const struct agg_cell *noerr = agg_jobsum__cell(
			s, region, (uint32_t)e, base + (AGG_DRILL_NOERR_TOT - AGG_DRILL_TOT));

		in[e] = (struct tree_input){ .why = NULL };
		if (why && why->s.n) {
			in[e].why = s->whys.name[why->s.min_at.tid];
		} else if (!val || !val->s.n) {
			in[e].why = "in no rank's results";
		} else {
			in[e].v = val->s.sum;
			in[e].err = sqrt(val->s.err2);
			in[e].has_err = !(noerr && noerr->s.n);
		}
	}
	agg_drill__write(out, key, t, d->name, d->level, in);
}
