/* jobdoc_drill.c - the job document's drill-down: the ranks' stall tree
 * evaluated on the job's sums (docs/drilldown.md, "Jobs").
 *
 * Apart from jobdoc.c because it is its own concern: which tree the ranks
 * evaluated, where each rank's number for a tree event is and why one is
 * missing, and the errors the sums carry.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "common/fmath.h"
#include "common/tree.h"
#include "aggregate/docread.h"
#include "aggregate/drill.h"
#include "aggregate/job.h"
#include "aggregate/jobdoc.h"
#include "aggregate/jobdoc_internal.h"
#include "aggregate/jsonutil.h"

/* Whether any rank carries a drill-down; then the tree they evaluated,
 * found by the name of their set's tree and their CPU model.  Ranks that
 * disagree on either leave the job without one: a sum of counts of two
 * microarchitectures fits neither tree. */
bool jobdoc_drill__find(const struct agg_jobdoc *j, struct jobdrill *d)
{
	const char *model = NULL;
	int first = -1;

	*d = (struct jobdrill){ .name = NULL };
	for (size_t k = 0; k < j->n; k++) {
		const struct dr_drill *dd = dr_doc__drill(j->r[k].doc);
		const char *name = dd ? dr_drill__get(dd, DR_DRILL_TREE) : NULL;
		const char *m = dr_doc__model(j->r[k].doc);

		name = name ? name : "topdown";
		m = m ? m : "";

		if (!dd)
			continue;
		if (!d->name) {
			d->name = name;
			model = m;
			first = j->r[k].rank;
		} else if (!d->why[0] && strcmp(name, d->name) != 0) {
			snprintf(d->why, sizeof(d->why),
				 "the ranks asked for different trees ('%s' in rank "
				 "%d, '%s' in rank %d)",
				 d->name, first, name, j->r[k].rank);
		} else if (!d->why[0] && strcmp(m, model) != 0) {
			snprintf(d->why, sizeof(d->why),
				 "the ranks ran on different CPU models ('%s' in "
				 "rank %d, '%s' in rank %d)",
				 model, first, m, j->r[k].rank);
		}
	}
	if (!d->name)
		return false;
	d->level = strcmp(d->name, "topdown2") == 0 ? 2 : 1;
	if (!d->why[0]) {
		d->t = j->tree ? j->tree(j->tree_ctx, "topdown", model) : NULL;
		if (!d->t)
			snprintf(d->why, sizeof(d->why),
				 "no stall tree 'topdown' for CPU model '%s' on the "
				 "preset path",
				 model);
	}
	if (!d->t)
		fprintf(stderr, "%s: job drill-down: %s\n", j->prog, d->why);
	return true;
}

/* The event name of rank k's totals (region NULL) or region values that
 * holds tree event ev: its alias or its spec in any case, as the offline
 * tool matches them. */
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
static void job__drill_absent(const struct agg_jobdoc_rank *r,
			      const struct tree_event *ev, char *why, size_t len)
{
	for (size_t i = 0; i < dr_doc__nevents(r->doc); i++) {
		struct dr_event e;

		dr_doc__event(r->doc, i, &e);
		if (!strcasecmp(e.name ? e.name : "", ev->spec) &&
		    !strcmp(e.status, "dropped")) {
			snprintf(why, len, "rank %d: event '%s' dropped: %s",
				 r->rank, ev->spec, e.reason ? e.reason : "?");
			return;
		}
	}
	snprintf(why, len, "rank %d: event '%s' not in its results", r->rank, ev->spec);
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

/* Rank k's count of ev in its totals (g NULL) or region g's values, with
 * its standard error (what the job's sums carry, job.c): from the
 * `_multiplexed` sibling, or, for the process totals, which have none,
 * the threads' errors combined as independent, as the rank's own
 * totals_drilldown does.  *has_err turns false when an estimate has no
 * error figure.  false with why when the rank has no number. */
static bool job__drill_rank(const struct agg_jobdoc *j, size_t k,
			    const struct dr_region *g, enum dr_key which,
			    const struct tree_event *ev, struct agg_job_sample *s,
			    bool *has_err, char *why, size_t len)
{
	const struct agg_jobdoc_rank *r = &j->r[k];
	const char *name = job__drill_key(r->doc, g, which, ev);
	struct dr_value x;
	bool m, out;

	if (!name) {
		job__drill_absent(r, ev, why, len);
		return false;
	}
	if (g)
		dr_region__value(g, which, name, &x);
	else
		dr_doc__total(r->doc, name, &x);
	m = x.mux;
	out = x.out;
	/* the process totals have no _multiplexed entry: a thread's tells */
	for (size_t i = 0; !m && !x.has && !g && i < dr_doc__nthreads(r->doc); i++) {
		struct dr_value y;

		dr_thread__total(dr_doc__thread(r->doc, i), name, &y);
		m = y.mux;
		out = y.out;
	}
	if (!x.has) {
		snprintf(why, len, "rank %d: event '%s' %s", r->rank, ev->spec,
			 m && out ? "multiplexed out (never on a counter)" :
				    "not counted (null in its results)");
		return false;
	}
	*s = (struct agg_job_sample){ x.v, 0, (int)k };
	if (x.mux) {
		if (x.se >= 0)
			s->stderr_ = x.se;
		else
			*has_err = false;
		return true;
	}
	if (!g)
		s->stderr_ = job__drill_threads_err(r->doc, name, has_err);
	return true;
}

/* "<key>_drilldown" in out: the tree on the sums over the ranks that have
 * the object (every rank for the totals, those that ran the region); an
 * event is known only when each of those ranks has a number for it, a
 * partial sum would mix the ranks' shares. */
void jobdoc_drill__scope(const struct agg_jobdoc *j, const struct jobdrill *d,
			 json_object *out, const char *region, enum dr_key which,
			 const char *key, struct agg_job_sample *buf)
{
	struct tree_input in[TREE_MAX_EVENTS];
	char why[TREE_MAX_EVENTS][400];
	const struct tree *t = d->t;

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
		struct agg_job_stats s;
		bool has_err = true;
		size_t n = 0;

		why[e][0] = '\0';
		for (size_t k = 0; k < j->n && !why[e][0]; k++) {
			const struct dr_region *g = region ? jobdoc__rank_region(
								     j, k, region) :
							     NULL;

			if ((g || !region) &&
			    job__drill_rank(j, k, g, which, &t->ev[e], &buf[n],
					    &has_err, why[e], sizeof(why[e])))
				n++;
		}
		in[e] = (struct tree_input){ .why = NULL };
		if (why[e][0]) {
			in[e].why = why[e];
		} else if (!n) {
			in[e].why = "in no rank's results";
		} else {
			agg_job__stats(buf, n, &s);
			in[e].v = s.sum;
			in[e].err = s.sum_stderr;
			in[e].has_err = has_err;
		}
	}
	agg_drill__write(out, key, t, d->name, d->level, in);
}
