/* cmd_report.c - hpcshim report: tables of results.
 *
 * Usage: hpcshim report [--view summary|region|tree|thread|rank|openmp|profile] [--sort KEY]
 *                       [--top N] [-e EVENTS] [--exclusive]
 *                       [--format text|csv|json|markdown] FILE|DIR ...
 *
 * One process result and no view: its summary (tools/report_summary.c:
 * header, totals, regions, metrics, threads).  Several, a job document (a
 * whole job), or a view: the rows of the view over all the results
 * (tools/rows.c), each event's value with its
 * standard error and coverage where it was multiplexed, the wall time
 * when the results have it.  CSV is perf stat -x's shape: one line per
 * row and event, value,unit,event,pcnt-running,stderr after the row's
 * keys.  Files that cannot be read are named on stderr, listed as
 * skipped, and make the exit status 2.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/jsonutil.h"
#include "tools/cmd.h"
#include "tools/rows.h"

#include "tools/escape.h"
#include "tools/membound.h"
#include "tools/xalloc.h"

enum format { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_MD };

static const char usage_line[] =
	"usage: hpcshim report [--view summary|region|tree|thread|rank|openmp|profile] [--sort KEY]\n"
	"                      [--top N] [-e EVENTS] [--exclusive] [--format text|csv|json|markdown]\n"
	"                      [-x SEP] FILE|DIR ...\n";

static void report__help(void)
{
	fputs(usage_line, stdout);
	fputs("\nTables of hpcshim results.  A DIR stands for its hpcshim-*.json files\n"
	      "(one per process or rank).\n\n"
	      "  --view V       summary (one result: header, totals, regions, metrics,\n"
	      "                 threads), region (inclusive over threads and ranks),\n"
	      "                 tree (the regions nested as they were entered: one row\n"
	      "                 per path, over threads and ranks; siblings sorted),\n"
	      "                 thread (per rank and thread), rank (process totals),\n"
	      "                 openmp (per OpenMP construct: each thread's work and\n"
	      "                 wait, the imbalance, the slowest thread; text or json),\n"
	      "                 profile (where the time went: compute, MPI, I/O,\n"
	      "                 OpenMP waits, off CPU; MPI and I/O functions over the\n"
	      "                 ranks; memory; findings; text or json)\n"
	      "  --sort KEY     name, calls, wall or an event name (largest first)\n"
	      "  --top N        the first N rows\n"
	      "  -e EVENTS      only these events (comma-separated)\n"
	      "  --exclusive    region values exclusive of nested regions\n"
	      "  --format F     text, csv (perf stat -x style), json, markdown\n"
	      "  -x SEP         CSV separator (implies --format csv)\n\n"
	      "Multiplexed values show their standard error (+-) and coverage (the\n"
	      "share of the time the event was counted).  Exit status: 0; 2 when an\n"
	      "input could not be read (the others are reported).\n",
	      stdout);
}

/* ---- cells ---------------------------------------------------------------- */

static void fmt_value(char *buf, size_t len, const char *ev, double v)
{
	if (rows__is_time(ev))
		snprintf(buf, len, "%.3f", v / 1e6);
	else
		snprintf(buf, len, "%.0f", v);
}

static const char *view_name(enum view v)
{
	return v == VIEW_REGION ? "region" :
	       v == VIEW_THREAD ? "thread" :
	       v == VIEW_TREE   ? "tree" :
				  "rank";
}

/* A tree row's path from the top, names joined by sep. */
static void tree_path(const struct rowset *rs, const struct row *w, const char *sep,
		      char *b, size_t len)
{
	const struct row *up[256];
	int n = 0;
	size_t k = 0;

	for (const struct row *u = w; u->up >= 0 && n < 256; u = &rs->r[u->up])
		up[n++] = &rs->r[u->up];
	b[0] = 0;
	while (n-- > 0 && k < len)
		k += (size_t)snprintf(b + k, len - k, "%s%s", up[n]->name, sep);
	if (k < len)
		snprintf(b + k, len - k, "%s", w->name);
}

/* ---- a text grid: text and markdown ------------------------------------ */

struct grid {
	int ncols, nrows;
	char **cell;
	enum format f; /* text or markdown: how data cells are escaped */
};

static void grid__set(struct grid *g, int r, int c, const char *s)
{
	if (r >= g->nrows) {
		g->cell = xrealloc(g->cell, (size_t)(r + 1) * (size_t)g->ncols * sizeof(char *));
		memset(g->cell + (size_t)g->nrows * (size_t)g->ncols, 0,
		       (size_t)(r + 1 - g->nrows) * (size_t)g->ncols * sizeof(char *));
		g->nrows = r + 1;
	}
	free(g->cell[(size_t)r * (size_t)g->ncols + (size_t)c]);
	g->cell[(size_t)r * (size_t)g->ncols + (size_t)c] = xstrdup(s);
}

/* A cell of text from the data (a name, a host): escaped for the grid's
 * medium (tools/escape.h). */
static void grid__set_data(struct grid *g, int r, int c, const char *s)
{
	char *e = g->f == FMT_MD ? esc__md_dup(s) : esc__term_dup(s);

	grid__set(g, r, c, e);
	free(e);
}

static const char *grid__get(const struct grid *g, int r, int c)
{
	const char *s = g->cell[(size_t)r * (size_t)g->ncols + (size_t)c];

	return s ? s : "";
}

static void grid__print(struct grid *g, enum format f)
{
	int *w = xrealloc(NULL, (size_t)g->ncols * sizeof(int));

	for (int c = 0; c < g->ncols; c++) {
		w[c] = 0;
		for (int r = 0; r < g->nrows; r++)
			if ((int)strlen(grid__get(g, r, c)) > w[c])
				w[c] = (int)strlen(grid__get(g, r, c));
	}
	for (int r = 0; r < g->nrows; r++) {
		if (f == FMT_MD) {
			fputs("|", stdout);
			for (int c = 0; c < g->ncols; c++)
				printf(" %s |", grid__get(g, r, c));
			putchar('\n');
			if (r == 0) {
				fputs("|", stdout);
				for (int c = 0; c < g->ncols; c++)
					fputs(c ? " ---: |" : " --- |", stdout);
				putchar('\n');
			}
			continue;
		}
		fputs("  ", stdout);
		for (int c = 0; c < g->ncols; c++) {
			int last = c == g->ncols - 1;

			if (c == 0)
				printf("%-*s", last ? 0 : w[c], grid__get(g, r, c));
			else
				printf("  %*s", w[c], grid__get(g, r, c));
		}
		putchar('\n');
	}
	for (int i = 0; i < g->nrows * g->ncols; i++)
		free(g->cell[i]);
	free(g->cell);
	free(w);
}

/* Which error and coverage columns an event needs: only where some row
 * was multiplexed, so exact results stay narrow. */
static void ev_extras(const struct rowset *rs, size_t e, int *se, int *cov)
{
	*se = *cov = 0;
	for (size_t i = 0; i < rs->n; i++) {
		*se |= rs->r[i].c[e].has && rs->r[i].c[e].se >= 0;
		*cov |= rs->r[i].c[e].has && rs->r[i].c[e].cov >= 0;
	}
}

static int any_wall(const struct rowset *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].wall >= 0)
			return 1;
	return 0;
}

static int md_tree; /* markdown: indent the tree with &nbsp; */

/* The row's key columns: region name, calls, threads, ranks; or rank,
 * host:pid, tid, OpenMP number; or rank, host, pid, threads. */
static int key_titles(struct grid *g, enum view v)
{
	static const char *const region[] = { "region", "calls", "threads", "ranks" };
	static const char *const thread[] = { "rank", "host:pid", "tid", "omp" };
	static const char *const rank[] = { "rank", "host", "pid", "threads" };
	const char *const *t = v == VIEW_REGION || v == VIEW_TREE ? region :
			       v == VIEW_THREAD                   ? thread :
								    rank;

	for (int i = 0; i < 4; i++)
		grid__set(g, 0, i, t[i]);
	return 4;
}

static void key_cells(struct grid *g, int r, const struct rowset *rs, const struct row *w)
{
	char b[300], *e;

	if (rs->view == VIEW_REGION || rs->view == VIEW_TREE) {
		/* the tree: two spaces a level (markdown: no-break ones) */
		size_t k = 0;

		for (int d = 0; d < w->depth && k + 16 < sizeof(b); d++)
			k += (size_t)snprintf(b + k, sizeof(b) - k, "%s",
					      md_tree ? "&nbsp;&nbsp;" : "  ");
		e = g->f == FMT_MD ? esc__md_dup(w->name) : esc__term_dup(w->name);
		snprintf(b + k, sizeof(b) - k, "%s", e);
		free(e);
		grid__set(g, r, 0, b);
		snprintf(b, sizeof(b), "%lld", w->calls);
		grid__set(g, r, 1, b);
		snprintf(b, sizeof(b), "%d", w->threads);
		grid__set(g, r, 2, b);
		snprintf(b, sizeof(b), "%d", w->ranks);
		grid__set(g, r, 3, b);
		return;
	}
	snprintf(b, sizeof(b), "%d", w->rank);
	grid__set(g, r, 0, b);
	if (rs->view == VIEW_THREAD) {
		snprintf(b, sizeof(b), "%s:%lld", w->host, w->pid);
		grid__set_data(g, r, 1, b);
		snprintf(b, sizeof(b), "%lld", w->tid);
		grid__set(g, r, 2, b);
		snprintf(b, sizeof(b), "%lld", w->omp);
		grid__set(g, r, 3, w->omp >= 0 ? b : "-");
	} else {
		grid__set_data(g, r, 1, w->host);
		snprintf(b, sizeof(b), "%lld", w->pid);
		grid__set(g, r, 2, b);
		snprintf(b, sizeof(b), "%d", w->threads);
		grid__set(g, r, 3, b);
	}
}

static void print_grid(const struct rowset *rs, size_t top, enum format f)
{
	struct grid g = { 0, 0, NULL, f };
	int col, wall = any_wall(rs), se, cov;
	size_t n = top && top < rs->n ? top : rs->n;
	int (*extra)[2] = xrealloc(NULL, (rs->nev ? rs->nev : 1) * sizeof(*extra));
	char b[128];

	g.ncols = 4 + wall + (int)rs->nm;
	for (size_t e = 0; e < rs->nev; e++) { /* once per event, not per row */
		ev_extras(rs, e, &extra[e][0], &extra[e][1]);
		g.ncols += 1 + extra[e][0] + extra[e][1];
	}
	col = key_titles(&g, rs->view);
	if (wall)
		grid__set(&g, 0, col++, "wall[ms]");
	for (size_t e = 0; e < rs->nev; e++) {
		se = extra[e][0];
		cov = extra[e][1];
		snprintf(b, sizeof(b), rows__is_time(rs->ev[e]) ? "%s[ms]" : "%s", rs->ev[e]);
		grid__set_data(&g, 0, col++, b);
		if (se)
			grid__set(&g, 0, col++, "+-");
		if (cov)
			grid__set(&g, 0, col++, "cov%");
	}
	for (size_t k = 0; k < rs->nm; k++)
		grid__set_data(&g, 0, col++, rows__metric_name(rs, k));
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &rs->r[i];
		int r = (int)i + 1;

		key_cells(&g, r, rs, w);
		col = 4;
		if (wall) {
			snprintf(b, sizeof(b), "%.3f", w->wall / 1e6);
			grid__set(&g, r, col++, w->wall >= 0 ? b : "n/a");
		}
		for (size_t e = 0; e < rs->nev; e++) {
			const struct cell *c = &w->c[e];

			se = extra[e][0];
			cov = extra[e][1];
			fmt_value(b, sizeof(b), rs->ev[e], c->v);
			grid__set(&g, r, col++, c->has ? b : "n/a");
			if (se) {
				fmt_value(b, sizeof(b), rs->ev[e], c->se);
				grid__set(&g, r, col++, c->has && c->se >= 0 ? b : "");
			}
			if (cov) {
				snprintf(b, sizeof(b), "%.1f", c->cov * 100);
				grid__set(&g, r, col++, c->has && c->cov >= 0 ? b : "");
			}
		}
		for (size_t k = 0; k < rs->nm; k++) {
			snprintf(b, sizeof(b), "%.4g", w->m[k].v);
			grid__set(&g, r, col++, w->m[k].has ? b : "n/a");
		}
	}
	grid__print(&g, f);
	free(extra);
}

/* ---- CSV: perf stat -x ---------------------------------------------------- */

static void csv_num(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		printf("%.0f", v);
	else
		printf("%.15g", v); /* the value, not a rounding of it */
}

static void print_csv(const struct rowset *rs, size_t top, const char *sep)
{
	size_t n = top && top < rs->n ? top : rs->n;

	if (rs->view == VIEW_REGION)
		printf("# region%scalls%s", sep, sep);
	else if (rs->view == VIEW_TREE)
		printf("# path%scalls%s", sep, sep);
	else if (rs->view == VIEW_THREAD)
		printf("# rank%shost%spid%stid%s", sep, sep, sep, sep);
	else
		printf("# rank%shost%spid%s", sep, sep, sep);
	printf("value%sunit%sevent%spcnt-running%sstderr%swall_ns\n", sep, sep, sep, sep, sep);
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &rs->r[i];

		for (size_t e = 0; e < rs->nev + rs->nm; e++) {
			const struct cell *c = &w->c[e < rs->nev ? e : 0];

			if (rs->view == VIEW_REGION) {
				esc__csv(stdout, w->name, sep);
				printf("%s%lld%s", sep, w->calls, sep);
			} else if (rs->view == VIEW_TREE) {
				char b[1024];

				tree_path(rs, w, "/", b, sizeof(b));
				esc__csv(stdout, b, sep);
				printf("%s%lld%s", sep, w->calls, sep);
			} else {
				printf("%d%s", w->rank, sep);
				esc__csv(stdout, w->host, sep);
				printf("%s%lld%s", sep, w->pid, sep);
				if (rs->view == VIEW_THREAD)
					printf("%lld%s", w->tid, sep);
			}
			if (e >= rs->nev) { /* a metric: unit "metric", no coverage */
				const struct mcell *m = &w->m[e - rs->nev];

				if (m->has) {
					csv_num(m->v);
				} else {
					char *why = xrealloc(NULL, strlen(m->why) + 3);

					sprintf(why, "<%s>", m->why);
					esc__csv(stdout, why, sep);
					free(why);
				}
				printf("%smetric%s", sep, sep);
				esc__csv(stdout, rows__metric_name(rs, e - rs->nev), sep);
				printf("%s%s", sep, sep);
				fputs(sep, stdout);
				if (w->wall >= 0)
					csv_num(w->wall);
				putchar('\n');
				continue;
			}
			if (c->has)
				csv_num(c->v);
			else
				fputs("<not counted>", stdout);
			printf("%s%s%s", sep, rows__is_time(rs->ev[e]) ? "ns" : "", sep);
			esc__csv(stdout, rs->ev[e], sep);
			fputs(sep, stdout);
			printf("%.2f%s", c->has && c->cov >= 0 ? c->cov * 100 : 100.0, sep);
			if (c->has && c->se >= 0)
				csv_num(c->se);
			fputs(sep, stdout);
			if (w->wall >= 0)
				csv_num(w->wall);
			putchar('\n');
		}
	}
}

/* ---- JSON ------------------------------------------------------------------- */

static json_object *jnum(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		return json_object_new_int64((int64_t)v);
	return agg_json__dbl(v);
}

static json_object *row_json(const struct rowset *rs, const struct row *w)
{
	json_object *o = json_object_new_object(), *vals = json_object_new_object();

	if (rs->view == VIEW_REGION || rs->view == VIEW_TREE) {
		json_object_object_add(o, "region", json_object_new_string(w->name));
		if (rs->view == VIEW_TREE) {
			json_object *path = json_object_new_array();

			for (const struct row *u = w; u->up >= 0;) {
				u = &rs->r[u->up];
				json_object_array_put_idx(
					path, (size_t)u->depth,
					json_object_new_string(u->name));
			}
			json_object_object_add(o, "parents", path);
			json_object_object_add(o, "depth",
					       json_object_new_int(w->depth));
		}
		json_object_object_add(o, "calls", json_object_new_int64(w->calls));
		json_object_object_add(o, "threads", json_object_new_int(w->threads));
		json_object_object_add(o, "ranks", json_object_new_int(w->ranks));
	} else {
		json_object_object_add(o, "rank", json_object_new_int(w->rank));
		json_object_object_add(o, "host", json_object_new_string(w->host));
		json_object_object_add(o, "pid", json_object_new_int64(w->pid));
		if (rs->view == VIEW_THREAD) {
			json_object_object_add(o, "tid", json_object_new_int64(w->tid));
			json_object_object_add(o, "omp_thread",
					       w->omp >= 0 ? json_object_new_int64(w->omp) : NULL);
		} else {
			json_object_object_add(o, "threads", json_object_new_int(w->threads));
		}
	}
	json_object_object_add(o, "wall_ns", w->wall >= 0 ? jnum(w->wall) : NULL);
	for (size_t e = 0; e < rs->nev; e++) {
		const struct cell *c = &w->c[e];
		json_object *v = json_object_new_object();

		json_object_object_add(v, "value", c->has ? jnum(c->v) : NULL);
		json_object_object_add(v, "stderr",
				       c->has && c->se >= 0 ? agg_json__dbl(c->se) : NULL);
		json_object_object_add(v, "coverage", c->has && c->cov >= 0 ?
							      agg_json__dbl(c->cov) :
							      NULL);
		json_object_object_add(vals, rs->ev[e], v);
	}
	json_object_object_add(o, "values", vals);
	if (rs->nm) {
		json_object *ms = json_object_new_object();

		for (size_t k = 0; k < rs->nm; k++) {
			json_object *m = json_object_new_object();

			json_object_object_add(
				m, "value",
				w->m[k].has ? agg_json__dbl(w->m[k].v) : NULL);
			if (!w->m[k].has)
				json_object_object_add(
					m, "reason",
					json_object_new_string(w->m[k].why));
			json_object_object_add(ms, rows__metric_name(rs, k), m);
		}
		json_object_object_add(o, "metrics", ms);
	}
	return o;
}

static void print_json(const struct rowset *rs, size_t top, const struct results *s)
{
	json_object *doc = json_object_new_object(), *rows = json_object_new_array();
	json_object *evs = json_object_new_array(), *sk = json_object_new_array();
	size_t n = top && top < rs->n ? top : rs->n;

	json_object_object_add(doc, "schema", json_object_new_string("hpcshim-report/1"));
	json_object_object_add(doc, "view", json_object_new_string(view_name(rs->view)));
	json_object_object_add(doc, "values",
			       json_object_new_string(rs->exclusive ? "exclusive" : "inclusive"));
	for (size_t e = 0; e < rs->nev; e++)
		json_object_array_add(evs, json_object_new_string(rs->ev[e]));
	json_object_object_add(doc, "events", evs);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(rows, row_json(rs, &rs->r[i]));
	json_object_object_add(doc, "rows", rows);
	for (size_t i = 0; i < s->nbad; i++) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "file", json_object_new_string(s->bad[i].path));
		json_object_object_add(b, "why", json_object_new_string(s->bad[i].why));
		json_object_array_add(sk, b);
	}
	json_object_object_add(doc, "skipped", sk);
	puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

/* ---- main ------------------------------------------------------------------- */

/* -e a,b: the columns, in the order given, among those counted. */
static size_t pick_events(const char **all, size_t n, const char *list, const char ***out)
{
	const char **v = xrealloc(NULL, (n ? n : 1) * sizeof(*v));
	size_t k = 0;
	char *copy, *tok, *save;

	if (!list) {
		memcpy(v, all, n * sizeof(*v));
		*out = v;
		return n;
	}
	copy = xstrdup(list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < n; i++)
			if (strcmp(all[i], tok) == 0 && k < n)
				v[k++] = all[i];
	free(copy);
	*out = v;
	return k;
}

static void print_view(const struct results *s, enum view v, const char **ev, size_t nev,
		       int exclusive, const char *sort, size_t top, enum format f,
		       const char *sep, int titled)
{
	struct rowset rs;

	rows__build(&rs, s, v, ev, nev, exclusive);
	if (sort && rows__sort(&rs, sort) < 0)
		fprintf(stderr, "hpcshim report: --sort %s: no such event or key, "
				"the input order is kept\n", sort);
	if (f == FMT_JSON) {
		print_json(&rs, top, s);
	} else if (f == FMT_CSV) {
		print_csv(&rs, top, sep);
	} else {
		if (titled && f == FMT_TEXT)
			printf("%s%s:\n",
			       v == VIEW_REGION || v == VIEW_TREE ? "regions" :
			       v == VIEW_THREAD                   ? "threads" :
								    "ranks",
			       v == VIEW_REGION || v == VIEW_TREE ?
				       (exclusive ? " (exclusive)" : " (inclusive)") :
				       "");
		if (titled && f == FMT_MD)
			printf("\n### %s\n\n", view_name(v));
		md_tree = f == FMT_MD && v == VIEW_TREE;
		print_grid(&rs, top, f);
	}
	rows__free(&rs);
}

int report_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "view", required_argument, NULL, 'V' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "exclusive", no_argument, NULL, 'X' },
		{ "events", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *view = NULL, *sort = NULL, *evlist = NULL, *sep = ",";
	const char **all, **ev;
	enum format f = FMT_TEXT;
	int opt, exclusive = 0, prc = 0;
	size_t top = 0, nall, nev;
	struct results s;
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "e:x:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'V': view = optarg; break;
		case 's': sort = optarg; break;
		case 'e': evlist = optarg; break;
		case 'X': exclusive = 1; break;
		case 'x': sep = optarg; f = FMT_CSV; break;
		case 'n':
			top = strtoul(optarg, &end, 10);
			if (*end || !*optarg) {
				fprintf(stderr, "hpcshim report: --top %s: not a number\n", optarg);
				fputs(usage_line, stderr);
				return 2;
			}
			break;
		case 'f':
			if (!strcmp(optarg, "text")) f = FMT_TEXT;
			else if (!strcmp(optarg, "csv")) f = FMT_CSV;
			else if (!strcmp(optarg, "json")) f = FMT_JSON;
			else if (!strcmp(optarg, "markdown") || !strcmp(optarg, "md")) f = FMT_MD;
			else {
				fprintf(stderr, "hpcshim report: --format %s: text, csv, json or markdown\n",
					optarg);
				return 2;
			}
			break;
		case 'h': report__help(); return 0;
		default: fputs(usage_line, stderr); return 2;
		}
	}
	if (view && strcmp(view, "summary") && strcmp(view, "region") &&
	    strcmp(view, "tree") && strcmp(view, "thread") && strcmp(view, "rank") &&
	    strcmp(view, "openmp") && strcmp(view, "profile")) {
		fprintf(stderr,
			"hpcshim report: --view %s: summary, region, tree, thread, rank, openmp or "
			"profile\n",
			view);
		return 2;
	}
	if (view && !strcmp(view, "profile") && f != FMT_TEXT && f != FMT_JSON) {
		fputs("hpcshim report: --view profile: --format text or json\n", stderr);
		return 2;
	}
	if (optind == argc) {
		fputs(usage_line, stderr);
		return 2;
	}
	if (membound__check("hpcshim report", MEMBOUND_REPORT, false, argc - optind,
			    argv + optind) < 0 ||
	    results__open(&s, "hpcshim report", argc - optind, argv + optind) < 0)
		return 2;
	nall = results__events(&s, &all);
	nev = pick_events(all, nall, evlist, &ev);
	if (!view && f == FMT_TEXT)
		report__profile_head(&s);
	if (!view)
		view = f == FMT_TEXT && s.n == 1 && !sort && !top && !evlist && !exclusive &&
				       dr_doc__kind(s.r[0].doc) == DR_PROCESS ?
			       "summary" :
		       (s.n > 1 || dr_doc__kind(s.r[0].doc) == DR_JOB) && f == FMT_TEXT ? "all" :
											 "region";
	if (!strcmp(view, "profile")) {
		prc = report__profile(&s, f == FMT_JSON);
	} else if (!strcmp(view, "openmp")) {
		report__openmp(&s, f == FMT_JSON, f == FMT_CSV ? sep : NULL);
	} else if (!strcmp(view, "summary")) {
		for (size_t i = 0; i < s.n; i++) {
			if (s.n > 1)
				printf("%s==> %s <==\n", i ? "\n" : "", s.r[i].path);
			if (dr_doc__kind(s.r[i].doc) == DR_PROCESS) {
				report__summary(s.r[i].doc);
				continue;
			}
			/* a job document: its regions over the ranks, its ranks */
			struct results one = { .r = &s.r[i], .n = 1, .prog = s.prog };

			print_view(&one, VIEW_REGION, ev, nev, exclusive, sort, top, f, sep, 1);
			putchar('\n');
			print_view(&one, VIEW_RANK, ev, nev, exclusive, NULL, 0, f, sep, 1);
		}
	} else if (!strcmp(view, "all")) {
		/* a job: the regions over every rank, then the ranks */
		print_view(&s, VIEW_REGION, ev, nev, exclusive, sort, top, f, sep, 1);
		putchar('\n');
		print_view(&s, VIEW_RANK, ev, nev, exclusive, NULL, 0, f, sep, 1);
	} else {
		enum view v = !strcmp(view, "region") ? VIEW_REGION :
			      !strcmp(view, "tree")   ? VIEW_TREE :
			      !strcmp(view, "thread") ? VIEW_THREAD :
							VIEW_RANK;

		print_view(&s, v, ev, nev, exclusive, sort, top, f, sep, 0);
	}
	if (s.nbad && f != FMT_JSON && f != FMT_CSV) {
		putchar('\n');
		results__print_skipped(&s, stdout);
	}
	free(all);
	free(ev);
	opt = s.nbad || prc ? 2 : 0;
	results__free(&s);
	return opt;
}
