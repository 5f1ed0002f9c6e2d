/* jobsrc_doc.c - the summary's source over a whole result document
 * (jobsrc.h): every value read by docread, as hpcshim merge reads a rank
 * file.  Events are found by name; the columns are unused.
 */
#include "aggregate/docread.h"
#include "aggregate/jobsrc.h"

static const struct dr_doc *D(const void *src)
{
	return src;
}

static void val(const struct dr_value *x, bool has, struct agg_jobsrc_val *out)
{
	out->has = has && x->has;
	out->v = x->v;
	/* a multiplexed estimate's standard error, when its entry gives one */
	out->err = x->mux && x->se >= 0 ? x->se : 0.0;
}

static const char *doc__total_event(const void *src, size_t e)
{
	return dr_doc__total_event(D(src), e);
}

static long doc__column(const void *src, const char *name)
{
	(void)src;
	(void)name;
	return 0;
}

static void doc__total(const void *src, long col, const char *ev, struct agg_jobsrc_val *out)
{
	struct dr_value x;

	(void)col;
	val(&x, dr_doc__total(D(src), ev, &x), out);
}

static size_t doc__nregions(const void *src)
{
	return dr_doc__nregions(D(src));
}

static void doc__region(const void *src, size_t i, struct agg_jobsrc_region *out)
{
	const struct dr_region *g = dr_doc__region(D(src), i);

	out->name = dr_region__id(g);
	out->has_calls = dr_region__calls_num(g, &out->calls);
	out->wall_in = dr_region__wall(g, DR_INCLUSIVE);
	out->wall_ex = dr_region__wall(g, DR_EXCLUSIVE);
}

static void doc__region_value(const void *src, size_t i, enum dr_key which, long col,
			      const char *ev, struct agg_jobsrc_val *out)
{
	struct dr_value x;

	(void)col;
	val(&x, dr_region__value(dr_doc__region(D(src), i), which, ev, &x), out);
}

static size_t doc__nthreads(const void *src)
{
	return dr_doc__nthreads(D(src));
}

static void doc__thread(const void *src, size_t t, long long *tid, long long *omp)
{
	const struct dr_thread *th = dr_doc__thread(D(src), t);

	*tid = dr_thread__tid(th);
	*omp = dr_thread__omp(th);
}

static size_t doc__thread_nregions(const void *src, size_t t)
{
	return dr_thread__nregions(dr_doc__thread(D(src), t));
}

static const char *doc__thread_region(const void *src, size_t t, size_t i)
{
	return dr_region__id(dr_thread__region(dr_doc__thread(D(src), t), i));
}

static void doc__thread_value(const void *src, size_t t, size_t i, long col, const char *ev,
			      struct agg_jobsrc_val *out)
{
	const struct dr_region *g = dr_thread__region(dr_doc__thread(D(src), t), i);
	struct dr_value x;

	(void)col;
	val(&x, dr_region__value(g, DR_INCLUSIVE, ev, &x), out);
}

static const struct agg_jobsrc_ops doc_ops = {
	.total_event = doc__total_event,
	.column = doc__column,
	.total = doc__total,
	.nregions = doc__nregions,
	.region = doc__region,
	.region_value = doc__region_value,
	.nthreads = doc__nthreads,
	.thread = doc__thread,
	.thread_nregions = doc__thread_nregions,
	.thread_region = doc__thread_region,
	.thread_value = doc__thread_value,
};

void agg_jobsrc__doc(struct agg_jobsrc *src, const struct dr_doc *doc)
{
	*src = (struct agg_jobsrc){ .ops = &doc_ops, .ctx = doc, .doc = doc };
}
