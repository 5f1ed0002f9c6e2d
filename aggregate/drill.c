/* drill.c - "<key>_drilldown": a stall tree evaluated on one object's
 * counts (drill.h).  The counts are the estimates the object reports; an
 * event's error is its rotation standard error (0 when it was counted all
 * the time), so every node carries the first-order propagated error.
 * Evaluated when the object is written: once per object, like its metrics.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/drill.h"
#include "aggregate/jsonutil.h"
#include "aggregate/metric.h"
#include "aggregate/view.h"

static const struct agg_drill *drill__of(const struct agg_process *p)
{
	return p->metrics ? p->metrics->drill : NULL;
}

/* Why a dropped event is unknown: its probe reason, in a buffer per tree
 * event (the inputs must outlive the evaluation only). */
static const char *drill__dropped(const struct agg_process *p, int e, char *buf,
				  size_t len)
{
	snprintf(buf, len, "event '%s' dropped: %s", p->ev[e].name,
		 p->ev[e].reason ? p->ev[e].reason : "not opened");
	return buf;
}

static json_object *drill__node(const struct tree *t, const struct tree_eval *ev, int i)
{
	const struct tree_result *r = &ev->r[i];
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", agg_json__text(t->node[i].id));
	if (r->known) {
		json_object_object_add(o, "value", json_object_new_double(r->v));
		if (r->has_err)
			json_object_object_add(o, "error",
					       json_object_new_double(r->err));
	} else {
		json_object_object_add(o, "value", NULL);
		json_object_object_add(o, "reason", agg_json__text(r->why));
	}
	/* null: no threshold, or a value or threshold unknown */
	json_object_object_add(
		o, "over", r->over >= 0 ? json_object_new_boolean(r->over) : NULL);
	return o;
}

/* The next step of the bottleneck: its own, or its nearest ancestor's. */
static int drill__next_of(const struct tree *t, int i)
{
	for (; i >= 0; i = t->node[i].parent)
		if (t->node[i].next[0] || t->node[i].why[0])
			return i;
	return -1;
}

void agg_drill__write(json_object *parent, const char *key, const struct tree *t,
		      const char *name, int level, const struct tree_input *in)
{
	struct tree_eval *ev = malloc(sizeof(*ev));
	json_object *o, *nodes;
	int b, nx;

	if (!ev)
		return;
	hs_tree__eval(t, in, ev);
	o = json_object_new_object();
	nodes = json_object_new_array();
	json_object_object_add(o, "tree", agg_json__text(name));
	for (int i = 0; i < t->nnodes; i++)
		if (t->node[i].level <= level)
			json_object_array_add(nodes, drill__node(t, ev, i));
	json_object_object_add(o, "nodes", nodes);
	b = ev->bottleneck;
	if (b >= 0 && t->node[b].level > level)
		b = -1;
	json_object_object_add(o, "bottleneck",
			       b >= 0 ? agg_json__text(t->node[b].id) : NULL);
	nx = b >= 0 ? drill__next_of(t, b) : -1;
	if (nx >= 0) {
		json_object *n = json_object_new_object();

		json_object_object_add(n, "why", agg_json__text(t->node[nx].why));
		json_object_object_add(n, "setting", agg_json__text(t->node[nx].next));
		json_object_object_add(o, "next", n);
	} else {
		json_object_object_add(o, "next", NULL);
	}
	agg_json__add_sibling(parent, key, "_drilldown", o);
	free(ev);
}

void agg_drill__interval(json_object *parent, const char *key,
			 const struct agg_process *p, const struct agg_value *ev)
{
	const struct agg_drill *d = drill__of(p);
	struct tree_input in[TREE_MAX_EVENTS];
	char why[TREE_MAX_EVENTS][400];

	if (!d || !ev)
		return;
	for (int k = 0; k < d->t->nevents; k++) {
		int e = d->evidx[k];
		const struct agg_value *x = e >= 0 && e < p->nev ? &ev[e] : NULL;

		in[k] = (struct tree_input){ .why = NULL };
		if (!x) {
			in[k].why = d->why[k] ? d->why[k] :
						"event not in the event list";
		} else if (!p->ev[e].ok || x->state == AGG_VALUE_ABSENT) {
			in[k].why = drill__dropped(p, e, why[k], sizeof(why[k]));
		} else if (x->state == AGG_VALUE_MISSING) {
			in[k].why = "not counted in this thread";
		} else if (x->state == AGG_VALUE_UNKNOWN) {
			in[k].why = "multiplexed out (never on a counter)";
		} else {
			in[k].v = x->est;
			in[k].err = x->partial ? x->se : 0;
			in[k].has_err = !x->partial || x->has_se;
		}
	}
	agg_drill__write(parent, key, d->t, d->name, d->level, in);
}

void agg_drill__sum(json_object *parent, const char *key,
		    const struct agg_process *p, const struct agg_sum *sum)
{
	const struct agg_drill *d = drill__of(p);
	struct tree_input in[TREE_MAX_EVENTS];
	char why[TREE_MAX_EVENTS][400];

	if (!d || !sum)
		return;
	for (int k = 0; k < d->t->nevents; k++) {
		int e = d->evidx[k];
		const struct agg_sum *x = e >= 0 && e < p->nev ? &sum[e] : NULL;

		in[k] = (struct tree_input){ .why = NULL };
		if (!x) {
			in[k].why = d->why[k] ? d->why[k] :
						"event not in the event list";
		} else if (!p->ev[e].ok) {
			in[k].why = drill__dropped(p, e, why[k], sizeof(why[k]));
		} else if (x->st.n == 0) {
			in[k].why = "not counted in any thread";
		} else {
			in[k].v = x->st.sum;
			in[k].err = sqrt(x->se2);
			in[k].has_err = x->se_unknown == 0;
		}
	}
	agg_drill__write(parent, key, d->t, d->name, d->level, in);
}
