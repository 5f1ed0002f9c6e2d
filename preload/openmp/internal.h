/* internal.h - the OpenMP feature's parts and the construct API they share.
 *
 *   construct.c  the constructs (one per outlined function) and each
 *                thread's figures per construct: the API every source of
 *                events feeds (work, waits, chunks, tasks)
 *   lines.c      a construct's name: file:line from DWARF (libdw, loaded
 *                when first needed), else the outlined function's symbol
 *   gomp.c       the source for GNU libgomp's ABI (GOMP_*): exported names
 *                that stand in front of the runtime's
 *   openmp.c     the feature: HPCSHIM_OPENMP, the runtime, the results
 *
 * A source of events only calls the functions below; an OMPT tool
 * (ompt_start_tool: parallel_begin/end, implicit_task, sync_region_wait,
 * mutex_acquire/acquired, work) is one more file feeding the same API
 * (docs/openmp.md).
 */
#ifndef HPCSHIM_PRELOAD_OPENMP_INTERNAL_H
#define HPCSHIM_PRELOAD_OPENMP_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "annotate/hpcshim.h"

enum omp_kind {
	OMP_PARALLEL,          /* #pragma omp parallel                    */
	OMP_PARALLEL_LOOP,     /* a combined parallel for / do            */
	OMP_PARALLEL_SECTIONS, /* a combined parallel sections            */
	OMP_TEAMS,             /* a teams construct on the host           */
	OMP_KINDS,
};

/* The longest region name: "omp implicit barrier @ " and a file:line. */
#define OMP_NAME_MAX 320

/* Where a construct's events come from (docs/openmp.md). */
enum omp_source {
	OMP_SRC_GOMP, /* gomp.c: libgomp's entry points, keyed by the outlined function */
	OMP_SRC_OMPT, /* ompt.c: the OMPT interface, keyed by the call site      */
};

/* One construct: the outlined function a team runs (GOMP), or the call
 * that starts its teams (OMPT's codeptr_ra). */
struct omp_construct {
	int id;         /* index in the table                      */
	const void *fn; /* the key: outlined function or call site  */
	enum omp_kind kind;
	enum omp_source source;
	char name[OMP_NAME_MAX];      /* the work's region             */
	char wait_name[OMP_NAME_MAX]; /* the implicit barrier's region */
	char function[256];           /* the symbol, or ""             */
	char file[256];               /* from DWARF, or ""             */
	int line;                     /* 0: unknown                    */
	struct hpcshim_site site, wait_site;
	bool wait_region;  /* a wait region per share (HPCSHIM_OPENMP=barrier) */
	uint64_t teams;    /* atomic: teams that ran it     */
	uint32_t team_max; /* atomic: the largest team      */
};

/* A thread's figures of one construct; the thread alone writes them. */
struct omp_figs {
	uint64_t calls;   /* its shares (implicit tasks) run      */
	uint64_t work_ns; /* wall of its shares (the work)        */
	uint64_t wait_ns; /* the implicit barrier, tasks excluded */
	uint64_t last;    /* teams in which it arrived last       */
	uint64_t barriers, barrier_ns;   /* explicit and worksharing barriers */
	uint64_t criticals, critical_wait_ns, critical_held_ns;
	uint64_t taskwaits, taskwait_ns; /* taskwait, taskgroup end, tasks excluded */
	uint64_t tasks_created, tasks_run, task_ns;
	uint64_t singles; /* single blocks it executed */
	uint64_t chunks, iterations;
	uint64_t ordered, ordered_wait_ns;  /* ordered sections; waiting for their turn */
	uint64_t atomics, atomic_wait_ns;   /* GOMP_atomic_start: entries, wait for the lock */
	uint64_t taskloops, taskloop_ns;    /* taskloops it encountered, their wall */
	int omp_thread; /* its number at its last share */
};

/* Constructs a thread keeps figures for, in pages (never moved: the end
 * reads them beside running threads). */
#define OMP_PAGE 64
#define OMP_PAGES 64
#define OMP_CONSTRUCTS_MAX (OMP_PAGE * OMP_PAGES)
#define OMP_CRIT_DEPTH 8

/* One thread's state (the feature's slot of hs_thread, and a list of all
 * for the results: a thread's figures outlive it). */
struct omp_thr {
	pid_t tid;
	struct omp_figs *page[OMP_PAGES];
	struct omp_construct *cur; /* the construct whose share runs   */
	struct omp_figs *fig;      /* cur's figures                    */
	long incr;                 /* the current loop's increment     */
	unsigned long long ull_incr; /* an unsigned long long loop's, */
	bool ull_up;                 /* and its direction              */
	uint64_t task_total;       /* atomic: task_ns of every construct */
	int ncrit;
	uint64_t crit_t[OMP_CRIT_DEPTH]; /* when each held critical was entered */
	void *ompt;                      /* ompt.c: the share that runs, or NULL */
	struct omp_thr *next;
};

/* A wait in progress (a barrier, a taskwait): tasks the thread runs
 * inside it are task time, not waiting. */
struct omp_wait {
	uint64_t t0, task0;
};

/* ---- construct.c: the API of the sources -------------------------------- */

/* Recording is on: the feature is on and the core counts (openmp.c). */
extern bool hs_omp_on;
/* HPCSHIM_OPENMP=barrier: libgomp's implicit barrier waits measured on
 * each thread, with their counts (a wait region and a barrier more); set
 * by openmp.c's config, before any thread. */
extern bool hs_omp_barrier;
/* The feature's slot in hs_thread.slot[] (feature.h), or -1. */
extern int hs_omp_slot;

/* The construct of key (created and named on first sight: GOMP's key is
 * the outlined function, OMPT's the return address of the call that
 * starts the team; NULL: the table is full or out of memory). */
struct omp_construct *hs_omp_construct__get(const void *key, enum omp_kind kind,
					    enum omp_source src);
/* Constructs known so far, and the i-th. */
int hs_omp_construct__count(void);
struct omp_construct *hs_omp_construct__at(int i);

/* The calling thread's state, created on first use (NULL: the thread is
 * not counted, or no memory). */
struct omp_thr *hs_omp_thr__self(void);
/* The first of every thread's states (a list through next). */
struct omp_thr *hs_omp_thr__all(void);
/* c's figures of th, or NULL (none yet: create makes them). */
struct omp_figs *hs_omp_thr__figs(struct omp_thr *th, int id, bool create);

/* The calling thread takes part in a team as thread omp_thread: its
 * omp_thread in the results, unless it has one already. */
void hs_omp__label(int omp_thread);

/* A thread's share of construct c: work begins, work ends (its end time
 * returned), the implicit barrier's wait begins and ends. */
struct omp_share {
	struct omp_construct *c, *saved_cur;
	struct omp_figs *fig, *saved_fig;
	uint64_t t0, t1, task0;
	long saved_incr;
};
void hs_omp__work_begin(struct omp_thr *th, struct omp_construct *c,
			struct omp_share *s, long incr, int omp_thread);
uint64_t hs_omp__work_end(struct omp_thr *th, struct omp_share *s);
void hs_omp__barrier_begin(struct omp_thr *th, struct omp_share *s);
/* last: the thread arrived last in its team. */
void hs_omp__barrier_end(struct omp_thr *th, struct omp_share *s, bool last);

/* A source that learns the team's release late (OMPT: LLVM 14 reports a
 * worker's release when the next team starts): the share's work ends,
 * its calls and work are counted, and no wait region is opened; the
 * thread that ends the team adds each share's wait, the time until the
 * last thread arrived (waited: atomic, f is another thread's). */
void hs_omp__work_done(struct omp_thr *th, struct omp_share *s);
void hs_omp__waited(struct omp_figs *f, uint64_t ns, bool last);

/* A wait inside a share: an explicit or worksharing barrier, a taskwait. */
enum omp_sync { OMP_SYNC_BARRIER, OMP_SYNC_TASKWAIT };
void hs_omp__wait_begin(struct omp_thr *th, struct omp_wait *w);
void hs_omp__wait_end(struct omp_thr *th, struct omp_wait *w, enum omp_sync k);
/* A critical section: asked for (w), acquired, released. */
void hs_omp__critical_acquired(struct omp_thr *th, struct omp_wait *w);
void hs_omp__critical_released(struct omp_thr *th);
/* An ordered section or an atomic's lock, asked for (w) and entered. */
enum omp_turn { OMP_TURN_ORDERED, OMP_TURN_ATOMIC };
void hs_omp__turn(struct omp_thr *th, struct omp_wait *w, enum omp_turn k);
/* A taskloop encountered (w at its start): its wall, the tasks it ran
 * excluded. */
void hs_omp__taskloop(struct omp_thr *th, struct omp_wait *w);
/* The task time of th so far (any thread may read it). */
uint64_t hs_omp__task_total(struct omp_thr *th);
/* A chunk of n iterations of a loop (or one section). */
void hs_omp__chunk(struct omp_thr *th, uint64_t n);
void hs_omp__single(struct omp_thr *th);
void hs_omp__task_created(struct omp_thr *th);
/* A task body ran for ns on the calling thread. */
void hs_omp__task_ran(struct omp_thr *th, uint64_t ns);

/* A fork child: only the forking thread remains. */
void hs_omp_construct__fork_child(void);

/* ---- lines.c ------------------------------------------------------------ */

/* Fills c's function, file and line from its key: the outlined
 * function's address, or the call site's (the line of the call
 * instruction, before the return address) (libdw when it loads, else
 * dladdr). */
void hs_omp_lines__name(struct omp_construct *c);

/* ---- openmp.c ----------------------------------------------------------- */

/* The runtime behind the GOMP_* names was found (path of its object,
 * "libgomp" or "libomp"), or refused with the reason (one stderr line). */
void hs_omp__runtime(const char *kind, const char *path);
/* The feature is on (HPCSHIM_OPENMP): an OMPT tool starts only then. */
bool hs_omp__enabled(void);

/* The OMPT interface of the runtime at path serves constructs; the GOMP
 * entry points of the runtime found serve them (a line each with
 * HPCSHIM_VERBOSE). */
void hs_omp__ompt_started(const char *path);
void hs_omp__gomp_started(void);
/* The runtime an object's name (a path) is, by the name of the file it
 * leads to (a libgomp.so.1 may be LLVM's libomp): "libgomp", "libomp" or
 * NULL. */
const char *hs_omp__classify(const char *path);
void hs_omp__refuse(const char *why);

#endif
