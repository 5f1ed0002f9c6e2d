/* tree_file.c - parser of the stall-tree files (docs/drilldown.md).
 *
 * Line oriented like preset.c.  A node's statements follow its `node` line
 * and are checked when the next node or `end` closes it: a node with an
 * error is dropped, and so is every node under it (their parent is gone),
 * so one typo never shifts values onto the wrong parent.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "presets/tree_file.h"

struct tparse {
	struct tree_table *tt;
	const char *file;
	int dir;
	int line;
	preset_err_fn err;
	void *ctx;
	struct tree *t; /* the tree being read, NULL outside one */
	bool in_node;   /* t->node[t->nnodes] is being filled   */
	bool node_bad;  /* it has an error: drop it at its close */
	bool has_value;
	char sum_ids[TREE_MAX_SUM][FORMULA_NAME_MAX];
	int nsum_ids;
	char (*pend_sum)[TREE_MAX_SUM][FORMULA_NAME_MAX]; /* per node */
	int pend_nsum[TREE_MAX_NODES];
	char dropped[TREE_MAX_NODES * 2][FORMULA_NAME_MAX]; /* skipped ids */
	int ndropped;
	int ntrees;
};

__attribute__((format(printf, 2, 3))) static void tp__fail(struct tparse *p,
							   const char *fmt, ...)
{
	char msg[900], line[1000];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "%s:%d: %s", p->file, p->line, msg);
	if (p->err)
		p->err(p->ctx, line);
}

static bool valid_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.'))
			return false;
	return true;
}

static bool tp__dropped(const struct tparse *p, const char *id)
{
	for (int i = 0; i < p->ndropped; i++)
		if (!strcmp(p->dropped[i], id))
			return true;
	return false;
}

static void tp__drop(struct tparse *p, const char *id)
{
	if (p->ndropped < (int)(sizeof(p->dropped) / sizeof(p->dropped[0])))
		snprintf(p->dropped[p->ndropped++], FORMULA_NAME_MAX, "%s", id);
}

/* Parses a formula and resolves its names against the tree so far. */
static bool tp__expr(struct tparse *p, struct tree_expr *e, const char *text)
{
	char err[200];

	snprintf(e->text, sizeof(e->text), "%s", text);
	if (strlen(text) >= sizeof(e->text)) {
		tp__fail(p, "formula longer than %zu characters", sizeof(e->text) - 1);
		return false;
	}
	if (hs_formula__parse(&e->f, text, err, sizeof(err))) {
		tp__fail(p, "%s", err);
		return false;
	}
	for (int v = 0; v < e->f.nvars; v++) {
		const char *name = e->f.var[v];
		int i;

		if ((i = hs_tree__event(p->t, name)) >= 0) {
			e->kind[v] = TREE_REF_EVENT, e->idx[v] = (short)i;
		} else if ((i = hs_tree__const(p->t, name)) >= 0) {
			e->kind[v] = TREE_REF_CONST, e->idx[v] = (short)i;
		} else if ((i = hs_tree__node(p->t, name)) >= 0 && i < p->t->nnodes) {
			e->kind[v] = TREE_REF_NODE, e->idx[v] = (short)i;
		} else if (tp__dropped(p, name)) {
			tp__fail(p, "'%s' is a node left out above", name);
			return false;
		} else {
			tp__fail(p,
				 "unknown name '%s' (not an event, constant or "
				 "node above)",
				 name);
			return false;
		}
	}
	return true;
}

static void tp__close_node(struct tparse *p)
{
	struct tree_node *n;

	if (!p->in_node)
		return;
	p->in_node = false;
	n = &p->t->node[p->t->nnodes];
	if (!p->node_bad && !p->has_value) {
		int save = p->line;

		p->line = n->line;
		tp__fail(p, "node '%s' has no value", n->id);
		p->line = save;
		p->node_bad = true;
	}
	if (p->node_bad) {
		tp__drop(p, n->id);
		return;
	}
	p->pend_nsum[p->t->nnodes] = p->nsum_ids;
	memcpy(p->pend_sum[p->t->nnodes], p->sum_ids, sizeof(p->sum_ids));
	p->t->nnodes++;
}

static void tp__open_node(struct tparse *p, char *rest)
{
	char *save = NULL, *id = strtok_r(rest, " \t", &save);
	char *parent = strtok_r(NULL, " \t", &save);
	struct tree_node *n;
	struct tree *t = p->t;

	p->in_node = true;
	p->node_bad = false;
	p->has_value = false;
	p->nsum_ids = 0;
	if (t->nnodes >= TREE_MAX_NODES) {
		tp__fail(p, "more than %d nodes", TREE_MAX_NODES);
		p->node_bad = true;
		n = NULL;
	} else {
		n = &t->node[t->nnodes];
		memset(n, 0, sizeof(*n));
		n->line = p->line;
		n->parent = -1;
		n->level = 1;
		snprintf(n->unit, sizeof(n->unit), "fraction");
	}
	if (!id || !parent || strtok_r(NULL, " \t", &save)) {
		tp__fail(p, "expected 'node ID PARENT' (PARENT '-' for a root)");
		p->node_bad = true;
		if (n && id && strlen(id) < FORMULA_NAME_MAX)
			snprintf(n->id, sizeof(n->id), "%s", id);
		return;
	}
	if (!n)
		return;
	snprintf(n->id, sizeof(n->id), "%s", id);
	if (!valid_name(id) || strlen(id) >= FORMULA_NAME_MAX) {
		tp__fail(p, "bad node id '%s'", id);
		p->node_bad = true;
		return;
	}
	if (hs_tree__node(t, id) >= 0 || hs_tree__event(t, id) >= 0 ||
	    hs_tree__const(t, id) >= 0) {
		tp__fail(p, "'%s' is already defined in this tree", id);
		p->node_bad = true;
		return;
	}
	if (strcmp(parent, "-") != 0) {
		int pi = hs_tree__node(t, parent);

		if (pi < 0) {
			if (tp__dropped(p, parent))
				tp__fail(p, "node '%s' left out: its parent '%s' was",
					 id, parent);
			else
				tp__fail(p, "unknown parent '%s' (a node above)",
					 parent);
			p->node_bad = true;
			return;
		}
		n->parent = pi;
		n->depth = t->node[pi].depth + 1;
		n->level = t->node[pi].level;
		snprintf(n->unit, sizeof(n->unit), "%s", t->node[pi].unit);
	}
}

static void append(char *dst, size_t len, const char *sep, const char *s)
{
	size_t used = strlen(dst);

	if (used + strlen(sep) + strlen(s) + 1 > len)
		return;
	snprintf(dst + used, len - used, "%s%s", used ? sep : "", s);
}

static void tp__node_stmt(struct tparse *p, const char *kw, char *rest)
{
	struct tree_node *n = &p->t->node[p->t->nnodes];

	if (p->node_bad)
		return; /* one diagnostic per node */
	if (!strcmp(kw, "name")) {
		snprintf(n->name, sizeof(n->name), "%s", rest);
	} else if (!strcmp(kw, "value")) {
		p->has_value = true;
		if (!tp__expr(p, &n->value, rest))
			p->node_bad = true;
	} else if (!strcmp(kw, "threshold")) {
		n->has_threshold = true;
		if (!tp__expr(p, &n->threshold, rest))
			p->node_bad = true;
	} else if (!strcmp(kw, "unit")) {
		if (!*rest || strlen(rest) >= sizeof(n->unit) || strchr(rest, ' ')) {
			tp__fail(p, "expected 'unit WORD'");
			p->node_bad = true;
		} else {
			snprintf(n->unit, sizeof(n->unit), "%s", rest);
		}
	} else if (!strcmp(kw, "level")) {
		char *end;
		long v = strtol(rest, &end, 10);

		if (end == rest || *end || v < 1 || v > 9) {
			tp__fail(p, "expected 'level N' (1 to 9)");
			p->node_bad = true;
		} else {
			n->level = (int)v;
		}
	} else if (!strcmp(kw, "base")) {
		n->base = true;
	} else if (!strcmp(kw, "sum")) {
		char *save = NULL;

		for (char *s = strtok_r(rest, " \t", &save); s;
		     s = strtok_r(NULL, " \t", &save)) {
			if (p->nsum_ids >= TREE_MAX_SUM) {
				tp__fail(p, "more than %d parts in a sum rule",
					 TREE_MAX_SUM);
				p->node_bad = true;
				return;
			}
			snprintf(p->sum_ids[p->nsum_ids++], FORMULA_NAME_MAX, "%s", s);
		}
	} else if (!strcmp(kw, "tolerance")) {
		char *end;
		double v = strtod(rest, &end);

		if (end == rest || *end || !(v >= 0 && v < 1)) {
			tp__fail(p, "expected 'tolerance X' (relative, 0 <= X < 1)");
			p->node_bad = true;
		} else {
			n->sum_tol = v;
		}
	} else if (!strcmp(kw, "next")) {
		snprintf(n->next, sizeof(n->next), "%s", rest);
	} else if (!strcmp(kw, "why")) {
		snprintf(n->why, sizeof(n->why), "%s", rest);
	} else if (!strcmp(kw, "note")) {
		append(n->notes, sizeof(n->notes), " ", rest);
	} else {
		tp__fail(p, "unknown statement '%s' in a node", kw);
		p->node_bad = true;
	}
}

/* `ALIAS = SPEC` / `NAME = NUMBER`: splits at '='. */
static bool split_assign(char *rest, char **lhs, char **rhs)
{
	char *eq = strchr(rest, '=');
	char *e;

	if (!eq)
		return false;
	*eq = '\0';
	*lhs = rest;
	for (e = eq - 1; e >= rest && isspace((unsigned char)*e); e--)
		*e = '\0';
	for (*rhs = eq + 1; isspace((unsigned char)**rhs); (*rhs)++)
		;
	return **lhs && **rhs;
}

static void tp__tree_stmt(struct tparse *p, const char *kw, char *rest)
{
	struct tree *t = p->t;
	char *lhs, *rhs;

	if (!strcmp(kw, "description")) {
		snprintf(t->description, sizeof(t->description), "%s", rest);
	} else if (!strcmp(kw, "source")) {
		append(t->source, sizeof(t->source), "; ", rest);
	} else if (!strcmp(kw, "event")) {
		if (!split_assign(rest, &lhs, &rhs) || !valid_name(lhs) ||
		    strlen(lhs) >= FORMULA_NAME_MAX || strchr(rhs, ' ') ||
		    strlen(rhs) >= TREE_SPEC_MAX) {
			tp__fail(p, "expected 'event ALIAS = SPEC'");
			return;
		}
		if (hs_tree__event(t, lhs) >= 0 || hs_tree__const(t, lhs) >= 0) {
			tp__fail(p, "'%s' is already defined in this tree", lhs);
			return;
		}
		if (t->nevents >= TREE_MAX_EVENTS) {
			tp__fail(p, "more than %d events", TREE_MAX_EVENTS);
			return;
		}
		snprintf(t->ev[t->nevents].alias, FORMULA_NAME_MAX, "%s", lhs);
		snprintf(t->ev[t->nevents].spec, TREE_SPEC_MAX, "%s", rhs);
		t->ev[t->nevents++].level = 99;
	} else if (!strcmp(kw, "const")) {
		double v;
		char *end;

		if (!split_assign(rest, &lhs, &rhs) || !valid_name(lhs) ||
		    strlen(lhs) >= FORMULA_NAME_MAX) {
			tp__fail(p, "expected 'const NAME = NUMBER'");
			return;
		}
		v = strtod(rhs, &end);
		if (end == rhs || *end) {
			tp__fail(p, "const %s: '%s' is not a number", lhs, rhs);
			return;
		}
		if (hs_tree__event(t, lhs) >= 0 || hs_tree__const(t, lhs) >= 0) {
			tp__fail(p, "'%s' is already defined in this tree", lhs);
			return;
		}
		if (t->nconsts >= TREE_MAX_CONSTS) {
			tp__fail(p, "more than %d constants", TREE_MAX_CONSTS);
			return;
		}
		snprintf(t->c[t->nconsts].name, FORMULA_NAME_MAX, "%s", lhs);
		t->c[t->nconsts++].v = v;
	} else {
		tp__fail(p, "unknown statement '%s'", kw);
	}
}

static void mark_levels(struct tree *t, const struct tree_expr *e, int level)
{
	for (int v = 0; v < e->f.nvars; v++) {
		if (e->kind[v] == TREE_REF_EVENT && t->ev[e->idx[v]].level > level)
			t->ev[e->idx[v]].level = level;
		if (e->kind[v] == TREE_REF_NODE)
			mark_levels(t, &t->node[e->idx[v]].value, level);
	}
}

static void tp__close_tree(struct tparse *p)
{
	struct tree *t = p->t;

	tp__close_node(p);
	for (int i = 0; i < t->nnodes; i++) {
		struct tree_node *n = &t->node[i];

		for (int j = 0; j < p->pend_nsum[i]; j++) {
			int k = hs_tree__node(t, p->pend_sum[i][j]);

			if (k < 0) {
				int save = p->line;

				p->line = n->line;
				tp__fail(p,
					 "node '%s': sum rule part '%s' is not a node "
					 "(rule dropped)",
					 n->id, p->pend_sum[i][j]);
				p->line = save;
				n->nsum = 0;
				break;
			}
			n->sum[n->nsum++] = k;
		}
		mark_levels(t, &n->value, n->level);
		if (n->has_threshold)
			mark_levels(t, &n->threshold, n->level);
	}
	if (!t->nnodes) {
		int save = p->line;

		p->line = t->line;
		tp__fail(p, "tree '%s' has no valid node (left out)", t->name);
		p->line = save;
		free(t);
	} else {
		p->tt->t = realloc(p->tt->t,
				   sizeof(*p->tt->t) * (size_t)(p->tt->n + 1));
		if (!p->tt->t) {
			free(t);
			p->tt->n = 0;
		} else {
			p->tt->t[p->tt->n++] = t;
			p->ntrees++;
		}
	}
	p->t = NULL;
}

static void tp__line(struct tparse *p, char *s)
{
	char *hash = strchr(s, '#'), *kw, *rest, *e;

	if (hash)
		*hash = '\0';
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return;
	kw = s;
	rest = s + strcspn(s, " \t");
	if (*rest) {
		*rest++ = '\0';
		while (isspace((unsigned char)*rest))
			rest++;
	}
	if (!p->t) {
		char *save = NULL, *name = strtok_r(rest, " \t", &save);

		if (strcmp(kw, "tree") || !name) {
			tp__fail(p, "expected 'tree NAME MODEL...'");
			return;
		}
		p->t = calloc(1, sizeof(*p->t));
		if (!p->t)
			return;
		p->ndropped = 0;
		snprintf(p->t->name, sizeof(p->t->name), "%s", name);
		for (char *m = strtok_r(NULL, " \t", &save); m;
		     m = strtok_r(NULL, " \t", &save))
			append(p->t->models, sizeof(p->t->models), " ", m);
		if (!p->t->models[0])
			snprintf(p->t->models, sizeof(p->t->models), "*");
		p->t->file = p->file;
		p->t->line = p->line;
		p->t->dir = p->dir;
		return;
	}
	if (!strcmp(kw, "end")) {
		tp__close_tree(p);
		return;
	}
	if (!strcmp(kw, "node")) {
		tp__close_node(p);
		tp__open_node(p, rest);
		return;
	}
	if (p->in_node)
		tp__node_stmt(p, kw, rest);
	else
		tp__tree_stmt(p, kw, rest);
}

int pmu_tree_table__load_stream(struct tree_table *tt, FILE *in, const char *name,
				int dir, preset_err_fn err, void *ctx)
{
	struct tparse *p = calloc(1, sizeof(*p));
	char *buf = NULL;
	size_t cap = 0;
	int n;

	if (!p)
		return 0;
	p->pend_sum = calloc(TREE_MAX_NODES, sizeof(*p->pend_sum));
	if (!p->pend_sum) {
		free(p);
		return 0;
	}
	tt->files = realloc(tt->files, sizeof(char *) * (size_t)(tt->nfiles + 1));
	if (!tt->files || !(tt->files[tt->nfiles] = strdup(name))) {
		free(p->pend_sum);
		free(p);
		return 0;
	}
	p->tt = tt;
	p->file = tt->files[tt->nfiles++];
	p->dir = dir;
	p->err = err;
	p->ctx = ctx;
	while (getline(&buf, &cap, in) >= 0) {
		p->line++;
		tp__line(p, buf);
	}
	if (p->t) {
		tp__fail(p, "tree '%s' has no 'end' (kept up to here)", p->t->name);
		tp__close_tree(p);
	}
	free(buf);
	n = p->ntrees;
	free(p->pend_sum);
	free(p);
	return n;
}

void pmu_tree_table__init(struct tree_table *tt)
{
	memset(tt, 0, sizeof(*tt));
}

void pmu_tree_table__free(struct tree_table *tt)
{
	for (int i = 0; i < tt->n; i++)
		free(tt->t[i]);
	for (int i = 0; i < tt->nfiles; i++)
		free(tt->files[i]);
	free(tt->t);
	free(tt->files);
	memset(tt, 0, sizeof(*tt));
}

static void tree__load(void *tbl, FILE *in, const char *file, int dir,
		       preset_err_fn err, void *ctx)
{
	pmu_tree_table__load_stream(tbl, in, file, dir, err, ctx);
}

int pmu_tree_table__load_path(struct tree_table *tt, const char *path,
			      preset_err_fn err, void *ctx)
{
	return pmu_preset__load_files(path, ".tree", &tt->ndirs, tree__load, tt,
				      err, ctx);
}

static int tree__matches(const struct tree *t, const char *model)
{
	const char *s = t->models;
	int any = 0;

	while (*s) {
		size_t len = strcspn(s, " ");

		if (len == 1 && *s == '*')
			any = 1;
		else if (model && strlen(model) == len && !strncasecmp(s, model, len))
			return 2;
		s += len;
		while (*s == ' ')
			s++;
	}
	return any;
}

const struct tree *pmu_tree_table__find(const struct tree_table *tt,
					const char *name, const char *model)
{
	for (int d = 0; d < tt->ndirs || d == 0; d++) {
		const struct tree *best = NULL;
		int how = 0;

		for (int i = 0; i < tt->n; i++) {
			int m;

			if (tt->t[i]->dir != d ||
			    (name && strcmp(tt->t[i]->name, name)))
				continue;
			m = tree__matches(tt->t[i], model);
			if (m > how)
				best = tt->t[i], how = m;
		}
		if (best)
			return best;
	}
	return NULL;
}
