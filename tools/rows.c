/* rows.c - the region, thread and rank views of a set of results.
 *
 * Values are the JSON's: a region's is its process summary's sum over the
 * threads, summed again over the ranks; a thread's and a rank's are their
 * totals.  The standard errors of multiplexed estimates add as
 * independent (square root of the sum of squares), the coverage is the
 * summed running time over the summed enabled time, as in the files.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/formula.h"
#include "common/strtab.h"
#include "aggregate/docread.h"
#include "aggregate/profile.h"
#include "tools/rows.h"

#include "tools/xalloc.h"

int rows__is_time(const char *ev)
{
	return strncmp(ev, "task-clock", 10) == 0 || strncmp(ev, "cpu-clock", 9) == 0;
}

/* Adds value x to cell c: the value, its error (independent errors add
 * in squares) and the running/enabled of its _multiplexed entry. */
static void cell__add(struct cell *c, const struct dr_value *x)
{
	c->mux |= x->mux;
	if (!x->has)
		return;
	if (!c->has) {
		c->se = -1;
		c->cov = -1;
	}
	c->has = 1;
	c->v += x->v;
	if (x->se >= 0)
		c->se = c->se < 0 ? x->se : sqrt(c->se * c->se + x->se * x->se);
	if (!x->mux)
		return;
	c->en += x->en;
	c->run += x->run;
	if (c->en > 0)
		c->cov = c->run / c->en;
}

static struct row *rows__add(struct rowset *rs)
{
	struct row *r;

	if (rs->n == rs->cap) { /* doubling: a copy per row is quadratic */
		rs->cap = rs->cap ? 2 * rs->cap : 64;
		rs->r = xrealloc(rs->r, rs->cap * sizeof(*rs->r));
	}
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->rank = -1;
	r->tid = -1;
	r->omp = -1;
	r->pid = -1;
	r->wall = -1;
	r->meas = -1;
	r->up = -1;
	r->c = xrealloc(NULL, (rs->nev ? rs->nev : 1) * sizeof(*r->c));
	memset(r->c, 0, (rs->nev ? rs->nev : 1) * sizeof(*r->c));
	return r;
}

/* Adds wall time w (ns; -1: none) to row r. */
static void wall__add(struct row *r, double w)
{
	if (w < 0)
		return;
	r->wall = (r->wall < 0 ? 0 : r->wall) + w;
}

/* The index of key in t, added when new: rows are made in the order
 * their keys are first seen, so the index is the row's. */
static long rows__intern(struct hs_strtab *t, const char *key, bool *added)
{
	return (long)xintern(t, key, added);
}

/* A region's row values: calls, threads, ranks, wall time, events. */
static void region__add(struct rowset *rs, struct row *r, const struct dr_region *g,
			enum dr_key key)
{
	struct dr_value x;

	r->calls += dr_region__calls(g);
	wall__add(r, dr_region__wall(g, key));
	if (dr_region__measurement(g) >= 0)
		r->meas = (r->meas < 0 ? 0 : r->meas) + dr_region__measurement(g);
	for (size_t e = 0; e < rs->nev; e++) {
		dr_region__value(g, key, rs->ev[e], &x);
		cell__add(&r->c[e], &x);
	}
}

static void rows__regions(struct rowset *rs, const struct results *s)
{
	enum dr_key key = rs->exclusive ? DR_EXCLUSIVE : DR_INCLUSIVE;
	struct hs_strtab byname = { 0 };

	for (size_t f = 0; f < s->n; f++) {
		const struct dr_doc *doc = s->r[f].doc;

		for (size_t i = 0; i < dr_doc__nregions(doc); i++) {
			const struct dr_region *g = dr_doc__region(doc, i);
			const char *name = dr_region__name(g);
			bool added;
			long at = rows__intern(&byname, name, &added);
			struct row *r = added ? rows__add(rs) : &rs->r[at];

			if (added)
				r->name = xstrdup(name);
			r->threads += (int)dr_region__threads(g);
			r->ranks += (int)dr_region__ranks(g);
			region__add(rs, r, g, key);
		}
	}
	hs_strtab__free(&byname);
}

/* ---- the region tree ------------------------------------------------ */

static void percall__merge(struct percall *m, const struct dr_percall *o)
{
	if (!o->has)
		return;
	if (!m->n || o->min < m->min)
		m->min = o->min;
	if (!m->n || o->max > m->max)
		m->max = o->max;
	m->mean = (m->mean * (double)m->n + o->mean * o->calls) / ((double)m->n + o->calls);
	m->n += (long long)o->calls;
}

/* The row of name under row up (-1: the top), made when new; rs->paths
 * finds it by "up/name". */
static long tree__child(struct rowset *rs, long up, const char *name, int depth)
{
	size_t len = strlen(name) + 24;
	char *key = xrealloc(NULL, len);
	struct row *r;
	bool added;
	long at;

	snprintf(key, len, "%ld/%s", up, name);
	at = rows__intern(rs->paths, key, &added);
	free(key);
	if (!added)
		return at;
	r = rows__add(rs);
	r->name = xstrdup(name);
	r->up = up;
	r->depth = depth;
	r->last_file = -1;
	return (long)(rs->n - 1);
}

/* A thread's records by name: the first two of each (a record's parent is
 * the first record of its name other than itself). */
struct byname {
	struct hs_strtab names;
	long (*first)[2];
};

static void byname__init(struct byname *b, const struct dr_thread *th)
{
	size_t nr = dr_thread__nregions(th);

	memset(b, 0, sizeof(*b));
	b->first = xrealloc(NULL, (nr ? nr : 1) * sizeof(*b->first));
	for (size_t k = 0; k < nr; k++) {
		bool added;
		long i = rows__intern(&b->names, dr_region__name(dr_thread__region(th, k)),
				      &added);

		if (added)
			b->first[i][0] = b->first[i][1] = -1;
		if (b->first[i][0] < 0)
			b->first[i][0] = (long)k;
		else if (b->first[i][1] < 0)
			b->first[i][1] = (long)k;
	}
}

/* The record of name pn other than k, or -1. */
static long byname__parent(const struct byname *b, const char *pn, size_t k)
{
	long i = hs_strtab__lookup(&b->names, pn);

	if (i < 0)
		return -1;
	return b->first[i][0] != (long)k ? b->first[i][0] : b->first[i][1];
}

static void byname__free(struct byname *b)
{
	hs_strtab__free(&b->names);
	free(b->first);
}

/* Deeper than the shim nests (preload/core/region.c): not written by
 * hpcshim; the record at that depth goes to the top, so no row's path
 * (html's data-path, the JSON's parents) is longer. */
#define TREE_MAX_DEPTH 4096

/* The tree row of a thread's region record k: its parent's row first.  A
 * parent named but absent, a chain that comes back to a record on it, or
 * one deeper than TREE_MAX_DEPTH (not written by hpcshim) puts the record
 * at the top.  Iterative: the
 * chain of parents is as long as the file makes it.  memo: each record's
 * row (-1: not yet); chain: room for every record; on: the chain's mark
 * per record. */
static long tree__node(struct rowset *rs, const struct dr_thread *th, const struct byname *b,
		       long *memo, long *chain, char *on, size_t k)
{
	size_t n = 0;
	long up = -1;

	for (long at = (long)k; at >= 0 && memo[at] < 0 && !on[at] && n < TREE_MAX_DEPTH;) {
		const char *pn = dr_region__parent(dr_thread__region(th, (size_t)at));

		chain[n++] = at;
		on[at] = 1;
		at = pn ? byname__parent(b, pn, (size_t)at) : -1;
		if (at >= 0 && memo[at] >= 0)
			up = memo[at];
	}
	if (up >= 0 && rs->r[up].depth + (long)n >= TREE_MAX_DEPTH)
		up = -1;
	while (n-- > 0) {
		long at = chain[n];
		const char *name = dr_region__name(dr_thread__region(th, (size_t)at));

		on[at] = 0;
		memo[at] = tree__child(rs, up, name, up < 0 ? 0 : rs->r[up].depth + 1);
		up = memo[at];
	}
	return memo[k];
}

/* Depth first, siblings in the order of by (row indices): each row's
 * children listed once, then walked with a stack of next siblings (as
 * deep as the tree, which a file makes as deep as it likes). */
static void tree__order(const struct rowset *rs, const long *by, long *order, size_t *n)
{
	size_t m = rs->n + 1, depth = 0;
	long *child = xrealloc(NULL, m * sizeof(*child)); /* [up + 1]: first child */
	long *next = xrealloc(NULL, m * sizeof(*next));   /* next sibling */
	long *stack = xrealloc(NULL, m * sizeof(*stack));
	long at;

	for (size_t i = 0; i < m; i++)
		child[i] = next[i] = -1;
	for (size_t k = rs->n; k-- > 0;) { /* prepending: by's order */
		long r = by[k];

		next[r] = child[rs->r[r].up + 1];
		child[rs->r[r].up + 1] = r;
	}
	at = child[0];
	while (at >= 0 || depth) {
		if (at < 0) {
			at = stack[--depth];
			continue;
		}
		order[(*n)++] = at;
		stack[depth++] = next[at];
		at = child[at + 1];
	}
	free(child);
	free(next);
	free(stack);
}

/* Puts the rows in depth-first order, siblings as in by. */
static void tree__sort(struct rowset *rs, const long *by)
{
	size_t n = 0, m = rs->n ? rs->n : 1;
	long *order = xrealloc(NULL, m * sizeof(*order));
	long *where = xrealloc(NULL, m * sizeof(*where));
	struct row *sorted = xrealloc(NULL, m * sizeof(*sorted));

	tree__order(rs, by, order, &n);
	for (size_t i = 0; i < n; i++) {
		sorted[i] = rs->r[order[i]];
		where[order[i]] = (long)i;
	}
	for (size_t i = 0; i < n; i++)
		if (sorted[i].up >= 0)
			sorted[i].up = where[sorted[i].up];
	free(rs->r);
	rs->r = sorted;
	rs->cap = m;
	free(order);
	free(where);
}

/* A thread's region records into the tree. */
static void tree__thread(struct rowset *rs, const struct dr_thread *th, int f)
{
	enum dr_key key = rs->exclusive ? DR_EXCLUSIVE : DR_INCLUSIVE;
	size_t nr = dr_thread__nregions(th), m = nr ? nr : 1;
	long *memo = xrealloc(NULL, m * sizeof(*memo));
	long *chain = xrealloc(NULL, m * sizeof(*chain));
	char *on = xrealloc(NULL, m);
	struct byname b;

	byname__init(&b, th);
	memset(on, 0, m);
	for (size_t k = 0; k < nr; k++)
		memo[k] = -1;
	for (size_t k = 0; k < nr; k++) {
		const struct dr_region *g = dr_thread__region(th, k);
		long at = tree__node(rs, th, &b, memo, chain, on, k); /* may move rs->r */
		struct row *r = &rs->r[at];
		struct dr_percall pc;

		r->threads++;
		if (r->last_file != f) {
			r->ranks++;
			r->last_file = f;
		}
		region__add(rs, r, g, key);
		dr_region__percall(g, &pc);
		percall__merge(&r->pc, &pc);
		if (pc.event && !r->pc_event)
			r->pc_event = pc.event;
		dr_region__percall_wall(g, &pc);
		percall__merge(&r->pc_wall, &pc);
	}
	byname__free(&b);
	free(memo);
	free(chain);
	free(on);
}

/* A job document keeps no thread's records: its regions at the top. */
static void tree__job(struct rowset *rs, const struct dr_doc *doc)
{
	enum dr_key key = rs->exclusive ? DR_EXCLUSIVE : DR_INCLUSIVE;

	for (size_t i = 0; i < dr_doc__nregions(doc); i++) {
		const struct dr_region *g = dr_doc__region(doc, i);
		long at = tree__child(rs, -1, dr_region__name(g), 0); /* may move rs->r */
		struct row *r = &rs->r[at];

		r->threads += (int)dr_region__threads(g);
		r->ranks += (int)dr_region__ranks(g);
		region__add(rs, r, g, key);
	}
}

static void rows__tree(struct rowset *rs, const struct results *s)
{
	struct hs_strtab paths = { 0 };
	long *by;

	rs->paths = &paths;
	for (size_t f = 0; f < s->n; f++) {
		const struct dr_doc *doc = s->r[f].doc;

		if (dr_doc__kind(doc) == DR_JOB)
			tree__job(rs, doc);
		for (size_t i = 0; i < dr_doc__nthreads(doc); i++)
			tree__thread(rs, dr_doc__thread(doc, i), (int)f);
	}
	by = xrealloc(NULL, (rs->n ? rs->n : 1) * sizeof(*by));
	for (size_t i = 0; i < rs->n; i++)
		by[i] = (long)i;
	tree__sort(rs, by);
	free(by);
	hs_strtab__free(&paths);
	rs->paths = NULL;
}

static int tid_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

#define HELPER_CPU 0.10 /* a helper is on a CPU less than this share of its wall */

bool rows__helper(const struct dr_doc *doc, const struct dr_thread *th)
{
	struct dr_rank rk;
	struct dr_value x;
	double wall = dr_thread__wall(th);

	/* omp_thread: a thread of a team (the shim labels no other) */
	if (!dr_doc__mpi_job(doc) || dr_thread__omp(th) >= 0)
		return false;
	dr_doc__rank(doc, 0, &rk);
	if (dr_thread__tid(th) == rk.pid)
		return false;
	for (size_t i = 0; i < dr_thread__nregions(th); i++)
		if (pf__classify(dr_region__name(dr_thread__region(th, i))) == PF_NONE)
			return false;
	if (dr_thread__total(th, "task-clock", &x) && x.has && wall > 0)
		return x.v < HELPER_CPU * wall;
	return true;
}

static void rows__threads(struct rowset *rs, const struct results *s)
{
	for (size_t f = 0; f < s->n; f++) {
		const struct dr_doc *doc = s->r[f].doc;
		struct dr_rank rk;

		dr_doc__rank(doc, 0, &rk);
		for (size_t i = 0; i < dr_doc__nthreads(doc); i++) {
			const struct dr_thread *th = dr_doc__thread(doc, i);
			struct row *r = rows__add(rs);
			struct dr_value x;

			r->rank = s->r[f].rank;
			r->host = rk.host;
			r->pid = rk.pid;
			r->tid = dr_thread__tid(th);
			r->omp = dr_thread__omp(th);
			r->helper = rows__helper(doc, th);
			r->threads = 1;
			r->ranks = 1;
			r->calls = (long long)dr_thread__nregions(th);
			wall__add(r, dr_thread__wall(th));
			for (size_t e = 0; e < rs->nev; e++) {
				dr_thread__total(th, rs->ev[e], &x);
				cell__add(&r->c[e], &x);
			}
		}
	}
	qsort(rs->r, rs->n, sizeof(*rs->r), tid_cmp);
}

/* A rank's values are its process totals; their errors and coverage come
 * from its threads' totals (the process totals carry no _multiplexed).  A
 * job document's ranks: their totals, nothing more. */
static void rows__rank(struct rowset *rs, const struct dr_doc *doc, size_t k, int rank)
{
	struct row *r = rows__add(rs);
	struct dr_rank rk;

	dr_doc__rank(doc, k, &rk);
	r->rank = dr_doc__kind(doc) == DR_JOB ? rk.rank : rank;
	r->host = rk.host;
	r->pid = rk.pid;
	r->threads = rk.threads < 0 ? 0 : (int)rk.threads;
	r->ranks = 1;
	r->calls = dr_doc__kind(doc) == DR_JOB ? 0 : (long long)dr_doc__nregions(doc);
	wall__add(r, rk.wall);
	for (size_t e = 0; e < rs->nev; e++) {
		struct cell *c = &r->c[e], t = { 0 };
		struct dr_value x;

		if (!dr_doc__rank_value(doc, k, rs->ev[e], &x))
			continue;
		for (size_t i = 0; i < dr_doc__nthreads(doc); i++) {
			struct dr_value y;

			dr_thread__total(dr_doc__thread(doc, i), rs->ev[e], &y);
			cell__add(&t, &y);
		}
		*c = t;
		c->has = 1;
		c->v = x.v;
		if (!t.has)
			c->se = c->cov = -1;
	}
}

static void rows__ranks(struct rowset *rs, const struct results *s)
{
	for (size_t f = 0; f < s->n; f++)
		for (size_t k = 0; k < dr_doc__nranks(s->r[f].doc); k++)
			rows__rank(rs, s->r[f].doc, k, s->r[f].rank);
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

static void metrics__set(struct rowset *rs, const struct dr_doc *doc, size_t i)
{
	for (size_t k = 0; k < dr_doc__set_nmetrics(doc, i); k++) {
		const char *fo, *name = dr_doc__set_metric(doc, i, k, &fo);
		struct metric_def *d;
		char err[128];
		size_t m;

		for (m = 0; m < rs->nm && strcmp(rs->mdef[m].name, name); m++)
			;
		if (m < rs->nm || !fo)
			continue;
		rs->mdef = xrealloc(rs->mdef, (rs->nm + 1) * sizeof(*rs->mdef));
		d = &rs->mdef[rs->nm];
		memset(d, 0, sizeof(*d));
		if (hs_formula__parse(&d->f, fo, err, sizeof(err)) < 0)
			continue;
		d->name = name;
		for (int v = 0; v < d->f.nvars; v++) {
			d->ev[v] = dr_doc__set_alias(doc, i, d->f.var[v]);
			d->col[v] = -1;
			for (size_t e = 0; e < rs->nev; e++)
				if (strcmp(rs->ev[e], d->ev[v]) == 0)
					d->col[v] = (int)e;
			snprintf(d->why[v], sizeof(d->why[v]), "event '%.60s' %s", d->ev[v],
				 d->col[v] < 0 ? "not shown" : "not counted");
		}
		rs->nm++;
	}
}

/* Every metric of every set in the results' presets, first definition of
 * a name first; the inputs are the set's aliases of event names. */
static void metrics__load(struct rowset *rs, const struct results *s)
{
	for (size_t f = 0; f < s->n; f++)
		for (size_t i = 0; i < dr_doc__nsets(s->r[f].doc); i++)
			metrics__set(rs, s->r[f].doc, i);
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
	rs->n = rs->cap = 0;
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
