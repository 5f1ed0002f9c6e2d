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

#include "aggregate/jsonutil.h"
#include "aggregate/mux.h"
#include "aggregate/out.h"
#include "aggregate/view.h"

static uint64_t get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static json_object *mux__json(const struct agg_mux *m)
{
	json_object *o = json_object_new_object(), *sl;

	json_object_object_add(o, "mode",
			       json_object_new_string(hs_mux_mode__name(m->mode)));
	if (m->mode == HS_MUX_ROTATE) {
		sl = json_object_new_object();
		json_object_object_add(sl, m->slice_instructions ? "instructions" : "ns",
				       agg_json__u64(m->slice));
		json_object_object_add(o, "slice", sl);
		json_object_object_add(o, "seed",
				       m->seeded ? agg_json__u64(m->seed) : NULL);
	}
	json_object_object_add(o, "interval_ns",
			       m->interval_ns ? agg_json__u64(m->interval_ns) : NULL);
	if (m->interval_ns)
		json_object_object_add(o, "interval_points",
				       json_object_new_int(m->interval_points));
	if (m->note)
		json_object_object_add(o, "note", json_object_new_string(m->note));
	return o;
}

static json_object *groups__json(const struct agg_process *p)
{
	json_object *a = json_object_new_array();

	for (int g = 0; g < p->mux->ngroups; g++) {
		const struct agg_group *grp = &p->mux->grp[g];
		json_object *o = json_object_new_object(),
			    *mem = json_object_new_array();

		for (int m = 0; m < grp->n; m++)
			json_object_array_add(
				mem, agg_json__text(p->ev[grp->idx[m]].name));
		json_object_object_add(o, "group", json_object_new_int(g));
		json_object_object_add(o, "members", mem);
		if (grp->nclock) {
			json_object *ck = json_object_new_array();

			for (int k = 0; k < grp->nclock; k++)
				json_object_array_add(
					ck, agg_json__text(p->ev[grp->clock[k]].name));
			json_object_object_add(o, "from_group_time", ck);
		}
		json_object_object_add(o, "origin",
				       json_object_new_string(grp->user ? "user" :
									  "auto"));
		json_object_object_add(o, "pinned",
				       json_object_new_boolean(grp->pinned));
		json_object_object_add(o, "rotated",
				       json_object_new_boolean(grp->rotated));
		json_object_object_add(o, "why", json_object_new_string(grp->why));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *rotation__json(const struct agg_process *p,
				   const struct agg_thread *t)
{
	const struct agg_rotation *r = t->rot;
	json_object *o, *ga;
	uint64_t rotated = 0, handler;

	if (!r || p->mux->mode != HS_MUX_ROTATE)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "active",
			       json_object_new_boolean(
				       __atomic_load_n(&r->active, __ATOMIC_RELAXED)));
	if (r->error)
		json_object_object_add(o, "error", json_object_new_string(r->error));
	json_object_object_add(o, "groups_rotated", json_object_new_int(r->nrotated));
	json_object_object_add(o, "signals", agg_json__u64(get(&r->signals)));
	json_object_object_add(o, "switches", agg_json__u64(get(&r->switches)));
	json_object_object_add(o, "rounds", agg_json__u64(get(&r->rounds)));
	handler = get(&r->handler_ns);
	json_object_object_add(o, "handler_ns", agg_json__u64(handler));
	json_object_object_add(o, "handler_max_ns",
			       agg_json__u64(get(&r->handler_max_ns)));
	json_object_object_add(o, "switch_ns", agg_json__u64(get(&r->switch_ns)));
	json_object_object_add(o, "gap_ns", agg_json__u64(get(&r->gap_ns)));
	json_object_object_add(o, "rotated_ns", agg_json__u64(get(&r->rotated_ns)));
	json_object_object_add(o, "errors", agg_json__u64(get(&r->errors)));
	json_object_object_add(o, "deferred", agg_json__u64(get(&r->deferred)));
	ga = json_object_new_array();
	for (int g = 0; g < r->ngroups; g++) {
		json_object *go;

		if (g >= p->mux->ngroups || !p->mux->grp[g].rotated)
			continue;
		go = json_object_new_object();
		json_object_object_add(go, "group", json_object_new_int(g));
		json_object_object_add(go, "slices",
				       agg_json__u64(get(&r->grp[g].slices)));
		json_object_object_add(go, "running_ns",
				       agg_json__u64(get(&r->grp[g].sum_t)));
		json_object_array_add(ga, go);
		rotated += get(&r->grp[g].sum_t);
	}
	json_object_object_add(o, "slices", ga);
	/* The handler's cost against the time it rotated. */
	json_object_object_add(
		o, "handler_share",
		rotated ? agg_json__dbl((double)handler / (double)rotated) : NULL);
	return o;
}

static json_object *series__json(const struct agg_process *p,
				 const struct agg_series_view *sv)
{
	size_t nev = (size_t)(p->nev ? p->nev : 1);
	json_object *o = json_object_new_object(), *ts = json_object_new_array();

	json_object_object_add(o, "interval_ns", agg_json__u64(sv->interval_ns));
	json_object_object_add(o, "points", json_object_new_int((int)sv->n));
	for (uint32_t k = 0; k < sv->n; k++)
		json_object_array_add(ts, agg_json__u64(sv->t[k]));
	json_object_object_add(o, "t", ts);
	for (int e = 0; e < p->nev; e++) {
		json_object *arr;

		if (!p->ev[e].ok)
			continue;
		arr = json_object_new_array();
		for (uint32_t k = 0; k < sv->n; k++) {
			size_t i = k * nev + (size_t)e;

			json_object_array_add(
				arr, sv->known[i] ? agg_json__u64(sv->shown[i]) : NULL);
		}
		json_object_object_add(o, p->ev[e].name, arr);
	}
	return o;
}

void agg_mux__head(struct agg_out *o, int depth, bool *first,
		   const struct agg_process *p, const void *arg)
{
	agg_out__member(o, depth, first, "mux", mux__json(arg));
	agg_out__member(o, depth, first, "groups", groups__json(p));
}

/* Under rotation every thread has the key: null when it never rotated. */
void agg_mux__thread(json_object *o, const struct agg_process *p,
		     const struct agg_thread_view *tv, const void *arg)
{
	const struct agg_mux *m = arg;

	if (m->mode == HS_MUX_ROTATE)
		json_object_object_add(o, "rotation", rotation__json(p, tv->t));
}

void agg_mux__series(json_object *o, const struct agg_process *p,
			const struct agg_thread_view *tv, const void *arg)
{
	(void)arg;
	if (tv->series)
		json_object_object_add(o, "series", series__json(p, tv->series));
}

json_object *agg_mux__entry(const struct agg_value *x)
{
	json_object *m = json_object_new_object();

	json_object_object_add(m, "raw", agg_json__u64(x->c.value));
	json_object_object_add(m, "enabled", agg_json__u64(x->c.enabled));
	json_object_object_add(m, "running", agg_json__u64(x->c.running));
	json_object_object_add(m, "coverage", agg_json__dbl(hs_count__coverage(&x->c)));
	if (x->has_se) {
		json_object *ci = json_object_new_array();

		json_object_object_add(m, "stderr", agg_json__dbl(x->se));
		json_object_array_add(ci, agg_json__dbl(x->lo));
		json_object_array_add(ci, agg_json__dbl(x->hi));
		json_object_object_add(m, "ci95", ci);
	}
	return m;
}

void agg_mux_sum__json(json_object *parent, const char *key,
		       const struct agg_process *p, const struct agg_sum *s)
{
	json_object *mux = NULL;

	for (int e = 0; e < p->nev; e++) {
		json_object *m;

		if (!p->ev[e].ok || !s[e].partial)
			continue;
		m = json_object_new_object();
		json_object_object_add(m, "raw", agg_json__u64(s[e].c.value));
		json_object_object_add(m, "enabled", agg_json__u64(s[e].c.enabled));
		json_object_object_add(m, "running", agg_json__u64(s[e].c.running));
		json_object_object_add(m, "coverage",
				       agg_json__dbl(hs_count__coverage(&s[e].c)));
		/* Threads are independent samples: their variances add. */
		if (s[e].se_known && !s[e].se_unknown)
			json_object_object_add(m, "stderr",
					       agg_json__dbl(sqrt(s[e].se2)));
		if (!mux)
			mux = json_object_new_object();
		json_object_object_add(mux, p->ev[e].name, m);
	}
	if (mux)
		agg_json__add_sibling(parent, key, "_multiplexed", mux);
}
