/* cmd_html.c - hpcshim html: one self-contained HTML report.
 *
 * Usage: hpcshim html [-o report.html] [--drilldown DRILL.json] FILE|DIR ...
 *
 * No script, no external file, no font: CSS inline, charts as inline SVG
 * drawn here, so the page reads offline and without JavaScript.  Sections:
 * the header (command, hosts, ranks, threads, dropped events and why,
 * each reason once), where the time went and the OpenMP constructs when
 * the results carry them (tools/html_profile.c: the answer first), the
 * region tree (nested, inclusive and exclusive per event, wall time,
 * per-call statistics of the main event and of the wall time), the flat
 * regions (each name wherever it was entered), per-thread and per-rank
 * bars of the main event with the imbalance (max/mean - 1) over the threads
 * that did the work and who was max (the MPI library's helper threads
 * apart: tools/rows.h), the time series
 * (HPCSHIM_INTERVAL), the coverage of multiplexed values, and the
 * drill-down (stacked bars per tree level with error bars) of the process
 * and each region when the results carry it (HPCSHIM_PRESET=topdown), and
 * of the scopes of `hpcshim drilldown --json` output given with
 * --drilldown (tools/html_drill.c).  Numbers are the JSON's
 * (tools/rows.c), each value cell carries it unformatted in data-value.
 */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/result.h"
#include "common/strtab.h"
#include "tools/cmd.h"
#include "tools/escape.h"
#include "tools/html.h"
#include "tools/membound.h"
#include "tools/rows.h"

#include "tools/xalloc.h"

static const char usage_line[] =
	"usage: hpcshim html [-o report.html] [--drilldown DRILL.json] FILE|DIR ...\n";

static FILE *out;

static void esc(const char *s)
{
	esc__html(out, s);
}

static void num(double v, const char *ev)
{
	if (rows__is_time(ev))
		fprintf(out, "%.3f&nbsp;ms", v / 1e6);
	else
		fprintf(out, "%.0f", v);
}

/* A value cell: the shown text and the exact value for a reader. */
static void cell(const struct cell *c, const char *ev)
{
	if (!c->has) {
		fputs("<td class=na>n/a</td>", out);
		return;
	}
	fprintf(out, "<td data-value=\"%.17g\">", c->v);
	num(c->v, ev);
	if (c->se >= 0) {
		fputs(" &plusmn;&nbsp;", out);
		num(c->se, ev);
	}
	if (c->cov >= 0)
		fprintf(out, " <small>(%.1f%%)</small>", c->cov * 100);
	fputs("</td>", out);
}

static void ms_cell(double ns)
{
	if (ns < 0)
		fputs("<td class=na>-</td>", out);
	else
		fprintf(out, "<td data-value=\"%.17g\">%.3f&nbsp;ms</td>", ns,
			ns / 1e6);
}

/* Tables fit a 1280 px window at four events (tests/command/test_html.py):
 * the body is as wide as the window, tables in 12 px with narrow padding,
 * headers and names wrap (a long name anywhere), a value breaks only
 * between its parts; prose keeps a readable measure.  A table of many
 * more events scrolls inside its own box (.wide), never the page. */
static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:1em 1.5em;color:#222}"
	"p,dl,ul,h1,h2,h3{max-width:70em}"
	"h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc;margin-top:1.6em}"
	"table{border-collapse:collapse;margin:.5em 0;font-size:12px}td,th{border:1px solid #ddd;"
	"padding:2px 4px;text-align:right}th{background:#f3f3f3}"
	"td:first-child,th:first-child{text-align:left;overflow-wrap:anywhere;min-width:8em}"
	".wide{overflow-x:auto;max-width:100%}"
	".na{color:#999}.warn{color:#a40}"
	"svg text{font:11px sans-serif}dl{display:grid;grid-template-columns:max-content auto;"
	"gap:2px 1em}dt{font-weight:bold}dd{margin:0;overflow-wrap:anywhere}"
	".over{color:#c0392b}.legend{margin:0 0 .6em}"
	".legend .lab{margin-right:1em;white-space:nowrap}.dlevel{margin:.4em 0 0}"
	".dnodes td.dname,.dnodes td.na{text-align:left}"
	".sw{display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:-.1em}"
	".culprit{font-weight:bold;color:#c0392b}#findings li{margin:.2em 0}";

/* Each host once, in rank order (a job of many ranks: found by hash). */
static void hosts(const struct results *s)
{
	struct hs_strtab seen = { 0 };

	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < dr_doc__nranks(s->r[i].doc); k++) {
			struct dr_rank rk;
			bool added;

			dr_doc__rank(s->r[i].doc, k, &rk);
			if (hs_strtab__intern(&seen, rk.host, &added) < 0) {
				fputs("hpcshim: out of memory\n", stderr);
				exit(XALLOC_STATUS);
			}
			if (!added)
				continue;
			if (seen.n > 1)
				fputs(", ", out);
			esc(rk.host);
		}
	hs_strtab__free(&seen);
}

/* Why event e was dropped, once: its reason, which starts with its error
 * name as the shim writes it ("ENOENT: ..."), else both. */
static void why_dropped(const struct dr_event *e, char *buf, size_t len)
{
	const char *err = e->error ? e->error : "?";

	if (!e->reason)
		snprintf(buf, len, "%s", err);
	else if (!e->error || strncmp(e->reason, e->error, strlen(e->error)) == 0)
		snprintf(buf, len, "%s", e->reason);
	else
		snprintf(buf, len, "%s (%s)", err, e->reason);
}

/* The dropped events, those with the same reason named together before it
 * (every hardware event of a host without a PMU: one reason, said once). */
static void dropped(const struct dr_doc *d0)
{
	size_t n = dr_doc__nevents(d0);
	bool *done = xrealloc(NULL, (n ? n : 1) * sizeof(*done));
	char why[512], other[512];
	int nd = 0;

	memset(done, 0, (n ? n : 1) * sizeof(*done));
	for (size_t i = 0; i < n; i++) {
		struct dr_event e;

		dr_doc__event(d0, i, &e);
		if (done[i] || strcmp(e.status, "dropped"))
			continue;
		why_dropped(&e, why, sizeof(why));
		fputs(nd++ ? "; " : "", out);
		fputs("<span class=warn>", out);
		esc(e.name ? e.name : "?");
		for (size_t j = i + 1; j < n; j++) {
			struct dr_event f;

			dr_doc__event(d0, j, &f);
			if (done[j] || strcmp(f.status, "dropped"))
				continue;
			why_dropped(&f, other, sizeof(other));
			if (strcmp(why, other))
				continue;
			done[j] = true;
			fputs(", ", out);
			esc(f.name ? f.name : "?");
		}
		fputs("</span>: ", out);
		esc(why);
	}
	if (!nd)
		fputs("none", out);
	free(done);
}

static void header(const struct results *s, const char **ev, size_t nev)
{
	const struct dr_doc *d0 = s->r[0].doc;
	long long threads = 0;
	size_t ranks = 0;

	for (size_t i = 0; i < s->n; i++) {
		threads += dr_doc__thread_count(s->r[i].doc);
		ranks += dr_doc__nranks(s->r[i].doc);
	}
	fputs("<h1>hpcshim report: <code>", out);
	for (size_t i = 0; i < dr_doc__nargs(d0); i++) {
		if (i)
			fputc(' ', out);
		esc(dr_doc__arg(d0, i));
	}
	fputs("</code></h1>\n<dl id=header>", out);
	fputs("<dt>hosts</dt><dd>", out);
	hosts(s);
	fprintf(out, "</dd><dt>ranks</dt><dd id=ranks>%zu</dd><dt>threads</dt><dd id=threads>"
		     "%lld</dd><dt>events</dt><dd>",
		ranks, threads);
	for (size_t e = 0; e < nev; e++) {
		fputs(e ? ", " : "", out);
		esc(ev[e]);
	}
	fputs("</dd><dt>dropped</dt><dd id=dropped>", out);
	dropped(d0);
	fputs("</dd>", out);
	if (s->nbad) {
		fputs("<dt>skipped</dt><dd class=warn>", out);
		for (size_t i = 0; i < s->nbad; i++) {
			fputs(i ? "; " : "", out);
			esc(s->bad[i].path);
			fputs(": ", out);
			esc(s->bad[i].why);
		}
		fputs("</dd>", out);
	}
	fputs("</dl>\n", out);
}

/* Two header cells per event: inclusive and exclusive. */
static void event_heads(const char **ev, size_t nev)
{
	for (size_t e = 0; e < nev; e++) {
		fputs("<th>", out);
		esc(ev[e]);
		fputs(" inclusive</th><th>", out);
		esc(ev[e]);
		fputs(" exclusive</th>", out);
	}
}

static void regions(const struct results *s, const char **ev, size_t nev)
{
	struct rowset in, ex;

	rows__build(&in, s, VIEW_REGION, ev, nev, 0);
	rows__build(&ex, s, VIEW_REGION, ev, nev, 1);
	fputs("<h2>Regions</h2>\n<p>Each name over every thread and rank, wherever "
	      "it was entered.</p>\n<div class=wide><table id=regions><tr><th>region</th><th>calls</th>"
	      "<th>threads</th><th>ranks</th>",
	      out);
	event_heads(ev, nev);
	fputs("<th>per call: min / mean / max</th><th>wall inclusive</th>"
	      "<th>wall exclusive</th></tr>\n",
	      out);
	for (size_t i = 0; i < in.n; i++) {
		const struct row *r = &in.r[i];
		struct dr_percall pc = { 0 };

		fputs("<tr><td>", out);
		esc(r->name);
		fprintf(out, "</td><td>%lld</td><td>%d</td><td>%d</td>", r->calls, r->threads,
			r->ranks);
		for (size_t e = 0; e < nev; e++) {
			cell(&r->c[e], ev[e]);
			cell(&ex.r[i].c[e], ev[e]);
		}
		for (size_t f = 0; f < s->n && !pc.present; f++) {
			const struct dr_region *g = dr_doc__region_named(s->r[f].doc, r->name);

			if (g)
				dr_region__percall(g, &pc);
		}
		if (pc.present && s->n == 1) {
			const char *pe = pc.event ? pc.event : "?";

			fputs("<td>", out);
			num(pc.min, pe);
			fputs(" / ", out);
			num(pc.mean, pe);
			fputs(" / ", out);
			num(pc.max, pe);
			fputs(" <small>", out);
			esc(pe);
			fputs("</small></td>", out);
		} else {
			fputs("<td class=na>-</td>", out);
		}
		ms_cell(r->wall);
		ms_cell(ex.r[i].wall);
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	rows__free(&in);
	rows__free(&ex);
}

static void percall_cell(const struct percall *pc, const char *ev, const char *cls)
{
	if (!pc->n) {
		fputs("<td class=na>-</td>", out);
		return;
	}
	fprintf(out,
		"<td class=%s data-min=\"%.17g\" data-mean=\"%.17g\" data-max=\"%.17g\">",
		cls, pc->min, pc->mean, pc->max);
	num(pc->min, ev);
	fputs(" / ", out);
	num(pc->mean, ev);
	fputs(" / ", out);
	num(pc->max, ev);
	fputs("</td>", out);
}

/* The region tree: one row per path of nested regions (each thread
 * record's parent chain), over threads and ranks, depth first; inclusive
 * and exclusive values, wall time, the per-call statistics of the main
 * event and of the wall time merged over the records. */
static void tree(const struct results *s, const char **ev, size_t nev)
{
	struct rowset in, ex;
	const char *pe = NULL;
	const struct row **path = NULL;

	rows__build(&in, s, VIEW_TREE, ev, nev, 0);
	rows__build(&ex, s, VIEW_TREE, ev, nev, 1);
	for (size_t i = 0; i < in.n && !pe; i++)
		pe = in.r[i].pc_event;
	fputs("<h2>Region tree</h2>\n<p>Regions nested as they were entered (the region "
	      "open at a name's first BEGIN on each thread), summed over threads and "
	      "ranks; exclusive = inclusive minus the nested regions.</p>\n"
	      "<div class=wide><table id=tree><tr><th>region</th><th>calls</th><th>threads</th><th>ranks</th>"
	      "<th>wall inclusive</th><th>wall exclusive</th>",
	      out);
	event_heads(ev, nev);
	fputs("<th>per call", out);
	if (pe) {
		fputs(" (", out);
		esc(pe);
		fputs(")", out);
	}
	fputs(": min / mean / max</th><th>wall per call: min / mean / max</th>", out);
	for (size_t k = 0; k < in.nm; k++) {
		fputs("<th class=metric>", out);
		esc(rows__metric_name(&in, k));
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t i = 0; i < in.n; i++) {
		const struct row *r = &in.r[i];
		const struct row *u;

		fprintf(out, "<tr class=node data-depth=%d data-path=\"", r->depth);
		/* the path, top first: the chain up walked once */
		path = xrealloc(path, ((size_t)r->depth + 1) * sizeof(*path));
		u = r;
		for (int d = r->depth; d >= 0; d--) {
			path[d] = u;
			u = u->up >= 0 ? &in.r[u->up] : u;
		}
		for (int d = 0; d <= r->depth; d++) {
			if (d)
				fputc('/', out);
			esc(path[d]->name);
		}
		fprintf(out, "\"><td style=\"padding-left:%.1fem\">%s",
			0.5 + 1.4 * r->depth, r->depth ? "&#x2514;&nbsp;" : "");
		esc(r->name);
		fprintf(out, "</td><td>%lld</td><td>%d</td><td>%d</td>", r->calls,
			r->threads, r->ranks);
		ms_cell(r->wall);
		ms_cell(ex.r[i].wall);
		for (size_t e = 0; e < nev; e++) {
			cell(&r->c[e], ev[e]);
			cell(&ex.r[i].c[e], ev[e]);
		}
		percall_cell(&r->pc, r->pc_event ? r->pc_event : "", "percall");
		percall_cell(&r->pc_wall, "task-clock", "percallwall");
		for (size_t k = 0; k < in.nm; k++) { /* inclusive: a ratio of sums */
			if (r->m[k].has) {
				fprintf(out,
					"<td class=metric data-value=\"%.17g\">%.4g</td>",
					r->m[k].v, r->m[k].v);
			} else {
				fputs("<td class=na title=\"", out);
				esc(r->m[k].why);
				fputs("\">n/a</td>", out);
			}
		}
		fputs("</tr>\n", out);
	}
	if (!in.n)
		fputs("<tr><td colspan=6 class=na>no regions</td></tr>\n", out);
	fputs("</table></div>\n", out);
	free(path);
	rows__free(&in);
	rows__free(&ex);
}

/* Horizontal bars of one event over the rows of a view, with the
 * imbalance and the row that was max.  In the thread view the balance is
 * over the threads that did the program's work: the MPI library's helper
 * threads (tools/rows.h, rows__helper) are drawn apart, after them, grey,
 * and left out of the imbalance and the max. */
static void bars(const struct results *s, enum view v, const char *ev, const char *id)
{
	struct rowset rs;
	const char *one[1] = { ev };
	double max = 0, sum = 0, top = 0;
	size_t n = 0, at = 0, nhelp = 0, y = 0;
	size_t *order;
	int h = 18;

	rows__build(&rs, s, v, one, 1, 0);
	order = xrealloc(NULL, (rs.n ? rs.n : 1) * sizeof(*order));
	for (size_t i = 0; i < rs.n; i++) { /* the workers, then the helpers */
		if (!rs.r[i].helper)
			order[y++] = i;
		if (rs.r[i].c[0].has && rs.r[i].c[0].v > top)
			top = rs.r[i].c[0].v;
	}
	for (size_t i = 0; i < rs.n; i++)
		if (rs.r[i].helper)
			order[y++] = i;
	for (size_t i = 0; i < rs.n; i++) {
		if (rs.r[i].helper) {
			nhelp++;
			continue;
		}
		if (rs.r[i].c[0].has) {
			sum += rs.r[i].c[0].v;
			n++;
			if (rs.r[i].c[0].v > max || n == 1) {
				max = rs.r[i].c[0].v;
				at = i;
			}
		}
	}
	fputs("<h3>", out);
	esc(ev);
	fprintf(out, " per %s</h3>\n", v == VIEW_RANK ? "rank" : "thread");
	if (!n) {
		fputs("<p class=na>no values</p>\n", out);
		free(order);
		rows__free(&rs);
		return;
	}
	fprintf(out, "<p id=%s-imbalance data-value=\"%.17g\" data-n=%zu>imbalance (max/mean - 1)",
		id, sum > 0 ? max / (sum / n) - 1 : 0, n);
	if (nhelp)
		fprintf(out, " over the %zu threads that did the work", n);
	fprintf(out, ": <b>%.1f%%</b>; max: ", sum > 0 ? (max / (sum / n) - 1) * 100 : 0);
	if (v == VIEW_RANK)
	{
		fprintf(out, "rank %d (", rs.r[at].rank);
		esc(rs.r[at].host);
		fprintf(out, ":%lld)</p>\n", rs.r[at].pid);
	}
	else
		fprintf(out, "rank %d tid %lld</p>\n", rs.r[at].rank, rs.r[at].tid);
	if (nhelp)
		fprintf(out, "<p id=%s-helpers data-n=%zu>%zu helper thread%s of the MPI library "
			     "(not the main or an OpenMP team's thread, no region but MPI and I/O calls, "
			     "on a CPU under a tenth of its time) drawn apart, grey, after a line; "
			     "not in the imbalance</p>\n",
			id, nhelp, nhelp, nhelp == 1 ? "" : "s");
	fprintf(out, "<svg id=%s width=620 height=%zu role=img>\n", id,
		rs.n * (size_t)h + 4 + (nhelp ? 6 : 0));
	y = 0;
	for (size_t j = 0; j < rs.n; j++) {
		size_t i = order[j];
		const struct cell *c = &rs.r[i].c[0];
		double w = c->has && top > 0 ? 400 * c->v / top : 0;
		const char *fill = rs.r[i].helper ? "#aab7b8" : i == at ? "#c0392b" : "#2e86c1";
		char label[96];

		if (rs.r[i].helper && (j == 0 || !rs.r[order[j - 1]].helper)) {
			fprintf(out, "<line x1=0 x2=600 y1=%zu y2=%zu stroke=\"#999\" "
				     "stroke-dasharray=\"3,3\"/>", y + 2, y + 2);
			y += 6;
		}
		if (v == VIEW_RANK)
			snprintf(label, sizeof(label), "rank %d", rs.r[i].rank);
		else if (rs.r[i].omp >= 0)
			snprintf(label, sizeof(label), "r%d tid %lld omp %lld", rs.r[i].rank,
				 rs.r[i].tid, rs.r[i].omp);
		else
			snprintf(label, sizeof(label), "r%d tid %lld%s", rs.r[i].rank, rs.r[i].tid,
				 rs.r[i].helper ? " helper" : "");
		fprintf(out, "<text x=0 y=%zu>%s</text>", y + 13, label);
		fprintf(out, "<rect x=140 y=%zu width=%.1f height=%d fill=\"%s\"%s data-value=\"%.17g\"/>",
			y + 2, w, h - 4, fill, rs.r[i].helper ? " class=helper" : "", c->v);
		if (c->has && c->se > 0)
			fprintf(out, "<line x1=%.1f x2=%.1f y1=%zu y2=%zu stroke=\"black\"/>",
				140 + 400 * (c->v - c->se) / top, 140 + 400 * (c->v + c->se) / top,
				y + h / 2, y + h / 2);
		fprintf(out, "<text x=%.1f y=%zu>", 145 + w, y + 13);
		if (c->has)
			num(c->v, ev);
		fputs("</text>\n", out);
		y += (size_t)h;
	}
	fputs("</svg>\n", out);
	free(order);
	rows__free(&rs);
}

/* One polyline per thread of event ev's series, over the thread's CPU
 * time. */
static void series(const struct results *s, const char *ev)
{
	static const char *const color[] = { "#2e86c1", "#c0392b", "#27ae60", "#8e44ad",
					     "#d68910", "#17a589", "#566573", "#cb4335" };
	double tmax = 0, vmax = 0;
	int any = 0, k = 0;

	for (size_t f = 0; f < s->n; f++) {
		const struct dr_doc *doc = s->r[f].doc;

		for (size_t i = 0; i < dr_doc__nthreads(doc); i++) {
			const struct dr_series *se = dr_thread__series(dr_doc__thread(doc, i));
			size_t n = dr_series__len(se, ev);
			double x;

			for (size_t j = 0; j < n; j++) {
				any = 1;
				if (dr_series__t(se, j, &x) && x > tmax)
					tmax = x;
				if (dr_series__point(se, ev, j, &x) && x > vmax)
					vmax = x;
			}
		}
	}
	if (!any)
		return;
	fputs("<h2>Time series</h2>\n<h3>", out);
	esc(ev);
	fputs(" per interval (HPCSHIM_INTERVAL), over thread CPU time</h3>\n", out);
	fputs("<svg id=series width=640 height=240 role=img><rect x=40 y=10 width=580 "
	      "height=200 fill=none stroke=\"#ccc\"/>\n",
	      out);
	fprintf(out, "<text x=0 y=18>%.0f</text><text x=40 y=228>0</text>"
		     "<text x=560 y=228>%.1f ms</text>\n",
		rows__is_time(ev) ? vmax / 1e6 : vmax, tmax / 1e6);
	for (size_t f = 0; f < s->n; f++) {
		const struct dr_doc *doc = s->r[f].doc;

		for (size_t i = 0; i < dr_doc__nthreads(doc); i++) {
			const struct dr_thread *th = dr_doc__thread(doc, i);
			const struct dr_series *se = dr_thread__series(th);
			double x, y;

			if (!dr_series__npoints(se, ev))
				continue;
			fprintf(out, "<polyline fill=none stroke=\"%s\" data-tid=%lld points=\"",
				color[k++ % 8], dr_thread__tid(th) < 0 ? 0 : dr_thread__tid(th));
			for (size_t j = 0; j < dr_series__len(se, ev); j++) {
				if (!dr_series__t(se, j, &x) || !dr_series__point(se, ev, j, &y))
					continue;
				fprintf(out, "%.1f,%.1f ", 40 + 580 * x / (tmax > 0 ? tmax : 1),
					210 - 200 * y / (vmax > 0 ? vmax : 1));
			}
			fputs("\"/>\n", out);
		}
	}
	fputs("</svg>\n", out);
}

/* Multiplexed values: the coverage of every event over every thread. */
static void coverage(const struct results *s, const char **ev, size_t nev)
{
	struct rowset rs;
	int any = 0;

	rows__build(&rs, s, VIEW_THREAD, ev, nev, 0);
	for (size_t i = 0; i < rs.n; i++)
		for (size_t e = 0; e < nev; e++)
			any |= rs.r[i].c[e].has && rs.r[i].c[e].cov >= 0;
	fputs("<h2>Coverage of multiplexed values</h2>\n", out);
	if (!any) {
		fputs("<p id=coverage>every value was counted all the time (exact)</p>\n", out);
		rows__free(&rs);
		return;
	}
	fputs("<div class=wide><table id=coverage><tr><th>thread</th>", out);
	for (size_t e = 0; e < nev; e++)
	{
		fputs("<th>", out);
		esc(ev[e]);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t i = 0; i < rs.n; i++) {
		fprintf(out, "<tr><td>r%d tid %lld</td>", rs.r[i].rank, rs.r[i].tid);
		for (size_t e = 0; e < nev; e++) {
			const struct cell *c = &rs.r[i].c[e];

			if (c->has && c->cov >= 0)
				fprintf(out, "<td>%.1f%%</td>", c->cov * 100);
			else
				fputs("<td>100%</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	rows__free(&rs);
}

int html_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "drilldown", required_argument, NULL, 'd' },
		{ 0, 0, 0, 0 },
	};
	const char *path = NULL, **ev, *ddpath = NULL;
	struct dr_doc *dd = NULL;
	struct results s;
	char *page = NULL;
	size_t nev, pagelen = 0;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (opt == 'o') {
			path = optarg;
		} else if (opt == 'd') {
			ddpath = optarg;
		} else if (opt == 'h') {
			fputs(usage_line, stdout);
			fputs("\nOne self-contained HTML file (no script, no network): header,\n"
			      "where the time went (results of hpcshim run --profile: the job's\n"
			      "parts, one bar per rank, findings, MPI and I/O tables), the OpenMP\n"
			      "constructs (work and wait per thread), regions, per-thread and per-rank bars with imbalance, time\n"
			      "series, coverage of multiplexed values, drill-down bars of the\n"
			      "stall tree (HPCSHIM_PRESET=topdown, or --drilldown with the\n"
			      "output of `hpcshim drilldown --json`).  Without -o, stdout.\n",
			      stdout);
			return 0;
		} else {
			fputs(usage_line, stderr);
			return 2;
		}
	}
	if (optind == argc) {
		fputs(usage_line, stderr);
		return 2;
	}
	if (ddpath) {
		char why[256];

		dd = dr_doc__load(ddpath, why, sizeof(why));
		if (!dd || !dr_doc__is_offline(dd)) {
			fprintf(stderr, "hpcshim html: %s: not the output of `hpcshim "
					"drilldown --json`\n",
				ddpath);
			dr_doc__free(dd);
			return 2;
		}
	}
	if (membound__check("hpcshim html", MEMBOUND_HTML, false, argc - optind, argv + optind) < 0 ||
	    results__open(&s, "hpcshim html", argc - optind, argv + optind) < 0) {
		dr_doc__free(dd);
		return 2;
	}
	/* A named file is written whole, as merge writes its -o: through a
	 * device or FIFO, else a new file renamed into place, never a link
	 * followed nor a planted file truncated (aggregate/result.c). */
	out = path ? open_memstream(&page, &pagelen) : stdout;
	if (!out) {
		perror(path);
		results__free(&s);
		return 2;
	}
	nev = results__events(&s, &ev);
	fprintf(out, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
		     "<title>hpcshim report</title><style>%s</style></head><body>\n",
		css);
	header(&s, ev, nev);
	html__profile(out, &s); /* the answer first, when profiled */
	html__openmp(out, &s);
	tree(&s, ev, nev);
	regions(&s, ev, nev);
	if (nev) {
		fputs("<h2>Balance</h2>\n", out);
		bars(&s, VIEW_THREAD, ev[0], "threadbars");
		bars(&s, VIEW_RANK, ev[0], "rankbars");
		series(&s, ev[0]);
	}
	coverage(&s, ev, nev);
	html__drilldown(out, &s, dd);
	fputs("<p><small>hpcshim " PACKAGE_VERSION "</small></p>\n</body></html>\n", out);
	rc = (path ? fclose(out) : fflush(out)) != 0;
	if (!rc && path) {
		char err[512];

		if (pagelen && page[pagelen - 1] == '\n') /* write_text adds it */
			page[pagelen - 1] = '\0';
		rc = agg_result__write_text(path, page, true, err, sizeof(err)) != 0;
		if (rc)
			fprintf(stderr, "hpcshim html: %s\n", err);
	} else if (rc) {
		fprintf(stderr, "hpcshim html: %s: cannot write\n", path ? path : "stdout");
	}
	free(page);
	free(ev);
	dr_doc__free(dd);
	html__drilldown_free();
	rc = rc || s.nbad ? 2 : 0;
	results__free(&s);
	return rc;
}
