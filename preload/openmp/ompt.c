/* ompt.c - the OMPT interface (OpenMP 5.x tools), the source of events for
 * programs built by clang (LLVM's libomp: __kmpc_fork_call, not GOMP_*).
 *
 * The runtime looks up ompt_start_tool when it initialises; the shim
 * exports one (preload/hpcshim.map).  It declines (NULL) when the feature
 * is off, or when OMP_TOOL_LIBRARIES names a tool of the user's: the
 * runtime then goes on to that one.  Otherwise it registers callbacks
 * that feed the same construct API as gomp.c (internal.h):
 *
 *   parallel_begin/end   a team of the construct at codeptr_ra (the call
 *                        that starts it: named by its line)
 *   implicit_task        a thread's share begins (work)
 *   sync_region          the implicit barrier at the end of the parallel
 *                        region (kind barrier_implicit(_parallel), its
 *                        codeptr_ra the team's on the master, NULL on the
 *                        workers): the share's work ends.  Other
 *                        barriers, taskwait and taskgroup: waits inside
 *                        the work
 *   parallel_end         every share has arrived: each one's wait is the
 *                        time until the last arrival, less the tasks its
 *                        thread ran meanwhile (LLVM 14 reports a
 *                        worker's release from the implicit barrier only
 *                        when the next team starts, so the release is not
 *                        a time to measure to, and there is no wait region)
 *   mutex_acquire(d)/released  critical sections and locks
 *   work                 single blocks executed
 *   task_create/schedule tasks created, their time on the thread running
 *                        (a detachable task's until its body's end), also
 *                        in the implicit barrier after the thread's share
 *
 * A team started through the shim's own GOMP_* wrappers (a gcc program on
 * libomp) is gomp.c's: its codeptr_ra is inside the shim, and OMPT leaves
 * it and its threads' events alone.  Loop chunks: LLVM 14's libomp never
 * calls dispatch, so none are counted here.
 *
 * The few OMPT types used are declared here from the OpenMP 5.0
 * specification (omp-tools.h comes with clang, not with every machine
 * that builds the shim).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "preload/openmp/internal.h"

#define HS_EXPORT __attribute__((visibility("default")))

/* ---- OpenMP 5.0, section 4: the types used -------------------------------- */
typedef union ompt_data_t {
	uint64_t value;
	void *ptr;
} ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef void (*ompt_callback_t)(void);
typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num,
				 ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef struct ompt_start_tool_result_t {
	ompt_initialize_t initialize;
	ompt_finalize_t finalize;
	ompt_data_t tool_data;
} ompt_start_tool_result_t;
struct ompt_frame_t;

enum {
	CB_PARALLEL_BEGIN = 3,
	CB_PARALLEL_END = 4,
	CB_TASK_CREATE = 5,
	CB_TASK_SCHEDULE = 6,
	CB_IMPLICIT_TASK = 7,
	CB_MUTEX_RELEASED = 17,
	CB_WORK = 20,
	CB_SYNC_REGION = 23,
	CB_MUTEX_ACQUIRE = 26,
	CB_MUTEX_ACQUIRED = 27,
};
enum { SCOPE_BEGIN = 1, SCOPE_END = 2 };
enum {
	SYNC_BARRIER = 1,
	SYNC_BARRIER_IMPLICIT = 2,
	SYNC_BARRIER_EXPLICIT = 3,
	SYNC_BARRIER_IMPLEMENTATION = 4,
	SYNC_TASKWAIT = 5,
	SYNC_TASKGROUP = 6,
	SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
	SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
};
enum {
	MUTEX_LOCK = 1,
	MUTEX_TEST_LOCK = 2,
	MUTEX_NEST_LOCK = 3,
	MUTEX_TEST_NEST_LOCK = 4,
	MUTEX_CRITICAL = 5,
	MUTEX_ATOMIC = 6,
	MUTEX_ORDERED = 7,
};
#define PARALLEL_LEAGUE 0x40000000
enum { WORK_SINGLE_EXECUTOR = 3 };
enum { TASK_INITIAL = 1, TASK_IMPLICIT = 2, TASK_EXPLICIT = 4 };
enum {
	TASK_COMPLETE = 1,
	TASK_CANCEL = 3,
	TASK_DETACH = 4,
	TASK_EARLY_FULFILL = 5,
	TASK_LATE_FULFILL = 6,
};
#define OMPT_SET_NEVER 1

HS_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						    const char *runtime_version);

/* ---- the records ------------------------------------------------------------ */

#define MAGIC_SHARE 0x53484152u /* an implicit task's data: a share */
#define MAGIC_TASK 0x5441534bu  /* an explicit task's data          */

/* A share's arrival at the implicit barrier, for the thread that ends
 * the team. */
struct ompt_arrival {
	struct omp_figs *fig;
	struct omp_thr *th;
	uint64_t t1, task0; /* its work's end; its task time then */
	int set; /* atomic: written */
};

/* A team: held by the master (parallel_begin .. _end) and each share. */
struct ompt_team {
	struct omp_construct *c;
	const void *ra;
	uint64_t last_end; /* atomic: the latest end of a share's work */
	unsigned arrived;  /* atomic: shares begun                    */
	unsigned narr;     /* atomic: arrivals recorded               */
	int refs;          /* atomic */
	bool league;       /* a teams construct: its teams share no barrier */
	/* Set last by the master, with release; each share acquires it before
	 * it reads the rest: the runtime hands the team's data to its workers
	 * by copying it (not ours to see). */
	unsigned published;
	unsigned cap;
	struct ompt_arrival arr[];
};

struct ompt_share {
	uint32_t magic;
	struct ompt_team *tm;
	struct omp_share s;
	struct omp_wait w, crit; /* a wait inside the work; a mutex asked for */
	int state;               /* 0 work, 1 arrived at the implicit barrier */
	struct ompt_share *up;   /* the thread's share it runs inside, or NULL */
};

struct ompt_task {
	uint32_t magic;
	uint64_t start, elapsed;
};

static uintptr_t self_lo, self_hi; /* the shim's own code */

#define TEAM_MAX 4096 /* arrivals kept per team */

/* A record the shim hands from one thread to another through the
 * runtime's data (a team's, from the master to its workers; a task's, from
 * the thread that creates it to the one that runs it): stored with
 * release, loaded with acquire.  The runtime's own hand-off orders them
 * too, but the runtime is not ours to show to C11 or a race detector. */
static inline void *data__get(ompt_data_t *d)
{
	return d ? __atomic_load_n(&d->ptr, __ATOMIC_ACQUIRE) : NULL;
}

static inline void data__set(ompt_data_t *d, void *p)
{
	__atomic_store_n(&d->ptr, p, __ATOMIC_RELEASE);
}

static void team__put(struct ompt_team *tm)
{
	if (__atomic_sub_fetch(&tm->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(tm);
}

/* The share the calling thread runs, from its implicit task's data. */
static inline struct ompt_share *share__of(ompt_data_t *task)
{
	struct ompt_share *sh = data__get(task);

	return sh && sh->magic == MAGIC_SHARE ? sh : NULL;
}

/* ---- callbacks -------------------------------------------------------------- */

static void cb_parallel_begin(ompt_data_t *enc, const struct ompt_frame_t *frame,
			      ompt_data_t *pd, unsigned int requested, int flags,
			      const void *ra)
{
	struct ompt_team *tm;
	struct omp_construct *c;
	unsigned cap;

	(void)enc;
	(void)frame;
	data__set(pd, NULL);
	if (!__atomic_load_n(&hs_omp_on, __ATOMIC_RELAXED) || !ra ||
	    ((uintptr_t)ra >= self_lo && (uintptr_t)ra < self_hi))
		return; /* a team of the shim's GOMP_* wrappers: gomp.c's */
	c = hs_omp_construct__get(ra, flags & PARALLEL_LEAGUE ? OMP_TEAMS : OMP_PARALLEL,
				  OMP_SRC_OMPT);
	cap = requested ? (requested < TEAM_MAX ? requested : TEAM_MAX) : 1;
	if (!c || !(tm = calloc(1, sizeof(*tm) + cap * sizeof(tm->arr[0]))))
		return;
	tm->cap = cap;
	tm->league = (flags & PARALLEL_LEAGUE) != 0;
	tm->c = c;
	tm->ra = ra;
	tm->refs = 1;
	__atomic_store_n(&tm->published, 1, __ATOMIC_RELEASE);
	data__set(pd, tm);
}

/* A share's wait: from its arrival until the last one's, less the tasks
 * its thread ran meanwhile (the barrier runs the team's pending tasks;
 * they are done when the team ends), as gomp.c's. */
static void arrival__waited(const struct ompt_arrival *a, uint64_t last)
{
	uint64_t w = last - a->t1, tasks = hs_omp__task_total(a->th) - a->task0;

	hs_omp__waited(a->fig, w > tasks ? w - tasks : 0, a->t1 == last);
}

static void cb_parallel_end(ompt_data_t *pd, ompt_data_t *enc, int flags, const void *ra)
{
	struct ompt_team *tm = data__get(pd);
	uint32_t n, m;
	uint64_t last;
	unsigned k;

	(void)enc;
	(void)flags;
	(void)ra;
	if (!tm)
		return;
	/* Every share has arrived (the team ended): each waited from its
	 * arrival until the last one's. */
	last = __atomic_load_n(&tm->last_end, __ATOMIC_RELAXED);
	k = __atomic_load_n(&tm->narr, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < k && i < tm->cap; i++) {
		struct ompt_arrival *a = &tm->arr[i];

		if (__atomic_load_n(&a->set, __ATOMIC_ACQUIRE) && a->fig && !tm->league)
			arrival__waited(a, last);
	}
	n = __atomic_load_n(&tm->arrived, __ATOMIC_RELAXED);
	m = __atomic_load_n(&tm->c->team_max, __ATOMIC_RELAXED);
	__atomic_fetch_add(&tm->c->teams, 1, __ATOMIC_RELAXED);
	while (n > m && !__atomic_compare_exchange_n(&tm->c->team_max, &m, n, true,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	data__set(pd, NULL);
	team__put(tm);
}

/* The tasks a thread runs in the implicit barrier after its arrival (the
 * team's pending tasks) are the construct's: its figures stay the
 * thread's current ones until its implicit task ends (share__leave). */
static inline void share__linger(struct omp_thr *th, const struct omp_share *s)
{
	th->cur = s->fig ? s->c : NULL;
	th->fig = s->fig;
}

/* The thread's figures before the share, unless a share begun since has
 * made others current (a worker's end comes late, see cb_parallel_end). */
static inline void share__leave(struct omp_thr *th, const struct omp_share *s)
{
	if (th->fig != s->fig)
		return;
	th->cur = s->saved_cur;
	th->fig = s->saved_fig;
}

/* The share's work ends at the implicit barrier: its arrival is the
 * team's to judge (cb_parallel_end). */
static void share__arrive(struct omp_thr *th, struct ompt_share *sh)
{
	struct ompt_team *tm = sh->tm;
	uint64_t t1 = hs_omp__work_end(th, &sh->s), last;
	unsigned i;

	hs_omp__work_done(th, &sh->s);
	share__linger(th, &sh->s);
	last = __atomic_load_n(&tm->last_end, __ATOMIC_RELAXED);
	while (t1 > last && !__atomic_compare_exchange_n(&tm->last_end, &last, t1, true,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	i = __atomic_fetch_add(&tm->narr, 1, __ATOMIC_RELAXED);
	if (i < tm->cap) {
		tm->arr[i].fig = sh->s.fig;
		tm->arr[i].th = th;
		tm->arr[i].t1 = t1;
		tm->arr[i].task0 = hs_omp__task_total(th);
		__atomic_store_n(&tm->arr[i].set, 1, __ATOMIC_RELEASE);
	}
	sh->state = 1;
	if (th->ompt == sh)
		th->ompt = sh->up;
}

static void cb_implicit_task(int endpoint, ompt_data_t *pd, ompt_data_t *task,
			     unsigned int n, unsigned int index, int flags)
{
	struct omp_thr *th;
	struct ompt_share *sh;
	struct ompt_team *tm;

	(void)n;
	if (!(flags & (TASK_IMPLICIT | TASK_INITIAL)) || !task)
		return;
	if (endpoint == SCOPE_BEGIN) {
		data__set(task, NULL);
		tm = data__get(pd);
		/* a team's implicit task, or a league's initial task (a team
		 * of a teams construct) */
		if (tm)
			(void)__atomic_load_n(&tm->published, __ATOMIC_ACQUIRE);
		if (!tm || (flags & TASK_INITIAL && !tm->league) ||
		    !(th = hs_omp_thr__self()) || !(sh = calloc(1, sizeof(*sh))))
			return;
		__atomic_fetch_add(&tm->refs, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&tm->arrived, 1, __ATOMIC_RELAXED);
		sh->magic = MAGIC_SHARE;
		sh->tm = tm;
		data__set(task, sh);
		sh->up = th->ompt;
		th->ompt = sh;
		hs_omp__work_begin(th, tm->c, &sh->s, 1, (int)index);
		return;
	}
	if (!(sh = share__of(task)))
		return;
	data__set(task, NULL);
	if ((th = hs_omp_thr__self())) {
		if (sh->state == 0) /* no implicit barrier seen */
			share__arrive(th, sh);
		share__leave(th, &sh->s);
	}
	team__put(sh->tm);
	sh->magic = 0;
	free(sh);
}

static void cb_sync_region(int kind, int endpoint, ompt_data_t *pd, ompt_data_t *task,
			   const void *ra)
{
	struct ompt_share *sh = share__of(task);
	struct omp_thr *th;
	bool implicit;

	(void)pd;
	if (!sh || sh->state != 0 || !(th = hs_omp_thr__self()))
		return;
	implicit = (kind == SYNC_BARRIER_IMPLICIT || kind == SYNC_BARRIER_IMPLICIT_PARALLEL) &&
		   (!ra || ra == sh->tm->ra);
	if (implicit) {
		if (endpoint == SCOPE_BEGIN)
			share__arrive(th, sh);
		return;
	}
	if (endpoint == SCOPE_BEGIN) {
		hs_omp__wait_begin(th, &sh->w);
		return;
	}
	hs_omp__wait_end(th, &sh->w,
			 kind == SYNC_TASKWAIT || kind == SYNC_TASKGROUP ? OMP_SYNC_TASKWAIT :
									   OMP_SYNC_BARRIER);
}

/* The share of the calling thread's current implicit task: OMPT gives
 * mutex events no task, so the thread's state remembers it (th->cur is
 * set by work_begin for the share that runs). */
static struct ompt_share *share__current(struct omp_thr *th, const void *ra)
{
	(void)ra;
	return share__of(&(ompt_data_t){ .ptr = th->ompt });
}

/* The calling thread's share for a mutex event of a kind recorded
 * (critical, locks, ordered, the runtime's atomic lock), or NULL. */
static struct ompt_share *mutex__share(int kind, const void *ra, struct omp_thr **th)
{
	if (kind < MUTEX_LOCK || kind > MUTEX_ORDERED)
		return NULL;
	*th = hs_omp_thr__self();
	return *th ? share__current(*th, ra) : NULL;
}

static void cb_mutex_acquire(int kind, unsigned int hint, unsigned int impl,
			     uint64_t wait_id, const void *ra)
{
	struct omp_thr *th;
	struct ompt_share *sh = mutex__share(kind, ra, &th);

	(void)hint;
	(void)impl;
	(void)wait_id;
	if (sh)
		hs_omp__wait_begin(th, &sh->crit);
}

static void cb_mutex_acquired(int kind, uint64_t wait_id, const void *ra)
{
	struct omp_thr *th;
	struct ompt_share *sh = mutex__share(kind, ra, &th);

	(void)wait_id;
	if (!sh)
		return;
	if (kind == MUTEX_ORDERED)
		hs_omp__turn(th, &sh->crit, OMP_TURN_ORDERED);
	else if (kind == MUTEX_ATOMIC)
		hs_omp__turn(th, &sh->crit, OMP_TURN_ATOMIC);
	else
		hs_omp__critical_acquired(th, &sh->crit);
}

static void cb_mutex_released(int kind, uint64_t wait_id, const void *ra)
{
	struct omp_thr *th;

	(void)wait_id;
	if (kind != MUTEX_ORDERED && kind != MUTEX_ATOMIC && mutex__share(kind, ra, &th))
		hs_omp__critical_released(th);
}

static void cb_work(int wstype, int endpoint, ompt_data_t *pd, ompt_data_t *task,
		    uint64_t count, const void *ra)
{
	struct omp_thr *th;

	(void)pd;
	(void)count;
	(void)ra;
	if (wstype == WORK_SINGLE_EXECUTOR && endpoint == SCOPE_BEGIN && share__of(task) &&
	    (th = hs_omp_thr__self()))
		hs_omp__single(th);
}

static void cb_task_create(ompt_data_t *enc, const struct ompt_frame_t *frame,
			   ompt_data_t *task, int flags, int deps, const void *ra)
{
	struct omp_thr *th;
	struct ompt_task *tk;

	(void)frame;
	(void)deps;
	(void)ra;
	if (!task)
		return;
	data__set(task, NULL);
	if (!(flags & TASK_EXPLICIT) || !(th = hs_omp_thr__self()) || !th->ompt)
		return;
	(void)enc;
	hs_omp__task_created(th);
	if ((tk = calloc(1, sizeof(*tk)))) {
		/* with release: the thread that runs the task acquires it */
		__atomic_store_n(&tk->magic, MAGIC_TASK, __ATOMIC_RELEASE);
		data__set(task, tk);
	}
}

static inline struct ompt_task *task__of(ompt_data_t *d)
{
	struct ompt_task *t = data__get(d);

	return t && __atomic_load_n(&t->magic, __ATOMIC_ACQUIRE) == MAGIC_TASK ? t : NULL;
}

/* A detachable task (OpenMP 5.2, omp_fulfill_event): its body's end is
 * reported as TASK_DETACH when its event is not fulfilled yet, and the
 * task is done running: its time ends there.  The fulfill itself is one
 * more call with TASK_EARLY_FULFILL (before the body's end: TASK_COMPLETE
 * follows) or TASK_LATE_FULFILL (after it), from the fulfilling thread,
 * with no next task: no scheduling point, and the task may be running on
 * another thread meanwhile: left alone. */
static void cb_task_schedule(ompt_data_t *prior, int status, ompt_data_t *next)
{
	struct ompt_task *p, *n;
	uint64_t now = hs_clock__monotonic();
	struct omp_thr *th;

	if (status == TASK_EARLY_FULFILL || status == TASK_LATE_FULFILL)
		return;
	p = task__of(prior);
	n = task__of(next);
	if (p) {
		p->elapsed += now - p->start;
		if (status == TASK_COMPLETE || status == TASK_CANCEL || status == TASK_DETACH) {
			if ((th = hs_omp_thr__self()))
				hs_omp__task_ran(th, p->elapsed);
			data__set(prior, NULL);
			__atomic_store_n(&p->magic, 0, __ATOMIC_RELAXED);
			free(p);
		} else { /* suspended: it may resume on another thread */
			__atomic_store_n(&p->magic, MAGIC_TASK, __ATOMIC_RELEASE);
		}
	}
	if (n) {
		n->start = now;
		__atomic_store_n(&n->magic, MAGIC_TASK, __ATOMIC_RELEASE);
	}
}

/* ---- start -------------------------------------------------------------------- */

static int self__cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t base = (uintptr_t)data;

	(void)size;
	if (info->dlpi_addr != base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type != PT_LOAD)
			continue;
		if (!self_lo || info->dlpi_addr + p->p_vaddr < self_lo)
			self_lo = info->dlpi_addr + p->p_vaddr;
		if (info->dlpi_addr + p->p_vaddr + p->p_memsz > self_hi)
			self_hi = info->dlpi_addr + p->p_vaddr + p->p_memsz;
	}
	return 1;
}

static int ompt__initialize(ompt_function_lookup_t lookup, int dev, ompt_data_t *data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	Dl_info di;

	(void)dev;
	(void)data;
	if (!set)
		return 0;
	if (dladdr((void *)ompt_start_tool, &di))
		dl_iterate_phdr(self__cb, di.dli_fbase);
	/* Without these three nothing is recorded: decline. */
	if (set(CB_PARALLEL_BEGIN, (ompt_callback_t)cb_parallel_begin) <= OMPT_SET_NEVER ||
	    set(CB_IMPLICIT_TASK, (ompt_callback_t)cb_implicit_task) <= OMPT_SET_NEVER ||
	    set(CB_SYNC_REGION, (ompt_callback_t)cb_sync_region) <= OMPT_SET_NEVER) {
		hs_omp__refuse("the runtime's OMPT lacks parallel_begin, implicit_task or "
			       "sync_region");
		return 0;
	}
	set(CB_PARALLEL_END, (ompt_callback_t)cb_parallel_end);
	set(CB_MUTEX_ACQUIRE, (ompt_callback_t)cb_mutex_acquire);
	set(CB_MUTEX_ACQUIRED, (ompt_callback_t)cb_mutex_acquired);
	set(CB_MUTEX_RELEASED, (ompt_callback_t)cb_mutex_released);
	set(CB_WORK, (ompt_callback_t)cb_work);
	set(CB_TASK_CREATE, (ompt_callback_t)cb_task_create);
	set(CB_TASK_SCHEDULE, (ompt_callback_t)cb_task_schedule);
	if (dladdr((void *)lookup, &di) && di.dli_fname)
		hs_omp__ompt_started(di.dli_fname);
	else
		hs_omp__ompt_started(NULL);
	return 1; /* keep the interface active */
}

static void ompt__finalize(ompt_data_t *data)
{
	(void)data;
}

HS_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
						    const char *runtime_version)
{
	static ompt_start_tool_result_t result = { ompt__initialize, ompt__finalize, { 0 } };
	const char *tools = getenv("OMP_TOOL_LIBRARIES");

	(void)omp_version;
	(void)runtime_version;
	if (!hs_omp__enabled() || (tools && *tools))
		return NULL; /* the user's own tool, if any, is the runtime's next */
	return &result;
}
