/* core.h - the core of the shim: what interposition and features use.
 *
 * One process object and one thread object per covered thread (state.c),
 * the latter reached through initial-exec TLS so the region hot path
 * (region.c) costs a TLS load, no lookup and no lock.  The core names no
 * feature; features see its objects and plug in through feature.h.
 */
#ifndef HPCSHIM_PRELOAD_CORE_H
#define HPCSHIM_PRELOAD_CORE_H

#include <pthread.h>
#include <stdint.h>

#include "aggregate/aggregate.h"
#include "common/clock.h"
#include "pmu/pmu.h"
#include "preload/config/config.h"

enum hs_state {
	HS_OFF = 0,  /* not started (or disabled)                     */
	HS_RUNNING,  /* counting                                      */
	HS_FINISHED, /* results written or being written: lists frozen */
};

/* Pointers per thread the features may keep (hs_thread.slot). */
#define HS_THREAD_SLOTS 4

/* One open region instance on a thread's stack. */
struct hs_frame {
	struct agg_region *region;
	int id;              /* the site id it was opened by in one pass
			      * (region.c: its END's test), else -1  */
	bool valid;          /* the BEGIN reading succeeded      */
	struct count *start; /* reading at BEGIN                 */
	struct count *child; /* inclusive deltas of closed children */
	uint64_t wstart;     /* monotonic ns at BEGIN               */
	uint64_t wchild;     /* children's inclusive wall time      */
	uintptr_t sp;        /* a wrapped call's stack position, else 0 */
	bool skip;           /* a sampled region's call not measured  */
};

struct hs_thread {
	struct pmu_counters ctr;
	struct agg_thread *agg;
	int nev;
	int depth, cap;
	int skipped;      /* BEGINs ignored past the depth limit */
	bool omp_checked; /* OpenMP thread number looked up       */
	int nsp;          /* open frames with a stack position (sp) */
	struct hs_frame *frames;
	struct count *store;      /* cap x 2 x nev readings for the frames */
	struct count *now;        /* scratch reading [nev], then [nev] of
				   * sink for the lean close (region.c)   */
	uint64_t wnow;            /* monotonic ns beside that reading    */
	/* Wall time without a clock_gettime per boundary (region.c,
	 * hs_region__calibrate): an instant p of the readings' own perf
	 * clock (user-space reads), or of the raw counter read beside them
	 * (wraw: read()), is CLOCK_MONOTONIC wm0 + (p - wp0) x wmult / 2^32
	 * while wsrc says which is mapped (HS_WALL_*). */
	unsigned char wsrc;
	bool wraw;
	uint64_t wp0, wm0;
	uint64_t wwid;  /* the anchor's sureness: its two monotonic reads' span */
	uint64_t wmult; /* CLOCK_MONOTONIC ns per unit of p, 32.32        */
	uint64_t wcal;  /* CLOCK_MONOTONIC when the mapping is due (again) */
	int main_ev;              /* event of the per-call stats, or -1   */
	bool lean; /* frames close the lean way (region.c, hs_region__select) */
	/* hs_proc.timed, copied at start: the hot path reads it per frame. */
	int ntimed;
	int timed[PMU_MAX_EVENTS];
	struct agg_region **byid; /* records by process-wide region id  */
	int nids;                 /* entries in byid                      */
	uint64_t rng;             /* HPCSHIM_REGION_SAMPLE's picks (xorshift) */
	/* The features' own state of this thread, each in the slot the
	 * feature was given (feature.h), or NULL. */
	void *slot[HS_THREAD_SLOTS];
	struct hs_thread *prev, *next; /* live list, under hs_proc.lock   */
};

struct hs_process {
	int state; /* enum hs_state, atomic          */
	pid_t pid;
	int exec_generation; /* earlier images of this pid with a file */
	int rank;            /* MPI rank from the start environment, or -1 */
	int size;            /* the job's ranks, from the same launcher, or -1 */
	char job[128];       /* the launcher's job id, or "" (identity.h)    */
	char mpi_job[128];   /* the rank's launcher's own id, or ""          */
	struct hs_config cfg;
	struct pmu_evlist evlist;
	struct agg_event ev[PMU_MAX_EVENTS];
	char fallback[512];
	int main_ev; /* first counted event, or -1      */
	/* Events whose region records accumulate enabled/running (agg_event.times_of
	 * 0); the others accumulate values only. */
	int ntimed;
	int timed[PMU_MAX_EVENTS];
	uint64_t start_ns;
	uint64_t start_mono; /* the constructor, monotonic: "wall_ns" */
	char **argv;
	int argc;
	pthread_mutex_t lock; /* live and done lists             */
	struct hs_thread *live;
	struct agg_thread *done;
	uint64_t uncovered_calls; /* atomic                          */
	uint64_t wmult; /* the latest perf clock -> CLOCK_MONOTONIC rate
			 * (hs_thread.wmult), for threads that start; 0:
			 * none yet (atomic) */
	uint64_t wraw_mult; /* the same for the raw counter (atomic)   */
	int wraw_ok;        /* the kernel keeps time with that counter:
			     * 0 not asked yet, 1 yes, -1 no (atomic) */
	pid_t flusher;            /* the flush thread's tid, or 0 (atomic) */
	/* One call in auto_every of an automatic point's region (a wrapped
	 * call, an OpenMP construct) reads the counters, the others the
	 * clock only: set by whichever feature knows what a reading costs
	 * (preload/measure/), 0 or 1 until then: every call (atomic). */
	uint32_t auto_every;
};

extern struct hs_process hs_proc;
extern __thread struct hs_thread *hs_self __attribute__((tls_model("initial-exec")));

/* How an image ended, for the results; HS_END_FLUSH: it had not, the
 * results so far were published by the periodic flush (flush.c);
 * HS_END_SNAPSHOT: the results so far, rendered in memory for a feature
 * (hs_flush__snapshot), never published. */
enum hs_end { HS_END_EXIT, HS_END_EXIT_NOW, HS_END_EXEC, HS_END_SIGNAL, HS_END_FLUSH,
	      HS_END_SNAPSHOT };

/* process.c: the constructor's two halves (boot.c calls them), and the
 * end.  finish writes this image's results once: the first caller wins
 * (destructor, _exit, exec, fatal signal).  It does nothing in a vfork
 * child or after the results were written.  signo is the fatal signal
 * for HS_END_SIGNAL. */
void hs_process__configure(int argc, char **argv);
void hs_process__start(int exec_generation);
void hs_process__finish(enum hs_end end, int signo);

/* Builds the agg_process of this image around threads and publishes it:
 * finish's end, or (HS_END_FLUSH) the flush's snapshot, without the
 * features' parts; HS_END_SNAPSHOT: rendered in memory, written with tap
 * (aggregate/tap.h) when not NULL. */
struct agg_tap;
void hs_process__write(struct agg_thread *threads, uint64_t end_ns,
		       uint64_t end_mono, enum hs_end end, int signo,
		       const struct agg_uncovered *unc, int nunc, const struct agg_tap *tap);

/* state.c: true in a child that shares our memory without being ours
 * (vfork, raw clone): it must not touch the shim's state. */
bool hs_process__foreign(void);

/* events.c: the event list from the configuration; after the probe, its
 * description for the results. */
void hs_events__build(struct pmu_evlist *el, const struct hs_config *cfg);
void hs_events__publish(void);

/* publish.c: writes the results file (HPCSHIM_OUTPUT, else a fallback),
 * atomically: the first publication of an image takes a name no other
 * file has, later ones (flushes, then the end) replace it.  A flush never
 * replaces the end's file.  final_begin/final_end bracket finish's write;
 * wait (a fatal signal's handler) waits, bounded, for one under way on
 * another thread. */
void hs_publish__results(const struct agg_process *p, bool flush, bool in_signal);
/* The end's writer thread (agg_spawn_fn, aggregate.h). */
int hs_publish__spawn(pthread_t *th, void *(*fn)(void *), void *arg);
void hs_publish__final_begin(void);
void hs_publish__final_end(void);
void hs_publish__wait(void);
void hs_publish__fork_child(void);
/* The results rendered into a malloc'd text kept for the calling thread
 * (take_rendered hands it over, NULL when rendering failed). */
void hs_publish__render(const struct agg_process *p);
char *hs_publish__take_rendered(size_t *len);
/* A feature published the results elsewhere: this image's file is
 * removed and nothing is published any more (flushes and the end). */
void hs_publish__suppress(void);

/* flush.c: the periodic flush (HPCSHIM_FLUSH): its thread, started after
 * hs_process__start (boot.c) and again in a fork child.  Its tid is
 * hs_proc.flusher. */
void hs_flush__start(void);
/* One flush now, on the calling thread (false: the image is not
 * running); the same snapshot rendered in memory instead, end
 * "snapshot", complete (NULL when not running or out of memory). */
bool hs_flush__now(void);
char *hs_flush__snapshot(size_t *len);
/* The same snapshot written with a tap (aggregate/tap.h: the in-job
 * reduction reads the writer's view and has it skip the records it took
 * from there). */
char *hs_flush__snapshot_tap(size_t *len, const struct agg_tap *tap);

/* fork.c: makes a fork()ed child a process of its own. */
void hs_fork__child(void);

/* cmdline.c: the program's arguments from /proc/self/cmdline, in one
 * malloc'd block (free(*argv)); the count, 0 when unreadable. */
int hs_cmdline__read(char ***argv);

/* taskstat.c: the kernel's own figures of the calling thread (getrusage
 * RUSAGE_THREAD, its CPU clock) and of another task of ours (/proc); the
 * figure an event matches, if any. */
void hs_taskstat__self(struct agg_kfigs *k);
bool hs_taskstat__read(pid_t tid, struct agg_uncovered *u);
enum agg_kfig hs_taskstat__figure(const struct pmu_event *e);

/* uncovered.c: live tasks not in the live list (call under the lock). */
int hs_uncovered__scan(struct agg_uncovered **out);

/* site.c: process-wide ids of literal region names. */
struct hpcshim_site;
int hs_site__resolve(struct hpcshim_site *site, const char *name);
void hs_site__fork_prepare(void);
void hs_site__fork_parent(void);
void hs_site__fork_child(void);

/* thread.c; adopt starts the calling thread when the shim runs and it
 * has no thread object (it was started early, from another thread). */
struct hs_thread *hs_thread__start(void);
void hs_thread__adopt(void);
void hs_thread__stop(struct hs_thread *t);
void hs_thread__sync_missing(struct hs_thread *t);

/* In a fork()ed child: reopen t's counters for the child's thread, start a
 * fresh result and rebase the open regions on it. */
int hs_thread__rebirth(struct hs_thread *t);
void hs_thread__discard(struct hs_thread *t);

/* stack.c: grows the frame storage to cap frames; grows the id -> record
 * array to at least n entries (new ones NULL). */
int hs_stack__reserve(struct hs_thread *t, int cap);
int hs_stack__reserve_ids(struct hs_thread *t, int n);

/* region.c: takes t's perf clock -> CLOCK_MONOTONIC mapping (an anchor
 * and a rate) when its reads give their instant, and sets t->wsrc
 * (thread.c, when its counters open); again every HS_CALIBRATE_NS at an
 * END, the rate measured over the interval.  The open frames' starts move
 * to the new mapping; returns how far it moved the instant at (the END's
 * reading), mod 2^64. */
#define HS_CALIBRATE_NS 1000000000ull
enum { HS_WALL_MONO, HS_WALL_PERF, HS_WALL_RAW }; /* hs_thread.wsrc */
uint64_t hs_region__calibrate(struct hs_thread *t, uint64_t at);

/* region.c: how t's frames close, chosen once its counters are open
 * (thread.c) and again when its configuration changes. */
void hs_region__select(struct hs_thread *t);

/* region.c: closes the regions still open on t with the reading in t->now
 * (valid when now_ok); their wall time ends now. */
void hs_region__close_all(struct hs_thread *t, bool now_ok);

/* region.c: a wrapped function's call (preload/wrap/) as a region: the
 * site caches the name's id (no hashing per call); sp is the caller's
 * stack position, by which frames left by a longjmp or an exception
 * through the call are found and closed at the thread's next boundary. */
void hs_region__call_begin(struct hpcshim_site *site, const char *name, uintptr_t sp);
void hs_region__call_end(struct hpcshim_site *site, const char *name, uintptr_t sp);
/* call_begin returning to: the register trampoline's BEGIN ends in it (a
 * tail call, no frame of its own around the region's). */
void *hs_region__call_begin_to(struct hpcshim_site *site, const char *name, uintptr_t sp,
			       void *to);

/* region.c: a region begun again while open, its first start discarded
 * (LIKWID's double start, preload/annotations/): the calling thread's top
 * frame, when it is an annotation's frame of name, is dropped with
 * nothing accounted (its closed children stay counted); true when it
 * was.  The caller then begins the region anew. */
bool hs_region__drop_top(const char *name);

#endif
