/* preset.c - the preset file parser and the table of blocks (preset.h).
 *
 * Line-oriented: a keyword, then its arguments.  A block is checked line by
 * line as it is read (names, aliases, formulas over declared aliases), so
 * an error points at the line that caused it; the block is then skipped up
 * to its 'end' and the rest of the file is still read.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "presets/preset.h"

void pmu_preset_table__init(struct preset_table *t)
{
	memset(t, 0, sizeof(*t));
}

void pmu_preset_table__free(struct preset_table *t)
{
	for (int i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->p);
	free(t->bad);
	memset(t, 0, sizeof(*t));
}

const char *pmu_preset_kind__name(enum preset_kind k)
{
	return k == PRESET_OPCODE ? "opcode" : "preset";
}

/* ---- the parser ---------------------------------------------------- */

struct reader {
	struct preset_table *t;
	const char *file;
	int dir, line;
	preset_err_fn err;
	void *ctx;
	struct preset cur; /* the block being read                  */
	bool open;         /* inside a block                         */
	bool skipping;     /* the open block is broken: skip to end  */
	int nvalid;
};

__attribute__((format(printf, 2, 3))) static void reader__fail(struct reader *r,
							       const char *fmt, ...)
{
	char what[600], msg[1000];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->open)
		snprintf(msg, sizeof(msg), "%s:%d: %s '%s': %s (%s skipped)",
			 r->file, r->line, pmu_preset_kind__name(r->cur.kind),
			 r->cur.name, what, pmu_preset_kind__name(r->cur.kind));
	else
		snprintf(msg, sizeof(msg), "%s:%d: %s", r->file, r->line, what);
	if (r->err)
		r->err(r->ctx, msg);
	if (r->open && !r->skipping) {
		struct preset_bad *nb = realloc(r->t->bad, (size_t)(r->t->nbad + 1) *
								   sizeof(*nb));

		/* Remembered so that a request for it can say why. */
		if (nb) {
			r->t->bad = nb;
			nb[r->t->nbad].kind = r->cur.kind;
			snprintf(nb[r->t->nbad].name, PRESET_NAME_MAX, "%s",
				 r->cur.name);
			snprintf(nb[r->t->nbad].msg, sizeof(nb->msg), "%s", msg);
			r->t->nbad++;
		}
	}
	if (r->open)
		r->skipping = true;
}

static bool name_ok(const char *s, bool allow_dash)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' &&
		    !(allow_dash && *s == '-'))
			return false;
	return true;
}

/* Next blank-separated word of *s (modified in place), or NULL. */
static char *word(char **s)
{
	char *w;

	*s += strspn(*s, " \t");
	if (!**s)
		return NULL;
	w = *s;
	*s += strcspn(*s, " \t");
	if (**s)
		*(*s)++ = '\0';
	return w;
}

static char *trim(char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

static void reader__header(struct reader *r, enum preset_kind kind, char *rest)
{
	const char *kname = pmu_preset_kind__name(kind);
	char *name = word(&rest), *m;
	size_t len = 0;

	memset(&r->cur, 0, sizeof(r->cur));
	r->cur.kind = kind;
	r->cur.dir = r->dir;
	r->cur.line = r->line;
	r->cur.file = r->file;
	r->open = true;
	r->skipping = false;
	if (!name || !name_ok(name, true) || strlen(name) >= PRESET_NAME_MAX) {
		snprintf(r->cur.name, sizeof(r->cur.name), "%.40s", name ? name : "");
		r->open = false; /* no usable name: report as a file error */
		reader__fail(r,
			     "'%s' needs a name of letters, digits, '_', '-', "
			     "'.' (at most %d characters), then models",
			     kname, PRESET_NAME_MAX - 1);
		r->open = true;
		r->skipping = true;
		return;
	}
	snprintf(r->cur.name, sizeof(r->cur.name), "%s", name);
	while ((m = word(&rest))) {
		size_t ml = strlen(m);

		if (len + ml + 2 > sizeof(r->cur.models)) {
			reader__fail(r, "model list too long");
			return;
		}
		if (len)
			r->cur.models[len++] = ' ';
		memcpy(r->cur.models + len, m, ml + 1);
		len += ml;
	}
	if (!len)
		reader__fail(r, "no model after the name (a libpfm4 PMU name such "
				"as skl, or '*' for any)");
}

/* "ALIAS = VALUE": splits at the first '='. */
static bool split_assign(struct reader *r, char *rest, const char *what, char **lhs,
			 char **rhs)
{
	char *eq = strchr(rest, '=');

	if (!eq) {
		reader__fail(r, "expected '%s NAME = ...'", what);
		return false;
	}
	*eq = '\0';
	*lhs = trim(rest);
	*rhs = trim(eq + 1);
	return true;
}

static void reader__event(struct reader *r, char *rest)
{
	struct preset *p = &r->cur;
	char *alias, *spec;

	if (!split_assign(r, rest, "event", &alias, &spec))
		return;
	if (!name_ok(alias, false) || strlen(alias) >= FORMULA_NAME_MAX ||
	    !strcmp(alias, "min") || !strcmp(alias, "max") || !strcmp(alias, "ratio")) {
		reader__fail(r,
			     "event alias '%.60s' is not a name usable in "
			     "formulas ([A-Za-z_][A-Za-z0-9_.]*, at most %d "
			     "characters, not min/max/ratio)",
			     alias, FORMULA_NAME_MAX - 1);
		return;
	}
	if (!*spec || strpbrk(spec, " \t,")) {
		reader__fail(r,
			     "event '%s': the spec must be one event name "
			     "without blanks or commas",
			     alias);
		return;
	}
	if (strlen(spec) >= PRESET_SPEC_MAX) {
		reader__fail(r, "event '%s': spec longer than %d characters", alias,
			     PRESET_SPEC_MAX - 1);
		return;
	}
	for (int i = 0; i < p->nevents; i++) {
		if (!strcmp(p->ev[i].alias, alias)) {
			reader__fail(r, "event alias '%s' declared twice", alias);
			return;
		}
		if (!strcmp(p->ev[i].spec, spec)) {
			reader__fail(r, "event '%s' already declared as '%s'", spec,
				     p->ev[i].alias);
			return;
		}
	}
	if (p->nevents >= PRESET_MAX_EVENTS) {
		reader__fail(r, "more than %d events", PRESET_MAX_EVENTS);
		return;
	}
	snprintf(p->ev[p->nevents].alias, FORMULA_NAME_MAX, "%s", alias);
	snprintf(p->ev[p->nevents].spec, PRESET_SPEC_MAX, "%s", spec);
	p->nevents++;
}

static void reader__metric(struct reader *r, char *rest)
{
	struct preset *p = &r->cur;
	struct formula f;
	char *name, *text, err[200];

	if (!split_assign(r, rest, "metric", &name, &text))
		return;
	if (!name_ok(name, true) || strlen(name) >= PRESET_NAME_MAX) {
		reader__fail(r,
			     "metric name '%.60s' must be letters, digits, '_', "
			     "'-', '.' (at most %d characters)",
			     name, PRESET_NAME_MAX - 1);
		return;
	}
	if (strlen(text) >= PRESET_TEXT_MAX) {
		reader__fail(r, "metric '%s': formula longer than %d characters",
			     name, PRESET_TEXT_MAX - 1);
		return;
	}
	if (hs_formula__parse(&f, text, err, sizeof(err)) < 0) {
		reader__fail(r, "metric '%s': %s", name, err);
		return;
	}
	for (int i = 0; i < f.nvars; i++)
		if (pmu_preset__event(p, f.var[i]) < 0) {
			reader__fail(r,
				     "metric '%s': '%s' is not an event alias "
				     "declared above",
				     name, f.var[i]);
			return;
		}
	for (int i = 0; i < p->nmetrics; i++)
		if (!strcmp(p->m[i].name, name)) {
			reader__fail(r, "metric '%s' defined twice", name);
			return;
		}
	if (p->nmetrics >= PRESET_MAX_METRICS) {
		reader__fail(r, "more than %d metrics", PRESET_MAX_METRICS);
		return;
	}
	snprintf(p->m[p->nmetrics].name, PRESET_NAME_MAX, "%s", name);
	snprintf(p->m[p->nmetrics].text, PRESET_TEXT_MAX, "%s", text);
	p->nmetrics++;
}

static void reader__text(struct reader *r, char *dst, const char *kw, char *rest)
{
	rest = trim(rest);
	if (!*rest)
		reader__fail(r, "'%s' needs a text", kw);
	else if (*dst)
		reader__fail(r, "'%s' given twice", kw);
	else if (strlen(rest) >= PRESET_TEXT_MAX)
		reader__fail(r, "'%s' longer than %d characters", kw,
			     PRESET_TEXT_MAX - 1);
	else
		snprintf(dst, PRESET_TEXT_MAX, "%s", rest);
}

static int table__push(struct preset_table *t, const struct preset *p)
{
	if (t->n == t->cap) {
		int cap = t->cap ? 2 * t->cap : 32;
		struct preset *np = realloc(t->p, (size_t)cap * sizeof(*np));

		if (!np)
			return -1;
		t->p = np;
		t->cap = cap;
	}
	t->p[t->n++] = *p;
	return 0;
}

static void reader__end(struct reader *r)
{
	struct preset *p = &r->cur;

	if (!r->skipping) {
		if (p->unavailable[0] && (p->nevents || p->nmetrics))
			reader__fail(r, "'unavailable' block with events or "
					"metrics");
		else if (!p->unavailable[0] && !p->nevents)
			reader__fail(r, "no event (give events, or 'unavailable "
					"REASON')");
		else if (table__push(r->t, p) < 0)
			reader__fail(r, "out of memory");
		else
			r->nvalid++;
	}
	r->open = r->skipping = false;
}

static void reader__line(struct reader *r, char *line)
{
	char *rest, *kw;
	enum preset_kind kind;

	line[strcspn(line, "#\r\n")] = '\0'; /* comments, line ends */
	rest = line;
	kw = word(&rest);
	if (!kw)
		return;
	if (!strcmp(kw, "preset") || !strcmp(kw, "opcode")) {
		kind = !strcmp(kw, "opcode") ? PRESET_OPCODE : PRESET_NAMED;
		if (r->open && !r->skipping)
			reader__fail(r, "not closed by 'end' before this '%s'", kw);
		r->open = false;
		reader__header(r, kind, rest);
		return;
	}
	if (!r->open) {
		reader__fail(r, "'%.40s' outside a preset or opcode block", kw);
		return;
	}
	if (!strcmp(kw, "end")) {
		if (*trim(rest) && !r->skipping)
			reader__fail(r, "text after 'end'");
		reader__end(r);
		return;
	}
	if (r->skipping)
		return;
	if (!strcmp(kw, "event"))
		reader__event(r, rest);
	else if (!strcmp(kw, "metric"))
		reader__metric(r, rest);
	else if (!strcmp(kw, "description"))
		reader__text(r, r->cur.description, kw, rest);
	else if (!strcmp(kw, "unavailable"))
		reader__text(r, r->cur.unavailable, kw, rest);
	else
		reader__fail(r,
			     "unknown keyword '%.40s' (expected event, metric, "
			     "description, unavailable or end)",
			     kw);
}

static const char *table__intern(struct preset_table *t, const char *name)
{
	char **nf = realloc(t->files, (size_t)(t->nfiles + 1) * sizeof(*nf));

	if (!nf)
		return NULL;
	t->files = nf;
	if (!(t->files[t->nfiles] = strdup(name)))
		return NULL;
	return t->files[t->nfiles++];
}

int pmu_preset_table__load_stream(struct preset_table *t, FILE *in, const char *name,
				  int dir, preset_err_fn err, void *ctx)
{
	struct reader r = { .t = t, .dir = dir, .err = err, .ctx = ctx };
	char *line = NULL;
	size_t cap = 0;

	r.file = table__intern(t, name);
	if (!r.file)
		return 0;
	if (dir >= t->ndirs)
		t->ndirs = dir + 1;
	while (getline(&line, &cap, in) >= 0) {
		r.line++;
		reader__line(&r, line);
	}
	free(line);
	if (r.open && !r.skipping) {
		reader__fail(&r, "not closed by 'end' at the end of the file");
	}
	return r.nvalid;
}

static void preset__load(void *tbl, FILE *in, const char *file, int dir,
			 preset_err_fn err, void *ctx)
{
	pmu_preset_table__load_stream(tbl, in, file, dir, err, ctx);
}

/* All "*.preset" files of each directory, in byte order of their names. */
int pmu_preset_table__load_path(struct preset_table *t, const char *path,
				preset_err_fn err, void *ctx)
{
	return pmu_preset__load_files(path, ".preset", &t->ndirs, preset__load, t,
				      err, ctx);
}

/* ---- lookups -------------------------------------------------------- */

int pmu_preset__event(const struct preset *p, const char *alias)
{
	for (int i = 0; i < p->nevents; i++)
		if (!strcmp(p->ev[i].alias, alias))
			return i;
	return -1;
}

bool pmu_preset__matches(const struct preset *p, const char *model, bool *exact)
{
	const char *s = p->models;
	bool any = false;

	*exact = false;
	while (*s) {
		size_t len = strcspn(s, " ");

		if (len == 1 && *s == '*')
			any = true;
		else if (model && *model && strlen(model) == len &&
			 strncasecmp(s, model, len) == 0) {
			*exact = true;
			return true;
		}
		s += len;
		s += strspn(s, " ");
	}
	return any;
}

const struct preset *pmu_preset_table__find(const struct preset_table *t,
					    enum preset_kind kind, const char *name,
					    const char *model)
{
	for (int d = 0; d < t->ndirs; d++) {
		const struct preset *star = NULL;

		for (int i = 0; i < t->n; i++) {
			const struct preset *p = &t->p[i];
			bool exact;

			if (p->dir != d || p->kind != kind || strcmp(p->name, name) ||
			    !pmu_preset__matches(p, model, &exact))
				continue;
			if (exact)
				return p;
			if (!star)
				star = p;
		}
		if (star)
			return star;
	}
	return NULL;
}

const char *pmu_preset_table__bad(const struct preset_table *t,
				  enum preset_kind kind, const char *name)
{
	for (int i = 0; i < t->nbad; i++)
		if (t->bad[i].kind == kind && !strcmp(t->bad[i].name, name))
			return t->bad[i].msg;
	return NULL;
}

bool pmu_preset_table__known(const struct preset_table *t, enum preset_kind kind,
			     const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (t->p[i].kind == kind && !strcmp(t->p[i].name, name))
			return true;
	return false;
}

void pmu_preset_table__names(const struct preset_table *t, enum preset_kind kind,
			     void (*fn)(void *ctx, const char *name), void *ctx)
{
	for (int i = 0; i < t->n; i++) {
		bool seen = false;

		if (t->p[i].kind != kind)
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = t->p[j].kind == kind &&
			       !strcmp(t->p[j].name, t->p[i].name);
		if (!seen)
			fn(ctx, t->p[i].name);
	}
}
