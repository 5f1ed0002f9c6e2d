/* metric.c - derived metrics in the results (metric.h).
 *
 * Each interval's inputs are built once (value and, when unknown, why),
 * then every metric is evaluated over them.  A reason names the event and
 * the cause so that a null metric is never a mystery: dropped at the
 * probe, not counted in this thread, or never on a counter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/metric.h"

#define WHY_MAX 240

/* Text from preset files and event reasons: made valid UTF-8. */
static json_object *text(const char *s)
{
	char *clean = agg_utf8__clean(s);
	json_object *o = json_object_new_string(clean ? clean : "?");

	free(clean);
	return o;
}

/* The inputs of one interval, by event index. */
struct inputs {
	int nev;
	double v[64];
	const char *why[64];
	char buf[64][WHY_MAX];
};

__attribute__((format(printf, 3, 4)))
static void inputs__unknown(struct inputs *in, int i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->buf[i], WHY_MAX, fmt, ap);
	va_end(ap);
	in->why[i] = in->buf[i];
}

/* Every event: dropped ones carry their probe reason. */
static bool inputs__init(struct inputs *in, const struct agg_process *p)
{
	if (!p->metrics || p->metrics->nmetrics == 0 || p->nev > 64)
		return false;
	in->nev = p->nev;
	for (int i = 0; i < p->nev; i++) {
		in->v[i] = 0;
		in->why[i] = NULL;
		if (!p->ev[i].ok)
			inputs__unknown(in, i, "event '%.60s' dropped: %s",
					p->ev[i].name, p->ev[i].reason);
	}
	return true;
}

static json_object *metric__value(const struct agg_metric *m,
				  const struct inputs *in)
{
	double vals[FORMULA_MAX_VARS], out;
	const char *why[FORMULA_MAX_VARS], *reason;
	json_object *o = json_object_new_object();

	for (int k = 0; k < m->f->nvars; k++) {
		int i = m->evidx[k];

		vals[k] = i >= 0 && i < in->nev ? in->v[i] : 0;
		why[k] = i >= 0 && i < in->nev ? in->why[i] :
			 (m->why[k] ? m->why[k] : "event not in the event list");
	}
	if (hs_formula__eval(m->f, vals, why, &out, &reason)) {
		json_object_object_add(o, "value", json_object_new_double(out));
	} else {
		json_object_object_add(o, "value", NULL);
		json_object_object_add(o, "reason", text(reason));
	}
	return o;
}

static void metrics__add(json_object *parent, const char *key,
			 const struct agg_process *p, const struct inputs *in)
{
	const struct agg_metrics *ms = p->metrics;
	json_object *o = json_object_new_object();
	char k[64];

	for (int j = 0; j < ms->nmetrics; j++)
		json_object_object_add(o, ms->m[j].name, metric__value(&ms->m[j], in));
	snprintf(k, sizeof(k), "%s_metrics", key);
	json_object_object_add(parent, k, o);
}

void agg_metrics__add_counts(json_object *parent, const char *key,
			     const struct agg_process *p, const struct count *c,
			     uint64_t missing)
{
	struct inputs in;

	if (!inputs__init(&in, p))
		return;
	for (int i = 0; i < p->nev; i++) {
		struct count s;

		if (in.why[i])
			continue;
		if (missing & (1ull << i)) {
			inputs__unknown(&in, i, "event '%.60s' not counted in this "
					"thread", p->ev[i].name);
			continue;
		}
		/* The owning thread may still run: relaxed loads. */
		s.value = __atomic_load_n(&c[i].value, __ATOMIC_RELAXED);
		s.enabled = __atomic_load_n(&c[i].enabled, __ATOMIC_RELAXED);
		s.running = __atomic_load_n(&c[i].running, __ATOMIC_RELAXED);
		if (!hs_count__estimate(&s, &in.v[i]))
			inputs__unknown(&in, i, "event '%.60s' never ran on a "
					"counter (multiplexed out)", p->ev[i].name);
	}
	metrics__add(parent, key, p, &in);
}

void agg_metrics__add_stats(json_object *parent, const char *key,
			    const struct agg_process *p, const struct agg_stat *st)
{
	struct inputs in;

	if (!inputs__init(&in, p))
		return;
	for (int i = 0; i < p->nev; i++) {
		if (in.why[i])
			continue;
		if (st[i].n == 0)
			inputs__unknown(&in, i, "event '%.60s' has no value in any "
					"thread", p->ev[i].name);
		else
			in.v[i] = st[i].sum;
	}
	metrics__add(parent, key, p, &in);
}

static json_object *set__json(const struct agg_set *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(s->kind));
	json_object_object_add(o, "name", text(s->name));
	json_object_object_add(o, "status", json_object_new_string(s->status));
	if (s->reason)
		json_object_object_add(o, "reason", text(s->reason));
	if (s->description)
		json_object_object_add(o, "description", text(s->description));
	if (s->file) {
		char where[4200];

		snprintf(where, sizeof(where), "%s:%d", s->file, s->line);
		json_object_object_add(o, "defined_at", text(where));
	}
	if (s->nevents) {
		json_object *ev = json_object_new_object();

		for (int i = 0; i < s->nevents; i++)
			json_object_object_add(ev, s->alias[i], text(s->event[i]));
		json_object_object_add(o, "events", ev);
	}
	if (s->nmetrics) {
		json_object *m = json_object_new_object();

		for (int i = 0; i < s->nmetrics; i++)
			json_object_object_add(m, s->mname[i], text(s->mtext[i]));
		json_object_object_add(o, "metrics", m);
	}
	return o;
}

void agg_metrics__add_sets(json_object *doc, const struct agg_process *p)
{
	const struct agg_metrics *ms = p->metrics;
	json_object *o, *a;

	if (!ms || ms->nsets == 0)
		return;
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(o, "model", ms->model[0] ?
			       json_object_new_string(ms->model) : NULL);
	for (int i = 0; i < ms->nsets; i++)
		json_object_array_add(a, set__json(&ms->sets[i]));
	json_object_object_add(o, "sets", a);
	json_object_object_add(doc, "presets", o);
}
