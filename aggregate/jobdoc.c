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
#include "aggregate/jobsum.h"
#include "aggregate/jobdoc.h"
#include "aggregate/jobsrc.h"
#include "aggregate/jobdoc_internal.h"
#include "aggregate/jsonutil.h"
#include "aggregate/oom.h"
#include "aggregate/profile.h"
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
	if (j->stream && file) {
		const char **str[4] = { &r->host, &r->end, &r->job, &r->mpi_job };

		for (int i = 0; i < 4; i++)
			if (*str[i])
				*str[i] = r->own[i] = agg_xstrdup(*str[i]);
		dr_doc__free(doc);
		r->doc = NULL;
	}
	return 0;
}

static void rank__release(struct agg_jobdoc_rank *r)
{
	dr_doc__free(r->doc);
	free(r->path);
	for (int i = 0; i < 4; i++)
		free(r->own[i]);
}

/* Rank k's document: the one taken, or (streaming) its file read again;
 * NULL with a line when the file no longer reads as it did. */
static struct dr_doc *rank__doc(const struct agg_jobdoc *j, const struct agg_jobdoc_rank *r)
{
	char why[512];
	struct dr_doc *d;

	if (r->doc)
		return r->doc;
	d = dr_doc__load(r->path, why, sizeof(why));
	if (d && dr_doc__is_result(d) && !dr_doc__check_partial(d, why, sizeof(why)))
		return d;
	fprintf(stderr, "%s: %s: changed while merging; left out\n", j->prog, r->path);
	dr_doc__free(d);
	return NULL;
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
	for (size_t k = 0; k < j->n; k++)
		rank__release(&j->r[k]);
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
		rank__release(r);
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
			rank__release(drop);
			if (gen)
				*prev = j->r[i];
			continue;
		}
		j->r[w++] = j->r[i];
	}
	j->n = w;
	return dup;
}

/* ---- one rank's summary ------------------------------------------------- */

/* A statistic: an integer when whole, null when not finite (sums of
 * huge values overflow; JSON has no NaN or Infinity). */
static json_object *num(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		return json_object_new_int64((int64_t)v);
	return agg_json__dbl(v);
}

_Static_assert(AGG_PART_KINDS == PF_NCAT && AGG_PART_WALL == PF_NCAT + PF_NMPI,
	       "jobsum.h's part cells follow profile.h's parts and MPI kinds");

/* The parts of a time (profile.h) by their names, -1 none: the main
 * thread's, in a rank's entry. */
static json_object *parts_json(const struct pf_times *x, bool cpu_known)
{
	json_object *o = json_object_new_object(), *k = json_object_new_object();

	for (int c = 0; c < PF_NCAT; c++)
		json_object_object_add(o, pf_cat_name[c], num(x->t[c]));
	for (int m = 0; m < PF_NMPI; m++)
		json_object_object_add(k, pf_kind_name[PF_MPI_COLLECTIVE + m], num(x->mpi[m]));
	json_object_object_add(o, "mpi_by_kind", k);
	json_object_object_add(o, "wall", num(x->wall));
	json_object_object_add(o, "cpu", cpu_known && x->cpu >= 0 ? num(x->cpu) : NULL);
	return o;
}

/* A rank's profile (profile.h, over its one document): 0, or -1. */
static int rank__profile(const struct dr_doc *doc, struct pf_profile *pf)
{
	const struct dr_doc *one = doc;

	if (pf_profile__build(pf, &one, NULL, 1) || pf->nranks != 1) {
		pf_profile__free(pf);
		return -1;
	}
	return 0;
}

static char *entry__text(const struct dr_doc *doc, int rank, const char *file,
			 const struct pf_profile *pf);

/* Its entry of ranks[]: who, where from, its totals as written, its peak
 * memory and its main thread's parts of time. */
char *agg_jobdoc__entry(const struct dr_doc *doc, int rank, const char *file)
{
	struct pf_profile pf;
	char *text;

	if (rank__profile(doc, &pf))
		return entry__text(doc, rank, file, NULL);
	text = entry__text(doc, rank, file, &pf);
	pf_profile__free(&pf);
	return text;
}

static char *entry__text(const struct dr_doc *doc, int rank, const char *file,
			 const struct pf_profile *pf)
{
	json_object *o = json_object_new_object();
	struct dr_rank rk;
	char *text;

	dr_doc__rank(doc, 0, &rk);
	json_object_object_add(o, "rank", json_object_new_int(rank));
	json_object_object_add(o, "host", json_object_new_string(rk.host ? rk.host : ""));
	json_object_object_add(o, "pid", json_object_new_int((int)rk.pid));
	json_object_object_add(o, "file", file ? json_object_new_string(file) : NULL);
	json_object_object_add(o, "complete", json_object_new_boolean(rk.complete));
	json_object_object_add(o, "end", rk.end ? json_object_new_string(rk.end) : NULL);
	json_object_object_add(o, "wall_ns",
			       json_object_get(dr_doc__as_written(doc, DR_WRITTEN_WALL)));
	json_object_object_add(o, "totals",
			       json_object_get(dr_doc__as_written(doc, DR_WRITTEN_TOTALS)));
	if (rk.peak_rss >= 0)
		json_object_object_add(o, "peak_rss_bytes", num(rk.peak_rss));
	if (pf) {
		json_object_object_add(o, "time_ns", parts_json(&pf->ranks[0].main, pf->cpu_known));
		json_object_object_add(o, "threads_time_ns",
				       parts_json(&pf->ranks[0].all, pf->cpu_known));
	}
	text = agg_xstrdup(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return text;
}

/* A rank's OpenMP constructs (its "openmp" part): per construct its
 * imbalance, waiting share, teams, work and wait; per OpenMP thread (the
 * first AGG_OMP_THREADS) its share's figures, held by its tid. */
static void jobdoc__omp_facts(struct agg_jobsum *s, const struct dr_doc *doc,
			      struct agg_who who)
{
	for (size_t i = 0; i < dr_doc__nomp(doc); i++) {
		const struct dr_omp *c = dr_doc__omp(doc, i);
		struct dr_omp_construct k;
		uint32_t r;
		long at;

		if (!c)
			continue;
		dr_omp__get(c, &k);
		at = k.region ? hs_strtab__lookup(&s->regions, k.region) : -1;
		if (at < 0) /* not a region of the file */
			continue;
		r = (uint32_t)at;
#define TEAM(f, v) \
	agg_jobsum__add_cell(s, r, AGG_OMP_EVENT(f, AGG_OMP_TEAM), AGG_OMP, (double)(v), 0, who)
		if (k.has_imbalance)
			TEAM(AGG_OMP_IMBALANCE, k.imbalance);
		if (k.has_wait_share)
			TEAM(AGG_OMP_WAIT_SHARE, k.wait_share);
		if (k.teams >= 0)
			TEAM(AGG_OMP_TEAMS, k.teams);
		if (k.work_ns >= 0)
			TEAM(AGG_OMP_WORK, k.work_ns);
		if (k.wait_ns >= 0)
			TEAM(AGG_OMP_WAIT, k.wait_ns);
#undef TEAM
		for (size_t j = 0; j < dr_omp__nshares(c); j++) {
			struct dr_omp_share sh;
			struct agg_who tw = who;

			dr_omp__share(c, j, &sh);
			if (sh.omp_thread < 0 || sh.omp_thread >= AGG_OMP_THREADS)
				continue;
			tw.tid = sh.tid;
			{
				const long long f[AGG_OMP_NTHREAD_FIELDS] = {
					[AGG_OMP_CALLS] = sh.calls,
					[AGG_OMP_WORK] = sh.work_ns,
					[AGG_OMP_WAIT] = sh.wait_ns,
					[AGG_OMP_BARRIER] = sh.barrier_ns,
					[AGG_OMP_CRIT_WAIT] = sh.critical_wait_ns,
					[AGG_OMP_TASKWAIT] = sh.taskwait_ns,
					[AGG_OMP_TASK] = sh.task_ns,
					[AGG_OMP_CHUNKS] = sh.chunks,
					[AGG_OMP_ITERATIONS] = sh.iterations,
				};

				for (int x = 0; x < AGG_OMP_WAIT_SHARE_T; x++)
					agg_jobsum__add_cell(s, r, AGG_OMP_EVENT(x, sh.omp_thread),
							     AGG_OMP, (double)f[x], 0, tw);
			}
			/* its waiting share, as the profile's finding weighs it:
			 * shares of less than 1 ms say nothing */
			if (sh.work_ns + sh.wait_ns >= 1000000) {
				double all = (double)(sh.work_ns + sh.wait_ns);

				agg_jobsum__add_cell(s, r,
						     AGG_OMP_EVENT(AGG_OMP_WAIT_SHARE_T, sh.omp_thread),
						     AGG_OMP, (double)sh.wait_ns / all, 0, tw);
			}
		}
	}
}

/* A time's parts into the cells of what (AGG_PART_MAIN, _ALL). */
static void parts__add(struct agg_jobsum *s, enum agg_what what, const struct pf_times *x,
		       bool cpu_known, struct agg_who who)
{
	for (int c = 0; c < PF_NCAT; c++)
		agg_jobsum__add_cell(s, AGG_NONE, (uint32_t)c, what, x->t[c], 0, who);
	for (int m = 0; m < PF_NMPI; m++)
		agg_jobsum__add_cell(s, AGG_NONE, (uint32_t)(AGG_PART_KINDS + m), what, x->mpi[m],
				     0, who);
	agg_jobsum__add_cell(s, AGG_NONE, AGG_PART_WALL, what, x->wall, 0, who);
	if (cpu_known && x->cpu >= 0)
		agg_jobsum__add_cell(s, AGG_NONE, AGG_PART_CPU, what, x->cpu, 0, who);
}

int agg_jobdoc__summarise(struct agg_jobsum *s, const struct dr_doc *doc, int rank,
			  const char *file, agg_jobdoc_tree_fn tree, void *tree_ctx)
{
	struct agg_jobsrc src;

	agg_jobsrc__doc(&src, doc);
	return agg_jobdoc__summarise_src(s, &src, rank, file, tree, tree_ctx);
}

int agg_jobdoc__summarise_src(struct agg_jobsum *s, const struct agg_jobsrc *src, int rank,
			      const char *file, agg_jobdoc_tree_fn tree, void *tree_ctx)
{
	const struct agg_jobsrc_ops *op = src->ops;
	const void *sc = src->ctx;
	const struct dr_doc *doc = src->doc;
	struct dr_rank rk;
	struct agg_who who;
	const char *name;
	struct agg_jobsrc_val x;
	struct pf_profile pf;
	bool has_pf;
	char *entry;
	long *col;

	dr_doc__rank(doc, 0, &rk);
	if (rank < 0)
		rank = rk.rank;
	who = (struct agg_who){ .rank = rank, .pid = (int32_t)rk.pid, .tid = -1 };
	who.host = (int32_t)agg_jobsum__name(s, &s->hosts, rk.host ? rk.host : "");
	if (!s->ranks) {
		s->job = dr_doc__job(doc) ? agg_xstrdup(dr_doc__job(doc)) : NULL;
		s->mpi_job = dr_doc__mpi_job(doc) ? agg_xstrdup(dr_doc__mpi_job(doc)) : NULL;
	}
	agg_jobsum__add_rank(s, rank, dr_doc__size(doc), rk.complete);
	has_pf = rank__profile(doc, &pf) == 0;
	entry = entry__text(doc, rank, file, has_pf ? &pf : NULL);
	agg_jobsum__add_entry(s, rank, entry);
	free(entry);
	/* what the profile view needs: memory, the parts of time */
	if (rk.peak_rss >= 0)
		agg_jobsum__add_cell(s, AGG_NONE, AGG_NONE, AGG_PEAK_RSS, rk.peak_rss, 0, who);
	if (has_pf) {
		parts__add(s, AGG_PART_MAIN, &pf.ranks[0].main, pf.cpu_known, who);
		parts__add(s, AGG_PART_ALL, &pf.ranks[0].all, pf.cpu_known, who);
		pf_profile__free(&pf);
	}
	for (size_t e = 0; (name = op->total_event(sc, e)); e++) {
		uint32_t ev = agg_jobsum__name(s, &s->events, name);

		op->total(sc, op->column(sc, name), name, &x);
		if (x.has)
			agg_jobsum__add_cell(s, AGG_NONE, ev, AGG_TOTAL, x.v, x.err, who);
	}
	if (rk.wall >= 0)
		agg_jobsum__add_cell(s, AGG_NONE, AGG_NONE, AGG_WALL_PROC, rk.wall, 0, who);
	/* each event of the summary's source column, found once */
	col = agg_xcalloc(s->events.n ? s->events.n : 1, sizeof(*col));
	for (uint32_t e = 0; e < s->events.n; e++)
		col[e] = op->column(sc, s->events.name[e]);
	for (size_t i = 0, n = op->nregions(sc); i < n; i++) {
		struct agg_jobsrc_region g;
		uint32_t r;
		double v;

		op->region(sc, i, &g);
		if (!(name = g.name))
			continue;
		r = agg_jobsum__name(s, &s->regions, name);
		agg_jobsum__add_cell(s, r, AGG_NONE, AGG_PRESENT, 1, 0, who);
		if (g.has_calls)
			agg_jobsum__add_cell(s, r, AGG_NONE, AGG_CALLS, g.calls, 0, who);
		if (g.wall_in >= 0)
			agg_jobsum__add_cell(s, r, AGG_NONE, AGG_WALL_IN, g.wall_in, 0, who);
		if (g.wall_ex >= 0)
			agg_jobsum__add_cell(s, r, AGG_NONE, AGG_WALL_EX, g.wall_ex, 0, who);
		/* a wrapped MPI or I/O function's bytes (HPCSHIM_PROFILE) */
		if (pf__classify(name) != PF_NONE && (v = dr_doc__wrap_bytes(doc, name)) >= 0)
			agg_jobsum__add_cell(s, r, AGG_NONE, AGG_BYTES, v, 0, who);
		for (uint32_t e = 0; e < s->events.n; e++) {
			op->region_value(sc, i, DR_INCLUSIVE, col[e], s->events.name[e], &x);
			if (x.has)
				agg_jobsum__add_cell(s, r, e, AGG_INCL, x.v, x.err, who);
			op->region_value(sc, i, DR_EXCLUSIVE, col[e], s->events.name[e], &x);
			if (x.has)
				agg_jobsum__add_cell(s, r, e, AGG_EXCL, x.v, x.err, who);
		}
	}
	/* the thread extremes and the roles: every thread's region entries */
	for (size_t t = 0, nt = op->nthreads(sc); t < nt; t++) {
		struct agg_who tw = who;
		enum agg_what role;
		long long tid, omp;

		op->thread(sc, t, &tid, &omp);
		tw.tid = tid;
		role = tw.tid == rk.pid ? AGG_ROLE_MAIN :
		       omp >= 0		 ? AGG_ROLE_OMP :
					   AGG_ROLE_OTHER;
		for (size_t i = 0, n = op->thread_nregions(sc, t); i < n; i++) {
			long r;

			name = op->thread_region(sc, t, i);
			r = name ? hs_strtab__lookup(&s->regions, name) : -1;
			if (r < 0) /* not in regions[]: not a region of the file */
				continue;
			for (uint32_t e = 0; e < s->events.n; e++) {
				op->thread_value(sc, t, i, col[e], s->events.name[e], &x);
				if (x.has) {
					agg_jobsum__add_cell(s, (uint32_t)r, e, AGG_THREAD, x.v, 0,
							     tw);
					agg_jobsum__add_cell(s, (uint32_t)r, e, role, x.v, 0, tw);
				}
			}
		}
	}
	free(col);
	jobdoc__omp_facts(s, doc, who);
	jobdoc_drill__facts(s, doc, rank, who, tree, tree_ctx);
	if (s->oom)
		agg_oom();
	return 0;
}

/* ---- the document from the summary -------------------------------------- */

static json_object *who_json(const struct agg_jobsum *s, const struct agg_who *w, bool tid)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "rank", json_object_new_int(w->rank));
	json_object_object_add(o, "host",
			       json_object_new_string(w->host >= 0 && (size_t)w->host < s->hosts.n ?
							      s->hosts.name[w->host] :
							      ""));
	json_object_object_add(o, "pid", json_object_new_int(w->pid));
	if (tid)
		json_object_object_add(o, "tid", json_object_new_int64(w->tid));
	return o;
}

/* The quantiles the sketch gives, and how exact they are. */
static json_object *quantiles_json(const struct agg_sketch *q)
{
	static const struct {
		const char *key;
		double q;
	} qs[] = { { "p10", 0.10 }, { "p25", 0.25 }, { "p75", 0.75 }, { "p90", 0.90 },
		   { "p99", 0.99 } };
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		json_object_object_add(o, qs[i].key, num(agg_sketch__quantile(q, qs[i].q)));
	json_object_object_add(o, "exact", json_object_new_boolean(agg_sketch__exact(q)));
	json_object_object_add(o, "rel_error", agg_json__dbl(agg_sketch__error(q)));
	return o;
}

/* The statistics of one cell over the ranks, NULL when it has none. */
static json_object *stat_json(const struct agg_jobsum *s, const struct agg_cell *c)
{
	const struct agg_rstat *x;
	json_object *o;
	double mean, se;

	if (!c || !c->s.n)
		return NULL;
	x = &c->s;
	mean = agg_rstat__mean(x);
	o = json_object_new_object();
	json_object_object_add(o, "n", json_object_new_int((int)x->n));
	json_object_object_add(o, "sum", num(x->sum));
	json_object_object_add(o, "mean", agg_json__dbl(mean));
	json_object_object_add(o, "min", num(x->min));
	json_object_object_add(o, "max", num(x->max));
	json_object_object_add(o, "median", num(agg_sketch__median(&x->q)));
	json_object_object_add(o, "quantiles", quantiles_json(&x->q));
	json_object_object_add(o, "sd", agg_json__dbl(agg_rstat__sd(x)));
	/* max/mean - 1 as (max - mean)/mean: one rounding, not two */
	json_object_object_add(o, "imbalance",
			       agg_json__dbl(mean != 0 ? (x->max - mean) / mean : 0.0));
	if (x->has_error) {
		se = sqrt(x->err2);
		json_object_object_add(o, "sum_stderr", agg_json__dbl(se));
		json_object_object_add(o, "mean_stderr", agg_json__dbl(se / (double)x->n));
	}
	json_object_object_add(o, "min_at", who_json(s, &x->min_at, false));
	json_object_object_add(o, "max_at", who_json(s, &x->max_at, false));
	return o;
}

static const struct agg_cell *cell(const struct agg_jobsum *s, uint32_t r, uint32_t e,
				   enum agg_what w)
{
	return agg_jobsum__cell(s, r, e, w);
}

/* {"event": stats, ...} of the process totals (region AGG_NONE) or a
 * region's inclusive or exclusive values. */
static json_object *event_stats(const struct agg_jobsum *s, uint32_t r, enum agg_what w)
{
	json_object *o = json_object_new_object();

	for (uint32_t e = 0; e < s->events.n; e++) {
		json_object *x = stat_json(s, cell(s, r, e, w));

		if (x)
			json_object_object_add(o, s->events.name[e], x);
	}
	return o;
}

/* {"event": {"n", "min", "max", "min_at", "max_at"}} over threads. */
static json_object *extremes_json(const struct agg_jobsum *s, uint32_t r)
{
	json_object *o = json_object_new_object();

	for (uint32_t e = 0; e < s->events.n; e++) {
		const struct agg_cell *c = cell(s, r, e, AGG_THREAD);
		json_object *x;

		if (!c || !c->s.n)
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "n", json_object_new_int((int)c->s.n));
		json_object_object_add(x, "min", num(c->s.min));
		json_object_object_add(x, "max", num(c->s.max));
		json_object_object_add(x, "min_at", who_json(s, &c->s.min_at, true));
		json_object_object_add(x, "max_at", who_json(s, &c->s.max_at, true));
		json_object_object_add(o, s->events.name[e], x);
	}
	return o;
}

/* {"main"|"openmp"|"other": {"event": stats over those threads}}: the
 * roles some thread of the region has. */
static json_object *roles_json(const struct agg_jobsum *s, uint32_t r)
{
	static const struct {
		enum agg_what what;
		const char *key;
	} roles[] = { { AGG_ROLE_MAIN, "main" }, { AGG_ROLE_OMP, "openmp" },
		      { AGG_ROLE_OTHER, "other" } };
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		json_object *x = json_object_new_object();

		for (uint32_t e = 0; e < s->events.n; e++) {
			const struct agg_cell *c = cell(s, r, e, roles[i].what);
			json_object *st = stat_json(s, c);

			if (st) {
				/* the holders are threads */
				json_object_object_add(st, "min_at",
						       who_json(s, &c->s.min_at, true));
				json_object_object_add(st, "max_at",
						       who_json(s, &c->s.max_at, true));
				json_object_object_add(x, s->events.name[e], st);
			}
		}
		if (json_object_object_length(x))
			json_object_object_add(o, roles[i].key, x);
		else
			json_object_put(x);
	}
	return o;
}

/* {"compute": stats, ..., "mpi_by_kind": {...}, "wall", "cpu"} over the
 * ranks of what (AGG_PART_MAIN, _ALL), NULL when no rank has them. */
static json_object *parts_stats(const struct agg_jobsum *s, enum agg_what what)
{
	json_object *o, *k;

	if (!cell(s, AGG_NONE, AGG_PART_WALL, what))
		return NULL;
	o = json_object_new_object();
	k = json_object_new_object();
	for (int c = 0; c < PF_NCAT; c++)
		json_object_object_add(o, pf_cat_name[c], stat_json(s, cell(s, AGG_NONE, (uint32_t)c, what)));
	for (int m = 0; m < PF_NMPI; m++)
		json_object_object_add(k, pf_kind_name[PF_MPI_COLLECTIVE + m],
				       stat_json(s, cell(s, AGG_NONE, (uint32_t)(AGG_PART_KINDS + m),
							 what)));
	json_object_object_add(o, "mpi_by_kind", k);
	json_object_object_add(o, "wall", stat_json(s, cell(s, AGG_NONE, AGG_PART_WALL, what)));
	json_object_object_add(o, "cpu", stat_json(s, cell(s, AGG_NONE, AGG_PART_CPU, what)));
	return o;
}

/* An OpenMP statistic over the ranks (no quantiles: a thread's figures
 * are many), its holders with their tid when threads hold it. */
static json_object *omp_stat(const struct agg_jobsum *s, const struct agg_cell *c, bool tid)
{
	json_object *o;

	if (!c || !c->s.n)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "n", json_object_new_int((int)c->s.n));
	json_object_object_add(o, "sum", num(c->s.sum));
	json_object_object_add(o, "mean", agg_json__dbl(agg_rstat__mean(&c->s)));
	json_object_object_add(o, "min", num(c->s.min));
	json_object_object_add(o, "max", num(c->s.max));
	json_object_object_add(o, "sd", agg_json__dbl(agg_rstat__sd(&c->s)));
	json_object_object_add(o, "min_at", who_json(s, &c->s.min_at, tid));
	json_object_object_add(o, "max_at", who_json(s, &c->s.max_at, tid));
	return o;
}

static const struct agg_cell *omp_cell(const struct agg_jobsum *s, uint32_t r, int field, int t)
{
	return agg_jobsum__cell(s, r, AGG_OMP_EVENT(field, t), AGG_OMP);
}

/* A construct of the ranks' "openmp" parts, NULL when region r is none:
 * per OpenMP thread the statistics over the ranks of its share's figures;
 * the job's imbalance, waiting share and slowest thread over every
 * rank's threads; each rank's imbalance and waiting share over the ranks. */
static json_object *omp_construct(const struct agg_jobsum *s, uint32_t r)
{
	static const char *const key[AGG_OMP_NTHREAD_FIELDS] = {
		[AGG_OMP_CALLS] = "calls",	 [AGG_OMP_WORK] = "work_ns",
		[AGG_OMP_WAIT] = "wait_ns",	 [AGG_OMP_BARRIER] = "barrier_ns",
		[AGG_OMP_CRIT_WAIT] = "critical_wait_ns", [AGG_OMP_TASKWAIT] = "taskwait_ns",
		[AGG_OMP_TASK] = "task_ns",	 [AGG_OMP_CHUNKS] = "chunks",
		[AGG_OMP_ITERATIONS] = "iterations", [AGG_OMP_WAIT_SHARE_T] = "wait_share",
	};
	json_object *o, *arr;
	const struct agg_cell *slow = NULL, *c;
	double work = 0, wait = 0, pairs = 0;
	int threads = 0, slow_t = -1;

	for (int t = 0; t < AGG_OMP_THREADS; t++)
		if (omp_cell(s, r, AGG_OMP_CALLS, t))
			threads = t + 1;
	if (!threads)
		return NULL;
	o = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(o, "region", json_object_new_string(s->regions.name[r]));
	c = omp_cell(s, r, AGG_OMP_CALLS, 0);
	for (int t = 0; t < threads; t++) {
		json_object *x;

		if (!(c = omp_cell(s, r, AGG_OMP_CALLS, t)))
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "omp_thread", json_object_new_int(t));
		json_object_object_add(x, "tid", NULL); /* one per rank: the holders' */
		for (int f = 0; f < AGG_OMP_NTHREAD_FIELDS; f++)
			json_object_object_add(x, key[f], omp_stat(s, omp_cell(s, r, f, t), true));
		json_object_array_add(arr, x);
		if ((c = omp_cell(s, r, AGG_OMP_WORK, t))) {
			work += c->s.sum;
			pairs += (double)c->s.n;
			if (!slow || c->s.max > slow->s.max) {
				slow = c;
				slow_t = t;
			}
		}
		if ((c = omp_cell(s, r, AGG_OMP_WAIT, t)))
			wait += c->s.sum;
	}
	c = omp_cell(s, r, AGG_OMP_TEAMS, AGG_OMP_TEAM);
	json_object_object_add(o, "ranks", json_object_new_int(c ? (int)c->s.n : 0));
	json_object_object_add(o, "teams", c ? num(c->s.sum) : NULL);
	json_object_object_add(o, "threads", json_object_new_int(threads));
	json_object_object_add(o, "work_ns", num(work));
	json_object_object_add(o, "wait_ns", num(wait));
	/* over every rank's threads, as a rank file's over its own */
	json_object_object_add(o, "imbalance",
			       slow && work > 0 ?
				       agg_json__dbl((slow->s.max - work / pairs) / (work / pairs)) :
				       NULL);
	json_object_object_add(o, "wait_share",
			       work + wait > 0 ? agg_json__dbl(wait / (work + wait)) : NULL);
	json_object_object_add(o, "slowest_omp_thread",
			       slow ? json_object_new_int(slow_t) : NULL);
	json_object_object_add(o, "slowest_tid",
			       slow ? json_object_new_int64(slow->s.max_at.tid) : NULL);
	json_object_object_add(o, "slowest_rank",
			       slow ? json_object_new_int(slow->s.max_at.rank) : NULL);
	json_object_object_add(o, "rank_imbalance",
			       omp_stat(s, omp_cell(s, r, AGG_OMP_IMBALANCE, AGG_OMP_TEAM), false));
	json_object_object_add(o, "rank_wait_share",
			       omp_stat(s, omp_cell(s, r, AGG_OMP_WAIT_SHARE, AGG_OMP_TEAM), false));
	json_object_object_add(o, "per_thread", arr);
	return o;
}

/* {"constructs": [...]} of the ranks' OpenMP parts, NULL when none. */
static json_object *omp_json(const struct agg_jobsum *s)
{
	json_object *arr = NULL, *o;

	for (uint32_t r = 0; r < s->regions.n; r++) {
		json_object *c = omp_construct(s, r);

		if (!c)
			continue;
		if (!arr)
			arr = json_object_new_array();
		json_object_array_add(arr, c);
	}
	if (!arr)
		return NULL;
	o = json_object_new_object();
	/* the ranks' runtimes are not summarised: recorded, as constructs came */
	json_object_object_add(o, "recorded", json_object_new_boolean(true));
	json_object_object_add(o, "constructs", arr);
	return o;
}

static json_object *region_json(const struct agg_jobsum *s, uint32_t r,
				const struct jobdrill *d)
{
	json_object *o = json_object_new_object(), *in, *ex, *wall = NULL;
	const struct agg_cell *p = cell(s, r, AGG_NONE, AGG_PRESENT);

	json_object_object_add(o, "name", json_object_new_string(s->regions.name[r]));
	json_object_object_add(o, "ranks", json_object_new_int(p ? (int)p->s.n : 0));
	json_object_object_add(o, "calls", stat_json(s, cell(s, r, AGG_NONE, AGG_CALLS)));
	json_object_object_add(o, "inclusive", event_stats(s, r, AGG_INCL));
	json_object_object_add(o, "exclusive", event_stats(s, r, AGG_EXCL));
	if (d->name) {
		jobdoc_drill__scope(s, d, o, r, DR_INCLUSIVE, "inclusive");
		jobdoc_drill__scope(s, d, o, r, DR_EXCLUSIVE, "exclusive");
	}
	in = stat_json(s, cell(s, r, AGG_NONE, AGG_WALL_IN));
	ex = stat_json(s, cell(s, r, AGG_NONE, AGG_WALL_EX));
	if (in || ex) {
		wall = json_object_new_object();
		json_object_object_add(wall, "inclusive", in);
		json_object_object_add(wall, "exclusive", ex);
	}
	json_object_object_add(o, "wall_ns", wall);
	{
		json_object *b = stat_json(s, cell(s, r, AGG_NONE, AGG_BYTES));

		if (b) /* a wrapped function's bytes (HPCSHIM_PROFILE) */
			json_object_object_add(o, "bytes", b);
	}
	json_object_object_add(o, "threads", extremes_json(s, r));
	json_object_object_add(o, "thread_roles", roles_json(s, r));
	return o;
}

/* Ranks listed in missing_ranks at most: a size of millions in one
 * damaged file must not make a document of millions of ranks;
 * missing_count has them all. */
#define JOB_MISSING_LISTED 1024

/* Ranks below the job's size or below the highest rank seen that are not
 * among the ranks summarised. */
static json_object *missing_json(const struct agg_jobsum *s, long long *count)
{
	json_object *arr = json_object_new_array();
	int64_t top = s->nint ? s->hi[s->nint - 1] : -1, r = 0;

	if (s->size - 1 > top)
		top = s->size - 1;
	*count = 0;
	for (uint32_t i = 0; i <= s->nint; i++) {
		int64_t end = i < s->nint ? s->lo[i] : top + 1;

		for (; r < end; r++)
			if ((*count)++ < JOB_MISSING_LISTED)
				json_object_array_add(arr, json_object_new_int((int)r));
		if (i < s->nint)
			r = s->hi[i] + 1;
	}
	return arr;
}

static json_object *jobdoc__head(const struct agg_jobsum *s, json_object *ignored,
				 const char *tool, const char *prog, agg_jobdoc_tree_fn tree,
				 void *tree_ctx);

/* The text of a JSON value, as the documents are written. */
static const char *text_of(json_object *o)
{
	const char *t = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!t)
		agg_oom();
	return t;
}

static void text__put(char **buf, size_t *len, size_t *cap, const char *t, size_t n)
{
	if (*len + n + 1 > *cap) {
		while (*len + n + 1 > *cap)
			*cap = *cap ? 2 * *cap : 1 << 16;
		*buf = agg_xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, t, n);
	*len += n;
	(*buf)[*len] = '\0';
}

char *agg_jobdoc__render(const struct agg_jobsum *s, json_object *ignored, const char *tool,
			 const char *prog, agg_jobdoc_tree_fn tree, void *tree_ctx, size_t *len)
{
	/* The document without its regions as a tree, then each region's
	 * tree written and freed in turn: the memory holds the text and one
	 * region, never the whole document as json-c objects (several
	 * hundred bytes each). */
	json_object *doc = jobdoc__head(s, ignored, tool, prog, tree, tree_ctx);
	struct jobdrill drill;
	const char *t = text_of(doc);
	size_t n = strlen(t), cap = 0;
	char *buf = NULL;

	*len = 0;
	jobdoc_drill__find(s, NULL, tree, tree_ctx, &drill); /* said by the head */
	/* {"schema":...,"wall_ns":...} -> {"schema":...,"wall_ns":...,"regions":[...]} */
	text__put(&buf, len, &cap, t, n - 1);
	text__put(&buf, len, &cap, ",\"regions\":[", 12);
	json_object_put(doc);
	for (uint32_t r = 0; r < s->regions.n; r++) {
		json_object *o = region_json(s, r, &drill);

		if (r)
			text__put(&buf, len, &cap, ",", 1);
		t = text_of(o);
		text__put(&buf, len, &cap, t, strlen(t));
		json_object_put(o);
	}
	text__put(&buf, len, &cap, "]}", 2);
	return buf;
}

/* The document up to its regions (regions written by the caller). */
static json_object *jobdoc__head(const struct agg_jobsum *s, json_object *ignored,
				 const char *tool, const char *prog, agg_jobdoc_tree_fn tree,
				 void *tree_ctx)
{
	json_object *doc = json_object_new_object(), *info = json_object_new_object();
	json_object *hosts = json_object_new_array(), *arr, *ranks, *inc;
	struct jobdrill drill;
	long long nmissing;

	json_object_object_add(doc, "schema", json_object_new_string(JOB_SCHEMA));
	json_object_object_add(doc, "tool", json_object_new_string(tool));
	json_object_object_add(info, "id", s->job ? json_object_new_string(s->job) : NULL);
	json_object_object_add(info, "mpi_job",
			       s->mpi_job ? json_object_new_string(s->mpi_job) : NULL);
	json_object_object_add(info, "size", s->size >= 0 ? json_object_new_int(s->size) : NULL);
	json_object_object_add(info, "ranks", json_object_new_int((int)s->ranks));
	for (size_t h = 0; h < s->hosts.n; h++)
		json_object_array_add(hosts, json_object_new_string(s->hosts.name[h]));
	json_object_object_add(info, "hosts", hosts);
	json_object_object_add(info, "ranks_listed",
			       json_object_new_string(s->ent_dropped ? "named" : "all"));
	json_object_object_add(doc, "job", info);
	ranks = json_object_new_array();
	for (uint32_t i = 0; i < s->nent; i++) {
		json_object *e = json_tokener_parse(s->etext[i]);

		if (e)
			json_object_array_add(ranks, e);
	}
	json_object_object_add(doc, "ranks", ranks);
	{
		int named[64], n = agg_jobsum__named(s, named, 64);

		arr = json_object_new_array();
		for (int i = 0; i < n; i++)
			json_object_array_add(arr, json_object_new_int(named[i]));
		json_object_object_add(doc, "named_ranks", arr);
	}
	json_object_object_add(doc, "missing_ranks", missing_json(s, &nmissing));
	json_object_object_add(doc, "missing_count", json_object_new_int64(nmissing));
	inc = json_object_new_array();
	for (uint64_t i = 0; i < s->nincomplete && i < AGG_INCOMPLETE_LISTED; i++)
		json_object_array_add(inc, json_object_new_int(s->incomplete[i]));
	json_object_object_add(doc, "incomplete_ranks", inc);
	json_object_object_add(doc, "incomplete_count",
			       json_object_new_int64((int64_t)s->nincomplete));
	json_object_object_add(doc, "ignored_files",
			       ignored ? ignored : json_object_new_array());
	json_object_object_add(doc, "events", arr = json_object_new_array());
	for (size_t e = 0; e < s->events.n; e++)
		json_object_array_add(arr, json_object_new_string(s->events.name[e]));
	json_object_object_add(doc, "totals", event_stats(s, AGG_NONE, AGG_TOTAL));
	if (jobdoc_drill__find(s, prog, tree, tree_ctx, &drill))
		jobdoc_drill__scope(s, &drill, doc, AGG_NONE, DR_TOTALS, "totals");
	/* The ranks' process wall times: who ran longest, the spread. */
	json_object_object_add(doc, "wall_ns",
			       stat_json(s, cell(s, AGG_NONE, AGG_NONE, AGG_WALL_PROC)));
	/* what the profile view needs: the ranks' memory and parts of time */
	{
		json_object *m = stat_json(s, cell(s, AGG_NONE, AGG_NONE, AGG_PEAK_RSS));
		json_object *t = parts_stats(s, AGG_PART_MAIN);

		if (m)
			json_object_object_add(doc, "peak_rss_bytes", m);
		if (t) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "main", t);
			json_object_object_add(o, "threads", parts_stats(s, AGG_PART_ALL));
			json_object_object_add(doc, "time_ns", o);
		}
		if ((t = omp_json(s)))
			json_object_object_add(doc, "openmp", t);
	}
	return doc;
}

char *agg_jobdoc__build(struct agg_jobdoc *j, const char *tool, size_t *len)
{
	json_object *dup = job__number(j);
	char *doc;
	struct agg_jobsum_stack st = { .depth = 0 };
	struct agg_jobsum *all, empty = { .size = -1 };

	for (size_t k = 0; k < j->n; k++) {
		struct dr_doc *d = rank__doc(j, &j->r[k]);
		struct agg_jobsum *one;

		if (!d)
			continue;
		one = agg_xcalloc(1, sizeof(*one));
		agg_jobdoc__summarise(one, d, j->r[k].rank, j->r[k].path, j->tree,
				      j->tree_ctx);
		if (d != j->r[k].doc)
			dr_doc__free(d);
		if (agg_jobsum_stack__push(&st, one))
			agg_oom();
	}
	all = agg_jobsum_stack__finish(&st);
	if (all && all->ent_dropped) {
		/* too many ranks to list: the ones the document names */
		int named[64], n = agg_jobsum__named(all, named, 64);

		for (int i = 0; i < n; i++)
			for (size_t k = 0; k < j->n; k++)
				if (j->r[k].rank == named[i]) {
					struct dr_doc *d = rank__doc(j, &j->r[k]);
					char *e = d ? agg_jobdoc__entry(d, named[i], j->r[k].path) :
						      NULL;

					if (e)
						agg_jobsum__add_named(all, named[i], e);
					free(e);
					if (d != j->r[k].doc)
						dr_doc__free(d);
					break;
				}
	}
	j->ignored = NULL; /* the document's now */
	doc = agg_jobdoc__render(all ? all : &empty, dup, tool, j->prog, j->tree, j->tree_ctx,
				 len);
	if (all) {
		if (all->oom)
			agg_oom();
		agg_jobsum__free(all);
		free(all);
	}
	return doc;
}

/* ---- output ------------------------------------------------------------ */

int agg_jobdoc__write(const char *path, const char *text, bool named, char *err,
		      size_t errlen)
{
	return agg_result__write_text(path, text, named, err, errlen);
}
