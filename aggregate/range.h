/* range.h - results of range restriction, checkpoints and triggers.
 *
 * Objects:
 *   agg_range_thread  one thread's samples per (sampled event, range) and
 *                     checkpoint counts.  Written by preload/range.c under
 *                     its lock, read when the results are written.
 *   agg_range_info    what was asked and how it resolved (ranges with
 *                     their address intervals, sampled events with their
 *                     periods, checkpoints, trigger), filled by preload/
 *                     when the results are written.
 *
 * aggregate/range.c turns them into the "ranges" sections of the JSON
 * (docs/schema.md), including the per-process sums and error estimates;
 * preload/range/ adds them to the process result (section.h).
 */
#ifndef HPCSHIM_AGGREGATE_RANGE_H
#define HPCSHIM_AGGREGATE_RANGE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct agg_range_thread {
	int nsev, nranges, ncp;
	uint64_t *samples;    /* [nsev] samples of this thread              */
	uint64_t *lost;       /* [nsev] samples the kernel dropped           */
	uint64_t *throttled;  /* [nsev] times the kernel paused sampling     */
	uint64_t *hits;       /* [nsev * nranges] samples inside each range  */
	uint64_t *cp;         /* [ncp] checkpoint counts                     */
	uint64_t sev_missing; /* bit k: event k not sampled in this thread   */
	uint64_t cp_missing;  /* bit i: checkpoint i not counted here        */
	const char *sev_reason, *cp_reason; /* static text, or NULL          */
};

struct agg_range_thread *agg_range_thread__new(int nsev, int nranges, int ncp);
void agg_range_thread__delete(struct agg_range_thread *t);

struct agg_interval {
	uint64_t start, end; /* [start, end)                              */
	const char *object;  /* the object's file                         */
};

/* A range, checkpoint or trigger point as asked and as resolved. */
struct agg_place {
	const char *text;   /* as written                                 */
	const char *status; /* "ok", "unresolved" or "dropped"            */
	const char *reason; /* NULL, or why it counts nothing             */
	int nintervals;     /* ranges: address intervals; points: 1 or 0  */
	const struct agg_interval *iv;
	int definitions; /* points: definitions of the name found      */
};

struct agg_sampled {
	const char *event;
	uint64_t period; /* as used (clock events: at least 10 us)     */
};

struct agg_range_info {
	const char *privilege; /* requested: "all", "user", "kernel"    */
	int nranges;
	const struct agg_place *range;
	int nsev;
	const struct agg_sampled *sev;
	const char *sampling_note; /* NULL, or why nothing is sampled       */
	int ncp;
	const struct agg_place *cp;
	int bp_limit; /* breakpoints per thread, -1: not probed */
	const char *method;      /* "breakpoint", "uprobe", NULL: none works or no point */
	const char *method_note; /* why this method, or why none; NULL      */
	const struct agg_place *start, *stop; /* NULL when not asked        */
	const char *trigger_state;       /* "waiting", "started", "stopped"       */
	uint64_t started_ns, stopped_ns; /* 0: not reached              */
	pid_t started_tid, stopped_tid;
};

/* range.c: the "ranges" sections (section.h, docs/schema.md), from the
 * agg_range_info given as arg: the document's after "regions", and each
 * thread's that has samples or checkpoints. */
struct agg_out;
struct agg_process;
struct agg_thread_view;
struct json_object;
void agg_range__tail(struct agg_out *o, int depth, bool *first,
		     const struct agg_process *p, const void *arg);
void agg_range__thread(struct json_object *o, const struct agg_process *p,
		       const struct agg_thread_view *tv, const void *arg);

#endif
