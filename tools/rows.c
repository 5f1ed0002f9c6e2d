/* rows.c - the region, thread and rank views of a set of results.
 *
 * Values are the JSON's: a region's is its process summary's sum over the
 * threads, summed again over the ranks; a thread's and a rank's are their
 * totals.  The standard errors of multiplexed estimates add as
 * independent (square root of the sum of squares), the coverage is the
 * summed running time over the summed enabled time, as in the files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/formula.h"
#include "tools/rows.h"

#define TOOL_PROG "hpcshim"
#define TOOL_OOM_STATUS 2
#include "tools/jsonread.h"

int rows__is_time(const char *ev)
{
	return strncmp(ev, "task-clock", 10) == 0 || strncmp(ev, "cpu-clock", 9) == 0;
}

/* Adds value v of ev (owner's key, e.g. "totals") to cell c: the value,
 * and the error and running/enabled of its _multiplexed sibling. */
static void cell__add(struct cell *c, json_object *owner, const char *key, const char *ev,
		      json_object *v)
{
	char k[64];
	json_object *m;
	double d;

	if (!results__num(v, &d))
		return;
	if (!c->has) {
		c->se = -1;
		c->cov = -1;
	}
	c->has = 1;
	c->v += d;
	snprintf(k, sizeof(k), "%s_multiplexed", key);
	m = get(get(owner, k), ev);
	if (!m)
		return;
	if (results__num(get(m, "stderr"), &d))
		c->se = c->se < 0 ? d : sqrt(c->se * c->se + d * d);
	if (results__num(get(m, "enabled"), &d))
		c->en += d;
	if (results__num(get(m, "running"), &d))
		c->run += d;
	if (c->en > 0)
		c->cov = c->run / c->en;
}

static struct row *rows__add(struct rowset *rs)
{
	struct row *r;

	rs->r = xrealloc(rs->r, (rs->n + 1) * sizeof(*rs->r));
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->rank = -1;
	r->tid = -1;
	r->omp = -1;
	r->pid = -1;
	r->wall = -1;
	r->up = -1;
	r->c = xrealloc(NULL, (rs->nev ? rs->nev : 1) * sizeof(*r->c));
	memset(r->c, 0, (rs->nev ? rs->nev : 1) * sizeof(*r->c));
	return r;
}

/* Wall time: a number (thread, process), {"sum"}, or a region's
 * {"inclusive", "exclusive"} (which one: exclusive). */
static void wall__add(struct row *r, json_object *o, int exclusive)
{
	double w = results__wall(o);

	if (w < 0 && !results__num(get(get(o, "wall_ns"),
				       exclusive ? "exclusive" : "inclusive"),
				   &w))
		return;
	r->wall = (r->wall < 0 ? 0 : r->wall) + w;
}

static struct row *rows__region(struct rowset *rs, const char *name)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->r[i].name, name) == 0)
			return &rs->r[i];
	return NULL;
}

static void rows__regions(struct rowset *rs, const struct results *s)
{
	const char *key = rs->exclusive ? "exclusive" : "inclusive";

	for (size_t f = 0; f < s->n; f++) {
		json_object *regs = get(s->r[f].doc, "regions");

		for (size_t i = 0; i < arr_len(regs); i++) {
			json_object *g = arr_at(regs, i);
			const char *name = get_str(g, "name", "?");
			struct row *r = rows__region(rs, name);

			if (!r) {
				r = rows__add(rs);
				r->name = xstrdup(name);
				r->src = s->n == 1 ? g : NULL;
			}
			r->calls += get_int(g, "calls", 0);
			r->threads += (int)get_int(g, "threads", 0);
			r->ranks++;
			wall__add(r, g, rs->exclusive);
			for (size_t e = 0; e < rs->nev; e++)
				cell__add(&r->c[e], g, key, rs->ev[e],
					  get(get(get(g, key), rs->ev[e]), "sum"));
		}
	}
}

/* ---- the region tree ------------------------------------------------ */

static void percall__merge(struct percall *m, json_object *o)
{
	double n, a, b, c;

	if (!results__num(get(o, "calls"), &n) || n <= 0 ||
	    !results__num(get(o, "min"), &a) || !results__num(get(o, "mean"), &b) ||
	    !results__num(get(o, "max"), &c))
		return;
	if (!m->n || a < m->min)
		m->min = a;
	if (!m->n || c > m->max)
		m->max = c;
	m->mean = (m->mean * (double)m->n + b * n) / ((double)m->n + n);
	m->n += (long long)n;
}

/* The row of name under row up (-1: the top), made when new. */
static long tree__child(struct rowset *rs, long up, const char *name, int depth)
{
	struct row *r;

	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].up == up && strcmp(rs->r[i].name, name) == 0)
			return (long)i;
	r = rows__add(rs);
	r->name = xstrdup(name);
	r->up = up;
	r->depth = depth;
	r->last_file = -1;
	return (long)(rs->n - 1);
}

/* The tree row of a thread's region record k: its parent's row first.  A
 * parent named but absent, or a chain longer than the thread's records
 * (not written by hpcshim), puts the record at the top. */
static long tree__node(struct rowset *rs, json_object *regs, long *memo, size_t k,
		       size_t hops)
{
	json_object *g = arr_at(regs, k);
	const char *pn = get_str(g, "parent", NULL);
	long up = -1;

	if (memo[k] >= 0)
		return memo[k];
	if (pn && hops < arr_len(regs))
		for (size_t j = 0; j < arr_len(regs); j++)
			if (j != k &&
			    strcmp(get_str(arr_at(regs, j), "name", ""), pn) == 0) {
				up = tree__node(rs, regs, memo, j, hops + 1);
				break;
			}
	memo[k] = tree__child(rs, up, get_str(g, "name", "?"),
			      up < 0 ? 0 : rs->r[up].depth + 1);
	return memo[k];
}

/* Depth first, siblings in the order of by (row indices). */
static void tree__order(const struct rowset *rs, const long *by, long up,
			long *order, size_t *n)
{
	for (size_t k = 0; k < rs->n; k++)
		if (rs->r[by[k]].up == up) {
			order[(*n)++] = by[k];
			tree__order(rs, by, by[k], order, n);
		}
}

/* Puts the rows in depth-first order, siblings as in by. */
static void tree__sort(struct rowset *rs, const long *by)
{
	size_t n = 0, m = rs->n ? rs->n : 1;
	long *order = xrealloc(NULL, m * sizeof(*order));
	long *where = xrealloc(NULL, m * sizeof(*where));
	struct row *sorted = xrealloc(NULL, m * sizeof(*sorted));

	tree__order(rs, by, -1, order, &n);
	for (size_t i = 0; i < n; i++) {
		sorted[i] = rs->r[order[i]];
		where[order[i]] = (long)i;
	}
	for (size_t i = 0; i < n; i++)
		if (sorted[i].up >= 0)
			sorted[i].up = where[sorted[i].up];
	free(rs->r);
	rs->r = sorted;
	free(order);
	free(where);
}

static void rows__tree(struct rowset *rs, const struct results *s)
{
	const char *key = rs->exclusive ? "exclusive" : "inclusive";
	long *by;

	for (size_t f = 0; f < s->n; f++) {
		json_object *ths = get(s->r[f].doc, "threads");

		for (size_t i = 0; i < arr_len(ths); i++) {
			json_object *regs = get(arr_at(ths, i), "regions");
			size_t nr = arr_len(regs);
			long *memo = xrealloc(NULL, (nr ? nr : 1) * sizeof(*memo));

			for (size_t k = 0; k < nr; k++)
				memo[k] = -1;
			for (size_t k = 0; k < nr; k++) {
				json_object *g = arr_at(regs, k),
					    *pc = get(g, "per_call");
				long at = tree__node(rs, regs, memo, k,
						     0); /* may move rs->r */
				struct row *r = &rs->r[at];

				r->calls += get_int(g, "calls", 0);
				r->threads++;
				if (r->last_file != (int)f) {
					r->ranks++;
					r->last_file = (int)f;
				}
				wall__add(r, g, rs->exclusive);
				percall__merge(&r->pc, pc);
				if (pc && !r->pc_event)
					r->pc_event = get_str(pc, "event", NULL);
				percall__merge(&r->pc_wall, get(g, "per_call_wall_ns"));
				for (size_t e = 0; e < rs->nev; e++)
					cell__add(&r->c[e], g, key, rs->ev[e],
						  get(get(g, key), rs->ev[e]));
			}
			free(memo);
		}
	}
	by = xrealloc(NULL, (rs->n ? rs->n : 1) * sizeof(*by));
	for (size_t i = 0; i < rs->n; i++)
		by[i] = (long)i;
	tree__sort(rs, by);
	free(by);
}

static int tid_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void rows__threads(struct rowset *rs, const struct results *s)
{
	for (size_t f = 0; f < s->n; f++) {
		json_object *ths = get(s->r[f].doc, "threads");

		for (size_t i = 0; i < arr_len(ths); i++) {
			json_object *th = arr_at(ths, i);
			struct row *r = rows__add(rs);

			r->rank = s->r[f].rank;
			r->host = get_str(get(s->r[f].doc, "process"), "host", "?");
			r->pid = get_int(get(s->r[f].doc, "process"), "pid", -1);
			r->tid = get_int(th, "tid", -1);
			r->omp = get_int(th, "omp_thread", -1);
			r->threads = 1;
			r->ranks = 1;
			r->calls = (long long)arr_len(get(th, "regions"));
			wall__add(r, th, 0);
			for (size_t e = 0; e < rs->nev; e++)
				cell__add(&r->c[e], th, "totals", rs->ev[e],
					  get(get(th, "totals"), rs->ev[e]));
		}
	}
	qsort(rs->r, rs->n, sizeof(*rs->r), tid_cmp);
}

/* A rank's values are its process totals; their errors and coverage come
 * from its threads' totals (the process totals carry no _multiplexed). */
static void rows__ranks(struct rowset *rs, const struct results *s)
{
	for (size_t f = 0; f < s->n; f++) {
		json_object *doc = s->r[f].doc, *ths = get(doc, "threads");
		struct row *r = rows__add(rs);

		r->rank = s->r[f].rank;
		r->host = get_str(get(doc, "process"), "host", "?");
		r->pid = get_int(get(doc, "process"), "pid", -1);
		r->threads = (int)get_int(doc, "thread_count", (long long)arr_len(ths));
		r->ranks = 1;
		r->calls = (long long)arr_len(get(doc, "regions"));
		wall__add(r, get(doc, "process"), 0);
		for (size_t e = 0; e < rs->nev; e++) {
			struct cell *c = &r->c[e], t = { 0 };
			double d;

			if (!results__num(get(get(doc, "totals"), rs->ev[e]), &d))
				continue;
			for (size_t i = 0; i < arr_len(ths); i++)
				cell__add(&t, arr_at(ths, i), "totals", rs->ev[e],
					  get(get(arr_at(ths, i), "totals"), rs->ev[e]));
			*c = t;
			c->has = 1;
			c->v = d;
			if (!t.has)
				c->se = c->cov = -1;
		}
	}
}

/* ---- metrics: the presets' formulas over a row's values ------------- */

struct metric_def {
	const char *name;
	struct formula f;
	int col[FORMULA_MAX_VARS]; /* the input's column, -1: not shown */
	const char *ev[FORMULA_MAX_VARS];
	char why[FORMULA_MAX_VARS][96];
};

const char *rows__metric_name(const struct rowset *rs, size_t k)
{
	return rs->mdef[k].name;
}

/* Every metric of every set in the results' presets, first definition of
 * a name first; the inputs are the set's aliases of event names. */
static void metrics__load(struct rowset *rs, const struct results *s)
{
	for (size_t f = 0; f < s->n; f++) {
		json_object *sets = get(get(s->r[f].doc, "presets"), "sets");

		for (size_t i = 0; i < arr_len(sets); i++) {
			json_object *set = arr_at(sets, i), *ms = get(set, "metrics");
			json_object *evs = get(set, "events");

			if (!ms || !json_object_is_type(ms, json_type_object))
				continue;
			json_object_object_foreach(ms, name, fo)
			{
				struct metric_def *d;
				char err[128];
				size_t k;

				for (k = 0;
				     k < rs->nm && strcmp(rs->mdef[k].name, name); k++)
					;
				if (k < rs->nm ||
				    !json_object_is_type(fo, json_type_string))
					continue;
				rs->mdef = xrealloc(rs->mdef,
						    (rs->nm + 1) * sizeof(*rs->mdef));
				d = &rs->mdef[rs->nm];
				memset(d, 0, sizeof(*d));
				if (hs_formula__parse(&d->f, json_object_get_string(fo),
						      err, sizeof(err)) < 0)
					continue;
				d->name = name;
				for (int v = 0; v < d->f.nvars; v++) {
					d->ev[v] = get_str(evs, d->f.var[v],
							   d->f.var[v]);
					d->col[v] = -1;
					for (size_t e = 0; e < rs->nev; e++)
						if (strcmp(rs->ev[e], d->ev[v]) == 0)
							d->col[v] = (int)e;
					snprintf(d->why[v], sizeof(d->why[v]),
						 "event '%.60s' %s", d->ev[v],
						 d->col[v] < 0 ? "not shown" :
								 "not counted");
				}
				rs->nm++;
			}
		}
	}
}

static void metrics__eval(struct rowset *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct row *r = &rs->r[i];

		r->m = xrealloc(NULL, (rs->nm ? rs->nm : 1) * sizeof(*r->m));
		for (size_t k = 0; k < rs->nm; k++) {
			struct metric_def *d = &rs->mdef[k];
			double vals[FORMULA_MAX_VARS];
			const char *why[FORMULA_MAX_VARS];

			for (int v = 0; v < d->f.nvars; v++) {
				const struct cell *c = d->col[v] >= 0 ?
							       &r->c[d->col[v]] :
							       NULL;

				vals[v] = c && c->has ? c->v : 0;
				why[v] = c && c->has ? NULL : d->why[v];
			}
			r->m[k].has = hs_formula__eval(&d->f, vals, why, &r->m[k].v,
						       &r->m[k].why);
		}
	}
}

void rows__build(struct rowset *rs, const struct results *s, enum view v, const char **ev,
		 size_t nev, int exclusive)
{
	memset(rs, 0, sizeof(*rs));
	rs->view = v;
	rs->ev = ev;
	rs->nev = nev;
	rs->exclusive = exclusive;
	if (v == VIEW_REGION)
		rows__regions(rs, s);
	else if (v == VIEW_THREAD)
		rows__threads(rs, s);
	else if (v == VIEW_TREE)
		rows__tree(rs, s);
	else
		rows__ranks(rs, s);
	metrics__load(rs, s);
	metrics__eval(rs);
}

void rows__free(struct rowset *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->r[i].name);
		free(rs->r[i].c);
		free(rs->r[i].m);
	}
	free(rs->mdef);
	rs->mdef = NULL;
	rs->nm = 0;
	free(rs->r);
	rs->r = NULL;
	rs->n = 0;
}

static int sort_ev = -1;
static const char *sort_key;

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double p, q;

	if (sort_ev >= 0) {
		if (x->c[sort_ev].has != y->c[sort_ev].has)
			return y->c[sort_ev].has - x->c[sort_ev].has;
		p = x->c[sort_ev].v;
		q = y->c[sort_ev].v;
	} else if (strcmp(sort_key, "calls") == 0) {
		p = (double)x->calls;
		q = (double)y->calls;
	} else if (strcmp(sort_key, "wall") == 0) {
		p = x->wall;
		q = y->wall;
	} else { /* name; the other views by rank and tid */
		if (x->name && y->name)
			return strcmp(x->name, y->name);
		return tid_cmp(a, b);
	}
	return (p < q) - (p > q); /* largest first */
}

static const struct row *sort_rows;

static int index_cmp(const void *a, const void *b)
{
	int c = row_cmp(&sort_rows[*(const long *)a], &sort_rows[*(const long *)b]);

	/* stable: first appearance among equals */
	return c ? c :
		   (*(const long *)a > *(const long *)b) -
			       (*(const long *)a < *(const long *)b);
}

int rows__sort(struct rowset *rs, const char *key)
{
	sort_ev = -1;
	sort_key = key;
	if (strcmp(key, "name") && strcmp(key, "calls") && strcmp(key, "wall")) {
		for (size_t e = 0; e < rs->nev; e++)
			if (strcmp(rs->ev[e], key) == 0)
				sort_ev = (int)e;
		if (sort_ev < 0)
			return -1;
	}
	if (rs->view == VIEW_TREE) { /* siblings sorted, the tree kept */
		long *by = xrealloc(NULL, (rs->n ? rs->n : 1) * sizeof(*by));

		for (size_t i = 0; i < rs->n; i++)
			by[i] = (long)i;
		sort_rows = rs->r;
		qsort(by, rs->n, sizeof(*by), index_cmp);
		tree__sort(rs, by);
		free(by);
		return 0;
	}
	qsort(rs->r, rs->n, sizeof(*rs->r), row_cmp);
	return 0;
}
