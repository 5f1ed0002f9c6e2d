/* json_mux.c - the parts of the result document about multiplexing: the
 * "mux" object and the "groups" partition (top level), each thread's
 * "rotation" and "series", and the "<key>_multiplexed" entries with their
 * standard errors.  Layout: docs/schema.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/mux.h"

static const char *const mode_names[] = {
	[AGG_MUX_KERNEL] = "kernel", [AGG_MUX_ROTATE] = "rotate", [AGG_MUX_OFF] = "off",
};

static json_object *u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static json_object *dbl(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* A string from outside (event names) made valid UTF-8. */
static json_object *text(const char *s)
{
	char *clean = agg_utf8__clean(s);
	json_object *o = json_object_new_string(clean ? clean : "?");

	free(clean);
	return o;
}

static uint64_t get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

json_object *agg_mux__json(const struct agg_process *p)
{
	const struct agg_mux *m = p->mux;
	json_object *o = json_object_new_object(), *sl;

	json_object_object_add(o, "mode", json_object_new_string(mode_names[m->mode]));
	if (m->mode == AGG_MUX_ROTATE) {
		sl = json_object_new_object();
		json_object_object_add(sl, m->slice_instructions ? "instructions" : "ns",
				       u64(m->slice));
		json_object_object_add(o, "slice", sl);
		json_object_object_add(o, "seed", m->seeded ? u64(m->seed) : NULL);
	}
	json_object_object_add(o, "interval_ns", m->interval_ns ? u64(m->interval_ns) : NULL);
	if (m->interval_ns)
		json_object_object_add(o, "interval_points",
				       json_object_new_int(m->interval_points));
	if (m->note)
		json_object_object_add(o, "note", json_object_new_string(m->note));
	return o;
}

json_object *agg_groups__json(const struct agg_process *p)
{
	json_object *a = json_object_new_array();

	for (int g = 0; g < p->mux->ngroups; g++) {
		const struct agg_group *grp = &p->mux->grp[g];
		json_object *o = json_object_new_object(), *mem = json_object_new_array();

		for (int m = 0; m < grp->n; m++)
			json_object_array_add(mem, text(p->ev[grp->idx[m]].name));
		json_object_object_add(o, "group", json_object_new_int(g));
		json_object_object_add(o, "members", mem);
		json_object_object_add(o, "origin", json_object_new_string(
			grp->user ? "user" : "auto"));
		json_object_object_add(o, "pinned", json_object_new_boolean(grp->pinned));
		json_object_object_add(o, "rotated", json_object_new_boolean(grp->rotated));
		json_object_object_add(o, "why", json_object_new_string(grp->why));
		json_object_array_add(a, o);
	}
	return a;
}

json_object *agg_rotation__json(const struct agg_process *p,
				const struct agg_thread *t)
{
	const struct agg_rotation *r = t->rot;
	json_object *o, *ga;
	uint64_t rotated = 0, handler;

	if (!r || p->mux->mode != AGG_MUX_ROTATE)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "active", json_object_new_boolean(
		__atomic_load_n(&r->active, __ATOMIC_RELAXED)));
	if (r->error)
		json_object_object_add(o, "error", json_object_new_string(r->error));
	json_object_object_add(o, "groups_rotated", json_object_new_int(r->nrotated));
	json_object_object_add(o, "signals", u64(get(&r->signals)));
	json_object_object_add(o, "switches", u64(get(&r->switches)));
	json_object_object_add(o, "rounds", u64(get(&r->rounds)));
	handler = get(&r->handler_ns);
	json_object_object_add(o, "handler_ns", u64(handler));
	json_object_object_add(o, "handler_max_ns", u64(get(&r->handler_max_ns)));
	json_object_object_add(o, "switch_ns", u64(get(&r->switch_ns)));
	json_object_object_add(o, "gap_ns", u64(get(&r->gap_ns)));
	json_object_object_add(o, "rotated_ns", u64(get(&r->rotated_ns)));
	json_object_object_add(o, "errors", u64(get(&r->errors)));
	json_object_object_add(o, "deferred", u64(get(&r->deferred)));
	ga = json_object_new_array();
	for (int g = 0; g < r->ngroups; g++) {
		json_object *go;

		if (g >= p->mux->ngroups || !p->mux->grp[g].rotated)
			continue;
		go = json_object_new_object();
		json_object_object_add(go, "group", json_object_new_int(g));
		json_object_object_add(go, "slices", u64(get(&r->grp[g].slices)));
		json_object_object_add(go, "running_ns", u64(get(&r->grp[g].sum_t)));
		json_object_array_add(ga, go);
		rotated += get(&r->grp[g].sum_t);
	}
	json_object_object_add(o, "slices", ga);
	/* The handler's cost against the time it rotated. */
	json_object_object_add(o, "handler_share", rotated ?
			       dbl((double)handler / (double)rotated) : NULL);
	return o;
}

/* Point k of s as a reading by event index (groups' times on members). */
static void series__point(const struct agg_process *p, const struct agg_series *s,
			  uint32_t k, struct count *c)
{
	size_t ne = (size_t)s->nev, ng = (size_t)s->ngroups;

	for (int e = 0; e < p->nev; e++) {
		int g = p->ev[e].group;

		c[e].value = get(&s->val[k * ne + (size_t)e]);
		c[e].enabled = c[e].running = 0;
		if (p->ev[e].ok && g >= 0 && (size_t)g < ng) {
			c[e].enabled = get(&s->en[k * ng + (size_t)g]);
			c[e].running = get(&s->run[k * ng + (size_t)g]);
		}
	}
}

json_object *agg_series__json(const struct agg_process *p,
			      const struct agg_thread *t)
{
	const struct agg_series *s = t->series;
	int nev = p->nev ? p->nev : 1;
	struct count prev[nev], cur[nev], d[nev], v[nev];
	json_object *o, *ts, *arr[nev];
	uint32_t n;

	if (!s)
		return NULL;
	n = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
	o = json_object_new_object();
	json_object_object_add(o, "interval_ns", u64(s->period_ns * s->stride));
	json_object_object_add(o, "points", json_object_new_int((int)n));
	ts = json_object_new_array();
	for (int e = 0; e < p->nev; e++)
		arr[e] = p->ev[e].ok ? json_object_new_array() : NULL;
	memset(prev, 0, sizeof(prev));
	for (uint32_t k = 0; k < n; k++) {
		series__point(p, s, k, cur);
		for (int e = 0; e < p->nev; e++)
			count__sub(&d[e], &cur[e], &prev[e]);
		agg_mux__view(p, t->rot, d, v);
		json_object_array_add(ts, u64(get(&s->t[k])));
		for (int e = 0; e < p->nev; e++) {
			double est;

			if (!arr[e])
				continue;
			if ((t->missing & (1ull << e)) || !hs_count__estimate(&v[e], &est))
				json_object_array_add(arr[e], NULL);
			else
				json_object_array_add(arr[e], u64((uint64_t)llround(est)));
		}
		memcpy(prev, cur, sizeof(prev));
	}
	json_object_object_add(o, "t", ts);
	for (int e = 0; e < p->nev; e++)
		if (arr[e])
			json_object_object_add(o, p->ev[e].name, arr[e]);
	return o;
}

json_object *agg_mux__entry(const struct agg_process *p,
			    const struct agg_thread *t, int e,
			    const struct count *v, const struct count *raw)
{
	json_object *m = json_object_new_object();
	double se, est;

	(void)raw;
	json_object_object_add(m, "raw", u64(v->value));
	json_object_object_add(m, "enabled", u64(v->enabled));
	json_object_object_add(m, "running", u64(v->running));
	json_object_object_add(m, "coverage", dbl(v->enabled ?
		(double)v->running / (double)v->enabled : 1.0));
	if (t && agg_mux__stderr(p, t->rot, e, v, &se) && hs_count__estimate(v, &est)) {
		json_object *ci = json_object_new_array();

		json_object_object_add(m, "stderr", dbl(se));
		/* The events seen happened: the truth is at least raw. */
		json_object_array_add(ci, dbl(est - 1.96 * se > (double)v->value ?
					      est - 1.96 * se : (double)v->value));
		json_object_array_add(ci, dbl(est + 1.96 * se));
		json_object_object_add(m, "ci95", ci);
	}
	return m;
}

void agg_mux_sum__add(struct agg_mux_sum *s, const struct agg_process *p,
		      const struct agg_thread *t, const struct count *raw,
		      uint64_t missing)
{
	struct count v[p->nev ? p->nev : 1];

	agg_mux__view(p, t->rot, raw, v);
	for (int e = 0; e < p->nev; e++) {
		double se;

		if (!p->ev[e].ok || (missing & (1ull << e)))
			continue;
		count__add(&s[e].c, &v[e]);
		if (v[e].running != v[e].enabled)
			s[e].partial = true;
		if (agg_mux__stderr(p, t->rot, e, &v[e], &se)) {
			s[e].se2 += se * se;
			s[e].se_known++;
		} else if (v[e].running != v[e].enabled) {
			s[e].se_unknown++;
		}
	}
}

void agg_mux_sum__json(json_object *parent, const char *key,
		       const struct agg_process *p, const struct agg_mux_sum *s)
{
	json_object *mux = NULL;
	char k[64];

	for (int e = 0; e < p->nev; e++) {
		json_object *m;

		if (!p->ev[e].ok || !s[e].partial)
			continue;
		m = json_object_new_object();
		json_object_object_add(m, "raw", u64(s[e].c.value));
		json_object_object_add(m, "enabled", u64(s[e].c.enabled));
		json_object_object_add(m, "running", u64(s[e].c.running));
		json_object_object_add(m, "coverage", dbl(s[e].c.enabled ?
			(double)s[e].c.running / (double)s[e].c.enabled : 1.0));
		/* Threads are independent samples: their variances add. */
		if (s[e].se_known && !s[e].se_unknown)
			json_object_object_add(m, "stderr", dbl(sqrt(s[e].se2)));
		if (!mux)
			mux = json_object_new_object();
		json_object_object_add(mux, p->ev[e].name, m);
	}
	if (!mux)
		return;
	snprintf(k, sizeof(k), "%s_multiplexed", key);
	json_object_object_add(parent, k, mux);
}
