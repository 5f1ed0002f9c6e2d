/* docread.h - the one reader of result documents: a process's result
 * (`hpcshim/N`) and a job document (`hpcshim-job/N`), docs/schema.md.
 *
 * A document is opened once (parsed, NaN and Infinity made null, its
 * kind told, its layout checked: every member an accessor reads must have
 * one of the types it reads, at any depth, and the rank and size must be
 * sane; aggregate/docread_check.c) and then read through typed accessors;
 * no caller looks a schema key up itself.  Every accessor still treats an
 * absent or null value as absent and never crashes (a document read
 * without the check, too): numbers come back as `false`/a default,
 * strings as the default, arrays as empty.
 *
 * A job document reads as a whole job: its ranks (`dr_doc__rank`) with
 * their process totals, its regions (the statistics' sums over the ranks),
 * no threads.  A process result has one rank, its own.
 *
 * Handles below the document (threads, regions, drill-downs) point into
 * it and live as long as it.
 */
#ifndef HPCSHIM_AGGREGATE_DOCREAD_H
#define HPCSHIM_AGGREGATE_DOCREAD_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

#define DR_PROCESS_SCHEMA "hpcshim/1"
#define DR_JOB_SCHEMA "hpcshim-job/1"
/* Ranks and sizes above this are not a launcher's: the file is damaged. */
#define DR_MAX_RANKS (1 << 24)
/* More events than this in events[] or in one owner's values are not the
 * shim's (it counts at most 64 at once; a job's are the union over its
 * ranks): the file is damaged.  A tool's work is rows x events, and an
 * owner's event names are walked in file order (dr_region__event: the
 * i-th key, found from the first), so the bound keeps both small. */
#define DR_MAX_EVENTS 256

struct dr_doc;      /* one document                                    */
struct dr_thread;   /* an entry of a process's threads[]               */
struct dr_region;   /* a region: a summary (process, job) or a thread's */
struct dr_drill;    /* a drill-down object (`*_drilldown`)             */
struct dr_node;     /* a node of a drill-down                          */
struct dr_series;   /* a thread's time series (HPCSHIM_INTERVAL)       */
struct dr_span;     /* a record of a thread's trace (HPCSHIM_TRACE)    */

enum dr_kind { DR_PROCESS, DR_JOB };
/* Which values of an owner: a process's or thread's totals, a region's
 * inclusive or exclusive values. */
enum dr_key { DR_TOTALS, DR_INCLUSIVE, DR_EXCLUSIVE };

/* One event's value.  A summary's or a job's statistics give their sum.
 * se: the standard error of a multiplexed estimate (-1: none known);
 * cov: running/enabled of its _multiplexed entry (-1: none); en, run: that
 * entry's enabled and running times (0 when absent); mux: the entry
 * exists; out: the entry says it never ran (running 0); present: the
 * event is a key of the values (has: its value a number). */
struct dr_value {
	bool present, has;
	double v;
	double se, cov, en, run;
	bool mux, out;
};

/* A rank: a process result's own (its process), or an entry of a job's
 * ranks[].  rank -1: the file names none; wall -1: no wall time;
 * threads -1: not known (a job's ranks); peak_rss -1: not known (bytes). */
struct dr_rank {
	int rank;
	const char *host, *end;
	long long pid, threads;
	double wall, peak_rss;
	bool complete;
};

/* An event of the document's events[] (a job's list names only). */
struct dr_event {
	const char *name, *status, *error, *reason;
};

/* Per-call statistics (per_call, per_call_wall_ns); present: the file
 * has them; has: all four numbers there (an absent one reads 0) and
 * calls > 0. */
struct dr_percall {
	bool present, has;
	const char *event;
	double calls, min, mean, max;
};

/* ---- opening ------------------------------------------------------------ */

/* Parses path; NULL with the reason in why (json-c's, shortened: "No such
 * file or directory", "truncated JSON: ...", "not JSON: ...") when it is
 * no JSON.  The document is not checked yet: dr_doc__check. */
struct dr_doc *dr_doc__load(const char *path, char *why, size_t len);
/* A parsed document (taken: released by dr_doc__free). */
struct dr_doc *dr_doc__wrap(struct json_object *root);
/* Whether json-c can read no NaN and no infinity from text: outside its
 * strings no letters but those of true, false and null and the exponents
 * of numbers, and no exponent of three digits or more (1e999 reads as an
 * infinity).  Conservative: false for anything else (a document whose
 * numbers are all finite may still be answered false). */
bool dr_text__finite(const char *text, size_t len);
/* dr_doc__wrap of a document parsed from a text dr_text__finite accepted:
 * no walk over it for NaN and infinities, the same document. */
struct dr_doc *dr_doc__wrap_finite(struct json_object *root);
/* 0 when the document can be read: a process result or a job document
 * whose members have their types and whose rank and size are sane; else
 * what is wrong, with the words in why ("malformed result: \"totals\"
 * missing or not an object").  The accessors rely on it. */
enum dr_bad {
	DR_OK = 0,
	DR_NO_SCHEMA = -1, /* not an object, or no "schema" string   */
	DR_SCHEMA = -2,    /* neither "hpcshim/N" nor "hpcshim-job/N" */
	DR_LAYOUT = -3,    /* a member missing, of a wrong type, absurd */
};
enum dr_bad dr_doc__check(struct dr_doc *d, char *why, size_t len);
/* The same for a process result that may lack members (a hand-made one,
 * maybe without "schema": hpcshim drilldown reads what is there): the
 * members present have their types. */
enum dr_bad dr_doc__check_partial(struct dr_doc *d, char *why, size_t len);
/* A process result by its schema ("hpcshim/N") and with its "process". */
bool dr_doc__is_result(const struct dr_doc *d);
void dr_doc__free(struct dr_doc *d);
/* The parsed tree, handed over (d is freed): for the job-document builder,
 * which keeps the rank documents it was given. */
struct json_object *dr_doc__release(struct dr_doc *d);
/* The parsed tree (still d's): for code that copies members as written. */
struct json_object *dr_doc__json(const struct dr_doc *d);

enum dr_kind dr_doc__kind(const struct dr_doc *d);
/* Its "schema"; *known: the version this reader was written for. */
const char *dr_doc__schema(const struct dr_doc *d, bool *known);

/* ---- the document --------------------------------------------------------- */

/* Ranks: 1 for a process result, the ranks[] of a job. */
size_t dr_doc__nranks(const struct dr_doc *d);
void dr_doc__rank(const struct dr_doc *d, size_t k, struct dr_rank *out);
/* Rank k's process totals (a job: as its file had them). */
bool dr_doc__rank_value(const struct dr_doc *d, size_t k, const char *ev,
			struct dr_value *out);
/* The process's (a job: the first rank's) start, in ns since the epoch. */
double dr_doc__start_ns(const struct dr_doc *d);
/* The process's job id, size (-1 when none), exec generation, start and
 * end (a job document: none). */
const char *dr_doc__job(const struct dr_doc *d);
/* The launcher's own job id when it differs from the job id's source (a
 * Slurm step names the job, the MPI's own id is kept here), or NULL. */
const char *dr_doc__mpi_job(const struct dr_doc *d);
int dr_doc__size(const struct dr_doc *d);
int dr_doc__generation(const struct dr_doc *d);

/* argv of the process (a job: none). */
size_t dr_doc__nargs(const struct dr_doc *d);
const char *dr_doc__arg(const struct dr_doc *d, size_t i);

size_t dr_doc__nevents(const struct dr_doc *d);
void dr_doc__event(const struct dr_doc *d, size_t i, struct dr_event *out);

/* The process totals (a job: the sums over the ranks, their error). */
bool dr_doc__total(const struct dr_doc *d, const char *ev, struct dr_value *out);
/* Iterates the totals' event names in file order: i from 0 while it
 * returns non-NULL. */
const char *dr_doc__total_event(const struct dr_doc *d, size_t i);

/* The pmu part (NULL when absent). */
enum dr_pmu { DR_PMU_PRIVILEGE, DR_PMU_CPU, DR_PMU_FALLBACK };
const char *dr_doc__pmu(const struct dr_doc *d, enum dr_pmu what);
long long dr_doc__thread_count(const struct dr_doc *d);
long long dr_doc__uncovered_calls(const struct dr_doc *d);
/* before_start as compact JSON, or NULL. */
const char *dr_doc__before_start(const struct dr_doc *d);

/* The bytes of the calls of wrapped function name (its "wrap" entry's,
 * under HPCSHIM_PROFILE), -1 when not recorded. */
double dr_doc__wrap_bytes(const struct dr_doc *d, const char *name);

/* A job document's parts of time over the ranks (docs/schema.md, "Job
 * document": time_ns): of the ranks' main threads (threads false) or of
 * all their threads; part "compute", "mpi", "io", "openmp_wait",
 * "off_cpu", "wall" or "cpu", or with kind the MPI part of that kind
 * ("collective", ...).  False when the document has none. */
struct dr_stat;
bool dr_doc__job_part(const struct dr_doc *d, bool threads, const char *part, const char *kind,
		      struct dr_stat *out);
/* A job document's statistic of the ranks at its top: "peak_rss_bytes",
 * "wall_ns".  False when absent. */
bool dr_doc__job_stat(const struct dr_doc *d, const char *key, struct dr_stat *out);
/* Rank k's main thread's part of time (threads false) or its threads'
 * summed, as dr_doc__job_part names them (a job's ranks[] entry, -1 when
 * absent; a process result: none). */
double dr_doc__rank_part(const struct dr_doc *d, size_t k, bool threads, const char *part,
			 const char *kind);

/* presets: the CPU model, the sets (kind, name, status, reason) and each
 * set's metrics: formula text and the set's alias for a formula
 * variable. */
const char *dr_doc__model(const struct dr_doc *d);
enum dr_set { DR_SET_KIND, DR_SET_NAME, DR_SET_STATUS, DR_SET_REASON };
size_t dr_doc__nsets(const struct dr_doc *d);
const char *dr_doc__set(const struct dr_doc *d, size_t i, enum dr_set what);
size_t dr_doc__set_nmetrics(const struct dr_doc *d, size_t i);
const char *dr_doc__set_metric(const struct dr_doc *d, size_t i, size_t k,
			       const char **formula);
const char *dr_doc__set_alias(const struct dr_doc *d, size_t i, const char *var);
/* totals_metrics in file order: name, value (has) and reason. */
size_t dr_doc__nmetrics(const struct dr_doc *d);
const char *dr_doc__metric(const struct dr_doc *d, size_t k, double *v, bool *has,
			   const char **reason);

/* docread_range.c: checkpoints, then the trigger's start and stop
 * points (kind "checkpoint", "start", "stop"), as asked and as resolved:
 * status "ok", "unresolved" or "dropped" with its reason; a checkpoint's
 * count is the process total (has: counted by some thread; never 0 for
 * what was not counted). */
struct dr_point {
	const char *kind, *text, *status, *reason;
	bool has;
	double count;
};
size_t dr_doc__npoints(const struct dr_doc *d);
void dr_doc__point(const struct dr_doc *d, size_t i, struct dr_point *out);
/* "breakpoint" or "uprobe" (NULL: no point, or none could be watched),
 * and *note why that way or why none (NULL). */
const char *dr_doc__point_method(const struct dr_doc *d, const char **note);
/* "waiting", "started", "stopped", or NULL without a trigger. */
const char *dr_doc__trigger_state(const struct dr_doc *d);

size_t dr_doc__nthreads(const struct dr_doc *d);
const struct dr_thread *dr_doc__thread(const struct dr_doc *d, size_t i);
/* The summary regions: a process's regions[], a job's regions[]. */
size_t dr_doc__nregions(const struct dr_doc *d);
const struct dr_region *dr_doc__region(const struct dr_doc *d, size_t i);
const struct dr_region *dr_doc__region_named(const struct dr_doc *d, const char *name);
/* A member as written (borrowed), for a document that copies it: the
 * process totals, the process's wall time. */
enum dr_written { DR_WRITTEN_TOTALS, DR_WRITTEN_WALL };
struct json_object *dr_doc__as_written(const struct dr_doc *d, enum dr_written what);
/* totals_drilldown, or NULL. */
const struct dr_drill *dr_doc__drill(const struct dr_doc *d);

/* ---- threads ----------------------------------------------------------------- */

long long dr_thread__tid(const struct dr_thread *t);
long long dr_thread__omp(const struct dr_thread *t); /* -1: none */
long long dr_thread__start_ns(const struct dr_thread *t);
const char *dr_thread__name(const struct dr_thread *t);  /* or NULL */
const char *dr_thread__error(const struct dr_thread *t); /* or NULL */
double dr_thread__wall(const struct dr_thread *t);       /* -1: none */
bool dr_thread__total(const struct dr_thread *t, const char *ev, struct dr_value *out);
/* Its totals' event names in file order (NULL past the end). */
const char *dr_thread__total_event(const struct dr_thread *t, size_t i);
/* The sum of its warning counters. */
long long dr_thread__warnings(const struct dr_thread *t); /* >= 0, at most LLONG_MAX */
size_t dr_thread__nregions(const struct dr_thread *t);
const struct dr_region *dr_thread__region(const struct dr_thread *t, size_t i);
const struct dr_series *dr_thread__series(const struct dr_thread *t);
/* The trace: its event (or NULL), its records. */
bool dr_thread__has_trace(const struct dr_thread *t);
const char *dr_thread__trace_event(const struct dr_thread *t);
size_t dr_thread__nspans(const struct dr_thread *t);
const struct dr_span *dr_thread__span(const struct dr_thread *t, size_t i);

/* A span's region, begin and end (ns), and its delta and depth as written
 * (borrowed JSON, or NULL). */
const char *dr_span__region(const struct dr_span *s);
long long dr_span__begin(const struct dr_span *s);
long long dr_span__end(const struct dr_span *s);
struct json_object *dr_span__delta(const struct dr_span *s);
struct json_object *dr_span__depth(const struct dr_span *s);

/* A series: its times ("t", ns of thread CPU time) and its events'
 * points.  Events in file order: i from 0 while non-NULL. */
const char *dr_series__event(const struct dr_series *s, size_t i);
/* Points of ev with a time (the shorter of the two arrays), points of
 * ev. */
size_t dr_series__len(const struct dr_series *s, const char *ev);
size_t dr_series__npoints(const struct dr_series *s, const char *ev);
bool dr_series__t(const struct dr_series *s, size_t j, double *t);
bool dr_series__point(const struct dr_series *s, const char *ev, size_t j, double *v);
/* The point as written (borrowed), for copying. */
struct json_object *dr_series__json(const struct dr_series *s, const char *ev, size_t j);

/* ---- regions ------------------------------------------------------------------ */

const char *dr_region__name(const struct dr_region *r); /* "?" when none */
const char *dr_region__id(const struct dr_region *r);   /* its name, or NULL */
/* Its calls as written (a number), for statistics over the ranks. */
bool dr_region__calls_num(const struct dr_region *r, double *v);
const char *dr_region__parent(const struct dr_region *r); /* or NULL */
long long dr_region__calls(const struct dr_region *r);
/* Threads that ran it (a job: the most of any event's thread extremes). */
long long dr_region__threads(const struct dr_region *r);
/* Ranks that ran it: 1 in a process result. */
long long dr_region__ranks(const struct dr_region *r);
/* Wall time, inclusive or exclusive (-1: none). */
double dr_region__wall(const struct dr_region *r, enum dr_key which);
/* What measuring the region's calls cost (measurement_ns), ns; -1 when
 * the file does not say (before the calibration, older files). */
double dr_region__measurement(const struct dr_region *r);
bool dr_region__value(const struct dr_region *r, enum dr_key which, const char *ev,
		      struct dr_value *out);
/* The event names of its values, in file order (NULL past the end). */
const char *dr_region__event(const struct dr_region *r, enum dr_key which, size_t i);
/* A job document's statistic over the ranks (docs/schema.md, "Job
 * document"): its calls, its wall time (inclusive or exclusive), or an
 * event's value; false when the region has none (a process's region: its
 * values are no statistics).  min_at, max_at: ranks, -1 when absent. */
struct dr_stat {
	double n, sum, mean, min, max, sd;
	int min_at, max_at;
	long long min_tid, max_tid; /* a thread's statistic: the holders' tids, else -1 */
};
enum dr_stat_of { DR_STAT_CALLS, DR_STAT_WALL, DR_STAT_VALUE, DR_STAT_BYTES };
bool dr_region__stat(const struct dr_region *r, enum dr_stat_of what, enum dr_key which,
		     const char *ev, struct dr_stat *out);
void dr_region__percall(const struct dr_region *r, struct dr_percall *out);
void dr_region__percall_wall(const struct dr_region *r, struct dr_percall *out);
/* A metric of its inclusive_metrics (has: a number). */
bool dr_region__metric(const struct dr_region *r, const char *name, double *v);
const struct dr_drill *dr_region__drill(const struct dr_region *r, enum dr_key which);

/* ---- drill-downs ------------------------------------------------------------ */

/* Its strings (NULL when absent): the tree's name, the bottleneck node,
 * the next step's why and setting (the shim's "next", or an offline
 * scope's "bottleneck"), an offline scope's name. */
enum dr_drill_str {
	DR_DRILL_TREE,
	DR_DRILL_BOTTLENECK,
	DR_DRILL_WHY,
	DR_DRILL_SETTING,
	DR_DRILL_SCOPE,
};
const char *dr_drill__get(const struct dr_drill *x, enum dr_drill_str what);
size_t dr_drill__nnodes(const struct dr_drill *x);
const struct dr_node *dr_drill__node(const struct dr_drill *x, size_t i);
enum dr_node_str { DR_NODE_ID, DR_NODE_NAME, DR_NODE_UNIT, DR_NODE_PARENT, DR_NODE_REASON };
const char *dr_node__get(const struct dr_node *n, enum dr_node_str what);
bool dr_node__value(const struct dr_node *n, double *v);
bool dr_node__error(const struct dr_node *n, double *e);
/* over: 1, 0, or -1 when not a boolean. */
int dr_node__over(const struct dr_node *n);

/* ---- OpenMP constructs (the top-level "openmp") ------------------------------ */

struct dr_omp; /* a construct of openmp.constructs[] */

/* The runtime part; false when the document has no "openmp". */
struct dr_omp_runtime {
	const char *runtime, *library, *source, *reason; /* NULL when absent */
	bool recorded;
};
bool dr_doc__omp_runtime(const struct dr_doc *d, struct dr_omp_runtime *out);
size_t dr_doc__nomp(const struct dr_doc *d);
const struct dr_omp *dr_doc__omp(const struct dr_doc *d, size_t i);

/* A construct's figures; a number absent reads -1 (imbalance and
 * wait_share: has_* false). */
struct dr_omp_construct {
	const char *region, *wait_region, *kind, *function, *file; /* or NULL */
	long long line, teams, team_max, threads, work_ns, wait_ns;
	long long slowest_omp_thread, slowest_tid;
	double imbalance, wait_share;
	bool has_imbalance, has_wait_share;
};
void dr_omp__get(const struct dr_omp *c, struct dr_omp_construct *out);

/* One thread's figures of a construct (per_thread[k]); absent numbers 0,
 * omp_thread and tid -1. */
struct dr_omp_share {
	long long tid, omp_thread, calls, work_ns, wait_ns, last;
	long long barriers, barrier_ns, criticals, critical_wait_ns, critical_held_ns;
	long long taskwaits, taskwait_ns, tasks_created, tasks_run, task_ns;
	long long singles, chunks, iterations;
	long long ordered, ordered_wait_ns, atomics, atomic_wait_ns, taskloops, taskloop_ns;
};
size_t dr_omp__nshares(const struct dr_omp *c);
void dr_omp__share(const struct dr_omp *c, size_t k, struct dr_omp_share *out);
/* A job document's statistic over the ranks of a thread's figure key
 * ("calls", "work_ns", ..., "wait_share"); false when absent (a process
 * result's shares are numbers). */
bool dr_omp__share_stat(const struct dr_omp *c, size_t k, const char *key, struct dr_stat *out);

/* ---- the output of `hpcshim drilldown --json` ------------------------------ */

/* true when d is one (its "scopes" an array): html --drilldown. */
bool dr_doc__is_offline(const struct dr_doc *d);
/* Its tree and models ("skx clx"; NULL when absent). */
const char *dr_doc__offline_tree(const struct dr_doc *d, const char **models);
size_t dr_doc__nscopes(const struct dr_doc *d);
const struct dr_drill *dr_doc__scope(const struct dr_doc *d, size_t i);

#endif
