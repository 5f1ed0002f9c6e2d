/* view.h - every reported value of a process result, computed once.
 *
 * The writer (json.c) builds an agg_view before serialising and then only
 * formats it: json.c, json_mux.c and metric.c compute nothing.  The
 * process-wide sums are computed first; each thread's and region's values
 * when that record is written, then released.  The walk is
 * one way, json.c -> view.c -> mux.c.
 *
 *   agg_value    one event of one thread interval (thread totals, region
 *                inclusive or exclusive): the counts as reported
 *                (agg_mux__view: the rotation's time base), the estimate,
 *                the number printed, standard error and 95% interval
 *   agg_sum      one event summed over threads (process totals, region
 *                summary): statistics of the estimates, summed counts and
 *                variances
 *   agg_mvalue   (metric.h) one derived metric of one such interval,
 *                evaluated on the unrounded estimates of that same
 *                interval, so that a metric always agrees with the values
 *                printed beside it
 *
 * Threads may still run while the view is built: every accumulator is read
 * once, here, with relaxed loads (region lists with acquire).
 */
#ifndef HPCSHIM_AGGREGATE_VIEW_H
#define HPCSHIM_AGGREGATE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "aggregate/aggregate.h"
#include "aggregate/metric.h"
#include "aggregate/stat.h"

enum agg_value_state {
	AGG_VALUE_ABSENT,  /* event dropped at the probe: no key at all     */
	AGG_VALUE_MISSING, /* not counted in this thread: null, no entry    */
	AGG_VALUE_UNKNOWN, /* never on a counter (running 0): null          */
	AGG_VALUE_KNOWN,
};

struct agg_value {
	struct count c;    /* as reported: raw, enabled, running      */
	double est;        /* the estimate (KNOWN), unrounded         */
	uint64_t shown;    /* the number printed: exact or rounded    */
	double se, lo, hi; /* stderr and ci95 (has_se)                */
	enum agg_value_state state;
	bool partial; /* running != enabled: "_multiplexed" entry */
	bool has_se;
};

struct agg_sum {
	struct agg_stat st; /* of the threads' estimates                */
	uint64_t shown;     /* the sum as printed (rounded)             */
	struct count c;     /* the threads' reported counts, summed     */
	double se2;         /* sum of the threads' variances            */
	uint64_t se_known, se_unknown; /* threads with / without a stderr    */
	bool partial; /* running < enabled in some thread         */
};


/* One event-keyed object of a thread: ev[nev], m[nmetrics] (or NULL). */
struct agg_interval_view {
	struct agg_value *ev;
	struct agg_mvalue *m;
	bool partial; /* some ev[].partial: a "_multiplexed" sibling */
};

/* The same across threads: ev[nev], m[nmetrics] (or NULL). */
struct agg_sum_view {
	struct agg_sum *ev;
	struct agg_mvalue *m;
};

/* HPCSHIM_REGION_SAMPLE: a region measured on a sample of its calls; its
 * counts and wall times are scaled to all calls (docs/sampling.md). */
struct agg_sample_view {
	uint32_t every;    /* 0: not sampled (every call measured)       */
	uint64_t measured; /* calls measured                              */
	uint64_t exact;    /* the first calls, all measured, before sampling */
	/* Standard errors of the scaled estimates, NAN when unknown: [0, nev)
	 * inclusive, [nev, 2 nev) exclusive, then wall inclusive, exclusive. */
	double *se;
};

struct agg_region_view {
	const char *name;
	const char *parent; /* the enclosing region at creation, or NULL */
	uint64_t calls;     /* every call, measured or not              */
	struct agg_sample_view sample;
	struct agg_percall percall;
	struct agg_wall wall;
	struct agg_interval_view incl, excl;
};

/* A thread's time series: per point and event the interval's value as
 * printed (known[] false: null). */
struct agg_series_view {
	uint64_t interval_ns;
	uint32_t n;      /* points                                  */
	uint64_t *t;     /* [n] thread CPU ns at each point         */
	uint64_t *shown; /* [n][nev]                                */
	bool *known;     /* [n][nev]                                */
};

struct agg_thread_view {
	const struct agg_thread *t;
	struct agg_interval_view totals;
	struct agg_series_view *series; /* NULL without a series           */
};

/* A parent name of a region summary (NULL: at the top level). */
struct agg_parent {
	struct agg_parent *next;
	const char *name;
};

/* One region name across threads, in order of first appearance. */
struct agg_region_sum {
	const char *name;
	struct agg_parent *parents; /* the threads' distinct parents, in
				     * order of first appearance       */
	uint64_t calls;
	int threads;
	struct agg_percall percall;
	struct agg_wall wall; /* threads' times summed, per-call merged */
	uint64_t measurement_ns; /* the threads' agg_region_view__cost   */
	struct agg_sum_view incl, excl;
};

struct agg_view_chunk;
struct agg_view_name;
struct agg_view_rec;
struct agg_view_mark;

/* What a limit folded (HPCSHIM_MAX_REGIONS, HPCSHIM_MAX_THREADS): the
 * records beyond it, the smallest by the key, summed into one.  key[] is
 * the folded records' keys, sorted (min, median, max). */
struct agg_folded {
	int limit;            /* 0: no limit                          */
	uint64_t kept;        /* records written                      */
	uint64_t count;       /* records folded                       */
	uint64_t calls;       /* region calls of the folded records   */
	double *key;          /* [count], sorted                      */
	double kept_min;      /* the smallest key written             */
	const char *largest;  /* regions: the largest folded name     */
	pid_t largest_tid;    /* threads: the largest folded tid      */
	struct agg_sum_view incl, excl; /* regions: sums of the folded;
					 * threads: incl = their totals */
	struct agg_wall wall; /* regions: as incl, excl; threads: wall.incl
			       * = their wall_ns summed               */
};

struct agg_view {
	const struct agg_process *p;
	int nmetrics; /* per interval; 0: no "_metrics" objects  */
	struct agg_sum_view totals; /* every thread, folded ones too      */
	int nthreads;               /* threads written                     */
	bool *thread_kept;          /* [threads in p->threads] in list order */
	size_t nsums;               /* region names written                */
	struct agg_region_sum *sum; /* [nsums] in order of first appearance */
	bool sums_pending;          /* sum[] added up as the records are
				     * written: agg_view__sums             */
	const uint32_t *stuck_seq;  /* a thread's count that stayed odd      */
	pid_t self;                 /* the calling thread (view__copy)       */
	struct agg_folded regions_folded, threads_folded;
	struct agg_view_name *names; /* name -> summary (view.c)          */
	size_t names_cap;
	char (*why)[240];           /* [AGG_WHY_KINDS * nev] input reasons     */
	struct agg_view_chunk *mem; /* everything above lives here           */
	struct agg_view_chunk *scratch; /* one record's values: agg_view__release */
	/* The events not dropped, in order: the only ones an interval or a
	 * sum has values of.  plain: no rotation (HPCSHIM_MUX=rotate) and no
	 * metrics, so an interval is estimates only (view__plain). */
	int nok;
	int *ok;
	/* Pass 1's name of each record, in list order, and the cursor of
	 * the records being written (view.c "pass 1's answer"). */
	struct agg_view_rec *recs;
	size_t nrecs, recs_cap;
	struct agg_view_mark *marks; /* each thread's part of recs[]     */
	size_t nmarks, marks_cap, mcur;
	long *order_sum; /* [norder] a name's sum[] index by its order   */
	size_t norder;
	const struct agg_thread *rthread;
	size_t rcur, rend;
	bool recs_off; /* no memory for it: names are looked up          */
	int nread;     /* the counts of a region record read (view__copy)   */
	int *read;     /* [nread] indices into agg_region.c[]                */
	bool plain;
};

/* The process-wide part: totals, region summaries, what is folded.  A
 * thread's and a region's own values are computed when written
 * (agg_view__thread, agg_view__region), so memory holds one record at a
 * time, never the document.  NULL on ENOMEM. */
struct agg_view *agg_view__new(const struct agg_process *p);
void agg_view__delete(struct agg_view *v);
/* A thread's wall time: its start to its end (or the collection), ns. */
uint64_t agg_thread__wall_ns(const struct agg_thread *t);
/* Thread t's totals and series, valid until agg_view__release.  -1 on
 * ENOMEM. */
int agg_view__thread(struct agg_view *v, const struct agg_thread *t,
		     struct agg_thread_view *tv);
/* Region r of thread t: 1 and rv filled when its name is written, 0 when
 * folded, -1 on ENOMEM.  Valid until agg_view__release.  Call it once per
 * record, for every written thread's records in list order (the
 * summaries may be added up here: agg_view__sums). */
int agg_view__region(struct agg_view *v, const struct agg_thread *t,
		     const struct agg_region *r, struct agg_region_view *rv);
/* What measuring rv's calls cost, ns: the calls whose counters were read
 * at p->call_cost_ns each, a sampled region's other calls (timed only)
 * at p->timed_cost_ns. */
uint64_t agg_region_view__cost(const struct agg_region_view *rv,
			       const struct agg_process *p);
/* The region summaries (sum[]) complete: call after every thread's
 * records went through agg_view__region, before reading sum[].  When
 * nothing is folded the view adds each record to its summary there, so
 * that its values are computed once. */
void agg_view__sums(struct agg_view *v);
/* Frees what agg_view__thread and agg_view__region returned. */
void agg_view__release(struct agg_view *v);

#endif
