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
	r->c = xrealloc(NULL, (rs->nev ? rs->nev : 1) * sizeof(*r->c));
	memset(r->c, 0, (rs->nev ? rs->nev : 1) * sizeof(*r->c));
	return r;
}

static void wall__add(struct row *r, json_object *o)
{
	double w = results__wall(o);

	if (w >= 0)
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
			wall__add(r, g);
			for (size_t e = 0; e < rs->nev; e++)
				cell__add(&r->c[e], g, key, rs->ev[e],
					  get(get(get(g, key), rs->ev[e]), "sum"));
		}
	}
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
			wall__add(r, th);
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
		wall__add(r, get(doc, "process"));
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
	else
		rows__ranks(rs, s);
}

void rows__free(struct rowset *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->r[i].name);
		free(rs->r[i].c);
	}
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
	qsort(rs->r, rs->n, sizeof(*rs->r), row_cmp);
	return 0;
}
