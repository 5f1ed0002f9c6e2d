/* range_int.h - state shared by range.c (ranges, sampling, threads),
 * trigger.c (start/stop triggers) and points.c (checkpoints and trigger
 * breakpoints).  Internal to those three files.
 *
 * Locking, outermost first:
 *   hs_proc.lock   thread start/stop, the exit collection (shim.c)
 *   R.lock         the slot registry, the address tables, ring draining
 *                  (the drain thread takes only this one)
 *   slot->spin     a slot's descriptors: opened, switched, closed.  The
 *                  SIGTRAP handler only ever *tries* it, so it can never
 *                  wait on the thread it interrupted; whoever holds it
 *                  re-reads the trigger state after letting go (see
 *                  slot__release), so a switch the handler skipped is
 *                  never lost.
 */
#ifndef HPCSHIM_RANGE_INT_H
#define HPCSHIM_RANGE_INT_H

#include <pthread.h>

#include "aggregate/range.h"
#include "pmu/sample.h"
#include "preload/range/range.h"

#define RNG_MAX_IV 1024 /* address intervals over all ranges */

enum trig_state { TRIG_WAIT, TRIG_STARTED, TRIG_STOPPED };
enum { TRIG_START, TRIG_STOP };

/* A checkpoint or a trigger point at run time. */
struct rng_point {
	const struct rng_place *pl;
	uint64_t addr;            /* atomic; 0 until resolved               */
	const char *object;       /* the file it was found in               */
	int defs;                 /* definitions of the name seen           */
	bool dropped;             /* no debug register for it, or it cannot
				     be armed (reason)                      */
	bool verified;            /* armed once after it resolved           */
	char reason[200];
};

/* One covered thread's descriptors and results.  Slots are never freed
 * (the SIGTRAP handler walks the registry without a lock); a slot whose
 * thread ended is reused by the next thread. */
struct rng_slot {
	struct rng_slot *next;    /* registry link, published with release  */
	int live;                 /* atomic: a thread owns it               */
	int spin;                 /* atomic: the descriptor lock            */
	int applied;              /* trigger state the descriptors are in   */
	pid_t tid;
	struct agg_range_thread *res;
	int nleader;
	int leader[PMU_MAX_EVENTS];   /* counter group leaders (not ours)    */
	struct pmu_ring ring[PMU_MAX_EVENTS]; /* by sampled event           */
	int cp[RNG_MAX_POINTS];       /* -1 not open (yet), -2 failed        */
	int trig[2];                  /* start, stop breakpoint (-1, -2)     */
};

struct rng_state {
	bool active;
	const struct hs_range_config *rc;
	pid_t pid;
	/* sampling */
	int nsev;
	int sev_ev[PMU_MAX_EVENTS];       /* evlist index of sampled event k */
	uint64_t sev_period[PMU_MAX_EVENTS];
	char sampling_note[200];
	uint64_t all_mask, inverse_mask, kernel_mask;
	/* checkpoints and triggers */
	int ncp;
	struct rng_point cp[RNG_MAX_POINTS];
	bool has_trig[2];
	struct rng_point trig[2];
	int bp_limit, bp_err;             /* -1: not probed                 */
	int state;                        /* enum trig_state, atomic        */
	uint64_t started_ns, stopped_ns;  /* atomic                         */
	pid_t started_tid, stopped_tid;   /* atomic                         */
	/* address intervals of the ranges, append-only, under R.lock (so
	 * is every attribution of a sample) */
	struct { uint64_t lo, hi; int range; const char *object; } iv[RNG_MAX_IV];
	int niv;
	bool iv_full;
	unsigned long long adds;          /* dlpi_adds at the last scan     */
	uint64_t *seen;                   /* objects scanned: hash of base+path */
	int nseen, capseen;
	/* threads */
	pthread_mutex_t lock;
	struct rng_slot *slots;           /* atomic head                    */
	bool frozen;                      /* results collected              */
	int epfd;
	bool drain_started;
	pid_t drain_tid;                  /* atomic                         */
};

extern struct rng_state R;

/* range.c */
struct rng_slot *slot__self(void);     /* the calling thread's, or NULL  */
void slot__spin(struct rng_slot *s);
bool slot__try(struct rng_slot *s);
/* Unlocks and, unless in_signal, brings the slot to the current trigger
 * state if it changed meanwhile. */
void slot__release(struct rng_slot *s, bool in_signal);

/* trigger.c */
void trig__init(void);                 /* state, counters opened disabled */
void trig__install_handler(void);
/* Puts s's descriptors in state st (under s->spin). */
void slot__set(struct rng_slot *s, int st);
/* Brings s to the current state; in the handler only if s->spin is free. */
void slot__apply(struct rng_slot *s, bool in_handler);
const char *trig__state_name(void);
uint64_t trig__sig_data(int which);     /* attr.sig_data of a trigger     */
/* The start point cannot be armed: count from now on (under R.lock). */
void trig__abandon_start(void);

/* points.c */
void points__init(void);               /* debug-register budget          */
void points__open(struct rng_slot *s, pid_t tid); /* under s->spin       */
void points__verify(void);             /* newly resolved: can it be armed? */
void points__install(void);            /* newly resolved: live slots     */
void points__read(struct rng_slot *s);  /* checkpoint counts -> results */
void points__close(struct rng_slot *s);
bool points__pending(void);            /* a point waits for its object   */

#endif
