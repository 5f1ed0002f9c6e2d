/* jobsrc_view.c - the summary's source over the writer's view
 * (jobsrc_view.h): what the tap copies while the document is written,
 * and the callbacks agg_jobdoc__summarise_src reads it through.
 *
 * Every value is the one docread would read back from the file the same
 * view prints (jsonutil.c, json_region.c, json_mux.c):
 *   totals, thread records   the printed integer (shown), a number only
 *                            when known (else null)
 *   region summaries         the sum of the threads' estimates (printed
 *                            %.17g: read back exactly), null when no
 *                            thread has one or not finite
 *   errors                   "<key>_multiplexed": the event partial, its
 *                            "stderr" sqrt(se2) when every thread has one
 *   names                    as printed: invalid UTF-8 repaired
 * Duplicate event names: a JSON object keeps the first key's place and
 * the last value, so does the column table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/aggregate.h"
#include "aggregate/jobsrc_view.h"
#include "aggregate/jsonutil.h"
#include "aggregate/profile.h"
#include "aggregate/utf8.h"
#include "aggregate/view.h"

struct jobsrc_vregion {
	long name; /* in names, -1: none (null) */
	double calls, wall_in, wall_ex;
};

struct jobsrc_vthread {
	long long tid, omp;
	size_t first, n; /* its records: rec[first .. first + n) */
};

/* A name as the document prints it (its index in v->names), -1 on ENOMEM. */
static long name__intern(struct agg_jobsrc_view *v, const char *s)
{
	size_t len;
	char *clean;
	bool added;
	long i;

	if (agg_json__plain(s, &len))
		return hs_strtab__intern(&v->names, s, &added);
	if (!(clean = agg_utf8__clean(s)))
		return -1;
	i = hs_strtab__intern(&v->names, clean, &added);
	free(clean);
	return i;
}

/* A summed value: its printed sum, its error from the "_multiplexed"
 * entry (partial events only). */
static void sum__val(const struct agg_sum *x, bool sum, struct agg_jobsrc_val *out)
{
	double se = x->partial && x->se_known && !x->se_unknown ? sqrt(x->se2) : NAN;

	out->has = x->st.n > 0 && (!sum || isfinite(x->st.sum));
	out->v = sum ? x->st.sum : (double)x->shown;
	out->err = isfinite(se) ? se : 0.0;
}

static int tap__totals(void *ctx, const struct agg_view *vw)
{
	struct agg_jobsrc_view *v = ctx;
	const struct agg_process *p = vw->p;

	v->colname = calloc((size_t)(p->nev ? p->nev : 1), sizeof(*v->colname));
	v->evi = calloc((size_t)(p->nev ? p->nev : 1), sizeof(*v->evi));
	v->tot = calloc((size_t)(p->nev ? p->nev : 1), sizeof(*v->tot));
	if (!v->colname || !v->evi || !v->tot)
		return -1;
	for (int i = 0; i < p->nev; i++) {
		size_t c = 0;

		if (!p->ev[i].ok)
			continue;
		while (c < v->ncol && strcmp(v->colname[c], p->ev[i].name) != 0)
			c++;
		if (c == v->ncol && !(v->colname[v->ncol++] = strdup(p->ev[i].name)))
			return -1;
		v->evi[c] = i;
	}
	for (size_t c = 0; c < v->ncol; c++)
		sum__val(&vw->totals.ev[v->evi[c]], false, &v->tot[c]);
	return 0;
}

static int tap__region(void *ctx, const struct agg_view *vw, const struct agg_thread *t,
		       const struct agg_region_view *rv)
{
	struct agg_jobsrc_view *v = ctx;
	struct agg_jobsrc_val *x;
	long name;

	(void)vw;
	if (v->last_thread != t || !v->nthr) {
		if (v->nthr == v->thr_cap) {
			size_t cap = v->thr_cap ? 2 * v->thr_cap : 16;
			struct jobsrc_vthread *n = realloc(v->thr, cap * sizeof(*n));

			if (!n)
				return -1;
			v->thr = n;
			v->thr_cap = cap;
		}
		/* its OpenMP number: from its head in the document (source) */
		v->thr[v->nthr++] = (struct jobsrc_vthread){ .tid = t->tid, .omp = -1,
							     .first = v->nrec };
		v->last_thread = t;
	}
	if (v->nrec == v->rec_cap) {
		size_t cap = v->rec_cap ? 2 * v->rec_cap : 1024;
		uint32_t *r = realloc(v->rec, cap * sizeof(*r));
		struct agg_jobsrc_val *rv2;

		if (!r)
			return -1;
		v->rec = r;
		rv2 = realloc(v->recval, cap * (v->ncol ? v->ncol : 1) * sizeof(*rv2));
		if (!rv2)
			return -1;
		v->recval = rv2;
		v->rec_cap = cap;
	}
	if (!rv->name || (name = name__intern(v, rv->name)) < 0)
		return -1;
	v->rec[v->nrec] = (uint32_t)name;
	x = &v->recval[v->nrec * v->ncol];
	for (size_t c = 0; c < v->ncol; c++) {
		const struct agg_value *a = &rv->incl.ev[v->evi[c]];

		x[c] = (struct agg_jobsrc_val){ .has = a->state == AGG_VALUE_KNOWN,
						.v = (double)a->shown };
	}
	v->nrec++;
	v->thr[v->nthr - 1].n++;
	return 0;
}

static int tap__sums(void *ctx, const struct agg_view *vw)
{
	struct agg_jobsrc_view *v = ctx;
	size_t nc = v->ncol ? v->ncol : 1;

	v->reg = calloc(vw->nsums ? vw->nsums : 1, sizeof(*v->reg));
	v->rval = calloc((vw->nsums ? vw->nsums : 1) * 2 * nc, sizeof(*v->rval));
	if (!v->reg || !v->rval)
		return -1;
	for (size_t k = 0; k < vw->nsums; k++) {
		const struct agg_region_sum *rs = &vw->sum[k];
		struct agg_jobsrc_val *x = &v->rval[k * 2 * nc];

		v->reg[k] = (struct jobsrc_vregion){
			.name = -1,
			.calls = (double)rs->calls,
			.wall_in = (double)rs->wall.incl,
			.wall_ex = (double)rs->wall.excl,
		};
		if (rs->name && (v->reg[k].name = name__intern(v, rs->name)) < 0)
			return -1;
		for (size_t c = 0; c < v->ncol; c++) {
			sum__val(&rs->incl.ev[v->evi[c]], true, &x[c]);
			sum__val(&rs->excl.ev[v->evi[c]], true, &x[nc + c]);
		}
	}
	v->nreg = vw->nsums;
	v->taken = true;
	return 0;
}

static bool tap__keep(void *ctx, const char *name)
{
	const struct agg_jobsrc_view *v = ctx;

	return v->keep_all || (name && pf__reads_region(name));
}

/* The entries of array key of o that tap__keep would write. */
static void prune__regions(json_object *o, const char *key)
{
	json_object *a, *kept;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return;
	kept = json_object_new_array();
	if (!kept)
		return;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *r = json_object_array_get_idx(a, i), *n;

		if (json_object_object_get_ex(r, "name", &n) &&
		    json_object_is_type(n, json_type_string) &&
		    pf__reads_region(json_object_get_string(n)))
			json_object_array_add(kept, json_object_get(r));
	}
	json_object_object_add(o, key, kept);
}

void agg_jobsrc_view__prune(json_object *root)
{
	json_object *th;

	prune__regions(root, "regions");
	if (!json_object_object_get_ex(root, "threads", &th) ||
	    !json_object_is_type(th, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(th); i++)
		prune__regions(json_object_array_get_idx(th, i), "regions");
}

void agg_jobsrc_view__init(struct agg_jobsrc_view *v)
{
	memset(v, 0, sizeof(*v));
	v->tap = (struct agg_tap){ .ctx = v,
				   .totals = tap__totals,
				   .region = tap__region,
				   .sums = tap__sums,
				   .keep = tap__keep };
}

void agg_jobsrc_view__free(struct agg_jobsrc_view *v)
{
	for (size_t c = 0; c < v->ncol; c++)
		free(v->colname[c]);
	free(v->colname);
	free(v->evi);
	free(v->tot);
	free(v->reg);
	free(v->rval);
	free(v->thr);
	free(v->rec);
	free(v->recval);
	hs_strtab__free(&v->names);
	agg_jobsrc_view__init(v);
}

/* ---- the source --------------------------------------------------------- */

static const struct agg_jobsrc_view *V(const void *src)
{
	return src;
}

static const char *view__total_event(const void *src, size_t e)
{
	return e < V(src)->ncol ? V(src)->colname[e] : NULL;
}

static long view__column(const void *src, const char *name)
{
	for (size_t c = 0; c < V(src)->ncol; c++)
		if (!strcmp(V(src)->colname[c], name))
			return (long)c;
	return -1;
}

static void view__total(const void *src, long col, const char *ev, struct agg_jobsrc_val *out)
{
	(void)ev;
	*out = col >= 0 ? V(src)->tot[col] : (struct agg_jobsrc_val){ .has = false };
}

static size_t view__nregions(const void *src)
{
	return V(src)->nreg;
}

static void view__region(const void *src, size_t i, struct agg_jobsrc_region *out)
{
	const struct jobsrc_vregion *g = &V(src)->reg[i];

	*out = (struct agg_jobsrc_region){
		.name = g->name >= 0 ? V(src)->names.name[g->name] : NULL,
		.has_calls = true,
		.calls = g->calls,
		.wall_in = g->wall_in,
		.wall_ex = g->wall_ex,
	};
}

static void view__region_value(const void *src, size_t i, enum dr_key which, long col,
			       const char *ev, struct agg_jobsrc_val *out)
{
	const struct agg_jobsrc_view *v = V(src);
	size_t nc = v->ncol ? v->ncol : 1;

	(void)ev;
	if (col < 0) {
		*out = (struct agg_jobsrc_val){ .has = false };
		return;
	}
	*out = v->rval[i * 2 * nc + (which == DR_EXCLUSIVE ? nc : 0) + (size_t)col];
}

static size_t view__nthreads(const void *src)
{
	return V(src)->nthr;
}

static void view__thread(const void *src, size_t t, long long *tid, long long *omp)
{
	*tid = V(src)->thr[t].tid;
	*omp = V(src)->thr[t].omp;
}

static size_t view__thread_nregions(const void *src, size_t t)
{
	return V(src)->thr[t].n;
}

static const char *view__thread_region(const void *src, size_t t, size_t i)
{
	const struct agg_jobsrc_view *v = V(src);

	return v->names.name[v->rec[v->thr[t].first + i]];
}

static void view__thread_value(const void *src, size_t t, size_t i, long col,
			       const char *ev, struct agg_jobsrc_val *out)
{
	const struct agg_jobsrc_view *v = V(src);

	(void)ev;
	*out = col >= 0 ? v->recval[(v->thr[t].first + i) * v->ncol + (size_t)col] :
			  (struct agg_jobsrc_val){ .has = false };
}

static const struct agg_jobsrc_ops view_ops = {
	.total_event = view__total_event,
	.column = view__column,
	.total = view__total,
	.nregions = view__nregions,
	.region = view__region,
	.region_value = view__region_value,
	.nthreads = view__nthreads,
	.thread = view__thread,
	.thread_nregions = view__thread_nregions,
	.thread_region = view__thread_region,
	.thread_value = view__thread_value,
};

int agg_jobsrc_view__source(struct agg_jobsrc_view *v, const struct dr_doc *doc,
			    struct agg_jobsrc *src)
{
	size_t j = 0, n = dr_doc__nthreads(doc);

	if (!v->taken)
		return -1;
	/* A thread's OpenMP number as its head in the document says it (the
	 * head was written a moment before the tap saw its first record): the
	 * document's threads are the view's written ones, in the same order. */
	for (size_t t = 0; t < v->nthr; t++) {
		while (j < n && dr_thread__tid(dr_doc__thread(doc, j)) != v->thr[t].tid)
			j++;
		if (j == n)
			break;
		v->thr[t].omp = dr_thread__omp(dr_doc__thread(doc, j));
	}
	*src = (struct agg_jobsrc){ .ops = &view_ops, .ctx = v, .doc = doc };
	return 0;
}
