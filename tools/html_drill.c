/* html_drill.c - the drill-down section of hpcshim html (tools/html.h).
 *
 * A drill-down object (the shim's "<key>_drilldown", or one scope of
 * `hpcshim drilldown --json` given with --drilldown) holds each node's
 * value, error, reason and over flag; the tree (presets/tree_file.c, found
 * by the object's tree name and the results' model) gives the structure:
 * parents, units, the base of each share.  Per level, the shares of one
 * base are one stacked bar; a node with no value is listed with its
 * reason, never drawn as 0.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/docread.h"
#include "common/tree.h"
#include "presets/preset.h"
#include "presets/tree_file.h"
#include "tools/escape.h"
#include "tools/html.h"
#include "tools/results.h"
#include "tools/xalloc.h"

static FILE *out;

static void esc(const char *s)
{
	esc__html(out, s);
}

#define DD_W 560.0 /* width of a full bar: a share of 1 */

struct dnode {
	const char *id, *name, *unit, *reason;
	int parent, depth, group; /* group: index of the bar, -1 none */
	bool known, has_err, base;
	double v, err, q, qerr; /* q: the share drawn, qerr its error */
	int over;               /* 1, 0, -1 unknown or no threshold */
};

struct dview {
	const char *title, *bneck, *why, *setting;
	int n;
	struct dnode *d;
};

static struct tree_table dd_trees;
static int dd_loaded;

static const struct tree *dd__tree(const char *name, const char *model)
{
	char path[8192], m[128];

	if (!dd_loaded) {
		dd_loaded = 1;
		pmu_preset__search_path(getenv("HPCSHIM_PRESET_PATH"), path, sizeof(path));
		pmu_tree_table__init(&dd_trees);
		pmu_tree_table__load_path(&dd_trees, path, NULL, NULL);
	}
	if (!model)
		return NULL;
	snprintf(m, sizeof(m), "%s", model);
	m[strcspn(m, " ")] = '\0'; /* the offline JSON lists the tree's models */
	return pmu_tree_table__find(&dd_trees, name ? name : "topdown", m);
}

static int dd__find(const struct dview *w, const char *id)
{
	for (int i = 0; id && i < w->n; i++)
		if (!strcmp(w->d[i].id, id))
			return i;
	return -1;
}

/* The nodes of one object, their structure from t (NULL: the offline
 * JSON's parents and units only), and the share each bar draws: a node's
 * value over its base (the nearest ancestor marked base, else the root)
 * as common/tree.c computes it, or a root fraction as it is. */
static void dd__build(struct dview *w, const struct dr_drill *x, const struct tree *t)
{
	int ng = 0, gbase[TREE_MAX_NODES * 2], gdepth[TREE_MAX_NODES * 2];

	w->n = (int)dr_drill__nnodes(x);
	w->d = xrealloc(NULL, sizeof(*w->d) * (size_t)(w->n ? w->n : 1));
	for (int i = 0; i < w->n; i++) {
		const struct dr_node *o = dr_drill__node(x, i);
		const char *id = dr_node__get(o, DR_NODE_ID);
		const char *name = dr_node__get(o, DR_NODE_NAME);
		const char *unit = dr_node__get(o, DR_NODE_UNIT);
		const char *parent = dr_node__get(o, DR_NODE_PARENT);
		const char *reason = dr_node__get(o, DR_NODE_REASON);
		struct dnode *d = &w->d[i];
		int k = t ? hs_tree__node(t, id ? id : "") : -1;

		*d = (struct dnode){ .id = id ? id : "?", .group = -1, .over = -1 };
		d->name = name ? name : k >= 0 ? t->node[k].name : "";
		d->unit = unit ? unit : k >= 0 ? t->node[k].unit : "";
		d->base = k >= 0 && t->node[k].base;
		d->known = dr_node__value(o, &d->v);
		if (!d->known)
			d->v = 0;
		d->has_err = d->known && dr_node__error(o, &d->err);
		if (d->known && !d->has_err)
			d->err = 0;
		d->reason = reason ? reason : d->known ? NULL : "no value";
		d->over = dr_node__over(o);
		d->parent = dd__find(w, parent ? parent :
					k >= 0 && t->node[k].parent >= 0 ?
						t->node[t->node[k].parent].id :
						NULL);
		d->depth = d->parent >= 0 ? w->d[d->parent].depth + 1 : 0;
	}
	for (int i = 0; i < w->n; i++) {
		struct dnode *d = &w->d[i];
		int p = d->parent, g;

		while (p >= 0 && !w->d[p].base && w->d[p].parent >= 0)
			p = w->d[p].parent;
		if (!d->known)
			continue;
		if (p >= 0 && w->d[p].known && w->d[p].v != 0 &&
		    !strcmp(w->d[p].unit, d->unit)) {
			d->q = d->v / w->d[p].v;
			d->qerr = d->has_err ? d->err / fabs(w->d[p].v) : 0;
		} else if (d->parent < 0 && !strcmp(d->unit, "fraction")) {
			p = -1;
			d->q = d->v;
			d->qerr = d->has_err ? d->err : 0;
		} else {
			continue;
		}
		if (d->q < 0 || !isfinite(d->q))
			continue; /* a negative share is no segment: the table has it */
		for (g = 0; g < ng && (gbase[g] != p || gdepth[g] != d->depth); g++)
			;
		if (g == ng) {
			gbase[ng] = p;
			gdepth[ng++] = d->depth;
		}
		d->group = g;
	}
}

static void dd__pct(double q)
{
	fprintf(out, "%.1f%%", 100 * q);
}

/* One stacked bar: the nodes of group g, scaled to 1 or their sum. */
static void dd__bar(const struct dview *w, int g)
{
	static const char *const color[] = { "#2e86c1", "#e67e22", "#27ae60", "#8e44ad",
					     "#c0392b", "#17a589", "#d4ac0d", "#566573" };
	double sum = 0, x = 0, scale;
	int first = -1, k = 0, base = -1;

	for (int i = 0; i < w->n; i++)
		if (w->d[i].group == g) {
			sum += w->d[i].q;
			if (first < 0)
				first = i;
		}
	for (base = w->d[first].parent;
	     base >= 0 && !w->d[base].base && w->d[base].parent >= 0;)
		base = w->d[base].parent;
	if (w->d[first].parent < 0)
		base = -1;
	scale = sum > 1 ? sum : 1;
	fprintf(out, "<p class=dlevel>level %d: ", w->d[first].depth + 1);
	if (base >= 0) {
		fputs("shares of <b>", out);
		esc(w->d[base].id);
		fputs("</b>", out);
	} else {
		fputs("fractions of the whole", out);
	}
	if (sum > 1.0005) /* more than rounding */
		fprintf(out, " (they add up to %.1f%%: drawn to that sum)", 100 * sum);
	fprintf(out, "</p>\n<svg class=dbar width=%.0f height=30 role=img data-level=%d "
		     "data-scale=\"%.17g\">",
		DD_W + 20, w->d[first].depth + 1, scale);
	for (int i = 0; i < w->n; i++) {
		const struct dnode *d = &w->d[i];
		double wd = DD_W * d->q / scale;

		if (d->group != g)
			continue;
		fprintf(out, "<rect class=seg x=%.3f y=4 width=%.3f height=18 fill=\"%s\"%s "
			     "data-id=\"",
			x, wd, color[k % 8], d->over == 1 ? " stroke=\"#000\" stroke-width=2" : "");
		esc(d->id);
		fprintf(out, "\" data-share=\"%.17g\"><title>", d->q);
		esc(d->id);
		fputs(" ", out);
		dd__pct(d->q);
		fputs("</title></rect>", out);
		if (wd > 48) {
			fprintf(out, "<text x=%.1f y=17 fill=\"#fff\">", x + 3);
			dd__pct(d->q);
			fputs("</text>", out);
		}
		if (d->qerr > 0) /* value +- error, at the segment's end */
		{
			fputs("<line class=err data-id=\"", out);
			esc(d->id);
			fprintf(out, "\" x1=%.3f x2=%.3f y1=13 y2=13 "
				     "stroke=\"#000\"/><line x1=%.3f x2=%.3f y1=8 y2=18 "
				     "stroke=\"#000\"/><line x1=%.3f x2=%.3f y1=8 y2=18 "
				     "stroke=\"#000\"/>",
				x + wd - DD_W * d->qerr / scale,
				x + wd + DD_W * d->qerr / scale, x + wd - DD_W * d->qerr / scale,
				x + wd - DD_W * d->qerr / scale, x + wd + DD_W * d->qerr / scale,
				x + wd + DD_W * d->qerr / scale);
		}
		x += wd;
		k++;
	}
	fputs("</svg>\n<p class=legend>", out);
	k = 0;
	for (int i = 0; i < w->n; i++) {
		const struct dnode *d = &w->d[i];

		if (d->group != g)
			continue;
		fputs("<span class=lab data-id=\"", out);
		esc(d->id);
		fprintf(out, "\"><span style=\"color:%s\">&#x25A0;</span> ", color[k++ % 8]);
		esc(d->id);
		fputs(" ", out);
		dd__pct(d->q);
		if (d->qerr > 0) {
			fputs(" &plusmn;&nbsp;", out);
			dd__pct(d->qerr);
		}
		if (d->over == 1)
			fputs(" <b class=over>over</b>", out);
		fputs("</span> ", out);
	}
	fputs("</p>\n", out);
}

static void dd__section(const struct dview *w, int idx)
{
	int ngroup = -1, known = 0;

	for (int i = 0; i < w->n; i++) {
		known += w->d[i].known;
		if (w->d[i].group > ngroup)
			ngroup = w->d[i].group;
	}
	fprintf(out, "<section class=drill id=drill-%d data-scope=\"", idx);
	esc(w->title);
	fputs("\"><h3>", out);
	esc(w->title);
	fputs("</h3>\n", out);
	if (!known) {
		/* Nothing to draw: say why, once per distinct reason. */
		fputs("<p class=why>No node could be evaluated, so nothing is drawn: ", out);
		for (int i = 0; i < w->n; i++) {
			int k;

			for (k = 0; k < i && strcmp(w->d[k].reason, w->d[i].reason); k++)
				;
			if (k < i)
				continue;
			fputs(i ? "; " : "", out);
			esc(w->d[i].reason);
		}
		fputs(".</p>\n", out);
	} else if (w->bneck) {
		fputs("<p class=bneck>bottleneck: <b>", out);
		esc(w->bneck);
		fputs("</b>", out);
		if (w->why) {
			fputs("; next step: ", out);
			esc(w->why);
		}
		if (w->setting) {
			fputs(" &mdash; run with <code class=setting>", out);
			esc(w->setting);
			fputs("</code>", out);
		}
		fputs("</p>\n", out);
	} else {
		fputs("<p class=bneck>bottleneck: none over its threshold</p>\n", out);
	}
	for (int g = 0; g <= ngroup; g++)
		dd__bar(w, g);
	fputs("<table class=dnodes><tr><th>node</th><th>name</th><th>value</th>"
	      "<th>share</th><th>unit</th><th>over</th></tr>\n",
	      out);
	for (int i = 0; i < w->n; i++) {
		const struct dnode *d = &w->d[i];

		fprintf(out, "<tr class=%s data-id=\"", d->known ? "dnode" : "dnull");
		esc(d->id);
		fprintf(out, "\"><td style=\"padding-left:%.1fem\">", 0.5 + 1.2 * d->depth);
		esc(d->id);
		fputs("</td><td class=dname>", out);
		esc(d->name);
		fputs("</td>", out);
		if (!d->known) {
			fputs("<td colspan=4 class=na>null: <span class=reason>", out);
			esc(d->reason);
			fputs("</span></td>", out);
		} else {
			fprintf(out, "<td data-value=\"%.17g\">%.4g", d->v, d->v);
			if (d->has_err && d->err > 0)
				fprintf(out, " &plusmn;&nbsp;%.2g", d->err);
			fputs("</td>", out);
			if (d->group >= 0) {
				fputs("<td>", out);
				dd__pct(d->q);
				fputs("</td>", out);
			} else {
				fputs("<td class=na>-</td>", out);
			}
			fputs("<td>", out);
			esc(d->unit);
			fprintf(out, "</td><td>%s</td>",
				d->over == 1 ? "<b class=over>over</b>" :
				d->over == 0 ? "no" : "-");
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></section>\n", out);
}

/* A drill-down object: the shim's "<key>_drilldown" in the results, or
 * a scope of the offline JSON (tree: found by its name and model). */
static void dd__object(const struct dr_drill *dd, const struct tree *t, const char *title,
		       int *idx)
{
	struct dview w = { .title = title };

	if (!dd)
		return;
	dd__build(&w, dd, t);
	w.bneck = dr_drill__get(dd, DR_DRILL_BOTTLENECK);
	w.why = dr_drill__get(dd, DR_DRILL_WHY);
	w.setting = dr_drill__get(dd, DR_DRILL_SETTING);
	if (w.setting && !*w.setting)
		w.setting = NULL;
	dd__section(&w, (*idx)++);
	free(w.d);
}

static const struct tree *dd__tree_of(const struct dr_drill *dd, const char *model)
{
	return dd ? dd__tree(dr_drill__get(dd, DR_DRILL_TREE), model) : NULL;
}

/* The process's (or job's) and each region's inclusive drill-down. */
static void drilldown__doc(const struct result *r, size_t f, bool titled, int *idx)
{
	const struct dr_doc *doc = r->doc;
	const char *model = dr_doc__model(doc);
	char who[64] = "", title[512];
	struct dr_rank rk;

	dr_doc__rank(doc, 0, &rk);
	if (titled)
		snprintf(who, sizeof(who), "rank %lld: ",
			 rk.rank >= 0 ? (long long)rk.rank : (long long)f);
	snprintf(title, sizeof(title), "%sprocess", who);
	dd__object(dr_doc__drill(doc), dd__tree_of(dr_doc__drill(doc), model), title, idx);
	for (size_t i = 0; i < dr_doc__nregions(doc); i++) {
		const struct dr_region *g = dr_doc__region(doc, i);
		const struct dr_drill *dd = dr_region__drill(g, DR_INCLUSIVE);

		snprintf(title, sizeof(title), "%sregion %s (inclusive)", who,
			 dr_region__name(g));
		dd__object(dd, dd__tree_of(dd, model), title, idx);
	}
}

/* Stacked bars of the process's and each region's (inclusive) drill-down
 * in the results, then of the offline JSON's scopes (but the exclusive
 * ones). */
void html__drilldown(FILE *f, const struct results *s, const struct dr_doc *offline)
{
	const char *tname = NULL, *models = NULL;
	int idx = 0, any = 0;
	char title[512];

	out = f;
	for (size_t i = 0; i < s->n; i++)
		any |= dr_doc__drill(s->r[i].doc) != NULL;
	if (!any && !offline)
		return;
	fputs("<h2>Drill-down</h2>\n<p>Per level of the stall tree, the shares of "
	      "its nodes as stacked bars (a share is of the nearest base node above, "
	      "else of the whole); error bars are value &plusmn; the propagated "
	      "standard error; <b>over</b>: above the node's threshold (outlined). "
	      "A node with no value is listed with its reason, never drawn.</p>\n",
	      out);
	for (size_t i = 0; i < s->n; i++)
		drilldown__doc(&s->r[i], i, s->n > 1, &idx);
	if (offline)
		tname = dr_doc__offline_tree(offline, &models);
	for (size_t i = 0; offline && i < dr_doc__nscopes(offline); i++) {
		const struct dr_drill *sc = dr_doc__scope(offline, i);
		const char *name = dr_drill__get(sc, DR_DRILL_SCOPE);
		size_t len;

		name = name ? name : "?";
		len = strlen(name);
		if (len > 10 && !strcmp(name + len - 10, " exclusive"))
			continue;
		snprintf(title, sizeof(title), "%s (offline, tree %s)", name,
			 tname ? tname : "?");
		dd__object(sc, dd__tree(tname, models), title, &idx);
	}
}

void html__drilldown_free(void)
{
	if (dd_loaded)
		pmu_tree_table__free(&dd_trees);
	dd_loaded = 0;
}
