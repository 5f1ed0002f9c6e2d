/* jobdoc.c - the job document: the results of a job's processes (one per
 * rank) reduced to one document, the same for the offline merge
 * (tools/cmd_merge.c reads files) and the in-job reduction at
 * MPI_Finalize (preload/mpi/ receives the ranks' documents over MPI): one
 * code path, so the two documents agree number for number.
 *
 * Every process is one rank: its `process.rank`, or, for documents
 * without a rank, the next number after the highest rank seen.  For every
 * region and event, and for the process totals, the document gives the
 * rank values' sum, mean, min, max, median, standard deviation, the
 * rank/host/pid of the min and the max, and the imbalance max/mean - 1
 * (job.c); the same for each region's wall time (inclusive and
 * exclusive) and the processes' wall time; the same over threads with the
 * tid of the min and the max;
 * multiplexed values carry their standard errors into the sum and the
 * mean.  Ranks that are missing (a gap below the highest rank, or below
 * the size the launcher gave), incomplete (a process killed or still
 * running at its last flush) or given twice are listed.  When the ranks
 * carry a drill-down (HPCSHIM_PRESET=topdown), the job's sums get one
 * too: the tree evaluated on the summed counts.  Layout: docs/schema.md,
 * "Job document".
 *
 * The ranks' documents are read through aggregate/docread.h only.
 * Allocation failures end the process (abort; inside the shim, a return
 * to agg_jobdoc__guard: aggregate/oom.h): a half-built document is worth
 * nothing, and the reduction runs once, at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/fmath.h"
#include "aggregate/docread.h"
#include "aggregate/drill.h"
#include "aggregate/job.h"
#include "aggregate/jobdoc.h"
#include "aggregate/jobdoc_internal.h"
#include "aggregate/jsonutil.h"
#include "aggregate/oom.h"
#include "aggregate/result.h"
#include "common/strtab.h"
#include "common/sys.h"
#include "common/tree.h"

#define JOB_SCHEMA "hpcshim-job/1"

/* Out of memory ends the tools; inside the shim the builder runs under
 * agg_jobdoc__guard (aggregate/oom.h). */
int agg_jobdoc__guard(int (*fn)(void *), void *arg)
{
	return agg_oom__guard(fn, arg);
}

/* The index of s in names (events, regions, hosts in order seen), added
 * if new. */
static size_t names__intern(struct hs_strtab *t, const char *s, bool *added)
{
	long i = hs_strtab__intern(t, s, added);

	if (i < 0)
		agg_oom();
	return (size_t)i;
}

/* ---- the inputs -------------------------------------------------------- */

int agg_jobdoc__take(struct agg_jobdoc *j, struct dr_doc *doc, const char *file, char *why,
		     size_t len)
{
	struct agg_jobdoc_rank *r;
	struct dr_rank rk;
	int bad = dr_doc__is_result(doc) ? dr_doc__check_partial(doc, why, len) : DR_SCHEMA;

	if (bad) {
		dr_doc__free(doc);
		return bad;
	}
	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 16;
		j->r = agg_xrealloc(j->r, j->cap * sizeof(*j->r));
	}
	dr_doc__rank(doc, 0, &rk);
	r = &j->r[j->n++];
	*r = (struct agg_jobdoc_rank){
		.path = file ? agg_xstrdup(file) : NULL,
		.doc = doc,
		.rank = rk.rank,
		.size = dr_doc__size(doc),
		.host = rk.host,
		.end = rk.end,
		.job = dr_doc__job(doc),
		.mpi_job = dr_doc__mpi_job(doc),
		.pid = (int)rk.pid,
		.generation = dr_doc__generation(doc),
		.complete = rk.complete,
		.start_ns = dr_doc__start_ns(doc),
	};
	return 0;
}

bool agg_jobdoc__add(struct agg_jobdoc *j, json_object *doc, const char *file)
{
	struct dr_doc *d = dr_doc__wrap(doc);
	char why[256];

	if (!d) /* out of memory, doc released */
		agg_oom();
	return agg_jobdoc__take(j, d, file, why, sizeof(why)) == 0;
}

void agg_jobdoc__free(struct agg_jobdoc *j)
{
	for (size_t k = 0; k < j->n; k++) {
		dr_doc__free(j->r[k].doc);
		free(j->r[k].path);
	}
	free(j->r);
	j->r = NULL;
	j->n = j->cap = 0;
	json_object_put(j->ignored);
	j->ignored = NULL;
}

/* ---- jobs: one at a time --------------------------------------------- */

struct jobid {
	const char *id;
	size_t files;
	double start_ns; /* the earliest process start of the job */
};

static int jobid_cmp(const void *a, const void *b)
{
	const struct jobid *x = a, *y = b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* The distinct job ids of the inputs, the earliest started first. */
static struct jobid *job__ids(const struct agg_jobdoc *j, size_t *n)
{
	struct jobid *ids = agg_xcalloc(j->n, sizeof(*ids));

	*n = 0;
	for (size_t k = 0; k < j->n; k++) {
		size_t i = 0;

		if (!j->r[k].job)
			continue;
		while (i < *n && strcmp(ids[i].id, j->r[k].job) != 0)
			i++;
		if (i == *n)
			ids[(*n)++] = (struct jobid){ j->r[k].job, 0, j->r[k].start_ns };
		ids[i].files++;
		if (j->r[k].start_ns < ids[i].start_ns)
			ids[i].start_ns = j->r[k].start_ns;
	}
	qsort(ids, *n, sizeof(*ids), jobid_cmp);
	return ids;
}

static void job__list_ids(const struct agg_jobdoc *j, const struct jobid *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		time_t sec = (time_t)(ids[i].start_ns / 1e9);
		char when[64] = "?";
		struct tm tm;

		if (localtime_r(&sec, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(stderr, "%s:   -j %s   %zu file%s, started %s\n", j->prog,
			ids[i].id, ids[i].files, ids[i].files == 1 ? "" : "s", when);
	}
}

static json_object *job__ignored(struct agg_jobdoc *j)
{
	if (!j->ignored)
		j->ignored = json_object_new_array();
	return j->ignored;
}

/* Moves the ranks that are not of job pick to ignored_files. */
static void job__keep(struct agg_jobdoc *j, const char *pick)
{
	size_t w = 0;

	for (size_t k = 0; k < j->n; k++) {
		struct agg_jobdoc_rank *r = &j->r[k];
		json_object *o;
		char why[256];

		if (r->job && strcmp(r->job, pick) == 0) {
			j->r[w++] = *r;
			continue;
		}
		if (r->job)
			snprintf(why, sizeof(why), "another job (%s)", r->job);
		else
			snprintf(why, sizeof(why),
				 "no job id: not a rank of job %s", pick);
		o = json_object_new_object();
		json_object_object_add(o, "rank",
				       r->rank >= 0 ? json_object_new_int(r->rank) :
						      NULL);
		json_object_object_add(
			o, "file", r->path ? json_object_new_string(r->path) : NULL);
		json_object_object_add(o, "why", json_object_new_string(why));
		json_object_array_add(job__ignored(j), o);
		dr_doc__free(r->doc);
		free(r->path);
	}
	j->n = w;
}

int agg_jobdoc__select(struct agg_jobdoc *j, const char *want, char **id)
{
	size_t n;
	struct jobid *ids = job__ids(j, &n);
	const char *pick = NULL;

	*id = NULL;
	if (want) {
		for (size_t i = 0; i < n && !pick; i++)
			if (strcmp(ids[i].id, want) == 0)
				pick = ids[i].id;
		if (!pick)
			fprintf(stderr, "%s: no file of job %s; %s\n", j->prog, want,
				n ? "the inputs hold:" : "the files carry no job id");
	} else if (n > 1) {
		fprintf(stderr,
			"%s: the inputs hold files of %zu jobs; merge one with -j JOB:\n",
			j->prog, n);
	} else if (n == 1) {
		pick = ids[0].id;
	}
	if ((want && !pick) || (!want && n > 1)) {
		job__list_ids(j, ids, n);
		free(ids);
		return -1;
	}
	if (pick) {
		*id = agg_xstrdup(pick);
		job__keep(j, *id);
	}
	free(ids);
	return 0;
}

/* ---- ranks: numbering, duplicates, missing ---------------------------- */

static int rank_cmp(const void *a, const void *b)
{
	const struct agg_jobdoc_rank *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->generation - y->generation;
}

/* Files without a rank get the numbers after the highest rank, in input
 * order; then the ranks are sorted.  Two files of one rank: exec
 * generations of one process keep the last image (the rank's program,
 * after any wrapper that exec'd it), other pairs are a conflict and the
 * first one is kept.  Returns the dropped files in *dup. */
static json_object *job__number(struct agg_jobdoc *j)
{
	json_object *dup = job__ignored(j);
	int next = -1;
	size_t w = 0;

	for (size_t i = 0; i < j->n; i++)
		if (j->r[i].rank > next)
			next = j->r[i].rank;
	for (size_t i = 0; i < j->n; i++)
		if (j->r[i].rank < 0)
			j->r[i].rank = ++next;
	qsort(j->r, j->n, sizeof(*j->r), rank_cmp);
	for (size_t i = 0; i < j->n; i++) {
		struct agg_jobdoc_rank *prev = w ? &j->r[w - 1] : NULL;
		if (prev && prev->rank == j->r[i].rank) {
			bool gen = prev->pid == j->r[i].pid &&
				   strcmp(prev->host, j->r[i].host) == 0;
			struct agg_jobdoc_rank *drop = gen ? prev : &j->r[i];
			json_object *o = json_object_new_object();
			json_object_object_add(o, "rank",
					       json_object_new_int(drop->rank));
			json_object_object_add(
				o, "file",
				drop->path ? json_object_new_string(drop->path) : NULL);
			json_object_object_add(
				o, "why",
				json_object_new_string(
					gen ? "an earlier exec generation of the rank's process" :
					      "another file claims the same rank"));
			json_object_array_add(dup, o);
			if (!gen)
				fprintf(stderr, "%s: %s: rank %d also in %s; ignored\n",
					j->prog, j->r[i].path ? j->r[i].path : "?",
					j->r[i].rank, prev->path ? prev->path : "?");
			dr_doc__free(drop->doc);
			free(drop->path);
			if (gen)
				*prev = j->r[i];
			continue;
		}
		j->r[w++] = j->r[i];
	}
	j->n = w;
	return dup;
}

/* ---- one statistic over the ranks ------------------------------------- */

/* What a statistic is over: each rank's process (region NULL) or its
 * region of that name; which values; which event. */
struct want {
	const char *region;
	enum dr_key which;
	const char *ev;
};


/* One rank's value and its standard error (0: none), false when it has
 * none. */
typedef bool (*rank_get_fn)(const struct agg_jobdoc *j, size_t k, const struct want *w,
			    double *v, double *err);

/* An event's value: the process totals, or a region's inclusive or
 * exclusive (a summary's sum over the threads), with the error of its
 * _multiplexed sibling. */
static bool get_value(const struct agg_jobdoc *j, size_t k, const struct want *w, double *v,
		      double *err)
{
	const struct dr_region *g = w->region ? jobdoc__rank_region(j, k, w->region) : NULL;
	struct dr_value x;

	if (w->region && !g)
		return false;
	if (g)
		dr_region__value(g, w->which, w->ev, &x);
	else
		dr_doc__total(j->r[k].doc, w->ev, &x);
	*v = x.v;
	*err = x.mux && x.se >= 0 ? x.se : 0.0;
	return x.has;
}

/* Wall time: the process's, or a region's inclusive or exclusive (summed
 * over its threads); none in files written before wall time. */
static bool get_wall(const struct agg_jobdoc *j, size_t k, const struct want *w, double *v,
		     double *err)
{
	const struct dr_region *g = w->region ? jobdoc__rank_region(j, k, w->region) : NULL;
	struct dr_rank rk;

	*err = 0;
	if (w->region) {
		*v = g ? dr_region__wall(g, w->which) : -1;
		return *v >= 0;
	}
	dr_doc__rank(j->r[k].doc, 0, &rk);
	*v = rk.wall;
	return *v >= 0;
}

/* A region's calls. */
static bool get_calls(const struct agg_jobdoc *j, size_t k, const struct want *w, double *v,
		      double *err)
{
	const struct dr_region *g = jobdoc__rank_region(j, k, w->region);

	*err = 0;
	return g && dr_region__calls_num(g, v);
}

/* A statistic: an integer when whole, null when not finite (sums of
 * huge values overflow; JSON has no NaN or Infinity). */
static json_object *num(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		return json_object_new_int64((int64_t)v);
	return agg_json__dbl(v);
}

static json_object *who_rank(const struct agg_jobdoc *j, int k)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "rank", json_object_new_int(j->r[k].rank));
	json_object_object_add(o, "host", json_object_new_string(j->r[k].host));
	json_object_object_add(o, "pid", json_object_new_int(j->r[k].pid));
	return o;
}

static json_object *stats_json(const struct agg_job_stats *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int((int)s->n));
	json_object_object_add(o, "sum", num(s->sum));
	json_object_object_add(o, "mean", agg_json__dbl(s->mean));
	json_object_object_add(o, "min", num(s->min));
	json_object_object_add(o, "max", num(s->max));
	json_object_object_add(o, "median", num(s->median));
	json_object_object_add(o, "sd", agg_json__dbl(s->sd));
	json_object_object_add(o, "imbalance", agg_json__dbl(s->imbalance));
	if (s->has_error) {
		json_object_object_add(o, "sum_stderr",
				       agg_json__dbl(s->sum_stderr));
		json_object_object_add(o, "mean_stderr",
				       agg_json__dbl(s->mean_stderr));
	}
	return o;
}

/* The statistics of one value over the ranks (get reads a rank's): NULL
 * when no rank has one. */
static json_object *rank_stats(const struct agg_jobdoc *j, rank_get_fn fn,
			       const struct want *w, struct agg_job_sample *buf)
{
	struct agg_job_stats s;
	size_t n = 0;
	json_object *o;

	for (size_t k = 0; k < j->n; k++) {
		double v, err;

		if (fn(j, k, w, &v, &err))
			buf[n++] = (struct agg_job_sample){ v, err, (int)k };
	}
	if (!n)
		return NULL;
	agg_job__stats(buf, n, &s);
	o = stats_json(&s);
	json_object_object_add(o, "min_at", who_rank(j, s.min_who));
	json_object_object_add(o, "max_at", who_rank(j, s.max_who));
	return o;
}

/* ---- process totals and regions --------------------------------------- */

/* Interns the event names (the processes' totals) and region names in
 * order of appearance. */
static void job__index(struct agg_jobdoc *j, struct hs_strtab *regions,
		       struct hs_strtab *events)
{
	const char *name;
	bool added;

	for (size_t k = 0; k < j->n; k++) {
		const struct dr_doc *doc = j->r[k].doc;

		for (size_t e = 0; (name = dr_doc__total_event(doc, e)); e++)
			names__intern(events, name, &added);
		for (size_t i = 0; i < dr_doc__nregions(doc); i++) {
			name = dr_region__id(dr_doc__region(doc, i));
			if (name)
				names__intern(regions, name, &added);
		}
	}
}

/* {"event": stats, ...} of the process totals (region NULL) or a
 * region's inclusive or exclusive values. */
static json_object *event_stats(const struct agg_jobdoc *j, const struct hs_strtab *events,
				const char *region, enum dr_key which,
				struct agg_job_sample *buf)
{
	json_object *o = json_object_new_object();

	for (size_t e = 0; e < events->n; e++) {
		struct want w = { region, which, events->name[e] };
		json_object *s = rank_stats(j, get_value, &w, buf);

		if (s)
			json_object_object_add(o, events->name[e], s);
	}
	return o;
}

/* The thread extremes of a region's event: the thread with the least and
 * the most over all ranks' threads[].regions[] entries of that name. */
struct extreme {
	double min, max;
	int min_k, max_k;
	int64_t min_tid, max_tid;
	size_t n;
};

static void extreme__add(struct extreme *x, double v, int k, int64_t tid)
{
	if (x->n == 0 || v < x->min) {
		x->min = v;
		x->min_k = k;
		x->min_tid = tid;
	}
	if (x->n == 0 || v > x->max) {
		x->max = v;
		x->max_k = k;
		x->max_tid = tid;
	}
	x->n++;
}

static json_object *who_thread(const struct agg_jobdoc *j, int k, int64_t tid)
{
	json_object *o = who_rank(j, k);

	json_object_object_add(o, "tid", json_object_new_int64(tid));
	return o;
}

/* The thread extremes of every region's events in one pass over all the
 * ranks' threads[].regions[] entries: x[region * nevents + event]. */
static struct extreme *thread_extremes(const struct agg_jobdoc *j,
				       const struct hs_strtab *events,
				       const struct hs_strtab *regions)
{
	struct extreme *x = agg_xcalloc(regions->n * events->n, sizeof(*x));

	for (size_t k = 0; k < j->n; k++) {
		const struct dr_doc *doc = j->r[k].doc;

		for (size_t t = 0; t < dr_doc__nthreads(doc); t++) {
			const struct dr_thread *th = dr_doc__thread(doc, t);
			int64_t tid = dr_thread__tid(th);

			for (size_t i = 0; i < dr_thread__nregions(th); i++) {
				const struct dr_region *g = dr_thread__region(th, i);
				const char *name = dr_region__id(g);
				long r = name ? hs_strtab__lookup(regions, name) : -1;

				if (r < 0) /* not in regions[]: not a region of the file */
					continue;
				for (size_t e = 0; e < events->n; e++) {
					struct dr_value v;

					if (dr_region__value(g, DR_INCLUSIVE, events->name[e], &v))
						extreme__add(&x[(size_t)r * events->n + e], v.v,
							     (int)k, tid);
				}
			}
		}
	}
	return x;
}

/* {"event": {"n", "min", "max", "min_at", "max_at"}} over threads. */
static json_object *extremes_json(const struct agg_jobdoc *j,
				  const struct hs_strtab *events, const struct extreme *x)
{
	json_object *o = json_object_new_object();

	for (size_t e = 0; e < events->n; e++) {
		json_object *s;
		if (!x[e].n)
			continue;
		s = json_object_new_object();
		json_object_object_add(s, "n", json_object_new_int((int)x[e].n));
		json_object_object_add(s, "min", num(x[e].min));
		json_object_object_add(s, "max", num(x[e].max));
		json_object_object_add(s, "min_at",
				       who_thread(j, x[e].min_k, x[e].min_tid));
		json_object_object_add(s, "max_at",
				       who_thread(j, x[e].max_k, x[e].max_tid));
		json_object_object_add(o, events->name[e], s);
	}
	return o;
}

/* The calls of a region per rank, as a statistic like an event's. */
static json_object *calls_json(const struct agg_jobdoc *j, const char *name,
			       struct agg_job_sample *buf)
{
	struct want w = { .region = name };

	return rank_stats(j, get_calls, &w, buf);
}

/* A region's wall time over the ranks (each rank's summed over its
 * threads): {"inclusive": stats, "exclusive": stats}, null in files
 * written before wall time. */
static json_object *wall_stats(const struct agg_jobdoc *j, const char *name,
			       struct agg_job_sample *buf)
{
	struct want win = { name, DR_INCLUSIVE, NULL }, wex = { name, DR_EXCLUSIVE, NULL };
	json_object *o, *in, *ex;

	in = rank_stats(j, get_wall, &win, buf);
	ex = rank_stats(j, get_wall, &wex, buf);
	if (!in && !ex)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "inclusive", in);
	json_object_object_add(o, "exclusive", ex);
	return o;
}

static json_object *region_json(const struct agg_jobdoc *j, const struct hs_strtab *events,
				const char *name, const struct extreme *x,
				const struct jobdrill *d, struct agg_job_sample *buf)
{
	json_object *o = json_object_new_object();
	int present = 0;

	for (size_t k = 0; k < j->n; k++)
		present += jobdoc__rank_region(j, k, name) != NULL;
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "ranks", json_object_new_int(present));
	json_object_object_add(o, "calls", calls_json(j, name, buf));
	json_object_object_add(o, "inclusive",
			       event_stats(j, events, name, DR_INCLUSIVE, buf));
	json_object_object_add(o, "exclusive",
			       event_stats(j, events, name, DR_EXCLUSIVE, buf));
	if (d->name) {
		jobdoc_drill__scope(j, d, o, name, DR_INCLUSIVE, "inclusive", buf);
		jobdoc_drill__scope(j, d, o, name, DR_EXCLUSIVE, "exclusive", buf);
	}
	json_object_object_add(o, "wall_ns", wall_stats(j, name, buf));
	json_object_object_add(o, "threads", extremes_json(j, events, x));
	return o;
}

/* ---- the document ----------------------------------------------------- */

static json_object *ranks_json(const struct agg_jobdoc *j, json_object **incomplete)
{
	json_object *arr = json_object_new_array();

	*incomplete = json_object_new_array();
	for (size_t k = 0; k < j->n; k++) {
		const struct agg_jobdoc_rank *r = &j->r[k];
		json_object *o = json_object_new_object();
		json_object_object_add(o, "rank", json_object_new_int(r->rank));
		json_object_object_add(o, "host", json_object_new_string(r->host));
		json_object_object_add(o, "pid", json_object_new_int(r->pid));
		json_object_object_add(
			o, "file", r->path ? json_object_new_string(r->path) : NULL);
		json_object_object_add(o, "complete",
				       json_object_new_boolean(r->complete));
		json_object_object_add(o, "end", json_object_new_string(r->end));
		json_object_object_add(
			o, "wall_ns",
			json_object_get(dr_doc__as_written(r->doc, DR_WRITTEN_WALL)));
		json_object_object_add(o, "totals",
				       json_object_get(dr_doc__as_written(r->doc, DR_WRITTEN_TOTALS)));
		json_object_array_add(arr, o);
		if (!r->complete)
			json_object_array_add(*incomplete,
					      json_object_new_int(r->rank));
	}
	return arr;
}

/* Ranks listed in missing_ranks at most: a size of millions in one
 * damaged file must not make a document of millions of ranks;
 * missing_count has them all. */
#define JOB_MISSING_LISTED 1024

/* Ranks below the job's size (the largest a launcher gave) or below the
 * highest rank seen that have no file: the first JOB_MISSING_LISTED,
 * *count all of them. */
static json_object *missing_json(const struct agg_jobdoc *j, int *size, long long *count)
{
	json_object *arr = json_object_new_array();
	int top = -1;
	size_t k = 0;

	*count = 0;
	*size = -1;
	for (size_t i = 0; i < j->n; i++) {
		if (j->r[i].size > *size)
			*size = j->r[i].size;
		if (j->r[i].rank > top)
			top = j->r[i].rank;
	}
	if (*size > top)
		top = *size - 1;
	for (int r = 0; r <= top; r++) {
		while (k < j->n && j->r[k].rank < r)
			k++;
		if ((k == j->n || j->r[k].rank != r) && (*count)++ < JOB_MISSING_LISTED)
			json_object_array_add(arr, json_object_new_int(r));
	}
	return arr;
}

json_object *agg_jobdoc__build(struct agg_jobdoc *j, const char *tool)
{
	struct hs_strtab regions = { 0 }, events = { 0 };
	json_object *doc = json_object_new_object(), *info = json_object_new_object();
	json_object *dup = job__number(j), *incomplete, *missing, *hosts, *arr;
	struct agg_job_sample *buf = agg_xcalloc(j->n, sizeof(*buf));
	struct hs_strtab hostnames = { 0 };
	struct jobdrill *drill = agg_xcalloc(1, sizeof(*drill));
	struct extreme *x;
	const char *jobid = NULL, *mpi_job = NULL;
	long long nmissing;
	bool added;
	int size;

	job__index(j, &regions, &events);
	hosts = json_object_new_array();
	for (size_t k = 0; k < j->n; k++) {
		names__intern(&hostnames, j->r[k].host, &added);
		if (added)
			json_object_array_add(hosts,
					      json_object_new_string(j->r[k].host));
		if (j->r[k].job && !jobid)
			jobid = j->r[k].job;
		if (j->r[k].mpi_job && !mpi_job)
			mpi_job = j->r[k].mpi_job;
	}
	missing = missing_json(j, &size, &nmissing);
	json_object_object_add(doc, "schema", json_object_new_string(JOB_SCHEMA));
	json_object_object_add(doc, "tool", json_object_new_string(tool));
	json_object_object_add(info, "id",
			       jobid ? json_object_new_string(jobid) : NULL);
	json_object_object_add(info, "mpi_job",
			       mpi_job ? json_object_new_string(mpi_job) : NULL);
	json_object_object_add(info, "size",
			       size >= 0 ? json_object_new_int(size) : NULL);
	json_object_object_add(info, "ranks", json_object_new_int((int)j->n));
	json_object_object_add(info, "hosts", hosts);
	json_object_object_add(doc, "job", info);
	json_object_object_add(doc, "ranks", ranks_json(j, &incomplete));
	json_object_object_add(doc, "missing_ranks", missing);
	json_object_object_add(doc, "missing_count", json_object_new_int64(nmissing));
	json_object_object_add(doc, "incomplete_ranks", incomplete);
	json_object_object_add(doc, "ignored_files", dup);
	j->ignored = NULL; /* the document's now */
	json_object_object_add(doc, "events", arr = json_object_new_array());
	for (size_t e = 0; e < events.n; e++)
		json_object_array_add(arr, json_object_new_string(events.name[e]));
	json_object_object_add(doc, "totals",
			       event_stats(j, &events, NULL, DR_TOTALS, buf));
	if (jobdoc_drill__find(j, drill))
		jobdoc_drill__scope(j, drill, doc, NULL, DR_TOTALS, "totals", buf);
	/* The ranks' process wall times: who ran longest, the spread. */
	json_object_object_add(doc, "wall_ns",
			       rank_stats(j, get_wall, &(struct want){ .region = NULL }, buf));
	x = thread_extremes(j, &events, &regions);
	arr = json_object_new_array();
	for (size_t i = 0; i < regions.n; i++)
		json_object_array_add(arr, region_json(j, &events, regions.name[i],
						       x + i * events.n, drill, buf));
	json_object_object_add(doc, "regions", arr);
	free(x);
	free(buf);
	free(drill);
	hs_strtab__free(&regions);
	hs_strtab__free(&events);
	hs_strtab__free(&hostnames);
	return doc;
}

/* ---- output ------------------------------------------------------------ */

int agg_jobdoc__write(const char *path, const char *text, bool named, char *err,
		      size_t errlen)
{
	return agg_result__write_text(path, text, named, err, errlen);
}
