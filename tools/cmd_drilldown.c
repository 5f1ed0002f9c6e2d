/* cmd_drilldown.c - `hpcshim drilldown`: a stall tree evaluated offline, on a
 * result file (process, threads, regions inclusive and exclusive) or on
 * bare counts (--model MODEL --counts FILE).  docs/drilldown.md.
 *
 * drilldown_main() is the entry the `hpcshim` command links; the
 * standalone hpcshim-drilldown is a thin main around it
 * (tools/alias_drilldown.c).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "aggregate/docread.h"
#include "common/tree.h"
#include "presets/tree_file.h"
#include "aggregate/jsonutil.h"
#include "tools/cmd.h"
#include "tools/escape.h"
#include "tools/xalloc.h"

#define MAX_SETS 32

struct dd {
	bool json;
	const char *model;
	const char *counts;
	const char *result;
	const char *tree_name;
	int nsets;
	char *set_name[MAX_SETS];
	double set_v[MAX_SETS];
	struct tree_table tt;
	struct tree *t; /* a private copy: --set changes its constants */
	json_object *out_scopes;
};

static void dd__usage(FILE *f)
{
	fprintf(f, "usage: hpcshim drilldown [--json] [--tree NAME] [--set CONST=VALUE]... "
		   "RESULT.json\n"
		   "       hpcshim drilldown [--json] [--tree NAME] [--set CONST=VALUE]... "
		   "--model MODEL --counts COUNTS.json\n");
}

__attribute__((format(printf, 1, 2))) static int dd__fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hpcshim: drilldown: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static void dd__tree_err(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "hpcshim: %s\n", msg);
}

static void dd__models(const struct tree_table *tt, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < tt->n; i++) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			 tt->t[i]->models);
	}
}

/* Picks the tree and applies --set. */
static int dd__pick(struct dd *d, const char *model)
{
	const struct tree *t = pmu_tree_table__find(&d->tt, d->tree_name, model);
	char known[2048];

	if (!t || !model || !*model) {
		dd__models(&d->tt, known, sizeof(known));
		return dd__fail("no stall tree '%s' for model '%s' (trees for: %s)",
				d->tree_name, model ? model : "",
				known[0] ? known : "none");
	}
	d->t = xrealloc(NULL, sizeof(*d->t));
	memcpy(d->t, t, sizeof(*t));
	for (int i = 0; i < d->nsets; i++) {
		int c = hs_tree__const(d->t, d->set_name[i]);

		if (c < 0)
			return dd__fail("--set %s: tree '%s' has no such constant",
					d->set_name[i], d->t->name);
		d->t->c[c].v = d->set_v[i];
	}
	return 0;
}

static const char *fmt_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.6g", v);
	return buf;
}

static void dd__print_text(const struct dd *d, const char *scope,
			   const struct tree_eval *e)
{
	const struct tree *t = d->t;
	char a[32], b[32];

	printf("== %s  (tree %s, %s) ==\n", esc__t(scope), esc__t(t->name), esc__t(t->file));
	for (int i = 0; i < t->nnodes; i++) {
		const struct tree_node *n = &t->node[i];
		const struct tree_result *r = &e->r[i];
		char label[96];

		snprintf(label, sizeof(label), "%*s%s", 2 * n->depth, "", esc__t(n->id));
		if (!r->known) {
			printf("%-30s %14s  %s (%s)\n", label, "null", esc__t(n->unit), esc__t(r->why));
			continue;
		}
		printf("%-30s %14s", label, fmt_num(a, sizeof(a), r->v));
		if (r->has_err && r->err > 0)
			printf(" +- %-10s", fmt_num(b, sizeof(b), r->err));
		printf("  %s", esc__t(n->unit));
		if (r->has_share)
			printf("  %.1f%%", 100 * r->share);
		if (r->over == 1)
			printf("  OVER");
		printf("\n");
	}
	for (int i = 0; i < t->nnodes; i++) {
		const struct tree_result *r = &e->r[i];

		if (r->sum_state == -1)
			printf("sum rule broken: the parts of %s add up to %s, it is %s "
			       "(%.2f%%; error %s, tolerance %g%%)\n",
			       t->node[i].id, fmt_num(a, sizeof(a), r->sum_v),
			       fmt_num(b, sizeof(b), r->v),
			       r->v ? 100 * (r->sum_v - r->v) / r->v : 0.0,
			       r->has_err ? "propagated" : "unknown",
			       100 * t->node[i].sum_tol);
	}
	if (e->bottleneck >= 0) {
		const struct tree_node *n = &t->node[e->bottleneck];
		int at = e->bottleneck;

		printf("bottleneck: %s (%s)\n", esc__t(n->id), esc__t(n->name));
		/* The deepest advice on the path up. */
		while (at >= 0 && !t->node[at].next[0] && !t->node[at].why[0])
			at = t->node[at].parent;
		if (at >= 0 && t->node[at].why[0])
			printf("next step: %s\n", esc__t(t->node[at].why));
		if (at >= 0 && t->node[at].next[0])
			printf("run next: %s\n", esc__t(t->node[at].next));
	} else {
		printf("bottleneck: none over its threshold\n");
	}
	printf("\n");
}

static json_object *dd__json_scope(const struct dd *d, const char *scope,
				   const struct tree_eval *e)
{
	const struct tree *t = d->t;
	json_object *o = json_object_new_object(), *nodes = json_object_new_array();

	json_object_object_add(o, "scope", json_object_new_string(scope));
	for (int i = 0; i < t->nnodes; i++) {
		const struct tree_node *n = &t->node[i];
		const struct tree_result *r = &e->r[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "id", json_object_new_string(n->id));
		json_object_object_add(
			j, "parent",
			n->parent >= 0 ? json_object_new_string(t->node[n->parent].id) :
					 NULL);
		json_object_object_add(j, "name", json_object_new_string(n->name));
		json_object_object_add(
			j, "value", r->known ? agg_json__dbl(r->v) : NULL);
		json_object_object_add(j, "unit", json_object_new_string(n->unit));
		if (r->known && r->has_err)
			json_object_object_add(j, "error",
					       agg_json__dbl(r->err));
		if (!r->known)
			json_object_object_add(j, "reason",
					       json_object_new_string(r->why));
		if (r->has_share)
			json_object_object_add(j, "share",
					       agg_json__dbl(r->share));
		if (n->has_threshold)
			json_object_object_add(
				j, "over",
				r->over < 0 ? NULL : json_object_new_boolean(r->over));
		if (n->nsum) {
			json_object *s = json_object_new_object();

			json_object_object_add(
				s, "holds",
				r->sum_state == -2 ?
					NULL :
					json_object_new_boolean(r->sum_state == 1));
			if (r->sum_state != -2)
				json_object_object_add(
					s, "parts", agg_json__dbl(r->sum_v));
			json_object_object_add(j, "sum", s);
		}
		json_object_array_add(nodes, j);
	}
	json_object_object_add(o, "nodes", nodes);
	if (e->bottleneck >= 0) {
		const struct tree_node *n = &t->node[e->bottleneck];
		json_object *b = json_object_new_object();
		int at = e->bottleneck;

		while (at >= 0 && !t->node[at].next[0] && !t->node[at].why[0])
			at = t->node[at].parent;
		json_object_object_add(b, "id", json_object_new_string(n->id));
		json_object_object_add(b, "name", json_object_new_string(n->name));
		json_object_object_add(
			b, "next_step",
			at >= 0 ? json_object_new_string(t->node[at].why) : NULL);
		json_object_object_add(b, "run_next",
				       at >= 0 && t->node[at].next[0] ?
					       json_object_new_string(t->node[at].next) :
					       NULL);
		json_object_object_add(o, "bottleneck", b);
	} else {
		json_object_object_add(o, "bottleneck", NULL);
	}
	return o;
}

static void dd__emit(struct dd *d, const char *scope, const struct tree_input *in)
{
	struct tree_eval *e = xrealloc(NULL, sizeof(*e));

	hs_tree__eval(d->t, in, e);
	if (d->json)
		json_object_array_add(d->out_scopes, dd__json_scope(d, scope, e));
	else
		dd__print_text(d, scope, e);
	free(e);
}

/* The key of obj that names event i: its alias or its spec (any case). */
static json_object *dd__lookup(json_object *obj, const struct tree_event *ev,
			       const char **key)
{
	json_object_object_foreach(obj, k, v)
	{
		if (!strcmp(k, ev->alias) || !strcasecmp(k, ev->spec)) {
			*key = k;
			return v ? v : (json_object *)"";
		}
	}
	*key = NULL;
	return NULL;
}

static int dd__counts(struct dd *d)
{
	json_object *obj = json_object_from_file(d->counts);
	struct tree_input in[TREE_MAX_EVENTS];
	int rc;

	if (!obj)
		return dd__fail("%s: unreadable or not JSON", d->counts);
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return dd__fail("%s: expected a JSON object {\"event\": number, ...}",
				d->counts);
	}
	json_object_object_foreach(obj, k, v)
	{
		if (!json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_double)) {
			int rc2 = dd__fail("%s: the value of \"%s\" is not a number",
					   d->counts, k);

			json_object_put(obj);
			return rc2;
		}
	}
	if ((rc = dd__pick(d, d->model))) {
		json_object_put(obj);
		return rc;
	}
	for (int i = 0; i < d->t->nevents; i++) {
		const char *key;
		json_object *val = dd__lookup(obj, &d->t->ev[i], &key);

		in[i] = (struct tree_input){ .has_err = true };
		if (!val)
			in[i].why = "not in the counts";
		else
			in[i].v = json_object_get_double(val);
	}
	dd__emit(d, "counts", in);
	json_object_put(obj);
	return 0;
}

/* Where the inputs of one scope come from. */
struct dd_scope {
	const struct dr_doc *doc;
	const struct dr_thread *th; /* a thread's totals     */
	const struct dr_region *g;  /* or a region's values */
	enum dr_key which;
	bool errors; /* the values' standard errors count (not a process's totals) */
};

/* The i-th event name of the scope's values (NULL past the end). */
static const char *dd__event(const struct dd_scope *sc, size_t i)
{
	return sc->g  ? dr_region__event(sc->g, sc->which, i) :
	       sc->th ? dr_thread__total_event(sc->th, i) :
			dr_doc__total_event(sc->doc, i);
}

/* The key of the scope's values that names event ev: its alias, or its
 * spec in any case; NULL when none does. */
static const char *dd__key(const struct dd_scope *sc, const struct tree_event *ev)
{
	const char *k;

	for (size_t i = 0; (k = dd__event(sc, i)); i++)
		if (!strcmp(k, ev->alias) || !strcasecmp(k, ev->spec))
			return k;
	return NULL;
}

static void dd__read(const struct dd_scope *sc, const char *key, struct dr_value *x)
{
	if (sc->g)
		dr_region__value(sc->g, sc->which, key, x);
	else if (sc->th)
		dr_thread__total(sc->th, key, x);
	else
		dr_doc__total(sc->doc, key, x);
}

/* Inputs of one scope, with the errors of multiplexed estimates. */
static void dd__inputs(const struct tree *t, const struct dd_scope *sc, struct tree_input *in)
{
	for (int i = 0; i < t->nevents; i++) {
		const char *key = dd__key(sc, &t->ev[i]);
		struct dr_value x = { 0 };

		in[i] = (struct tree_input){ .has_err = true };
		if (key)
			dd__read(sc, key, &x);
		if (!x.present) {
			in[i].why = "event not in the results (not collected)";
			continue;
		}
		if (!x.has) {
			in[i].why = sc->errors && x.out ? "multiplexed out (never on a counter)" :
							  "not counted (null in the results)";
			continue;
		}
		in[i].v = x.v;
		if (sc->errors && x.mux) {
			in[i].has_err = x.se >= 0;
			in[i].err = x.se >= 0 ? x.se : 0;
		} else if (sc->errors && x.se >= 0) { /* a job's sum_stderr */
			in[i].err = x.se;
		}
	}
}

static void dd__scope(struct dd *d, const char *name, const struct dd_scope *sc)
{
	struct tree_input in[TREE_MAX_EVENTS];

	dd__inputs(d->t, sc, in);
	dd__emit(d, name, in);
}

/* A region's inclusive and exclusive scopes; who: "thread T " or "". */
static void dd__region(struct dd *d, const struct dr_doc *doc, const struct dr_region *g,
		       const char *who)
{
	struct dd_scope sc = { .doc = doc, .g = g, .errors = true };
	char scope[256];

	sc.which = DR_INCLUSIVE;
	snprintf(scope, sizeof(scope), "%sregion %s inclusive", who, dr_region__name(g));
	dd__scope(d, scope, &sc);
	sc.which = DR_EXCLUSIVE;
	snprintf(scope, sizeof(scope), "%sregion %s exclusive", who, dr_region__name(g));
	dd__scope(d, scope, &sc);
}

/* A process result: its totals, each thread's totals and region records.
 * A job document: the job's totals (sums over the ranks) and regions. */
static int dd__result(struct dd *d)
{
	char why[512];
	struct dr_doc *doc = dr_doc__load(d->result, why, sizeof(why));
	int rc;

	if (!doc || dr_doc__check_partial(doc, why, sizeof(why)) == DR_NO_SCHEMA) {
		dr_doc__free(doc);
		return dd__fail("%s: not a result file", d->result);
	}
	if (dr_doc__check_partial(doc, why, sizeof(why)) != DR_OK) {
		dr_doc__free(doc);
		return dd__fail("%s: %s", d->result, why);
	}
	if ((rc = dd__pick(d, d->model ? d->model : dr_doc__model(doc)))) {
		dr_doc__free(doc);
		return rc;
	}
	dd__scope(d, dr_doc__kind(doc) == DR_JOB ? "job totals" : "process totals",
		  &(struct dd_scope){ .doc = doc, .errors = dr_doc__kind(doc) == DR_JOB });
	for (size_t r = 0; dr_doc__kind(doc) == DR_JOB && r < dr_doc__nregions(doc); r++)
		dd__region(d, doc, dr_doc__region(doc, r), "");
	for (size_t i = 0; i < dr_doc__nthreads(doc); i++) {
		const struct dr_thread *th = dr_doc__thread(doc, i);
		char who[64];

		snprintf(who, sizeof(who), "thread %lld ", dr_thread__tid(th));
		snprintf(why, sizeof(why), "%stotals", who);
		dd__scope(d, why, &(struct dd_scope){ .doc = doc, .th = th, .errors = true });
		for (size_t r = 0; r < dr_thread__nregions(th); r++)
			dd__region(d, doc, dr_thread__region(th, r), who);
	}
	dr_doc__free(doc);
	return 0;
}

int drilldown_main(int argc, char **argv)
{
	struct dd d = { .tree_name = "topdown" };
	char path[8192];
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			d.json = true;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			dd__usage(stdout);
			return 0;
		} else if ((!strcmp(a, "--model") || !strcmp(a, "--counts") ||
			    !strcmp(a, "--tree") || !strcmp(a, "--set")) &&
			   i + 1 < argc) {
			const char *v = argv[++i];

			if (!strcmp(a, "--model")) {
				d.model = v;
			} else if (!strcmp(a, "--counts")) {
				d.counts = v;
			} else if (!strcmp(a, "--tree")) {
				d.tree_name = v;
			} else {
				const char *eq = strchr(v, '=');
				char *end;

				if (!eq || eq == v || d.nsets >= MAX_SETS)
					return dd__fail("--set expects CONST=VALUE");
				d.set_v[d.nsets] = strtod(eq + 1, &end);
				if (end == eq + 1 || *end)
					return dd__fail("--set %s: not a number", v);
				d.set_name[d.nsets] = strndup(v, (size_t)(eq - v));
				d.nsets++;
			}
		} else if (a[0] == '-' && a[1]) {
			dd__usage(stderr);
			return dd__fail("unknown or incomplete option '%s'", a);
		} else if (!d.result) {
			d.result = a;
		} else {
			dd__usage(stderr);
			return dd__fail("one result file at a time");
		}
	}
	if (!d.counts == !d.result || (d.counts && !d.model)) {
		dd__usage(stderr);
		return dd__fail("give a result file, or --model and --counts");
	}
	pmu_preset__search_path(getenv("HPCSHIM_PRESET_PATH"), path, sizeof(path));
	pmu_tree_table__init(&d.tt);
	pmu_tree_table__load_path(&d.tt, path, dd__tree_err, NULL);
	if (d.json)
		d.out_scopes = json_object_new_array();
	rc = d.counts ? dd__counts(&d) : dd__result(&d);
	if (!rc && d.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "tree", json_object_new_string(d.t->name));
		json_object_object_add(o, "models",
				       json_object_new_string(d.t->models));
		json_object_object_add(o, "file", json_object_new_string(d.t->file));
		json_object_object_add(o, "scopes", d.out_scopes);
		d.out_scopes = NULL;
		printf("%s\n", json_object_to_json_string_ext(
				       o, JSON_C_TO_STRING_PRETTY |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	if (d.out_scopes)
		json_object_put(d.out_scopes);
	for (int i = 0; i < d.nsets; i++)
		free(d.set_name[i]);
	free(d.t);
	pmu_tree_table__free(&d.tt);
	return rc;
}
