/* mux.h - multiplexing in the results: the group partition, the shim's own
 * rotation (statistics per thread, estimates and their standard errors)
 * and per-thread time series of the counters.
 *
 *   agg_mux        process-wide: mode, groups, slice, interval (json_mux.c)
 *   agg_rotation   one thread's rotation statistics, written by that
 *                  thread's signal handler (relaxed atomics), read at exit
 *   agg_series     one thread's counter readings at interval ends, appended
 *                  by the handler; bounded: when full, adjacent intervals
 *                  merge in pairs (series.c)
 *
 * The estimate math (mux.c, docs/schema.md "Rotation"): under rotation a
 * rotated group g is enabled only during its slices, so the kernel's
 * (value, enabled, running) of its events are (v, E_g, R_g) with E_g the
 * time the shim had g enabled.  Over any interval (thread, region, series
 * step) the time base is T = sum over the thread's rotated groups of E_g
 * (exactly one is enabled at any time) plus the switch gaps (exactly: a
 * never-rotated group's time enabled, when there is one); each event is
 * reported as (v, T, R_g): estimate v * T / R_g, coverage R_g / T, null
 * when R_g == 0.  Region values are sums of per-call deltas of
 * (v, E_g, R_g), so a region's estimate uses only its own coverage.
 */
#ifndef HPCSHIM_AGGREGATE_MUX_H
#define HPCSHIM_AGGREGATE_MUX_H

#include "aggregate/aggregate.h"
#include "common/mux_mode.h"

struct json_object;

/* One perf group as the results describe it. */
struct agg_group {
	int n;
	const int *idx;  /* event indices, the leader first          */
	bool user;       /* a {...} group of the user's list          */
	bool pinned;     /* never rotated, never multiplexed           */
	bool rotated;    /* time-shared by the shim                    */
	const char *why; /* why it is a group of its own               */
	int nclock;
	const int *clock; /* clocks read from its time running, not members */
};

struct agg_mux {
	enum hs_mux_mode mode;
	int ngroups;
	const struct agg_group *grp;
	bool slice_instructions; /* slices counted in instructions       */
	uint64_t slice;          /* ns or instructions                   */
	bool seeded;
	uint64_t seed;
	uint64_t interval_ns; /* time series period, 0 = none         */
	int interval_points;
	const char *note; /* NULL, or a fallback that was taken   */
};

/* Sums over a thread's completed slices of one group: n slices of times
 * t_i, and for each member counts c_i.  d = successive differences
 * (slice i minus the group's slice i - 1). */
struct agg_rot_group {
	uint64_t slices; /* n                                    */
	uint64_t sum_t;  /* sum t_i, ns                          */
	uint64_t last_t; /* t of the latest slice                */
	double sum_dt2;  /* sum (d t)^2                          */
};

struct agg_rot_event {
	uint64_t sum_c;           /* sum c_i                              */
	uint64_t last_c;          /* c of the latest slice                */
	double sum_dc2, sum_dcdt; /* sum (d c)^2, sum (d c)(d t)           */
};

struct agg_rotation {
	bool active;         /* this thread rotated its groups       */
	const char *error;   /* why not (mode rotate), or NULL       */
	int ngroups, nev;    /* evlist groups, events                */
	int nrotated;        /* groups in this thread's rotation      */
	uint64_t signals;    /* sampler signals handled              */
	uint64_t switches;   /* group switches (disable + enable)    */
	uint64_t rounds;     /* randomised rounds started            */
	uint64_t handler_ns; /* time in the handler (CLOCK_MONOTONIC) */
	uint64_t handler_max_ns;
	uint64_t switch_ns;        /* of which switching (wall time)        */
	uint64_t gap_ns;           /* thread time with no rotated group
				   * enabled, up to the latest switch      */
	uint64_t rotated_ns;       /* ... and with one enabled (sum of the
				   * groups' time enabled) at that switch  */
	uint64_t errors;           /* failed ioctl/read in the handler      */
	uint64_t deferred;         /* switches that waited for a boundary's
				   * reads to end                          */
	struct agg_rot_group *grp; /* [ngroups]                             */
	struct agg_rot_event *ev;  /* [nev]                                 */
};

struct agg_series {
	uint64_t period_ns; /* one tick of the sampler               */
	uint32_t stride;    /* ticks per point (doubles on a merge)  */
	uint32_t ticks;     /* ticks since the last point            */
	uint32_t cap, n;    /* points held / room                    */
	int nev, ngroups;
	const int *leader;  /* [ngroups] event index of each leader  */
	uint64_t *t;        /* [cap] thread CPU ns at the point      */
	uint64_t *val;      /* [cap][nev] cumulative values          */
	uint64_t *en, *run; /* [cap][ngroups] cumulative times       */
};

/* mux.c */
struct agg_rotation *agg_rotation__new(int nev, int ngroups);
void agg_rotation__free(struct agg_rotation *r);
/* Handler side (async-signal-safe): one completed slice of group g whose
 * members idx[0..n) counted c[] (by event index) in t ns. */
void agg_rotation__slice(struct agg_rotation *r, int g, const int *idx, int n,
			 const struct count *c, uint64_t t);

/* One interval's counts made reportable: a sum that wrapped below zero is
 * 0 (a value: unknown), running is at most enabled (agg_mux__view's step
 * for each event, for callers that know nothing rotates). */
void agg_mux__guard(struct count *c);
/* The counts of one interval (raw[] by event index, loaded with relaxed
 * atomics) as reported: under rotation (rot active) the (v, T, R_g) view,
 * else the kernel's own.  Both: a sum that wrapped below zero is 0, running
 * is at most enabled.  out[] has p->nev entries. */
void agg_mux__view(const struct agg_process *p, const struct agg_rotation *rot,
		   const struct count *raw, struct count *out);
/* Standard error of event e's estimate over an interval whose view count
 * is v, from the thread's slices (rotation only).  False when unknown
 * (fewer than 2 slices of its group, or not rotated). */
bool agg_mux__stderr(const struct agg_process *p, const struct agg_rotation *rot,
		     int e, const struct count *v, double *se);

/* series.c */
struct agg_series *agg_series__new(int nev, int ngroups, const int *leader, int cap,
				   uint64_t period_ns);
void agg_series__free(struct agg_series *s);
/* One sampler tick (handler side): true when a point is due. */
bool agg_series__tick(struct agg_series *s);
/* Appends the reading c[] (by event index; the groups' times are their
 * leaders') at thread CPU time t_ns; merges pairs first when full.
 * Async-signal-safe: no allocation. */
void agg_series__append(struct agg_series *s, uint64_t t_ns, const struct count *c);

/* json_mux.c: the parts of the document about multiplexing, as sections
 * (section.h): head "mux" and "groups" and each thread's "rotation" (arg:
 * the agg_mux); each thread's "series" (at every rendering, flushes too). */
struct agg_out;
struct agg_thread_view;
void agg_mux__head(struct agg_out *o, int depth, bool *first,
		   const struct agg_process *p, const void *arg);
void agg_mux__thread(struct json_object *o, const struct agg_process *p,
		     const struct agg_thread_view *tv, const void *arg);
void agg_mux__series(struct json_object *o, const struct agg_process *p,
			const struct agg_thread_view *tv, const void *arg);
struct agg_value;
struct agg_sum;
struct json_object *agg_mux__entry(const struct agg_value *x);
/* Adds "<key>_multiplexed" to parent for the sums across threads s[nev]
 * (process totals, region summary) when some event was partial. */
void agg_mux_sum__json(struct json_object *parent, const char *key,
		       const struct agg_process *p, const struct agg_sum *s);

#endif
