/* internal.h - state shared by the files of the range feature
 * (preload/range/), and nothing else's business.
 *
 *   config.c    the feature's variables -> struct hs_range_config
 *   range.c     the feature: its hook table and the lifecycle (its
 *               configuration, start, threads, fork, exit collection);
 *               owns hs_rng
 *   slot.c      the per-thread slot registry and a slot's descriptor lock
 *   resolve.c   which addresses the ranges and points name, per object
 *   sampling.c  the sampled events and a slot's sampling rings
 *   drain.c     attribution of samples to ranges, the drain thread
 *   points.c    checkpoints and trigger breakpoints
 *   trigger.c   the start/stop state and its SIGTRAP handler
 *   result.c    the agg_range_info of the results, the exit report
 *   symbols.c   loaded objects and their function symbols
 *
 * Locking, outermost first:
 *   hs_proc.lock   thread start/stop, the exit collection (the core)
 *   hs_rng.lock    the slot registry, the address tables, ring draining
 *                  (the drain thread takes only this one)
 *   slot->spin     a slot's descriptors: opened, switched, closed.  The
 *                  SIGTRAP handler only ever *tries* it, so it can never
 *                  wait on the thread it interrupted; whoever holds it
 *                  re-reads the trigger state after letting go (see
 *                  hs_range_slot__release), so a switch the handler
 *                  skipped is never lost.
 */
#ifndef HPCSHIM_RANGE_INTERNAL_H
#define HPCSHIM_RANGE_INTERNAL_H

#include <pthread.h>

#include "aggregate/range.h"
#include "pmu/point.h"
#include "pmu/sample.h"
#include "preload/range/config.h"

#define RNG_MAX_IV 1024 /* address intervals over all ranges */

enum trig_state { TRIG_WAIT, TRIG_STARTED, TRIG_STOPPED };
enum { TRIG_START, TRIG_STOP };

/* A checkpoint or a trigger point at run time. */
struct rng_point {
	const struct rng_place *pl;
	uint64_t addr;      /* atomic; 0 until resolved               */
	const char *object; /* the file it was found in               */
	struct pmu_point loc; /* addr, and a uprobe's file and offset  */
	int defs;           /* definitions of the name seen           */
	bool dropped;       /* no debug register for it, or it cannot
				     be armed (reason)                      */
	bool verified;      /* atomic: armed once after it resolved   */
	char reason[480];
};

/* One covered thread's descriptors and results.  Slots are never freed
 * (the SIGTRAP handler walks the registry without a lock); a slot whose
 * thread ended is reused by the next thread. */
struct rng_slot {
	struct rng_slot *next; /* registry link, published with release  */
	int live;              /* atomic: a thread owns it               */
	int spin;              /* atomic: the descriptor lock            */
	int applied;           /* trigger state the descriptors are in   */
	pid_t tid;
	struct agg_range_thread *res;
	int nleader;
	int leader[PMU_MAX_EVENTS]; /* counter group leaders (not ours)    */
	struct pmu_ring ring[PMU_MAX_EVENTS]; /* by sampled event           */
	int cp[RNG_MAX_POINTS]; /* -1 not open (yet), -2 failed        */
	int trig[2];            /* start, stop breakpoint (-1, -2)     */
};

struct hs_range_state {
	bool active;
	const struct hs_range_config *rc; /* set by config (range.c)        */
	struct pmu_evlist *el;            /* the process's, set by configure */
	pid_t pid;
	/* sampling */
	int nsev;
	int sev_ev[PMU_MAX_EVENTS]; /* evlist index of sampled event k */
	uint64_t sev_period[PMU_MAX_EVENTS];
	char sampling_note[200];
	uint64_t all_mask, inverse_mask, kernel_mask;
	/* checkpoints and triggers */
	int ncp;
	struct rng_point cp[RNG_MAX_POINTS];
	bool has_trig[2];
	struct rng_point trig[2];
	int bp_limit, bp_err;            /* -1: not probed                 */
	int method;                      /* enum pmu_point_method, -1: none */
	char method_note[420];           /* why this method, or why none   */
	int state;                       /* enum trig_state, atomic        */
	uint64_t started_ns, stopped_ns; /* atomic                         */
	pid_t started_tid, stopped_tid;  /* atomic                         */
	/* address intervals of the ranges, append-only, under hs_rng.lock
	 * (so is every attribution of a sample) */
	struct {
		uint64_t lo, hi;
		int range;
		const char *object;
	} iv[RNG_MAX_IV];
	int niv;
	bool iv_full;
	unsigned long long adds; /* dlpi_adds at the last scan     */
	uint64_t *seen;          /* objects scanned: hash of base+path */
	int nseen, capseen;
	/* threads */
	pthread_mutex_t lock;
	struct rng_slot *slots; /* atomic head                    */
	bool frozen;            /* results collected              */
	int epfd;
	bool drain_started;
	pid_t drain_tid; /* atomic                         */
};

/* range.c */
extern struct hs_range_state hs_rng;

/* slot.c */
struct rng_slot *hs_range_slot__self(void); /* the calling thread's, or NULL */
/* The calling thread's slot from now on (NULL: none). */
void hs_range_slot__bind(struct rng_slot *s);
/* A free slot (its thread ended) or a new one, for the calling thread:
 * live, its descriptors none yet, returned with s->spin held (under
 * hs_rng.lock).  NULL on ENOMEM. */
struct rng_slot *hs_range_slot__claim(struct agg_range_thread *res);
void hs_range_slot__spin(struct rng_slot *s);
bool hs_range_slot__try(struct rng_slot *s);
/* Blocking, or bounded when in_signal (the exit path in a handler may
 * have interrupted the holder itself). */
bool hs_range_slot__spin_bounded(struct rng_slot *s, bool in_signal);
/* Unlocks and, unless in_signal, brings the slot to the current trigger
 * state if it changed meanwhile. */
void hs_range_slot__release(struct rng_slot *s, bool in_signal);
/* Brings s to the current state; in the handler only if s->spin is free. */
void hs_range_slot__apply(struct rng_slot *s, bool in_handler);

/* resolve.c */
/* Absolute address ranges, then every object loaded so far (no thread
 * yet). */
void hs_range_resolve__start(void);
/* Scans the objects loaded since the last scan (under hs_rng.lock) and,
 * with install, arms newly resolved breakpoints in the live threads. */
void hs_range_resolve__new_objects(bool install);
bool hs_range_resolve__range_ok(int r); /* range r has an address     */
/* Why a place matched nothing. */
void hs_range_place__why(const struct rng_place *pl, char *buf, size_t len);

/* sampling.c */
void hs_range_sampling__init(void); /* which events, which periods */
/* A slot's rings, one per sampled event (under s->spin). */
void hs_range_rings__open(struct rng_slot *s, int ceiling);
void hs_range_rings__close(struct rng_slot *s, bool unmap);

/* drain.c */
void hs_range_slot__drain(struct rng_slot *s); /* under hs_rng.lock     */
void hs_range_drain__ensure(void);             /* under hs_rng.lock           */
bool hs_range_drain__own_task(pid_t tid);
/* In a fork child: no drain thread, the parent's epoll descriptor. */
void hs_range_drain__fork_child(void);

/* trigger.c */
void hs_range_trig__init(void); /* state, counters opened disabled */
void hs_range_trig__install_handler(void);
const char *hs_range_trig__state_name(void);
uint64_t hs_range_trig__sig_data(int which); /* attr.sig_data of a trigger */
/* The start point cannot be armed: count from now on (under hs_rng.lock). */
void hs_range_trig__abandon_start(void);

/* points.c */
/* method.c: the method points use (hs_rng.method, -1: none works), from
 * what fires on this host and HPCSHIM_RANGE_METHOD, with its note. */
void hs_range_method__choose(int npoints);

/* points.c */
void hs_range_points__init(void); /* method, debug-register budget */
void hs_range_points__open(struct rng_slot *s, pid_t tid); /* under s->spin */
void hs_range_points__verify(void);  /* newly resolved: can it be armed? */
void hs_range_points__install(void); /* newly resolved: live slots   */
void hs_range_points__read(struct rng_slot *s); /* checkpoint counts -> results */
void hs_range_points__close(struct rng_slot *s);
bool hs_range_points__pending(void); /* a point waits for its object */

/* result.c */
const struct agg_range_info *hs_range_result__build(void);
void hs_range_result__report_unresolved(void); /* one line per variable */

#endif
