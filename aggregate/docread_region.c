/* docread_region.c - the reader's regions (a process's or a job's
 * summaries, a thread's records) and drill-downs, the shim's and those of
 * `hpcshim drilldown --json` (docread.h). */
#include <string.h>

#include "aggregate/docread_internal.h"

size_t dr_doc__nregions(const struct dr_doc *d)
{
	return arr_len(get(d->root, "regions"));
}

const struct dr_region *dr_doc__region(const struct dr_doc *d, size_t i)
{
	return (const struct dr_region *)arr_at(get(d->root, "regions"), i);
}

/* The index of the regions by name (json-c hashes an object's keys):
 * the first region of a name; built once, for the job document, which
 * looks every region name up in every rank. */
static json_object *region_index(struct dr_doc *d)
{
	if (d->index)
		return d->index;
	d->index = json_object_new_object();
	for (size_t i = 0; d->index && i < dr_doc__nregions(d); i++) {
		json_object *g = J(dr_doc__region(d, i));
		const char *name = get_str(g, "name", NULL);

		if (name && !json_object_object_get_ex(d->index, name, NULL))
			json_object_object_add(d->index, name, json_object_get(g));
	}
	return d->index;
}

bool dr_region__stat(const struct dr_region *r, enum dr_stat_of what, enum dr_key which,
		     const char *ev, struct dr_stat *out)
{
	json_object *o = what == DR_STAT_CALLS ? get(J(r), "calls") :
			 what == DR_STAT_BYTES ? get(J(r), "bytes") :
			 what == DR_STAT_WALL  ? get(get(J(r), "wall_ns"), dr__key_name[which]) :
						 get(get(J(r), dr__key_name[which]), ev);

	return dr__stat(o, out);
}

const struct dr_region *dr_doc__region_named(const struct dr_doc *d, const char *name)
{
	/* the index is a cache: not part of what the document says */
	return (const struct dr_region *)get(region_index((struct dr_doc *)(uintptr_t)d), name);
}

const struct dr_drill *dr_doc__drill(const struct dr_doc *d)
{
	return (const struct dr_drill *)get(d->root, "totals_drilldown");
}

const char *dr_region__name(const struct dr_region *r)
{
	return get_str(J(r), "name", "?");
}

const char *dr_region__id(const struct dr_region *r)
{
	return get_str(J(r), "name", NULL);
}

bool dr_region__calls_num(const struct dr_region *r, double *v)
{
	return num(get(J(r), "calls"), v);
}

const char *dr_region__parent(const struct dr_region *r)
{
	return get_str(J(r), "parent", NULL);
}

long long dr_region__calls(const struct dr_region *r)
{
	json_object *c = get(J(r), "calls");

	return obj(c) ? get_int(c, "sum", 0) : /* a job's statistics */
			get_int(J(r), "calls", 0);
}

long long dr_region__threads(const struct dr_region *r)
{
	json_object *t = get(J(r), "threads");
	long long n = 0;

	if (!obj(t)) /* a process summary's count */
		return get_int(J(r), "threads", 0);
	json_object_object_foreach(t, ev, x) /* a job's extremes per event */
	{
		(void)ev;
		if (get_int(x, "n", 0) > n)
			n = get_int(x, "n", 0);
	}
	return n;
}

long long dr_region__ranks(const struct dr_region *r)
{
	return get_int(J(r), "ranks", 1);
}

double dr_region__measurement(const struct dr_region *r)
{
	json_object *w = get(J(r), "measurement_ns");
	double v;

	if (obj(w)) /* a job's statistics */
		w = get(w, "sum");
	return num(w, &v) ? v : -1;
}

double dr_region__wall(const struct dr_region *r, enum dr_key which)
{
	json_object *w = get(get(J(r), "wall_ns"), dr__key_name[which]);
	double v;

	if (obj(w)) /* a job's statistics */
		w = get(w, "sum");
	return num(w, &v) ? v : -1;
}

bool dr_region__value(const struct dr_region *r, enum dr_key which, const char *ev,
		      struct dr_value *out)
{
	return dr__value(J(r), dr__key_name[which], ev, out);
}

static void percall_read(json_object *o, struct dr_percall *out)
{
	bool c, a, b, m;

	memset(out, 0, sizeof(*out));
	out->present = o != NULL;
	out->event = get_str(o, "event", NULL);
	c = num(get(o, "calls"), &out->calls);
	a = num(get(o, "min"), &out->min);
	b = num(get(o, "mean"), &out->mean);
	m = num(get(o, "max"), &out->max);
	out->has = c && out->calls > 0 && a && b && m;
}

const char *dr_region__event(const struct dr_region *r, enum dr_key which, size_t i)
{
	return dr__key_at(J(r), dr__key_name[which], i);
}

void dr_region__percall(const struct dr_region *r, struct dr_percall *out)
{
	percall_read(get(J(r), "per_call"), out);
}

void dr_region__percall_wall(const struct dr_region *r, struct dr_percall *out)
{
	percall_read(get(J(r), "per_call_wall_ns"), out);
}

bool dr_region__metric(const struct dr_region *r, const char *name, double *v)
{
	bool has;

	dr__metric_read(get(get(J(r), "inclusive_metrics"), name), v, &has);
	return has;
}

const struct dr_drill *dr_region__drill(const struct dr_region *r, enum dr_key which)
{
	return (const struct dr_drill *)get(J(r), which == DR_EXCLUSIVE ?
							  "exclusive_drilldown" :
							  "inclusive_drilldown");
}

/* ---- drill-downs ------------------------------------------------------------ */

const char *dr_drill__get(const struct dr_drill *x, enum dr_drill_str what)
{
	json_object *b = get(J(x), "bottleneck"); /* offline: an object */

	switch (what) {
	case DR_DRILL_TREE: return get_str(J(x), "tree", NULL);
	case DR_DRILL_BOTTLENECK:
		return obj(b) ? get_str(b, "id", NULL) : get_str(J(x), "bottleneck", NULL);
	case DR_DRILL_WHY:
		return obj(b) ? get_str(b, "next_step", NULL) :
				get_str(get(J(x), "next"), "why", NULL);
	case DR_DRILL_SETTING:
		return obj(b) ? get_str(b, "run_next", NULL) :
				get_str(get(J(x), "next"), "setting", NULL);
	case DR_DRILL_SCOPE: return get_str(J(x), "scope", NULL);
	}
	return NULL;
}

size_t dr_drill__nnodes(const struct dr_drill *x)
{
	return arr_len(get(J(x), "nodes"));
}

const struct dr_node *dr_drill__node(const struct dr_drill *x, size_t i)
{
	return (const struct dr_node *)arr_at(get(J(x), "nodes"), i);
}

const char *dr_node__get(const struct dr_node *n, enum dr_node_str what)
{
	static const char *const key[] = {
		[DR_NODE_ID] = "id",	     [DR_NODE_NAME] = "name",
		[DR_NODE_UNIT] = "unit",     [DR_NODE_PARENT] = "parent",
		[DR_NODE_REASON] = "reason",
	};

	return get_str(J(n), key[what], NULL);
}

bool dr_node__value(const struct dr_node *n, double *v)
{
	return num(get(J(n), "value"), v);
}

bool dr_node__error(const struct dr_node *n, double *e)
{
	return num(get(J(n), "error"), e);
}

int dr_node__over(const struct dr_node *n)
{
	json_object *o = get(J(n), "over");

	return json_object_is_type(o, json_type_boolean) ? json_object_get_boolean(o) : -1;
}

/* ---- the output of `hpcshim drilldown --json` ------------------------------ */

bool dr_doc__is_offline(const struct dr_doc *d)
{
	return json_object_is_type(get(d->root, "scopes"), json_type_array);
}

const char *dr_doc__offline_tree(const struct dr_doc *d, const char **models)
{
	*models = get_str(d->root, "models", NULL);
	return get_str(d->root, "tree", NULL);
}

size_t dr_doc__nscopes(const struct dr_doc *d)
{
	return arr_len(get(d->root, "scopes"));
}

const struct dr_drill *dr_doc__scope(const struct dr_doc *d, size_t i)
{
	return (const struct dr_drill *)arr_at(get(d->root, "scopes"), i);
}
