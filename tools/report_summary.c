/* report_summary.c - the summary view of hpcshim report: one result in
 * short (tools/cmd_report.c picks it for one file; hpcshim-report, the
 * former program, prints it for each file it is given).
 *
 * A header (command, pid, host, threads, privilege, the PMU fallback and
 * the dropped events), process totals per event, a table of regions
 * (inclusive counts summed over threads) and a table of threads.  Wall
 * time (the process's, each region's inclusive and exclusive, each
 * thread's) is shown in ms beside the counts; "-" in files without it.
 * task-clock and cpu-clock are nanoseconds in the JSON and shown in ms.
 * A null count (event not covered) is shown as "n/a".  A region count that
 * was multiplexed on some thread is a scaled estimate over a short interval
 * and is shown as "n/a" too; thread totals that were multiplexed are shown
 * with a '*' (scaled estimate).  Requested presets and opcode classes are
 * listed with their status, and their derived metrics in a table (process
 * and the first regions; "n/a" with the reason below).  The values are
 * the rank, region and thread views' (tools/rows.c), as in every other
 * view of hpcshim report; this file only lays them out.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/docread.h"
#include "tools/cmd.h"
#include "tools/rows.h"
#include "tools/escape.h"
#include "tools/xalloc.h"

/* ---- value formatting ----------------------------------------------- */

/* Events counted in nanoseconds, which read better as milliseconds. */
static int is_time_event(const char *ev)
{
	return strcmp(ev, "task-clock") == 0 || strcmp(ev, "cpu-clock") == 0;
}

static void column_title(char *buf, size_t len, const char *ev)
{
	snprintf(buf, len, is_time_event(ev) ? "%s[ms]" : "%s", ev);
}

/* One count as text: ms with 3 decimals for clocks, else an integer
 * (region sums are JSON doubles; round rather than truncate them).  A
 * missing or non-numeric value is "n/a". */
static void fmt_count(char *buf, size_t len, const char *ev, const struct cell *c)
{
	double d = c->v;

	if (!c->has) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (is_time_event(ev)) {
		snprintf(buf, len, "%.3f", d / 1e6);
		return;
	}
	snprintf(buf, len, "%lld", d < 0 ? -(long long)(0.5 - d) : (long long)(d + 0.5));
}

/* ---- text tables ---------------------------------------------------- */

/* Cells are formatted first and printed once every column width is known,
 * so columns stay aligned whatever the lengths of names and numbers. */
struct table {
	int ncols, nrows;
	char *align;  /* per column: 'l' or 'r' */
	char **cells; /* nrows x ncols, row-major; NULL prints as empty */
	size_t cap;   /* rows allocated */
};

static void table_init(struct table *t, int ncols)
{
	t->ncols = ncols;
	t->nrows = 0;
	t->align = xrealloc(NULL, (size_t)ncols + 1);
	/* Names in the first column, numbers everywhere else. */
	memset(t->align, 'r', (size_t)ncols);
	t->align[0] = 'l';
	t->align[ncols] = '\0';
	t->cells = NULL;
	t->cap = 0;
}

static void table_add_row(struct table *t)
{
	size_t ncols = (size_t)t->ncols, n = (size_t)t->nrows;

	/* Room doubles: one realloc per row copied the table every time. */
	if (n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->cells = xrealloc(t->cells, t->cap * ncols * sizeof(*t->cells));
	}
	memset(t->cells + n * ncols, 0, ncols * sizeof(*t->cells));
	t->nrows++;
}

/* Sets column col of the last row. */
static void table_set(struct table *t, int col, const char *text)
{
	char **c = &t->cells[(size_t)(t->nrows - 1) * (size_t)t->ncols + (size_t)col];

	free(*c);
	*c = esc__term_dup(text); /* names from the file: no control bytes */
}

__attribute__((format(printf, 3, 4))) static void table_setf(struct table *t, int col,
							     const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	table_set(t, col, buf);
}

/* 1 when s ends with the '*' estimate mark. */
static int has_mark(const char *s)
{
	size_t n = strlen(s);

	return n && s[n - 1] == '*';
}

static const char *table_cell(const struct table *t, int r, int c)
{
	const char *s = t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];

	return s ? s : "";
}

/* 1 when the rest of row r from column c on is empty: the row ends there,
 * so lines carry no trailing blanks. */
static int table_rest_empty(const struct table *t, int r, int c)
{
	for (; c < t->ncols; c++)
		if (*table_cell(t, r, c))
			return 0;
	return 1;
}

/* 1 when some cell of number column c carries the '*' estimate mark:
 * the other cells then get a blank in its place so the digits line up. */
static int table_has_mark(const struct table *t, int c)
{
	if (t->align[c] != 'r')
		return 0;
	for (int r = 0; r < t->nrows; r++)
		if (has_mark(table_cell(t, r, c)))
			return 1;
	return 0;
}

/* Width of column c without the mark, which is laid out separately. */
static int table_width(const struct table *t, int c, int mark)
{
	int w = 0;

	for (int r = 0; r < t->nrows; r++) {
		const char *s = table_cell(t, r, c);
		int n = (int)strlen(s) - (mark && has_mark(s));

		if (n > w)
			w = n;
	}
	return w;
}

/* The last cell of a row is never padded on the right: no trailing blanks. */
static void table_print_cell(const char *s, char align, int width, int mark, int last)
{
	if (align == 'l')
		printf("%-*s", last ? 0 : width, s);
	else if (!mark)
		printf("%*s", width, s);
	else if (has_mark(s))
		printf("%*s", width + 1, s);
	else
		printf(last ? "%*s" : "%*s ", width, s);
}

/* Prints every row indented by two spaces, columns two spaces apart. */
static void table_print(const struct table *t)
{
	int *w = xrealloc(NULL, (size_t)t->ncols * sizeof(*w));
	int *mark = xrealloc(NULL, (size_t)t->ncols * sizeof(*mark));

	for (int c = 0; c < t->ncols; c++) {
		mark[c] = table_has_mark(t, c);
		w[c] = table_width(t, c, mark[c]);
	}
	for (int r = 0; r < t->nrows; r++) {
		fputs("  ", stdout);
		for (int c = 0; c < t->ncols && !table_rest_empty(t, r, c); c++) {
			int last = table_rest_empty(t, r, c + 1);

			if (c)
				fputs("  ", stdout);
			table_print_cell(table_cell(t, r, c), t->align[c], w[c],
					 mark[c], last);
		}
		putchar('\n');
	}
	free(mark);
	free(w);
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->align);
}

/* ---- the events that were counted ----------------------------------- */

/* Names of the events with status "ok", in the file's order: the columns
 * of every table, so the tables agree with each other. */
struct evlist {
	int n;
	const char **name;
};

static void evlist_init(struct evlist *el, const struct dr_doc *doc)
{
	el->n = 0;
	el->name = xrealloc(NULL, (dr_doc__nevents(doc) + 1) * sizeof(*el->name));
	for (size_t i = 0; i < dr_doc__nevents(doc); i++) {
		struct dr_event e;

		dr_doc__event(doc, i, &e);
		if (e.name && strcmp(e.status, "ok") == 0)
			el->name[el->n++] = e.name;
	}
}

/* ---- header ---------------------------------------------------------- */

/* The command line joined by spaces; arguments that would read
 * ambiguously (empty, containing blanks) are single-quoted. */
static void print_command(const struct dr_doc *doc)
{
	size_t n = dr_doc__nargs(doc);

	if (n == 0)
		fputs("(unknown command)", stdout);
	for (size_t i = 0; i < n; i++) {
		const char *a = dr_doc__arg(doc, i);

		if (!a)
			a = "";
		if (i)
			putchar(' ');
		if (!*a || strpbrk(a, " \t\n'\""))
			printf("'%s'", esc__t(a));
		else
			esc__term(stdout, a);
	}
}

/* "  dropped:  cycles (ENOENT), ..." so the reader knows at once which
 * columns are missing and why; the long reasons stay in the JSON. */
static void print_dropped(const struct dr_doc *doc)
{
	int n = 0;

	for (size_t i = 0; i < dr_doc__nevents(doc); i++) {
		struct dr_event e;

		dr_doc__event(doc, i, &e);
		if (strcmp(e.status, "dropped") != 0)
			continue;
		printf("%s%s (%s)", n++ ? ", " : "  dropped:  ", e.name ? esc__t(e.name) : "?",
		       e.error ? esc__t(e.error) : "?");
	}
	if (n)
		putchar('\n');
}

/* Sum of every thread's warning counters: region misuse in the program
 * that makes region numbers suspect, worth one line when non-zero. */
static long long warning_total(const struct dr_doc *doc)
{
	long long n = 0;

	for (size_t i = 0; i < dr_doc__nthreads(doc); i++) {
		long long x = dr_thread__warnings(dr_doc__thread(doc, i)); /* >= 0 */

		n = x > LLONG_MAX - n ? LLONG_MAX : n + x; /* a hostile file's */
	}
	return n;
}

/* A wall time in ms; "-" in a file without it (before wall time). */
static void fmt_wall(char *buf, size_t len, double ns)
{
	if (ns >= 0)
		snprintf(buf, len, "%.3f", ns / 1e6);
	else
		snprintf(buf, len, "-");
}

static void print_header(const struct dr_doc *doc)
{
	const char *priv = dr_doc__pmu(doc, DR_PMU_PRIVILEGE);
	const char *cpu = dr_doc__pmu(doc, DR_PMU_CPU);
	const char *fallback = dr_doc__pmu(doc, DR_PMU_FALLBACK);
	long long nthreads = dr_doc__thread_count(doc);
	long long uncovered = dr_doc__uncovered_calls(doc);
	long long warnings = warning_total(doc);
	struct dr_rank rk;

	dr_doc__rank(doc, 0, &rk);
	print_command(doc);
	printf("  (pid %lld, host %s, %lld thread%s, privilege %s", rk.pid, esc__t(rk.host),
	       nthreads, nthreads == 1 ? "" : "s", priv ? esc__t(priv) : "?");
	if (cpu)
		printf(", pmu %s", esc__t(cpu));
	puts(")");
	if (rk.wall >= 0) {
		char w[64];

		fmt_wall(w, sizeof(w), rk.wall);
		printf("  wall time: %s ms\n", w);
	}
	if (fallback)
		printf("  fallback: %s\n", esc__t(fallback));
	print_dropped(doc);
	if (!rk.complete)
		puts("  incomplete: the result is marked \"complete\": false");
	if (uncovered)
		printf("  uncounted: %lld region calls on threads without counters\n",
		       uncovered);
	if (dr_doc__before_start(doc)) /* the kernel's, not in the totals */
		printf("  before start (kernel, not in totals): %s\n",
		       esc__t(dr_doc__before_start(doc)));
	if (warnings)
		printf("  warnings: %lld region annotation problems (see threads[].warnings)\n",
		       warnings);
}

/* ---- totals, regions, threads ------------------------------------------ */

/* Footnotes owed by the tables of one file. */
struct notes {
	int estimate; /* a '*' was printed */
	int na;       /* an "n/a" was printed in the region table */
};

/* Count text with the '*' mark when the value is a scaled estimate (some
 * value behind it was multiplexed). */
static void fmt_marked(char *buf, size_t len, const char *ev, const struct cell *c,
		       struct notes *nt)
{
	fmt_count(buf, len, ev, c);
	if (c->mux && strcmp(buf, "n/a") != 0) {
		strncat(buf, "*", len - strlen(buf) - 1);
		nt->estimate = 1;
	}
}

/* The view v of this one result (tools/rows.c), the summary's events as
 * its columns. */
static void summary_rows(struct rowset *rs, const struct dr_doc *doc, enum view v,
			 const struct evlist *el, int exclusive)
{
	struct result r = { .doc = (struct dr_doc *)(uintptr_t)doc };
	struct results one = { .r = &r, .n = 1 };

	rows__build(rs, &one, v, el->name, (size_t)el->n, exclusive);
}

/* Process totals: the rank view's row, an estimate when a thread's value
 * behind it is. */
static void print_totals(const struct dr_doc *doc, const struct evlist *el,
			 struct notes *nt)
{
	struct rowset rs;
	struct table t;
	char v[64];

	summary_rows(&rs, doc, VIEW_RANK, el, 0);
	table_init(&t, 2);
	for (int i = 0; i < el->n; i++) {
		table_add_row(&t);
		column_title(v, sizeof(v), el->name[i]);
		table_set(&t, 0, v);
		fmt_marked(v, sizeof(v), el->name[i], &rs.r[0].c[i], nt);
		table_set(&t, 1, v);
	}
	puts("\nprocess totals:");
	if (el->n == 0)
		puts("  (no event was counted)");
	table_print(&t);
	table_free(&t);
	rows__free(&rs);
}

/* Column titles: name, fixed columns, then one per counted event. */
static void table_titles(struct table *t, const char *first, const char *const *fixed,
			 int nfixed, const struct evlist *el, const char *after)
{
	char v[80];

	table_add_row(t);
	table_set(t, 0, first);
	for (int i = 0; i < nfixed; i++)
		table_set(t, 1 + i, fixed[i]);
	for (int i = 0; i < el->n; i++) {
		column_title(v, sizeof(v), el->name[i]);
		table_set(t, 1 + nfixed + i, v);
	}
	if (after)
		table_set(t, 1 + nfixed + el->n, after);
}

/* A region's inclusive values summed over threads; a value multiplexed
 * on some thread mixes estimates over short intervals and is "n/a" (the
 * summary's inclusive_multiplexed holds the event when any thread's
 * value was partial).  ex: the same row of the exclusive view (its wall
 * time). */
static void region_row(struct table *t, const struct row *r, const struct row *ex,
		       const struct evlist *el, struct notes *nt, bool meas)
{
	char v[64];

	table_add_row(t);
	table_set(t, 0, r->name);
	table_setf(t, 1, "%lld", r->calls);
	table_setf(t, 2, "%d", r->threads);
	fmt_wall(v, sizeof(v), r->wall);
	table_set(t, 3, v);
	fmt_wall(v, sizeof(v), ex->wall);
	table_set(t, 4, v);
	for (int i = 0; i < el->n; i++) {
		if (r->c[i].mux)
			snprintf(v, sizeof(v), "n/a");
		else
			fmt_count(v, sizeof(v), el->name[i], &r->c[i]);
		nt->na |= strcmp(v, "n/a") == 0;
		table_set(t, 5 + i, v);
	}
	if (meas) {
		fmt_wall(v, sizeof(v), r->meas);
		table_set(t, 5 + el->n, v);
	}
}

static void print_regions(const struct dr_doc *doc, const struct evlist *el,
			  struct notes *nt)
{
	static const char *const fixed[] = { "calls", "threads", "wall[ms]",
					     "excl-wall[ms]" };
	struct rowset in, ex;
	struct table t;

	puts("\nregions (inclusive, summed over threads; wall time inclusive and exclusive):");
	if (dr_doc__nregions(doc) == 0) {
		puts("  (no annotated region)");
		return;
	}
	bool meas = false;

	summary_rows(&in, doc, VIEW_REGION, el, 0);
	summary_rows(&ex, doc, VIEW_REGION, el, 1);
	/* What measuring cost, beside what was measured (when the file says). */
	for (size_t i = 0; i < in.n; i++)
		meas |= in.r[i].meas >= 0;
	table_init(&t, 5 + el->n + meas);
	table_titles(&t, "region", fixed, 4, el, meas ? "measuring[ms]" : NULL);
	for (size_t i = 0; i < in.n; i++)
		region_row(&t, &in.r[i], &ex.r[i], el, nt, meas);
	table_print(&t);
	table_free(&t);
	rows__free(&in);
	rows__free(&ex);
}

/* ---- presets and derived metrics ------------------------------------- */

#define METRIC_REGIONS 6 /* region columns in the metrics table */

static void fmt_metric(char *buf, size_t len, bool has, double v)
{
	if (has)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "n/a");
}

static void print_sets(const struct dr_doc *doc)
{
	const char *model = dr_doc__model(doc);

	printf("\npresets (CPU model %s):\n", model ? esc__t(model) : "unknown");
	for (size_t i = 0; i < dr_doc__nsets(doc); i++) {
		const char *kind = dr_doc__set(doc, i, DR_SET_KIND);
		const char *name = dr_doc__set(doc, i, DR_SET_NAME);
		const char *status = dr_doc__set(doc, i, DR_SET_STATUS);
		const char *reason = dr_doc__set(doc, i, DR_SET_REASON);

		printf("  %s %s: %s%s%s\n", kind ? esc__t(kind) : "?", name ? esc__t(name) : "?",
		       status ? esc__t(status) : "?", reason ? ": " : "",
		       reason ? esc__t(reason) : "");
	}
}

/* The requested sets with their status, then one row per metric: the
 * process value and the inclusive value of the first regions (over the
 * sums across threads).  A metric without a process value is listed with
 * its reason below the table. */
static void print_metrics(const struct dr_doc *doc)
{
	size_t nreg = dr_doc__nregions(doc) < METRIC_REGIONS ? dr_doc__nregions(doc) :
							       METRIC_REGIONS;
	size_t nm = dr_doc__nmetrics(doc);
	const char *reason;
	struct table t;
	char v[64];
	double x;
	bool has;

	if (dr_doc__nsets(doc) == 0)
		return;
	print_sets(doc);
	if (nm == 0)
		return;
	puts("\nderived metrics (process; regions inclusive, over the sums across threads):");
	table_init(&t, 2 + (int)nreg);
	table_add_row(&t);
	table_set(&t, 0, "metric");
	table_set(&t, 1, "process");
	for (size_t k = 0; k < nreg; k++)
		table_set(&t, 2 + (int)k, dr_region__name(dr_doc__region(doc, k)));
	for (size_t m = 0; m < nm; m++) {
		const char *key = dr_doc__metric(doc, m, &x, &has, &reason);

		table_add_row(&t);
		table_set(&t, 0, key);
		fmt_metric(v, sizeof(v), has, x);
		table_set(&t, 1, v);
		for (size_t k = 0; k < nreg; k++) {
			has = dr_region__metric(dr_doc__region(doc, k), key, &x);
			fmt_metric(v, sizeof(v), has, x);
			table_set(&t, 2 + (int)k, v);
		}
	}
	table_print(&t);
	table_free(&t);
	for (size_t m = 0; m < nm; m++) {
		const char *key = dr_doc__metric(doc, m, &x, &has, &reason);

		if (reason)
			printf("  n/a %s: %s\n", esc__t(key), esc__t(reason));
	}
}

/* Threads by tid: stable across runs of the same program and, tids being
 * handed out in increasing order, the main thread and then the others
 * roughly in creation order (start_ns is when counting began, which
 * races between threads created together). */
static int thread_cmp(const void *a, const void *b)
{
	long long x = dr_thread__tid(*(const struct dr_thread *const *)a);
	long long y = dr_thread__tid(*(const struct dr_thread *const *)b);

	return (x > y) - (x < y);
}

static void thread_row(struct table *t, const struct row *r, const struct evlist *el,
		       struct notes *nt)
{
	char v[64];

	table_add_row(t);
	table_setf(t, 0, "%lld", r->tid);
	fmt_wall(v, sizeof(v), r->wall);
	table_set(t, 1, v);
	for (int i = 0; i < el->n; i++) {
		fmt_marked(v, sizeof(v), el->name[i], &r->c[i], nt);
		table_set(t, 2 + i, v);
	}
	table_setf(t, 2 + el->n, "%lld", r->calls);
}

/* Threads whose counters could not be opened: why their row is n/a. */
static void print_thread_errors(const struct dr_thread **th, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (dr_thread__error(th[i]))
			printf("  tid %lld: %s\n", dr_thread__tid(th[i]),
			       esc__t(dr_thread__error(th[i])));
}

static void print_threads(const struct dr_doc *doc, const struct evlist *el,
			  struct notes *nt)
{
	static const char *const fixed[] = { "wall[ms]" };
	size_t n = dr_doc__nthreads(doc);
	const struct dr_thread **th = xrealloc(NULL, (n ? n : 1) * sizeof(*th));
	struct table t;

	struct rowset rs;

	for (size_t i = 0; i < n; i++)
		th[i] = dr_doc__thread(doc, i);
	qsort(th, n, sizeof(*th), thread_cmp);
	summary_rows(&rs, doc, VIEW_THREAD, el, 0);
	puts("\nthreads:");
	table_init(&t, 3 + el->n);
	table_titles(&t, "tid", fixed, 1, el, "regions");
	for (size_t i = 0; i < rs.n; i++)
		thread_row(&t, &rs.r[i], el, nt);
	table_print(&t);
	print_thread_errors(th, n);
	table_free(&t);
	free(th);
	rows__free(&rs);
}

/* Checkpoints and trigger points: a count, or "not counted (why)" for
 * what was not measured (a host whose breakpoints never fire, uprobes
 * without the privilege): never a 0 that was not counted. */
static void print_points(const struct dr_doc *doc)
{
	const char *note, *method = dr_doc__point_method(doc, &note);
	const char *state = dr_doc__trigger_state(doc);
	size_t n = dr_doc__npoints(doc);
	struct table t;

	if (!n)
		return;
	printf("\nCheckpoints and triggers (%s%s%s):\n",
	       method ? method[0] == 'u' ? "through uprobes" : "through breakpoints" :
			"not counted",
	       note ? ": " : "", note ? esc__t(note) : "");
	table_init(&t, 3);
	t.align[1] = 'l';
	for (size_t i = 0; i < n; i++) {
		struct dr_point p;
		char count[64];

		dr_doc__point(doc, i, &p);
		table_add_row(&t);
		table_set(&t, 0, p.kind);
		table_set(&t, 1, esc__t(p.text));
		if (strcmp(p.status, "ok") != 0)
			snprintf(count, sizeof(count), "not counted");
		else if (strcmp(p.kind, "checkpoint") != 0)
			snprintf(count, sizeof(count), "armed");
		else if (p.has)
			snprintf(count, sizeof(count), "%.0f", p.count);
		else
			snprintf(count, sizeof(count), "not counted");
		table_set(&t, 2, count);
	}
	table_print(&t);
	table_free(&t);
	for (size_t i = 0; i < n; i++) {
		struct dr_point p;

		dr_doc__point(doc, i, &p);
		/* The reason all share is the heading's already. */
		if (p.reason && (!note || strcmp(p.reason, note) != 0))
			printf("  %s: not counted (%s)\n", esc__t(p.text), esc__t(p.reason));
	}
	if (state)
		printf("  trigger: %s\n", esc__t(state));
}

static void print_notes(const struct notes *nt)
{
	if (nt->estimate || nt->na)
		putchar('\n');
	if (nt->estimate)
		puts("* scaled estimate: the event was multiplexed");
	if (nt->na)
		puts("n/a: not counted, or multiplexed in the region on some thread");
}

void report__summary(const struct dr_doc *doc)
{
	struct evlist el;
	struct notes nt = { 0, 0 };

	evlist_init(&el, doc);
	print_header(doc);
	print_totals(doc, &el, &nt);
	print_regions(doc, &el, &nt);
	print_metrics(doc);
	print_threads(doc, &el, &nt);
	print_points(doc);
	print_notes(&nt);
	free(el.name);
}
