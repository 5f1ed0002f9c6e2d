/* jobdoc.c - the job document: the results of a job's processes (one per
 * rank) reduced to one document, the same for the offline merge
 * (tools/hpcshim-merge.c reads files) and the in-job reduction at
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
 * Allocation failures end the process (abort): a half-built document is
 * worth nothing, and the reduction runs once, at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/fmath.h"
#include "aggregate/drill.h"
#include "aggregate/job.h"
#include "aggregate/jobdoc.h"
#include "aggregate/result.h"
#include "aggregate/jsonread.h"
#include "aggregate/jsonutil.h"
#include "common/hash.h"
#include "common/sys.h"
#include "common/tree.h"

#define JOB_SCHEMA "hpcshim-job/1"

/* Out of memory: the tools end; inside the shim the builder runs under
 * agg_jobdoc__guard, which returns there instead (the program must not be
 * ended by its tool; what was allocated is lost, which is all a process
 * out of memory can do). */
static __thread jmp_buf *oom_guard;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		if (oom_guard)
			longjmp(*oom_guard, 1);
		fputs("hpcshim: job document: out of memory\n", stderr);
		abort();
	}
	return p;
}

int agg_jobdoc__guard(int (*fn)(void *), void *arg)
{
	jmp_buf env, *prev = oom_guard;
	volatile int rc = -1;

	if (setjmp(env) == 0) {
		oom_guard = &env;
		rc = fn(arg);
	} else {
		errno = ENOMEM;
	}
	oom_guard = prev;
	return rc;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = xrealloc(NULL, (n ? n : 1) * (size ? size : 1));

	return memset(p, 0, (n ? n : 1) * (size ? size : 1));
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

static bool is_number(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double));
}

/* ---- a string table: names of events and regions, in order seen ------ */

struct names {
	char **name;
	size_t n, cap;
	size_t *slot; /* open addressing: index + 1, 0 = empty */
	size_t nslot;
};

static size_t names__find(const struct names *t, const char *s, uint64_t h)
{
	size_t i = h & (t->nslot - 1);

	while (t->slot[i] && strcmp(t->name[t->slot[i] - 1], s) != 0)
		i = (i + 1) & (t->nslot - 1);
	return i;
}

static void names__grow(struct names *t)
{
	size_t nslot = t->nslot ? 2 * t->nslot : 64;

	free(t->slot);
	t->slot = xcalloc(nslot, sizeof(*t->slot));
	t->nslot = nslot;
	for (size_t k = 0; k < t->n; k++) {
		size_t i = names__find(t, t->name[k],
				       hs_hash__str(HS_HASH_INIT, t->name[k]));
		t->slot[i] = k + 1;
	}
}

/* The index of s, added if new; *added tells which. */
static size_t names__intern(struct names *t, const char *s, bool *added)
{
	uint64_t h = hs_hash__str(HS_HASH_INIT, s);
	size_t i;

	if (2 * (t->n + 1) > t->nslot)
		names__grow(t);
	i = names__find(t, s, h);
	*added = !t->slot[i];
	if (*added) {
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 16;
			t->name = xrealloc(t->name, t->cap * sizeof(*t->name));
		}
		t->name[t->n] = xstrdup(s);
		t->slot[i] = ++t->n;
	}
	return t->slot[i] - 1;
}

/* The index of s, or -1. */
static long names__lookup(const struct names *t, const char *s)
{
	size_t i;

	if (!t->nslot)
		return -1;
	i = names__find(t, s, hs_hash__str(HS_HASH_INIT, s));
	return t->slot[i] ? (long)t->slot[i] - 1 : -1;
}

static void names__free(struct names *t)
{
	for (size_t k = 0; k < t->n; k++)
		free(t->name[k]);
	free(t->name);
	free(t->slot);
}

/* ---- the inputs -------------------------------------------------------- */

bool agg_jobdoc__add(struct agg_jobdoc *j, json_object *doc, const char *file)
{
	const char *schema = get_str(doc, "schema", "");
	json_object *proc = get(doc, "process");
	struct agg_jobdoc_rank *r;

	if (strncmp(schema, "hpcshim/", 8) != 0 || !proc) {
		json_object_put(doc);
		return false;
	}
	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 16;
		j->r = xrealloc(j->r, j->cap * sizeof(*j->r));
	}
	r = &j->r[j->n++];
	*r = (struct agg_jobdoc_rank){
		.path = file ? xstrdup(file) : NULL,
		.doc = doc,
		.rank = get(proc, "rank") ? (int)get_int(proc, "rank", -1) : -1,
		.size = (int)get_int(proc, "size", -1),
		.host = get_str(proc, "host", "?"),
		.end = get_str(proc, "end", "?"),
		.job = get_str(proc, "job", NULL),
		.pid = (int)get_int(proc, "pid", -1),
		.generation = (int)get_int(proc, "exec_generation", 0),
		.complete = json_object_get_boolean(get(proc, "complete")),
		.start_ns = json_object_get_double(get(proc, "start_ns")),
	};
	return true;
}

void agg_jobdoc__free(struct agg_jobdoc *j)
{
	for (size_t k = 0; k < j->n; k++) {
		json_object_put(j->r[k].doc);
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
	struct jobid *ids = xcalloc(j->n, sizeof(*ids));

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
		json_object_put(r->doc);
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
		*id = xstrdup(pick);
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
			json_object_put(drop->doc);
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

/* A value and its error from a results object ("totals", or a region's
 * "inclusive" whose entries are {"sum", "min", ...} over the process's
 * threads): the number or its "sum", and the stderr of the "_multiplexed"
 * sibling. */
static bool value_of(json_object *vals, json_object *mux, const char *ev, double *v,
		     double *err)
{
	json_object *x = get(vals, ev), *m = get(get(mux, ev), "stderr");

	if (x && json_object_is_type(x, json_type_object))
		x = get(x, "sum");
	if (!is_number(x))
		return false;
	*v = json_object_get_double(x);
	*err = is_number(m) ? json_object_get_double(m) : 0.0;
	return true;
}

static json_object *num(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		return json_object_new_int64((int64_t)v);
	return json_object_new_double(v);
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
	json_object_object_add(o, "mean", json_object_new_double(s->mean));
	json_object_object_add(o, "min", num(s->min));
	json_object_object_add(o, "max", num(s->max));
	json_object_object_add(o, "median", num(s->median));
	json_object_object_add(o, "sd", json_object_new_double(s->sd));
	json_object_object_add(o, "imbalance", json_object_new_double(s->imbalance));
	if (s->has_error) {
		json_object_object_add(o, "sum_stderr",
				       json_object_new_double(s->sum_stderr));
		json_object_object_add(o, "mean_stderr",
				       json_object_new_double(s->mean_stderr));
	}
	return o;
}

/* The statistics of event ev over the ranks, from each rank's object at
 * pick(rank doc): NULL when no rank has a value.  Ranks without one are
 * counted in "missing". */
typedef json_object *(*pick_fn)(json_object *doc, const char *region, const char *key);

static json_object *rank_stats(const struct agg_jobdoc *j, pick_fn pick,
			       const char *region, const char *key, const char *ev,
			       struct agg_job_sample *buf)
{
	struct agg_job_stats s;
	size_t n = 0;
	char muxkey[64];
	json_object *o;

	snprintf(muxkey, sizeof(muxkey), "%s_multiplexed", key);
	for (size_t k = 0; k < j->n; k++) {
		json_object *parent = pick(j->r[k].doc, region, NULL);
		double v, err;
		if (parent &&
		    value_of(get(parent, key), get(parent, muxkey), ev, &v, &err))
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

/* The process object holding "totals" (the document itself). */
static json_object *pick_process(json_object *doc, const char *region, const char *key)
{
	(void)region;
	(void)key;
	return doc;
}

/* A rank's process-wide region object of that name: looked up in a per
 * document index built once (json-c objects hash their keys). */
static json_object *pick_region(json_object *doc, const char *region, const char *key)
{
	(void)key;
	return get(get(doc, "_merge_regions"), region);
}

/* Indexes each document's regions[] by name (a hidden member, never
 * written), and interns event and region names in order of appearance. */
static void job__index(struct agg_jobdoc *j, struct names *regions, struct names *events)
{
	bool added;

	for (size_t k = 0; k < j->n; k++) {
		json_object *doc = j->r[k].doc, *idx = json_object_new_object();
		json_object *arr = get(doc, "regions");
		size_t n = arr_len(arr);

		json_object_object_foreach(get(doc, "totals"), ev, val)
		{
			(void)val;
			names__intern(events, ev, &added);
		}
		for (size_t i = 0; i < n; i++) {
			json_object *reg = json_object_array_get_idx(arr, i);
			const char *name = get_str(reg, "name", NULL);
			if (!name)
				continue;
			names__intern(regions, name, &added);
			json_object_object_add(idx, name, json_object_get(reg));
		}
		json_object_object_add(doc, "_merge_regions", idx);
	}
}

/* {"event": stats, ...} of one key ("totals", "inclusive", "exclusive"). */
static json_object *event_stats(const struct agg_jobdoc *j, const struct names *events,
				pick_fn pick, const char *region, const char *key,
				struct agg_job_sample *buf)
{
	json_object *o = json_object_new_object();

	for (size_t e = 0; e < events->n; e++) {
		json_object *s = rank_stats(j, pick, region, key, events->name[e], buf);
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
				       const struct names *events,
				       const struct names *regions)
{
	struct extreme *x = xcalloc(regions->n * events->n, sizeof(*x));

	for (size_t k = 0; k < j->n; k++) {
		json_object *threads = get(j->r[k].doc, "threads");
		size_t nt = arr_len(threads);
		for (size_t t = 0; t < nt; t++) {
			json_object *th = json_object_array_get_idx(threads, t);
			json_object *regs = get(th, "regions");
			int64_t tid = json_object_get_int64(get(th, "tid"));
			size_t nr = arr_len(regs);
			for (size_t i = 0; i < nr; i++) {
				json_object *reg = json_object_array_get_idx(regs, i);
				json_object *inc = get(reg, "inclusive");
				const char *name = get_str(reg, "name", NULL);
				long r = name ? names__lookup(regions, name) : -1;
				if (r < 0) /* not in regions[]: not a region of the file */
					continue;
				for (size_t e = 0; e < events->n; e++) {
					json_object *v = get(inc, events->name[e]);
					if (is_number(v))
						extreme__add(
							&x[(size_t)r * events->n + e],
							json_object_get_double(v),
							(int)k, tid);
				}
			}
		}
	}
	return x;
}

/* {"event": {"n", "min", "max", "min_at", "max_at"}} over threads. */
static json_object *extremes_json(const struct agg_jobdoc *j,
				  const struct names *events, const struct extreme *x)
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
	struct agg_job_stats s;
	json_object *o;
	size_t n = 0;

	for (size_t k = 0; k < j->n; k++) {
		json_object *v = get(pick_region(j->r[k].doc, name, NULL), "calls");
		if (is_number(v))
			buf[n++] = (struct agg_job_sample){ json_object_get_double(v),
							    0, (int)k };
	}
	if (!n)
		return NULL;
	agg_job__stats(buf, n, &s);
	o = stats_json(&s);
	json_object_object_add(o, "min_at", who_rank(j, s.min_who));
	json_object_object_add(o, "max_at", who_rank(j, s.max_who));
	return o;
}

/* A region's wall time over the ranks (each rank's summed over its
 * threads): {"inclusive": stats, "exclusive": stats}, null in files
 * written before wall time. */
static json_object *wall_stats(const struct agg_jobdoc *j, const char *name,
			       struct agg_job_sample *buf)
{
	json_object *o, *in, *ex;

	in = rank_stats(j, pick_region, name, "wall_ns", "inclusive", buf);
	ex = rank_stats(j, pick_region, name, "wall_ns", "exclusive", buf);
	if (!in && !ex)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "inclusive", in);
	json_object_object_add(o, "exclusive", ex);
	return o;
}

/* ---- drill-down: the ranks' stall tree on the job's sums -------------- */

/* The tree of the ranks' drill-down, or why there is none. */
struct jobdrill {
	const struct tree *t;
	const char *name; /* the ranks' set, "topdown" or "topdown2"; NULL: none */
	int level;
	char why[512];
};

/* Whether any rank carries a drill-down; then the tree they evaluated,
 * found by the name of their set's tree and their CPU model.  Ranks that
 * disagree on either leave the job without one: a sum of counts of two
 * microarchitectures fits neither tree. */
static bool job__drill(const struct agg_jobdoc *j, struct jobdrill *d)
{
	const char *model = NULL;
	int first = -1;

	*d = (struct jobdrill){ .name = NULL };
	for (size_t k = 0; k < j->n; k++) {
		json_object *dd = get(j->r[k].doc, "totals_drilldown");
		const char *name = get_str(dd, "tree", "topdown");
		const char *m = get_str(get(j->r[k].doc, "presets"), "model", "");

		if (!dd)
			continue;
		if (!d->name) {
			d->name = name;
			model = m;
			first = j->r[k].rank;
		} else if (!d->why[0] && strcmp(name, d->name) != 0) {
			snprintf(d->why, sizeof(d->why),
				 "the ranks asked for different trees ('%s' in rank "
				 "%d, '%s' in rank %d)",
				 d->name, first, name, j->r[k].rank);
		} else if (!d->why[0] && strcmp(m, model) != 0) {
			snprintf(d->why, sizeof(d->why),
				 "the ranks ran on different CPU models ('%s' in "
				 "rank %d, '%s' in rank %d)",
				 model, first, m, j->r[k].rank);
		}
	}
	if (!d->name)
		return false;
	d->level = strcmp(d->name, "topdown2") == 0 ? 2 : 1;
	if (!d->why[0]) {
		d->t = j->tree ? j->tree(j->tree_ctx, "topdown", model) : NULL;
		if (!d->t)
			snprintf(d->why, sizeof(d->why),
				 "no stall tree 'topdown' for CPU model '%s' on the "
				 "preset path",
				 model);
	}
	if (!d->t)
		fprintf(stderr, "%s: job drill-down: %s\n", j->prog, d->why);
	return true;
}

/* The member of vals that holds tree event ev: its alias or its spec in
 * any case, as the offline tool matches them. */
static const char *job__drill_key(json_object *vals, const struct tree_event *ev)
{
	if (!vals || !json_object_is_type(vals, json_type_object))
		return NULL;
	json_object_object_foreach(vals, k, v)
	{
		(void)v;
		if (!strcmp(k, ev->alias) || !strcasecmp(k, ev->spec))
			return k;
	}
	return NULL;
}

/* Why a rank has no number for ev: its probe's drop reason when the
 * events[] list has one. */
static void job__drill_absent(const struct agg_jobdoc_rank *r,
			      const struct tree_event *ev, char *why, size_t len)
{
	json_object *evs = get(r->doc, "events");

	for (size_t i = 0; i < arr_len(evs); i++) {
		json_object *e = arr_at(evs, i);

		if (!strcasecmp(get_str(e, "name", ""), ev->spec) &&
		    !strcmp(get_str(e, "status", ""), "dropped")) {
			snprintf(why, len, "rank %d: event '%s' dropped: %s",
				 r->rank, ev->spec, get_str(e, "reason", "?"));
			return;
		}
	}
	snprintf(why, len, "rank %d: event '%s' not in its results", r->rank, ev->spec);
}

/* Rank k's count of ev in parent's `key` object, with its standard error
 * (what the job's sums carry, job.c): from the `_multiplexed` sibling, or,
 * for the process totals, which have none, the threads' errors combined
 * as independent, as the rank's own totals_drilldown does.  *has_err
 * turns false when an estimate has no error figure.  false with why when
 * the rank has no number. */
static bool job__drill_rank(const struct agg_jobdoc *j, size_t k,
			    json_object *parent, const char *key,
			    const struct tree_event *ev, struct agg_job_sample *s,
			    bool *has_err, char *why, size_t len)
{
	const struct agg_jobdoc_rank *r = &j->r[k];
	json_object *vals = get(parent, key), *x, *m, *threads;
	const char *name = job__drill_key(vals, ev);
	char muxkey[64];
	bool totals;

	if (!name) {
		job__drill_absent(r, ev, why, len);
		return false;
	}
	snprintf(muxkey, sizeof(muxkey), "%s_multiplexed", key);
	x = get(vals, name);
	if (x && json_object_is_type(x, json_type_object))
		x = get(x, "sum");
	m = get(get(parent, muxkey), name);
	totals = parent == r->doc && strcmp(key, "totals") == 0;
	threads = get(r->doc, "threads");
	/* the process totals have no _multiplexed entry: a thread's tells */
	for (size_t i = 0; !m && !is_number(x) && totals && i < arr_len(threads); i++)
		m = get(get(arr_at(threads, i), "totals_multiplexed"), name);
	if (!is_number(x)) {
		snprintf(why, len, "rank %d: event '%s' %s", r->rank, ev->spec,
			 m && get_int(m, "running", -1) == 0 ?
				 "multiplexed out (never on a counter)" :
				 "not counted (null in its results)");
		return false;
	}
	*s = (struct agg_job_sample){ json_object_get_double(x), 0, (int)k };
	if (m) {
		json_object *se = get(m, "stderr");

		if (is_number(se))
			s->stderr_ = json_object_get_double(se);
		else
			*has_err = false;
		return true;
	}
	if (!totals)
		return true;
	for (size_t i = 0; i < arr_len(threads); i++) {
		json_object *tm = get(get(arr_at(threads, i), "totals_multiplexed"),
				      name);
		json_object *se = get(tm, "stderr");

		if (!tm)
			continue;
		if (is_number(se))
			s->stderr_ = hs_hypot(s->stderr_, json_object_get_double(se));
		else
			*has_err = false;
	}
	return true;
}

/* "<key>_drilldown" in out: the tree on the sums over the ranks that have
 * the object (every rank for the totals, those that ran the region); an
 * event is known only when each of those ranks has a number for it, a
 * partial sum would mix the ranks' shares. */
static void job__drill_scope(const struct agg_jobdoc *j, const struct jobdrill *d,
			     json_object *out, pick_fn pick, const char *region,
			     const char *key, struct agg_job_sample *buf)
{
	struct tree_input in[TREE_MAX_EVENTS];
	char why[TREE_MAX_EVENTS][400];
	const struct tree *t = d->t;

	if (!t) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "tree", json_object_new_string(d->name));
		json_object_object_add(o, "nodes", NULL);
		json_object_object_add(o, "reason", json_object_new_string(d->why));
		json_object_object_add(o, "bottleneck", NULL);
		json_object_object_add(o, "next", NULL);
		agg_json__add_sibling(out, key, "_drilldown", o);
		return;
	}
	for (int e = 0; e < t->nevents; e++) {
		struct agg_job_stats s;
		bool has_err = true;
		size_t n = 0;

		why[e][0] = '\0';
		for (size_t k = 0; k < j->n && !why[e][0]; k++) {
			json_object *parent = pick(j->r[k].doc, region, NULL);

			if (parent &&
			    job__drill_rank(j, k, parent, key, &t->ev[e], &buf[n],
					    &has_err, why[e], sizeof(why[e])))
				n++;
		}
		in[e] = (struct tree_input){ .why = NULL };
		if (why[e][0]) {
			in[e].why = why[e];
		} else if (!n) {
			in[e].why = "in no rank's results";
		} else {
			agg_job__stats(buf, n, &s);
			in[e].v = s.sum;
			in[e].err = s.sum_stderr;
			in[e].has_err = has_err;
		}
	}
	agg_drill__write(out, key, t, d->name, d->level, in);
}

static json_object *region_json(const struct agg_jobdoc *j, const struct names *events,
				const char *name, const struct extreme *x,
				const struct jobdrill *d, struct agg_job_sample *buf)
{
	json_object *o = json_object_new_object();
	int present = 0;

	for (size_t k = 0; k < j->n; k++)
		present += pick_region(j->r[k].doc, name, NULL) != NULL;
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "ranks", json_object_new_int(present));
	json_object_object_add(o, "calls", calls_json(j, name, buf));
	json_object_object_add(o, "inclusive",
			       event_stats(j, events, pick_region, name,
					   "inclusive", buf));
	json_object_object_add(o, "exclusive",
			       event_stats(j, events, pick_region, name,
					   "exclusive", buf));
	if (d->name) {
		job__drill_scope(j, d, o, pick_region, name, "inclusive", buf);
		job__drill_scope(j, d, o, pick_region, name, "exclusive", buf);
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
			json_object_get(get(get(r->doc, "process"), "wall_ns")));
		json_object_object_add(o, "totals",
				       json_object_get(get(r->doc, "totals")));
		json_object_array_add(arr, o);
		if (!r->complete)
			json_object_array_add(*incomplete,
					      json_object_new_int(r->rank));
	}
	return arr;
}

/* Ranks below the job's size (the largest a launcher gave) or below the
 * highest rank seen that have no file. */
static json_object *missing_json(const struct agg_jobdoc *j, int *size)
{
	json_object *arr = json_object_new_array();
	int top = -1;
	size_t k = 0;

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
		if (k == j->n || j->r[k].rank != r)
			json_object_array_add(arr, json_object_new_int(r));
	}
	return arr;
}

json_object *agg_jobdoc__build(struct agg_jobdoc *j, const char *tool)
{
	struct names regions = { 0 }, events = { 0 };
	json_object *doc = json_object_new_object(), *info = json_object_new_object();
	json_object *dup = job__number(j), *incomplete, *missing, *hosts, *arr;
	struct agg_job_sample *buf = xcalloc(j->n, sizeof(*buf));
	struct names hostnames = { 0 };
	struct jobdrill *drill = xcalloc(1, sizeof(*drill));
	struct extreme *x;
	const char *jobid = NULL;
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
	}
	missing = missing_json(j, &size);
	json_object_object_add(doc, "schema", json_object_new_string(JOB_SCHEMA));
	json_object_object_add(doc, "tool", json_object_new_string(tool));
	json_object_object_add(info, "id",
			       jobid ? json_object_new_string(jobid) : NULL);
	json_object_object_add(info, "size",
			       size >= 0 ? json_object_new_int(size) : NULL);
	json_object_object_add(info, "ranks", json_object_new_int((int)j->n));
	json_object_object_add(info, "hosts", hosts);
	json_object_object_add(doc, "job", info);
	json_object_object_add(doc, "ranks", ranks_json(j, &incomplete));
	json_object_object_add(doc, "missing_ranks", missing);
	json_object_object_add(doc, "incomplete_ranks", incomplete);
	json_object_object_add(doc, "ignored_files", dup);
	j->ignored = NULL; /* the document's now */
	json_object_object_add(doc, "events", arr = json_object_new_array());
	for (size_t e = 0; e < events.n; e++)
		json_object_array_add(arr, json_object_new_string(events.name[e]));
	json_object_object_add(doc, "totals",
			       event_stats(j, &events, pick_process, NULL, "totals",
					   buf));
	if (job__drill(j, drill))
		job__drill_scope(j, drill, doc, pick_process, NULL, "totals", buf);
	/* The ranks' process wall times: who ran longest, the spread. */
	json_object_object_add(doc, "wall_ns",
			       rank_stats(j, pick_process, NULL, "process",
					  "wall_ns", buf));
	x = thread_extremes(j, &events, &regions);
	arr = json_object_new_array();
	for (size_t i = 0; i < regions.n; i++)
		json_object_array_add(arr, region_json(j, &events, regions.name[i],
						       x + i * events.n, drill, buf));
	json_object_object_add(doc, "regions", arr);
	free(x);
	free(buf);
	free(drill);
	names__free(&regions);
	names__free(&events);
	names__free(&hostnames);
	return doc;
}

/* ---- output ------------------------------------------------------------ */

int agg_jobdoc__write(const char *path, const char *text, char *err, size_t errlen)
{
	return agg_result__write_text(path, text, err, errlen);
}
