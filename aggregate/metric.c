/* metric.c - derived metrics in the results (metric.h): formats what the
 * view (view.c) evaluated, and the requested sets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/drill.h"
#include "aggregate/jsonutil.h"
#include "aggregate/metric.h"
#include "aggregate/out.h"
#include "aggregate/view.h"

static json_object *metric__json(const struct agg_mvalue *mv)
{
	json_object *o = json_object_new_object();

	if (!mv->reason) {
		json_object_object_add(o, "value", json_object_new_double(mv->value));
	} else {
		json_object_object_add(o, "value", NULL);
		json_object_object_add(o, "reason", agg_json__text(mv->reason));
	}
	return o;
}

void agg_metrics__json(json_object *parent, const char *key,
		       const struct agg_process *p, const struct agg_mvalue *m)
{
	const struct agg_metrics *ms = p->metrics;
	json_object *o;

	if (!m)
		return;
	o = json_object_new_object();
	for (int j = 0; j < ms->nmetrics; j++)
		json_object_object_add(o, ms->m[j].name, metric__json(&m[j]));
	agg_json__add_sibling(parent, key, "_metrics", o);
}

static json_object *set__json(const struct agg_set *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(s->kind));
	json_object_object_add(o, "name", agg_json__text(s->name));
	json_object_object_add(o, "status", json_object_new_string(s->status));
	if (s->reason)
		json_object_object_add(o, "reason", agg_json__text(s->reason));
	if (s->description)
		json_object_object_add(o, "description",
				       agg_json__text(s->description));
	if (s->file) {
		char where[4200];

		snprintf(where, sizeof(where), "%s:%d", s->file, s->line);
		json_object_object_add(o, "defined_at", agg_json__text(where));
	}
	if (s->nevents) {
		json_object *ev = json_object_new_object();

		for (int i = 0; i < s->nevents; i++)
			json_object_object_add(ev, s->alias[i],
					       agg_json__text(s->event[i]));
		json_object_object_add(o, "events", ev);
	}
	if (s->nmetrics) {
		json_object *m = json_object_new_object();

		for (int i = 0; i < s->nmetrics; i++)
			json_object_object_add(m, s->mname[i],
					       agg_json__text(s->mtext[i]));
		json_object_object_add(o, "metrics", m);
	}
	return o;
}

void agg_metrics__head(struct agg_out *out, int depth, bool *first,
		       const struct agg_process *p, const void *arg)
{
	const struct agg_metrics *ms = arg;
	json_object *o, *a;

	(void)p;
	if (!ms || ms->nsets == 0)
		return;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(
		o, "model", ms->model[0] ? json_object_new_string(ms->model) : NULL);
	for (int i = 0; i < ms->nsets; i++)
		json_object_array_add(a, set__json(&ms->sets[i]));
	json_object_object_add(o, "sets", a);
	agg_out__member(out, depth, first, "presets", o);
}

void agg_metrics__counts(json_object *x, const char *key, const struct agg_process *p,
			 const struct agg_interval_view *iv, const void *arg)
{
	(void)arg;
	agg_metrics__json(x, key, p, iv->m);
	agg_drill__interval(x, key, p, iv->ev);
}

/* Every key's metrics, then every key's drill-down. */
void agg_metrics__sums(json_object *x, const char *const *key,
		       const struct agg_sum_view *const *sv, int n,
		       const struct agg_process *p, const void *arg)
{
	(void)arg;
	for (int i = 0; i < n; i++)
		agg_metrics__json(x, key[i], p, sv[i]->m);
	for (int i = 0; i < n; i++)
		agg_drill__sum(x, key[i], p, sv[i]->ev);
}
