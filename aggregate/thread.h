/* thread.h - one thread's records (thread.c).
 *
 *   agg_thread   one thread's totals and region table.  Written by its own
 *                thread only; another thread may read it at process exit,
 *                so records are never moved once published and the
 *                accumulators are stored with relaxed atomics.
 *   agg_region   one region name of that thread: calls, counts inclusive
 *                and exclusive, per-call statistics, wall time.
 *
 * aggregate/ never opens counters: it receives struct count readings.
 */
#ifndef HPCSHIM_AGGREGATE_THREAD_H
#define HPCSHIM_AGGREGATE_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/atomic.h"
#include "common/count.h"
#include "aggregate/kernel.h"

struct agg_range_thread; /* range.h */
struct agg_rotation;     /* mux.h */
struct agg_series;       /* mux.h */
struct agg_trace;        /* trace.h */

/* One requested event as the results describe it. */
struct agg_event {
	const char *name;
	bool ok;
	const char *source;    /* generic, software, raw, libpfm4       */
	const char *encoding;  /* libpfm4 fully qualified name, or ""   */
	const char *privilege; /* user, kernel, user+kernel             */
	bool downgraded;       /* user-only because paranoid forbade kernel */
	int group;             /* group index when ok                   */
	bool group_time;       /* no counter: its group's time running  */
	int times_of;          /* 1 + the event whose region records carry
				* this one's enabled/running (its group's
				* leader: members share the group's times);
				* 0: its own (leaders, derived clocks,
				* dropped events, anything built elsewhere) */
	int err;               /* errno when dropped                    */
	const char *errname;
	const char *reason;
	enum agg_kfig kernel; /* the "before start" figure it matches */
};

/* Per-call statistics of one event: each completed call's own inclusive
 * delta (recursive instances included), rounded estimate. */
struct agg_percall {
	uint64_t n; /* calls with a known value              */
	uint64_t min, max, sum;
};

/* A region's wall-clock time, monotonic ns: read beside the counters at
 * each boundary, never one of the events, so known whatever opened.
 * Inclusive from the outermost instance of a recursion only; exclusive =
 * a call's own time minus its children's inclusive time; per call: each
 * completed call's own inclusive time, recursive instances included. */
struct agg_wall {
	uint64_t incl, excl;
	struct agg_percall call;
};

struct agg_region {
	const char *name;
	uint64_t calls;
	struct agg_region *next; /* insertion order; published with release */
	const struct agg_region *parent; /* the thread's open region when this
					  * record was created, or NULL: the
					  * region tree, at no per-call cost */
	uint32_t open;           /* instances on the owner's region stack:
				   * owner only, for recursion            */
	int nev;
	struct agg_percall percall; /* of the process's main event        */
	struct agg_wall wall;
	/* HPCSHIM_REGION_SAMPLE (docs/sampling.md), 0 or 1: every call
	 * measured.  Otherwise one call at random in each block of `every`
	 * is measured (calls, c[], percall, wall: those calls only) and the
	 * others are counted in `unmeasured`; pos and pick are the owner's
	 * place in the block.  sq (NULL in a flush's copy): sums of squares
	 * of the measured calls' own deltas, [0, nev) inclusive, [nev, 2 nev)
	 * exclusive, then wall inclusive and exclusive. */
	uint32_t every, pos, pick;
	/* An automatic point's region (agg_region__sample_after): its first
	 * exact_left calls are all measured, the rest sampled, a stratified
	 * sample whose first stratum is exact.  Its sums are kept after the
	 * squares, in sq's allocation (agg_region__base), when strata has
	 * AGG_STRATA_BASE; AGG_STRATA_TAKEN (set with release, once) when
	 * they were taken, and sq then holds the second stratum's squares
	 * only.  (In the padding before unmeasured: the record's layout,
	 * and the hot path's offsets, stay as they were.) */
	uint16_t exact_left, strata;
	uint64_t unmeasured;
	double *sq;
	/* [0, nev) inclusive, [nev, 2 nev) exclusive.  Only events that
	 * are their own lead (agg_event.lead) accumulate enabled/running:
	 * a group member's are its leader's, filled in by the view. */
	struct count c[];
};

struct agg_thread_warnings {
	uint64_t unmatched_end;  /* END with no open region of that name      */
	uint64_t auto_closed;    /* regions closed implicitly (mismatch, exit) */
	uint64_t depth_overflow; /* BEGIN beyond the maximum nesting depth     */
	uint64_t read_errors;    /* counter reads that failed                  */
};

/* A thread name set by the program; earlier names stay allocated until the
 * thread's results are freed, since the exit path may be reading one. */
struct agg_name {
	struct agg_name *prev;
	char s[];
};

struct agg_thread {
	pid_t tid;
	int omp_thread;         /* OpenMP thread number, or -1             */
	struct agg_name *name;  /* HPC_THREAD_NAME, or NULL (atomic)       */
	uint64_t reads_user;    /* counter group reads in user space       */
	uint64_t reads_syscall; /* ... and with read()                     */
	int nev;
	uint64_t start_ns, end_ns;
	uint64_t start_mono, end_mono; /* the same, monotonic: "wall_ns"  */
	bool alive_at_exit;
	uint64_t missing;     /* bit i: event i not counted in this thread */
	int err;              /* errno of the first failure                */
	const char *reason;   /* static text for missing events, or NULL   */
	struct count *totals; /* [nev] since the thread's counters opened  */
	struct agg_kfigs before; /* the kernel's figures until they opened */
	struct agg_region *head, *tail;
	uint32_t seq; /* odd while the owner updates its records (seqlock.h) */
	const uint32_t *records_seq; /* NULL: seq.  A flush's view of a live
				      * thread shares its records (head) and
				      * reads them under that thread's seq */
	struct agg_region **hash; /* open addressing, owner thread only */
	size_t hash_cap;
	size_t nregions; /* written by the owner, read by a view (atomic) */
	struct agg_thread_warnings warn;
	struct agg_range_thread *range; /* HPCSHIM_RANGE & co., or NULL    */
	struct agg_rotation *rot;       /* rotation statistics, or NULL (mux.h) */
	struct agg_series *series;      /* time series, or NULL (mux.h)         */
	struct agg_trace *trace;        /* HPCSHIM_TRACE ring, or NULL (trace.h) */
	struct agg_thread *next;        /* process list link */
};

static inline void agg_count__acc(struct count *c, const struct count *d)
{
	hs_atomic__add(&c->value, d->value);
	hs_atomic__add(&c->enabled, d->enabled);
	hs_atomic__add(&c->running, d->running);
}

/* One value into per-call statistics (one writer, relaxed atomics). */
static inline void agg_percall__add(struct agg_percall *pc, uint64_t v)
{
	if (pc->n == 0 || v < pc->min)
		hs_atomic__own_store(&pc->min, v);
	if (v > pc->max)
		hs_atomic__own_store(&pc->max, v);
	hs_atomic__add(&pc->sum, v);
	hs_atomic__add(&pc->n, 1);
}

/* One completed call's wall time d and its exclusive part x; d into the
 * inclusive time only for the outermost instance of a recursion. */
static inline void agg_region__add_wall(struct agg_region *r, uint64_t d,
					uint64_t x, bool outermost)
{
	if (outermost)
		hs_atomic__add(&r->wall.incl, d);
	hs_atomic__add(&r->wall.excl, x);
	agg_percall__add(&r->wall.call, d);
}

/* One event of one completed call: the exclusive delta always, the
 * inclusive one when incl is not NULL (outermost instance). */
static inline void agg_region__add_event(struct agg_region *r, int e,
					 const struct count *incl,
					 const struct count *excl)
{
	if (incl)
		agg_count__acc(&r->c[e], incl);
	agg_count__acc(&r->c[r->nev + e], excl);
}

struct agg_thread *agg_thread__new(pid_t tid, int nev);
void agg_thread__delete(struct agg_thread *t);
/* Finds or creates the region record of a name (copied), with no parent.
 * NULL on ENOMEM. */
struct agg_region *agg_thread__region(struct agg_thread *t, const char *name);
/* Creates the record of a name the thread has none of, noting parent (the
 * region open when it was first begun, or NULL).  NULL on ENOMEM. */
struct agg_region *agg_thread__add(struct agg_thread *t, const char *name,
				   const struct agg_region *parent);
/* The record of a name, or NULL when this thread has none. */
struct agg_region *agg_thread__find(struct agg_thread *t, const char *name);
/* Accounts one completed call: the exclusive delta always, the inclusive
 * one only for the outermost instance of a recursion (incl may be NULL). */
void agg_region__add(struct agg_region *r, const struct count *incl,
		     const struct count *excl, int nev);
/* Accounts one call's own delta of the main event to the per-call stats:
 * the value as is when the event ran all the call long (inline: every
 * region END does it), else its scaled estimate (out of line). */
void agg_region__percall_scaled(struct agg_region *r, const struct count *d);
static inline void agg_region__percall(struct agg_region *r, const struct count *d)
{
	if (d->running != d->enabled) { /* multiplexed inside the call */
		agg_region__percall_scaled(r, d);
		return;
	}
	agg_percall__add(&r->percall, d->value);
}
/* Measures r on one call in every (sampling.md); -1 on ENOMEM (then every
 * call is measured). */
int agg_region__sample(struct agg_region *r, uint32_t every);
/* The same after the first `exact` calls, all measured (an automatic
 * point: small regions stay exact); -1 on ENOMEM (every call measured). */
int agg_region__sample_after(struct agg_region *r, uint32_t every, uint32_t exact);
#define AGG_STRATA_BASE 1  /* a first stratum is kept                     */
#define AGG_STRATA_TAKEN 2 /* its sums were taken                         */
#define AGG_STRATA_NOSQ 4  /* a flush's copy: the squares are not its own */
/* The first stratum's sums, [0, 2 nev), then its calls in [2 nev].value;
 * NULL when not taken (yet). */
static inline const struct count *agg_region__base(const struct agg_region *r)
{
	if (!(__atomic_load_n(&r->strata, __ATOMIC_ACQUIRE) & AGG_STRATA_TAKEN))
		return NULL;
	return (const struct count *)(r->sq + 2 * r->nev + 2);
}
/* Whether the owner must take the first stratum's sums now. */
static inline bool agg_region__base_due(const struct agg_region *r)
{
	return (r->strata & (AGG_STRATA_BASE | AGG_STRATA_TAKEN)) == AGG_STRATA_BASE;
}
/* The owner, at the first call past the exact ones (under its sequence
 * count): the first stratum's sums are what c[] holds now. */
void agg_region__sample_base(struct agg_region *r);
/* One measured call's own deltas into r->sq (d: inclusive per event,
 * x: exclusive, wd, wx: wall). */
void agg_region__sample_sq(struct agg_region *r, const uint64_t *d,
			   const uint64_t *x, uint64_t wd, uint64_t wx);
/* Names the thread (copied).  -1 on ENOMEM (the old name stays). */
int agg_thread__set_name(struct agg_thread *t, const char *name);
void agg_thread__set_totals(struct agg_thread *t, const struct count *totals);
/* The thread ended: drop what only lookups needed (the hash index). */
void agg_thread__seal(struct agg_thread *t);

#endif
