/* hpcshim-report.c - hpcshim-report: a short human summary of hpcshim results.
 *
 * Usage: hpcshim-report FILE.json [FILE.json ...]
 *
 * For each file: a header (command, pid, host, threads, privilege, the PMU
 * fallback and the dropped events), process totals per event, a table of
 * regions (inclusive counts summed over threads) and a table of threads.
 * Wall time (the process's, each region's inclusive and exclusive, each
 * thread's) is shown in ms beside the counts; "-" in files without it.
 * task-clock and cpu-clock are nanoseconds in the JSON and shown in ms.
 * A null count (event not covered) is shown as "n/a".  A region count that
 * was multiplexed on some thread is a scaled estimate over a short interval
 * and is shown as "n/a" too; thread totals that were multiplexed are shown
 * with a '*' (scaled estimate).  Requested presets and opcode classes are
 * listed with their status, and their derived metrics in a table (process
 * and the first regions; "n/a" with the reason below).  Unreadable or invalid files are reported on
 * stderr as "hpcshim-report: FILE: reason", the other files are still
 * summarised, and the exit status is 1.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define PROG "hpcshim-report"
#include "tools/cmd.h"
#define TOOL_PROG PROG
#define TOOL_OOM_STATUS 1
#include "tools/jsonread.h"

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
static void fmt_count(char *buf, size_t len, const char *ev, json_object *v)
{
	double d;

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (is_time_event(ev)) {
		snprintf(buf, len, "%.3f", json_object_get_double(v) / 1e6);
		return;
	}
	if (json_object_is_type(v, json_type_int)) {
		snprintf(buf, len, "%lld", (long long)json_object_get_int64(v));
		return;
	}
	d = json_object_get_double(v);
	snprintf(buf, len, "%lld",
		 d < 0 ? -(long long)(0.5 - d) : (long long)(d + 0.5));
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
	*c = xstrdup(text);
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

static void evlist_init(struct evlist *el, json_object *events)
{
	el->n = 0;
	el->name = xrealloc(NULL, (arr_len(events) + 1) * sizeof(*el->name));
	for (size_t i = 0; i < arr_len(events); i++) {
		json_object *e = arr_at(events, i);
		const char *name = get_str(e, "name", NULL);

		if (name && strcmp(get_str(e, "status", ""), "ok") == 0)
			el->name[el->n++] = name;
	}
}

/* ---- header ---------------------------------------------------------- */

/* The command line joined by spaces; arguments that would read
 * ambiguously (empty, containing blanks) are single-quoted. */
static void print_command(json_object *cmd)
{
	if (arr_len(cmd) == 0)
		fputs("(unknown command)", stdout);
	for (size_t i = 0; i < arr_len(cmd); i++) {
		const char *a = json_object_get_string(arr_at(cmd, i));

		if (!a)
			a = "";
		if (i)
			putchar(' ');
		if (!*a || strpbrk(a, " \t\n'\""))
			printf("'%s'", a);
		else
			fputs(a, stdout);
	}
}

/* "  dropped:  cycles (ENOENT), ..." so the reader knows at once which
 * columns are missing and why; the long reasons stay in the JSON. */
static void print_dropped(json_object *events)
{
	int n = 0;

	for (size_t i = 0; i < arr_len(events); i++) {
		json_object *e = arr_at(events, i);

		if (strcmp(get_str(e, "status", ""), "dropped") != 0)
			continue;
		printf("%s%s (%s)",
		       n++ ? ", " : "  dropped:  ", get_str(e, "name", "?"),
		       get_str(e, "error", "?"));
	}
	if (n)
		putchar('\n');
}

/* Sum of every thread's warning counters: region misuse in the program
 * that makes region numbers suspect, worth one line when non-zero. */
static long long warning_total(json_object *threads)
{
	long long n = 0;

	for (size_t i = 0; i < arr_len(threads); i++) {
		json_object *w = get(arr_at(threads, i), "warnings");

		if (!json_object_is_type(w, json_type_object))
			continue;
		json_object_object_foreach(w, k, v)
		{
			(void)k;
			n += json_object_get_int64(v);
		}
	}
	return n;
}

/* A wall time in ms; "-" in a file without it (before wall time). */
static void fmt_wall(char *buf, size_t len, json_object *ns)
{
	if (ns && (json_object_is_type(ns, json_type_int) ||
		   json_object_is_type(ns, json_type_double)))
		snprintf(buf, len, "%.3f", json_object_get_double(ns) / 1e6);
	else
		snprintf(buf, len, "-");
}

static void print_header(json_object *doc)
{
	json_object *proc = get(doc, "process"), *pmu = get(doc, "pmu");
	long long nthreads = get_int(doc, "thread_count",
				     (long long)arr_len(get(doc, "threads")));
	long long uncovered = get_int(doc, "uncovered_region_calls", 0);
	long long warnings = warning_total(get(doc, "threads"));

	print_command(get(proc, "command"));
	printf("  (pid %lld, host %s, %lld thread%s, privilege %s",
	       get_int(proc, "pid", -1), get_str(proc, "host", "?"), nthreads,
	       nthreads == 1 ? "" : "s", get_str(pmu, "privilege", "?"));
	if (get_str(pmu, "cpu_pmu", NULL))
		printf(", pmu %s", get_str(pmu, "cpu_pmu", NULL));
	puts(")");
	if (get(proc, "wall_ns")) {
		char w[64];

		fmt_wall(w, sizeof(w), get(proc, "wall_ns"));
		printf("  wall time: %s ms\n", w);
	}
	if (get_str(pmu, "fallback", NULL))
		printf("  fallback: %s\n", get_str(pmu, "fallback", NULL));
	print_dropped(get(doc, "events"));
	if (!json_object_get_boolean(get(proc, "complete")))
		puts("  incomplete: the result is marked \"complete\": false");
	if (uncovered)
		printf("  uncounted: %lld region calls on threads without counters\n",
		       uncovered);
	if (get(doc, "before_start")) /* the kernel's, not in the totals */
		printf("  before start (kernel, not in totals): %s\n",
		       json_object_to_json_string_ext(get(doc, "before_start"),
						      JSON_C_TO_STRING_SPACED));
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

/* 1 when event ev of this counts object's owner was multiplexed: json.c
 * then writes "<key>_multiplexed": {ev: {raw, enabled, running, ...}}. */
static int multiplexed(json_object *owner, const char *key, const char *ev)
{
	char k[64];

	snprintf(k, sizeof(k), "%s_multiplexed", key);
	return get(get(owner, k), ev) != NULL;
}

/* Count text with the '*' mark when the value is a scaled estimate. */
static void fmt_marked(char *buf, size_t len, const char *ev, json_object *v,
		       int est, struct notes *nt)
{
	fmt_count(buf, len, ev, v);
	if (est && strcmp(buf, "n/a") != 0) {
		strncat(buf, "*", len - strlen(buf) - 1);
		nt->estimate = 1;
	}
}

static void print_totals(json_object *doc, const struct evlist *el, struct notes *nt)
{
	json_object *threads = get(doc, "threads");
	struct table t;
	char v[64];

	table_init(&t, 2);
	for (int i = 0; i < el->n; i++) {
		int est = 0;

		/* Process totals sum the threads' values: an estimate if any is. */
		for (size_t k = 0; k < arr_len(threads); k++)
			est |= multiplexed(arr_at(threads, k), "totals", el->name[i]);
		table_add_row(&t);
		column_title(v, sizeof(v), el->name[i]);
		table_set(&t, 0, v);
		fmt_marked(v, sizeof(v), el->name[i],
			   get(get(doc, "totals"), el->name[i]), est, nt);
		table_set(&t, 1, v);
	}
	puts("\nprocess totals:");
	if (el->n == 0)
		puts("  (no event was counted)");
	table_print(&t);
	table_free(&t);
}

/* 1 when region r (a summary across threads) was multiplexed for event ev
 * on some thread: its sum then mixes estimates over short intervals.  The
 * summary says so itself ("inclusive_multiplexed" holds ev when any
 * thread's inclusive value was partial), so no scan of the threads: that
 * scan per row and event made the report quadratic in regions. */
static int region_multiplexed(json_object *r, const char *ev)
{
	return multiplexed(r, "inclusive", ev);
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

static void region_row(struct table *t, json_object *r, const struct evlist *el,
		       struct notes *nt)
{
	const char *name = get_str(r, "name", "?");
	char v[64];

	table_add_row(t);
	table_set(t, 0, name);
	table_setf(t, 1, "%lld", get_int(r, "calls", 0));
	table_setf(t, 2, "%lld", get_int(r, "threads", 0));
	fmt_wall(v, sizeof(v), get(get(r, "wall_ns"), "inclusive"));
	table_set(t, 3, v);
	fmt_wall(v, sizeof(v), get(get(r, "wall_ns"), "exclusive"));
	table_set(t, 4, v);
	for (int i = 0; i < el->n; i++) {
		if (region_multiplexed(r, el->name[i]))
			snprintf(v, sizeof(v), "n/a");
		else
			fmt_count(v, sizeof(v), el->name[i],
				  get(get(get(r, "inclusive"), el->name[i]), "sum"));
		nt->na |= strcmp(v, "n/a") == 0;
		table_set(t, 5 + i, v);
	}
}

static void print_regions(json_object *doc, const struct evlist *el, struct notes *nt)
{
	static const char *const fixed[] = { "calls", "threads", "wall[ms]",
					     "excl-wall[ms]" };
	json_object *regs = get(doc, "regions");
	struct table t;

	puts("\nregions (inclusive, summed over threads; wall time inclusive and exclusive):");
	if (arr_len(regs) == 0) {
		puts("  (no annotated region)");
		return;
	}
	table_init(&t, 5 + el->n);
	table_titles(&t, "region", fixed, 4, el, NULL);
	for (size_t i = 0; i < arr_len(regs); i++)
		region_row(&t, arr_at(regs, i), el, nt);
	table_print(&t);
	table_free(&t);
}

/* ---- presets and derived metrics ------------------------------------- */

#define METRIC_REGIONS 6 /* region columns in the metrics table */

static void fmt_metric(char *buf, size_t len, json_object *m)
{
	json_object *v = get(m, "value");

	if (json_object_is_type(v, json_type_double) ||
	    json_object_is_type(v, json_type_int))
		snprintf(buf, len, "%.4g", json_object_get_double(v));
	else
		snprintf(buf, len, "n/a");
}

/* The requested sets with their status, then one row per metric: the
 * process value and the inclusive value of the first regions (over the
 * sums across threads).  A metric without a process value is listed with
 * its reason below the table. */
static void print_metrics(json_object *doc)
{
	json_object *pr = get(doc, "presets"), *sets = get(pr, "sets");
	json_object *tm = get(doc, "totals_metrics"), *regs = get(doc, "regions");
	size_t nreg = arr_len(regs) < METRIC_REGIONS ? arr_len(regs) : METRIC_REGIONS;
	struct table t;
	char v[64];

	if (arr_len(sets) == 0)
		return;
	printf("\npresets (CPU model %s):\n", get_str(pr, "model", "unknown"));
	for (size_t i = 0; i < arr_len(sets); i++) {
		json_object *s = arr_at(sets, i);
		const char *reason = get_str(s, "reason", NULL);

		printf("  %s %s: %s%s%s\n", get_str(s, "kind", "?"),
		       get_str(s, "name", "?"), get_str(s, "status", "?"),
		       reason ? ": " : "", reason ? reason : "");
	}
	if (!json_object_is_type(tm, json_type_object) ||
	    json_object_object_length(tm) == 0)
		return;
	puts("\nderived metrics (process; regions inclusive, over the sums across threads):");
	table_init(&t, 2 + (int)nreg);
	table_add_row(&t);
	table_set(&t, 0, "metric");
	table_set(&t, 1, "process");
	for (size_t k = 0; k < nreg; k++)
		table_set(&t, 2 + (int)k, get_str(arr_at(regs, k), "name", "?"));
	json_object_object_foreach(tm, key, val)
	{
		table_add_row(&t);
		table_set(&t, 0, key);
		fmt_metric(v, sizeof(v), val);
		table_set(&t, 1, v);
		for (size_t k = 0; k < nreg; k++) {
			fmt_metric(v, sizeof(v),
				   get(get(arr_at(regs, k), "inclusive_metrics"), key));
			table_set(&t, 2 + (int)k, v);
		}
	}
	table_print(&t);
	table_free(&t);
	json_object_object_foreach(tm, key2, val2)
	{
		const char *reason = get_str(val2, "reason", NULL);

		if (reason)
			printf("  n/a %s: %s\n", key2, reason);
	}
}

/* Threads by tid: stable across runs of the same program and, tids being
 * handed out in increasing order, the main thread and then the others
 * roughly in creation order (start_ns is when counting began, which
 * races between threads created together). */
static int thread_cmp(const void *a, const void *b)
{
	long long x = get_int(*(json_object *const *)a, "tid", 0);
	long long y = get_int(*(json_object *const *)b, "tid", 0);

	return (x > y) - (x < y);
}

static void thread_row(struct table *t, json_object *th, const struct evlist *el,
		       struct notes *nt)
{
	char v[64];

	table_add_row(t);
	table_setf(t, 0, "%lld", get_int(th, "tid", -1));
	fmt_wall(v, sizeof(v), get(th, "wall_ns"));
	table_set(t, 1, v);
	for (int i = 0; i < el->n; i++) {
		fmt_marked(v, sizeof(v), el->name[i],
			   get(get(th, "totals"), el->name[i]),
			   multiplexed(th, "totals", el->name[i]), nt);
		table_set(t, 2 + i, v);
	}
	table_setf(t, 2 + el->n, "%zu", arr_len(get(th, "regions")));
}

/* Threads whose counters could not be opened: why their row is n/a. */
static void print_thread_errors(json_object **th, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (get_str(th[i], "error", NULL))
			printf("  tid %lld: %s\n", get_int(th[i], "tid", -1),
			       get_str(th[i], "error", NULL));
}

static void print_threads(json_object *doc, const struct evlist *el, struct notes *nt)
{
	json_object *threads = get(doc, "threads");
	size_t n = arr_len(threads);
	json_object **th = xrealloc(NULL, (n ? n : 1) * sizeof(*th));
	struct table t;

	for (size_t i = 0; i < n; i++)
		th[i] = arr_at(threads, i);
	qsort(th, n, sizeof(*th), thread_cmp);
	puts("\nthreads:");
	static const char *const fixed[] = { "wall[ms]" };

	table_init(&t, 3 + el->n);
	table_titles(&t, "tid", fixed, 1, el, "regions");
	for (size_t i = 0; i < n; i++)
		thread_row(&t, th[i], el, nt);
	table_print(&t);
	print_thread_errors(th, n);
	table_free(&t);
	free(th);
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

void report__summary(json_object *doc)
{
	struct evlist el;
	struct notes nt = { 0, 0 };

	evlist_init(&el, get(doc, "events"));
	print_header(doc);
	print_totals(doc, &el, &nt);
	print_regions(doc, &el, &nt);
	print_metrics(doc);
	print_threads(doc, &el, &nt);
	print_notes(&nt);
	free(el.name);
}

/* ---- loading --------------------------------------------------------- */

/* The members every table reads; anything deeper is read defensively. */
static int check_layout(json_object *doc, char *why, size_t len)
{
	static const struct {
		const char *key;
		json_type type;
	} need[] = {
		{ "process", json_type_object }, { "events", json_type_array },
		{ "totals", json_type_object },  { "threads", json_type_array },
		{ "regions", json_type_array },
	};

	if (strncmp(get_str(doc, "schema", ""), "hpcshim/", 8) != 0) {
		snprintf(why, len,
			 "not an hpcshim result (no \"schema\": \"hpcshim/...\")");
		return 0;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (!json_object_is_type(get(doc, need[i].key), need[i].type)) {
			snprintf(why, len,
				 "malformed result: \"%s\" missing or not an %s",
				 need[i].key, json_type_to_name(need[i].type));
			return 0;
		}
	}
	return 1;
}

static json_object *load(const char *path, char *why, size_t len)
{
	json_object *doc = json_object_from_file(path);

	if (!doc) {
		json_load_error(why, len);
		return NULL;
	}
	if (!check_layout(doc, why, len)) {
		json_object_put(doc);
		return NULL;
	}
	return doc;
}

/* The former program, an alias of `hpcshim report` for one release
 * (tools/alias_report.c). */
int report_legacy_main(int argc, char **argv);
int report_legacy_main(int argc, char **argv)
{
	int rc = 0, shown = 0;

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		puts("usage: " PROG " FILE.json [FILE.json ...]\n\n" PROG
		     " is an alias of 'hpcshim report', kept for one release:\n"
		     "use 'hpcshim report' (views, sorting, CSV/JSON/Markdown).");
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: " PROG " FILE.json [FILE.json ...]\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char why[512];
		json_object *doc = load(argv[i], why, sizeof(why));

		if (!doc) {
			fflush(stdout); /* keep stderr after earlier reports */
			fprintf(stderr, PROG ": %s: %s\n", argv[i], why);
			rc = 1;
			continue;
		}
		/* Several files: separate them and name each, as head(1) does. */
		if (argc > 2)
			printf("%s==> %s <==\n", shown++ ? "\n" : "", argv[i]);
		report__summary(doc);
		json_object_put(doc);
	}
	return rc;
}
