/* gomp.c - GNU libgomp's entry points (GOMP_*), the source of events for
 * programs built with gcc/gfortran -fopenmp (GCC's libgomp has no OMPT).
 *
 * The compiler turns each construct into calls of exported GOMP_*
 * functions; the shim exports the same names (preload/hpcshim.map), the
 * way it stands in front of MPI_Init: preloaded, its definitions come
 * first in the global scope, so the program's calls (and those of a
 * library dlopen'ed later, whose references are bound then) reach them.
 * The names are the runtime's alone, so a program without OpenMP never
 * calls them: no cost.  Each wrapper calls the runtime's own definition,
 * found once, at the first call: in the object named libgomp.so* or
 * libomp.so* (LLVM's runtime exports the GOMP_* ABI too) that is loaded,
 * else the next definition after the shim.
 *
 * GOMP_parallel(fn, data, ...) runs fn(data) on every thread of the team
 * and returns after the implicit barrier.  The wrapper hands the runtime
 * gomp__share instead, with the team's record: each thread's share is the
 * work region (fn), its end written into the record; when the team has
 * ended the master gives each thread its wait, from its work's end to the
 * last thread's (one region pair per thread per construct).  With
 * HPCSHIM_OPENMP=barrier the share is followed by an explicit barrier of
 * the runtime's own, timed on each thread in a wait region: the implicit
 * barrier that follows finds every thread there already, and each
 * thread's wait is measured where it happens, its counts included
 * (task-clock burnt spinning).  Every thread of a team calls that barrier
 * or none does (the team's record says which).
 *
 * Also wrapped: loops (long and unsigned long long: their chunks and
 * iterations), sections, barriers, critical, single, ordered, atomic,
 * tasks, taskwait, taskgroup, taskloop, teams on the host.  Not wrapped
 * (docs/openmp.md): schedule(static) loops (the compiler computes their
 * chunks inline), doacross waits, target and its teams (GOMP_teams,
 * GOMP_teams4), GOMP_parallel_reductions, and the GOMP_parallel_start/end
 * pair of GCC before 4.9.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/dl.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/openmp/internal.h"

#define HS_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

typedef void (*gomp_fn)(void *);
typedef unsigned long long ull;

/* X(name, return type, parameters): the runtime's definitions used. */
#define GOMP_TABLE(X)                                                                  \
	X(GOMP_parallel, void, (gomp_fn, void *, unsigned, unsigned))                  \
	X(GOMP_parallel_loop_static, void,                                             \
	  (gomp_fn, void *, unsigned, long, long, long, long, unsigned))               \
	X(GOMP_parallel_loop_dynamic, void,                                            \
	  (gomp_fn, void *, unsigned, long, long, long, long, unsigned))               \
	X(GOMP_parallel_loop_guided, void,                                             \
	  (gomp_fn, void *, unsigned, long, long, long, long, unsigned))               \
	X(GOMP_parallel_loop_nonmonotonic_dynamic, void,                               \
	  (gomp_fn, void *, unsigned, long, long, long, long, unsigned))               \
	X(GOMP_parallel_loop_nonmonotonic_guided, void,                                \
	  (gomp_fn, void *, unsigned, long, long, long, long, unsigned))               \
	X(GOMP_parallel_loop_runtime, void,                                            \
	  (gomp_fn, void *, unsigned, long, long, long, unsigned))                     \
	X(GOMP_parallel_loop_nonmonotonic_runtime, void,                               \
	  (gomp_fn, void *, unsigned, long, long, long, unsigned))                     \
	X(GOMP_parallel_loop_maybe_nonmonotonic_runtime, void,                         \
	  (gomp_fn, void *, unsigned, long, long, long, unsigned))                     \
	X(GOMP_parallel_sections, void, (gomp_fn, void *, unsigned, unsigned, unsigned)) \
	X(GOMP_barrier, void, (void))                                                  \
	X(GOMP_barrier_cancel, bool, (void))                                           \
	X(GOMP_critical_start, void, (void))                                           \
	X(GOMP_critical_end, void, (void))                                             \
	X(GOMP_critical_name_start, void, (void **))                                   \
	X(GOMP_critical_name_end, void, (void **))                                     \
	X(GOMP_single_start, bool, (void))                                             \
	X(GOMP_task, void,                                                             \
	  (gomp_fn, void *, void (*)(void *, void *), long, long, bool, unsigned,      \
	   void **, int, void *))                                                      \
	X(GOMP_taskwait, void, (void))                                                 \
	X(GOMP_taskgroup_end, void, (void))                                            \
	X(GOMP_loop_static_start, bool, (long, long, long, long, long *, long *))      \
	X(GOMP_loop_dynamic_start, bool, (long, long, long, long, long *, long *))     \
	X(GOMP_loop_guided_start, bool, (long, long, long, long, long *, long *))      \
	X(GOMP_loop_nonmonotonic_dynamic_start, bool,                                  \
	  (long, long, long, long, long *, long *))                                    \
	X(GOMP_loop_nonmonotonic_guided_start, bool,                                   \
	  (long, long, long, long, long *, long *))                                    \
	X(GOMP_loop_runtime_start, bool, (long, long, long, long *, long *))           \
	X(GOMP_loop_nonmonotonic_runtime_start, bool, (long, long, long, long *, long *)) \
	X(GOMP_loop_maybe_nonmonotonic_runtime_start, bool,                            \
	  (long, long, long, long *, long *))                                          \
	X(GOMP_loop_start, bool,                                                       \
	  (long, long, long, long, long, long *, long *, uintptr_t *, void **))        \
	X(GOMP_loop_ordered_static_start, bool, (long, long, long, long, long *, long *)) \
	X(GOMP_loop_ordered_dynamic_start, bool, (long, long, long, long, long *, long *)) \
	X(GOMP_loop_ordered_guided_start, bool, (long, long, long, long, long *, long *)) \
	X(GOMP_loop_ordered_runtime_start, bool, (long, long, long, long *, long *))   \
	X(GOMP_loop_ordered_start, bool,                                               \
	  (long, long, long, long, long, long *, long *, uintptr_t *, void **))        \
	X(GOMP_loop_ordered_static_next, bool, (long *, long *))                       \
	X(GOMP_loop_ordered_dynamic_next, bool, (long *, long *))                      \
	X(GOMP_loop_ordered_guided_next, bool, (long *, long *))                       \
	X(GOMP_loop_ordered_runtime_next, bool, (long *, long *))                      \
	X(GOMP_loop_static_next, bool, (long *, long *))                               \
	X(GOMP_loop_dynamic_next, bool, (long *, long *))                              \
	X(GOMP_loop_guided_next, bool, (long *, long *))                               \
	X(GOMP_loop_runtime_next, bool, (long *, long *))                              \
	X(GOMP_loop_nonmonotonic_dynamic_next, bool, (long *, long *))                 \
	X(GOMP_loop_nonmonotonic_guided_next, bool, (long *, long *))                  \
	X(GOMP_loop_nonmonotonic_runtime_next, bool, (long *, long *))                 \
	X(GOMP_loop_maybe_nonmonotonic_runtime_next, bool, (long *, long *))           \
	X(GOMP_loop_end, void, (void))                                                 \
	X(GOMP_loop_end_cancel, bool, (void))                                          \
	X(GOMP_sections_start, unsigned, (unsigned))                                   \
	X(GOMP_sections_next, unsigned, (void))                                        \
	X(GOMP_sections_end, void, (void))                                             \
	X(GOMP_ordered_start, void, (void))                                            \
	X(GOMP_atomic_start, void, (void))                                             \
	X(GOMP_taskloop, void,                                                         \
	  (gomp_fn, void *, void (*)(void *, void *), long, long, unsigned, unsigned long, \
	   int, long, long, long))                                                     \
	X(GOMP_taskloop_ull, void,                                                     \
	  (gomp_fn, void *, void (*)(void *, void *), long, long, unsigned, unsigned long, \
	   int, ull, ull, ull))                                                        \
	X(GOMP_teams_reg, void, (gomp_fn, void *, unsigned, unsigned, unsigned))       \
	X(GOMP_loop_ull_static_start, bool, (bool, ull, ull, ull, ull, ull *, ull *))  \
	X(GOMP_loop_ull_dynamic_start, bool, (bool, ull, ull, ull, ull, ull *, ull *)) \
	X(GOMP_loop_ull_guided_start, bool, (bool, ull, ull, ull, ull, ull *, ull *))  \
	X(GOMP_loop_ull_nonmonotonic_dynamic_start, bool,                              \
	  (bool, ull, ull, ull, ull, ull *, ull *))                                    \
	X(GOMP_loop_ull_nonmonotonic_guided_start, bool,                               \
	  (bool, ull, ull, ull, ull, ull *, ull *))                                    \
	X(GOMP_loop_ull_runtime_start, bool, (bool, ull, ull, ull, ull *, ull *))      \
	X(GOMP_loop_ull_nonmonotonic_runtime_start, bool,                              \
	  (bool, ull, ull, ull, ull *, ull *))                                         \
	X(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, bool,                        \
	  (bool, ull, ull, ull, ull *, ull *))                                         \
	X(GOMP_loop_ull_ordered_static_start, bool,                                    \
	  (bool, ull, ull, ull, ull, ull *, ull *))                                    \
	X(GOMP_loop_ull_ordered_dynamic_start, bool,                                   \
	  (bool, ull, ull, ull, ull, ull *, ull *))                                    \
	X(GOMP_loop_ull_ordered_guided_start, bool,                                    \
	  (bool, ull, ull, ull, ull, ull *, ull *))                                    \
	X(GOMP_loop_ull_ordered_runtime_start, bool, (bool, ull, ull, ull, ull *, ull *)) \
	X(GOMP_loop_ull_start, bool,                                                   \
	  (bool, ull, ull, ull, long, ull, ull *, ull *, uintptr_t *, void **))        \
	X(GOMP_loop_ull_ordered_start, bool,                                           \
	  (bool, ull, ull, ull, long, ull, ull *, ull *, uintptr_t *, void **))        \
	X(GOMP_loop_ull_static_next, bool, (ull *, ull *))                             \
	X(GOMP_loop_ull_dynamic_next, bool, (ull *, ull *))                            \
	X(GOMP_loop_ull_guided_next, bool, (ull *, ull *))                             \
	X(GOMP_loop_ull_runtime_next, bool, (ull *, ull *))                            \
	X(GOMP_loop_ull_nonmonotonic_dynamic_next, bool, (ull *, ull *))               \
	X(GOMP_loop_ull_nonmonotonic_guided_next, bool, (ull *, ull *))                \
	X(GOMP_loop_ull_nonmonotonic_runtime_next, bool, (ull *, ull *))               \
	X(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, bool, (ull *, ull *))         \
	X(GOMP_loop_ull_ordered_static_next, bool, (ull *, ull *))                     \
	X(GOMP_loop_ull_ordered_dynamic_next, bool, (ull *, ull *))                    \
	X(GOMP_loop_ull_ordered_guided_next, bool, (ull *, ull *))                     \
	X(GOMP_loop_ull_ordered_runtime_next, bool, (ull *, ull *))

/* The wrappers' prototypes are the table's: each wrapper has the type of
 * the definition it calls. */
#define X(name, ret, params)                   \
	typedef ret(*name##_fn) params;        \
	HS_EXPORT ret name params;
GOMP_TABLE(X)
#undef X

static struct {
#define X(name, ret, params) name##_fn name;
	GOMP_TABLE(X)
#undef X
} gomp;

typedef int (*omp_num_fn)(void);
static omp_num_fn gomp_num; /* omp_get_thread_num  */
static omp_num_fn gomp_max; /* omp_get_max_threads */
static omp_num_fn gomp_level; /* omp_get_level      */

static pthread_once_t gomp_once = PTHREAD_ONCE_INIT;
static bool gomp_ok; /* a runtime known, with what recording needs */

struct rt_find {
	char path[512];
	const char *kind;
};

static int rt__cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct rt_find *f = data;
	const char *n = info->dlpi_name;

	(void)size;
	if (!n || !*n || !(f->kind = hs_omp__classify(n)))
		return 0;
	snprintf(f->path, sizeof(f->path), "%s", n);
	return 1;
}

/* Why the runtime behind handle h (its object f, f->kind NULL when no
 * known runtime's object is loaded) cannot be recorded, or NULL. */
static const char *gomp__refusal(void *h, const struct rt_find *f, char *why, size_t len)
{
	Dl_info di;

	if (!f->kind) { /* whose are the definitions, then? */
		snprintf(why, len,
			 "GOMP_parallel is defined by %s, not a runtime the shim knows "
			 "(libgomp, libomp)",
			 gomp.GOMP_parallel && dladdr((void *)gomp.GOMP_parallel, &di) &&
					 di.dli_fname ?
				 di.dli_fname :
				 "no loaded object");
		return why;
	}
	if (!gomp.GOMP_barrier || !gomp.GOMP_parallel || !gomp_num) {
		snprintf(why, len, "%s has no %s", f->path,
			 !gomp.GOMP_barrier  ? "GOMP_barrier" :
			 !gomp.GOMP_parallel ? "GOMP_parallel" :
					       "omp_get_thread_num");
		return why;
	}
	/* The ABI the wrappers are written for: GCC 4.9's GOMP_parallel and
	 * after (libgomp, and libomp's copy of it, version it GOMP_4.0);
	 * dlvsym answers any version of an object without version data. */
	if (h == RTLD_NEXT || !dlvsym(h, "GOMP_parallel", "GOMP_4.0") ||
	    dlvsym(h, "GOMP_parallel", "HPCSHIM_NO_VERSION")) {
		(void)dlerror();
		snprintf(why, len,
			 "%s has no GOMP_parallel@GOMP_4.0: a version of the GOMP ABI the "
			 "shim does not know",
			 f->path);
		return why;
	}
	return NULL;
}

/* The runtime's definitions: in the runtime's object (also when it was
 * dlopen'ed RTLD_LOCAL, out of the global scope), else the next ones. */
static void gomp__find(void)
{
	hs_dlsym_fn sym = hs_dl__dlsym();
	hs_real_dlopen_fn dlo = hs_real__dlopen();
	struct rt_find f = { "", NULL };
	void *h = RTLD_NEXT, *o;
	char why[600];

	if (!sym)
		return;
	dl_iterate_phdr(rt__cb, &f);
	if (f.kind && dlo && (o = dlo(f.path, RTLD_LAZY | RTLD_NOLOAD)))
		h = o;
#define X(name, ret, params) gomp.name = (name##_fn)sym(h, #name);
	GOMP_TABLE(X)
#undef X
	gomp_num = (omp_num_fn)sym(h, "omp_get_thread_num");
	gomp_max = (omp_num_fn)sym(h, "omp_get_max_threads");
	gomp_level = (omp_num_fn)sym(h, "omp_get_level");
	(void)dlerror();
	if (gomp__refusal(h, &f, why, sizeof(why))) {
		hs_omp__refuse(why);
		return;
	}
	hs_omp__runtime(f.kind, f.path);
	hs_omp__gomp_started();
	gomp_ok = true;
}

static inline bool gomp__rec(void)
{
	pthread_once(&gomp_once, gomp__find);
	return likely(gomp_ok) && __atomic_load_n(&hs_omp_on, __ATOMIC_RELAXED);
}

/* The runtime's definition of a name the program called: the program
 * was linked against it, so it exists unless the lookup went wrong (one
 * line, then the call crashes as it would have without the shim). */
static __attribute__((noinline, cold)) void gomp__missing(const char *name)
{
	static int told;

	if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_OPENMP: %s: the runtime's definition is not found", name);
}

#define REAL(name)                                                        \
	({                                                                \
		pthread_once(&gomp_once, gomp__find);                     \
		if (unlikely(!gomp.name))                                 \
			gomp__missing(#name);                             \
		gomp.name;                                                \
	})

/* ---- teams ---------------------------------------------------------------- *
 *
 * By default a thread's share is one region pair, its work: the outlined
 * function from entry to return.  Its wait at the implicit barrier is the
 * time from its work's end to the last thread's (the release of a worker
 * is inside the runtime: no entry point marks it), computed by the master
 * when GOMP_parallel returns from each thread's arrival, recorded in the
 * team's slot of its number.  HPCSHIM_OPENMP=barrier measures the wait on
 * each thread instead, with its counts: a wait region around a barrier of
 * the runtime's own after the work (gomp__share_barrier), at the cost of
 * that barrier and a second region pair.
 */

struct gomp_arrival {
	struct omp_thr *th;   /* NULL: no counted thread of this number */
	struct omp_figs *fig;
	uint64_t t1, task0;   /* its work's end; its task time then     */
};

#define GOMP_ARR_STACK 16 /* arrivals on the master's stack; more: malloc */
#define GOMP_ARR_MAX 4096

struct gomp_team {
	gomp_fn fn;
	void *data;
	struct omp_construct *c;
	long incr;
	bool barrier;      /* HPCSHIM_OPENMP=barrier: the wait measured  */
	uint64_t last_end; /* atomic: the latest end of a share's work */
	unsigned arrived;  /* atomic: threads that ran a share         */
	unsigned cap;      /* arrivals kept, by omp thread number      */
	struct gomp_arrival *arr;
	/* Set last, with release: the fields above are the master's plain
	 * writes, read by the team's threads after an acquire of it.  The
	 * runtime's own hand-off orders them too, but C11 and a race detector
	 * see only what is ours (libgomp is not instrumented). */
	unsigned published;
	/* Each thread's last touch of the team, with release; the master
	 * acquires it when the team has ended, before the struct is reused. */
	unsigned done;
	/* The master's state (NULL: not counted) and its construct and
	 * figures before the team, restored when the team has ended. */
	struct omp_thr *master;
	struct omp_construct *master_cur;
	struct omp_figs *master_fig;
	struct gomp_arrival arr_stack[GOMP_ARR_STACK];
};

/* HPCSHIM_OPENMP=barrier: the wait measured on each thread. */
static void gomp__share_barrier(struct gomp_team *tm, struct omp_thr *th)
{
	struct omp_share s;
	uint64_t t1, last;

	if (!th) { /* not counted: its share runs, the barrier is the team's */
		gomp_fn fn = tm->fn;
		void *data = tm->data;

		__atomic_fetch_add(&tm->done, 1, __ATOMIC_RELEASE);
		fn(data);
		gomp.GOMP_barrier();
		return;
	}
	hs_omp__work_begin(th, tm->c, &s, tm->incr, gomp_num());
	tm->fn(tm->data);
	t1 = hs_omp__work_end(th, &s);
	last = __atomic_load_n(&tm->last_end, __ATOMIC_RELAXED);
	while (t1 > last && !__atomic_compare_exchange_n(&tm->last_end, &last, t1, true,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	hs_omp__barrier_begin(th, &s);
	gomp.GOMP_barrier(); /* orders every thread's last_end before the read */
	hs_omp__barrier_end(th, &s, __atomic_load_n(&tm->last_end, __ATOMIC_RELAXED) == t1);
	__atomic_fetch_add(&tm->done, 1, __ATOMIC_RELEASE);
}

/* The tasks a thread runs after its share, in the runtime's barrier at the
 * team's end (libgomp runs the team's pending tasks there, after fn has
 * returned: a task created with no barrier or taskwait after it), are the
 * construct's: its figures stay the thread's current ones until its next
 * share (a worker: idle in between) or the team's end (the master,
 * gomp__team_end). */
static inline void gomp__linger(struct omp_thr *th, const struct omp_share *s)
{
	th->cur = s->fig ? s->c : NULL;
	th->fig = s->fig;
}

static void gomp__share(void *arg)
{
	struct gomp_team *tm = arg;
	struct omp_thr *th = hs_omp_thr__self();
	struct omp_share s;
	uint64_t t1;
	int me;

	(void)__atomic_load_n(&tm->published, __ATOMIC_ACQUIRE);
	__atomic_fetch_add(&tm->arrived, 1, __ATOMIC_RELAXED);
	if (tm->barrier) {
		gomp__share_barrier(tm, th);
		return;
	}
	if (!th) { /* not counted: its share runs, nothing recorded */
		gomp_fn fn = tm->fn;
		void *data = tm->data;

		__atomic_fetch_add(&tm->done, 1, __ATOMIC_RELEASE);
		fn(data);
		return;
	}
	me = gomp_num();
	hs_omp__work_begin(th, tm->c, &s, tm->incr, me);
	tm->fn(tm->data);
	t1 = hs_omp__work_end(th, &s);
	hs_omp__work_done(th, &s);
	gomp__linger(th, &s);
	if (me >= 0 && (unsigned)me < tm->cap) {
		struct gomp_arrival *a = &tm->arr[me];

		a->fig = s.fig;
		a->t1 = t1;
		a->task0 = hs_omp__task_total(th);
		a->th = th;
	}
	__atomic_fetch_add(&tm->done, 1, __ATOMIC_RELEASE);
}

/* A team of construct fn is about to start, of n threads asked for (0:
 * the default): false to call the runtime untouched. */
static bool gomp__team(struct gomp_team *tm, gomp_fn fn, void *data, enum omp_kind k,
		       long incr, unsigned n)
{
	unsigned need;
	bool rec = gomp__rec();

	/* The calling thread is the new team's thread 0, or already in a
	 * team (nested): labelled, recorded or not (HPCSHIM_OPENMP=off). */
	if (likely(gomp_ok))
		hs_omp__label(gomp_level && gomp_level() > 0 ? gomp_num() : 0);
	if (!rec || !(tm->c = hs_omp_construct__get((const void *)fn, k, OMP_SRC_GOMP)))
		return false;
	tm->fn = fn;
	tm->data = data;
	tm->incr = incr;
	tm->barrier = hs_omp_barrier;
	tm->last_end = 0;
	tm->arrived = 0;
	tm->done = 0;
	tm->arr = tm->arr_stack;
	tm->cap = 0;
	if ((tm->master = hs_omp_thr__self())) {
		tm->master_cur = tm->master->cur;
		tm->master_fig = tm->master->fig;
	}
	if (!tm->barrier) {
		need = n ? n : (gomp_max ? (unsigned)gomp_max() : GOMP_ARR_STACK);
		if (need > GOMP_ARR_MAX)
			need = GOMP_ARR_MAX;
		if (need > GOMP_ARR_STACK &&
		    !(tm->arr = calloc(need, sizeof(*tm->arr)))) { /* the first 16 only */
			tm->arr = tm->arr_stack;
			need = GOMP_ARR_STACK;
		}
		if (tm->arr == tm->arr_stack)
			memset(tm->arr_stack, 0,
			       (need < GOMP_ARR_STACK ? need : GOMP_ARR_STACK) * sizeof(*tm->arr));
		tm->cap = need;
	}
	__atomic_store_n(&tm->published, 1, __ATOMIC_RELEASE);
	return true;
}

static void gomp__team_end(struct gomp_team *tm)
{
	struct omp_construct *c = tm->c;
	/* every thread is done with tm (done); atomic like its writers: the
	 * runtime's barrier orders them before this read, but it is not ours
	 * to show to a race detector */
	uint32_t n = (__atomic_load_n(&tm->done, __ATOMIC_ACQUIRE),
		      __atomic_load_n(&tm->arrived, __ATOMIC_RELAXED)),
		 m = __atomic_load_n(&c->team_max, __ATOMIC_RELAXED);
	uint64_t last = 0;
	int lastat = -1;

	/* Each share waited from its work's end until the last one's, less
	 * the tasks it ran meanwhile (the barrier runs the team's tasks). */
	for (unsigned i = 0; i < tm->cap && i < n; i++)
		if (tm->arr[i].th && tm->arr[i].t1 > last) {
			last = tm->arr[i].t1;
			lastat = (int)i;
		}
	for (unsigned i = 0; i < tm->cap && i < n; i++) {
		struct gomp_arrival *a = &tm->arr[i];
		uint64_t w, tasks;

		if (!a->th || !a->fig)
			continue;
		w = last - a->t1;
		tasks = hs_omp__task_total(a->th) - a->task0;
		hs_omp__waited(a->fig, w > tasks ? w - tasks : 0, (int)i == lastat);
	}
	if (tm->arr != tm->arr_stack)
		free(tm->arr);
	if (tm->master) { /* its share's figures lingered (gomp__linger) */
		tm->master->cur = tm->master_cur;
		tm->master->fig = tm->master_fig;
	}
	__atomic_fetch_add(&c->teams, 1, __ATOMIC_RELAXED);
	while (n > m && !__atomic_compare_exchange_n(&c->team_max, &m, n, true,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

HS_EXPORT void GOMP_parallel(gomp_fn fn, void *data, unsigned n, unsigned flags)
{
	struct gomp_team tm;

	if (!gomp__team(&tm, fn, data, OMP_PARALLEL, 1, n)) {
		REAL(GOMP_parallel)(fn, data, n, flags);
		return;
	}
	gomp.GOMP_parallel(gomp__share, &tm, n, flags);
	gomp__team_end(&tm);
}

#define PARALLEL_LOOP(name)                                                            \
	HS_EXPORT void name(gomp_fn fn, void *data, unsigned n, long start, long end,  \
			    long incr, long chunk, unsigned flags)                     \
	{                                                                              \
		struct gomp_team tm;                                                   \
                                                                                       \
		if (!gomp__team(&tm, fn, data, OMP_PARALLEL_LOOP, incr, n)) {             \
			REAL(name)(fn, data, n, start, end, incr, chunk, flags);       \
			return;                                                        \
		}                                                                      \
		REAL(name)(gomp__share, &tm, n, start, end, incr, chunk, flags);       \
		gomp__team_end(&tm);                                                   \
	}
#define PARALLEL_LOOP_RUNTIME(name)                                                   \
	HS_EXPORT void name(gomp_fn fn, void *data, unsigned n, long start, long end, \
			    long incr, unsigned flags)                                \
	{                                                                             \
		struct gomp_team tm;                                                  \
                                                                                      \
		if (!gomp__team(&tm, fn, data, OMP_PARALLEL_LOOP, incr, n)) {            \
			REAL(name)(fn, data, n, start, end, incr, flags);             \
			return;                                                       \
		}                                                                     \
		REAL(name)(gomp__share, &tm, n, start, end, incr, flags);             \
		gomp__team_end(&tm);                                                  \
	}

PARALLEL_LOOP(GOMP_parallel_loop_static)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_guided)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

HS_EXPORT void GOMP_parallel_sections(gomp_fn fn, void *data, unsigned n, unsigned count,
				      unsigned flags)
{
	struct gomp_team tm;

	if (!gomp__team(&tm, fn, data, OMP_PARALLEL_SECTIONS, 1, n)) {
		REAL(GOMP_parallel_sections)(fn, data, n, count, flags);
		return;
	}
	gomp.GOMP_parallel_sections(gomp__share, &tm, n, count, flags);
	gomp__team_end(&tm);
}

/* ---- inside a share --------------------------------------------------------- */

/* The calling thread's state when recording, else NULL. */
static inline struct omp_thr *gomp__thr(void)
{
	return gomp__rec() ? hs_omp_thr__self() : NULL;
}

#define WAIT_VOID(name, kind)                        \
	HS_EXPORT void name(void)                    \
	{                                            \
		struct omp_thr *th = gomp__thr();    \
		struct omp_wait w;                   \
                                                     \
		if (!th) {                           \
			REAL(name)();                \
			return;                      \
		}                                    \
		hs_omp__wait_begin(th, &w);          \
		REAL(name)();                        \
		hs_omp__wait_end(th, &w, kind);      \
	}
#define WAIT_BOOL(name, kind)                        \
	HS_EXPORT bool name(void)                    \
	{                                            \
		struct omp_thr *th = gomp__thr();    \
		struct omp_wait w;                   \
		bool r;                              \
                                                     \
		if (!th)                             \
			return REAL(name)();         \
		hs_omp__wait_begin(th, &w);          \
		r = REAL(name)();                    \
		hs_omp__wait_end(th, &w, kind);      \
		return r;                            \
	}

WAIT_VOID(GOMP_barrier, OMP_SYNC_BARRIER)
WAIT_BOOL(GOMP_barrier_cancel, OMP_SYNC_BARRIER)
WAIT_VOID(GOMP_loop_end, OMP_SYNC_BARRIER)
WAIT_BOOL(GOMP_loop_end_cancel, OMP_SYNC_BARRIER)
WAIT_VOID(GOMP_sections_end, OMP_SYNC_BARRIER)
WAIT_VOID(GOMP_taskwait, OMP_SYNC_TASKWAIT)
WAIT_VOID(GOMP_taskgroup_end, OMP_SYNC_TASKWAIT)

HS_EXPORT void GOMP_critical_start(void)
{
	struct omp_thr *th = gomp__thr();
	struct omp_wait w;

	if (!th) {
		REAL(GOMP_critical_start)();
		return;
	}
	hs_omp__wait_begin(th, &w);
	REAL(GOMP_critical_start)();
	hs_omp__critical_acquired(th, &w);
}

HS_EXPORT void GOMP_critical_end(void)
{
	struct omp_thr *th = gomp__thr();

	if (th)
		hs_omp__critical_released(th);
	REAL(GOMP_critical_end)();
}

HS_EXPORT void GOMP_critical_name_start(void **pptr)
{
	struct omp_thr *th = gomp__thr();
	struct omp_wait w;

	if (!th) {
		REAL(GOMP_critical_name_start)(pptr);
		return;
	}
	hs_omp__wait_begin(th, &w);
	REAL(GOMP_critical_name_start)(pptr);
	hs_omp__critical_acquired(th, &w);
}

HS_EXPORT void GOMP_critical_name_end(void **pptr)
{
	struct omp_thr *th = gomp__thr();

	if (th)
		hs_omp__critical_released(th);
	REAL(GOMP_critical_name_end)(pptr);
}

HS_EXPORT bool GOMP_single_start(void)
{
	struct omp_thr *th = gomp__thr();
	bool r = REAL(GOMP_single_start)();

	if (th && r)
		hs_omp__single(th);
	return r;
}

/* ---- loops ----------------------------------------------------------------- */

static inline uint64_t chunk__n(long istart, long iend, long incr)
{
	long n = incr > 0 ? (iend - istart + incr - 1) / incr :
			    (istart - iend - incr - 1) / -incr;

	return n > 0 ? (uint64_t)n : 0;
}

static inline void chunk__got(bool r, long *istart, long *iend)
{
	struct omp_thr *th;

	if (r && istart && iend && (th = gomp__thr()))
		hs_omp__chunk(th, chunk__n(*istart, *iend, th->incr));
}

static inline void loop__incr(long incr)
{
	struct omp_thr *th = gomp__thr();

	if (th)
		th->incr = incr ? incr : 1;
}

#define LOOP_START(name)                                                               \
	HS_EXPORT bool name(long start, long end, long incr, long chunk, long *istart, \
			    long *iend)                                                \
	{                                                                              \
		bool r;                                                                \
                                                                                       \
		loop__incr(incr);                                                      \
		r = REAL(name)(start, end, incr, chunk, istart, iend);                 \
		chunk__got(r, istart, iend);                                           \
		return r;                                                              \
	}
#define LOOP_START_RUNTIME(name)                                                  \
	HS_EXPORT bool name(long start, long end, long incr, long *istart, long *iend) \
	{                                                                         \
		bool r;                                                           \
                                                                                  \
		loop__incr(incr);                                                 \
		r = REAL(name)(start, end, incr, istart, iend);                   \
		chunk__got(r, istart, iend);                                      \
		return r;                                                         \
	}
#define LOOP_NEXT(name)                                    \
	HS_EXPORT bool name(long *istart, long *iend)      \
	{                                                  \
		bool r = REAL(name)(istart, iend);         \
                                                           \
		chunk__got(r, istart, iend);               \
		return r;                                  \
	}

LOOP_START(GOMP_loop_static_start)
LOOP_START(GOMP_loop_dynamic_start)
LOOP_START(GOMP_loop_guided_start)
LOOP_START(GOMP_loop_nonmonotonic_dynamic_start)
LOOP_START(GOMP_loop_nonmonotonic_guided_start)
LOOP_START_RUNTIME(GOMP_loop_runtime_start)
LOOP_START_RUNTIME(GOMP_loop_nonmonotonic_runtime_start)
LOOP_START_RUNTIME(GOMP_loop_maybe_nonmonotonic_runtime_start)
LOOP_NEXT(GOMP_loop_static_next)
LOOP_NEXT(GOMP_loop_dynamic_next)
LOOP_NEXT(GOMP_loop_guided_next)
LOOP_NEXT(GOMP_loop_runtime_next)
LOOP_NEXT(GOMP_loop_nonmonotonic_dynamic_next)
LOOP_NEXT(GOMP_loop_nonmonotonic_guided_next)
LOOP_NEXT(GOMP_loop_nonmonotonic_runtime_next)
LOOP_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next)
LOOP_START(GOMP_loop_ordered_static_start)
LOOP_START(GOMP_loop_ordered_dynamic_start)
LOOP_START(GOMP_loop_ordered_guided_start)
LOOP_START_RUNTIME(GOMP_loop_ordered_runtime_start)
LOOP_NEXT(GOMP_loop_ordered_static_next)
LOOP_NEXT(GOMP_loop_ordered_dynamic_next)
LOOP_NEXT(GOMP_loop_ordered_guided_next)
LOOP_NEXT(GOMP_loop_ordered_runtime_next)

/* GCC 9's generic start (schedule in sched); istart is NULL when the call
 * only sets up reductions. */
HS_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
			       long *istart, long *iend, uintptr_t *reductions, void **mem)
{
	bool r;

	loop__incr(incr);
	r = REAL(GOMP_loop_start)(start, end, incr, sched, chunk, istart, iend, reductions,
				  mem);
	chunk__got(r, istart, iend);
	return r;
}

HS_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched,
				       long chunk, long *istart, long *iend,
				       uintptr_t *reductions, void **mem)
{
	bool r;

	loop__incr(incr);
	r = REAL(GOMP_loop_ordered_start)(start, end, incr, sched, chunk, istart, iend,
					  reductions, mem);
	chunk__got(r, istart, iend);
	return r;
}

/* A section is a chunk of one iteration. */
HS_EXPORT unsigned GOMP_sections_start(unsigned count)
{
	unsigned r = REAL(GOMP_sections_start)(count);
	struct omp_thr *th;

	if (r && (th = gomp__thr()))
		hs_omp__chunk(th, 1);
	return r;
}

HS_EXPORT unsigned GOMP_sections_next(void)
{
	unsigned r = REAL(GOMP_sections_next)();
	struct omp_thr *th;

	if (r && (th = gomp__thr()))
		hs_omp__chunk(th, 1);
	return r;
}

/* ---- tasks ------------------------------------------------------------------ *
 *
 * GOMP_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
 * priority, detach): a deferred task's data is copied by the runtime
 * (arg_size bytes aligned to arg_align, with memcpy or the program's
 * cpyfn) and fn called on the copy, on whichever thread runs it; an
 * undeferred task's fn runs at once, on data itself or on cpyfn's copy.
 * The wrapper hands the runtime a block of its own, a header ahead of the
 * program's data, and task__body as fn (task__cpy as cpyfn when the
 * program has one): every copy carries the header, and task__body times
 * the program's fn on the program's data.
 *
 * libgomp's task flags (GCC 12's include/gomp-constants.h; a bit a later
 * GCC adds is not known here, so forwarded untouched), per flag:
 *   UNTIED, FINAL, MERGEABLE  the runtime's scheduling alone (libgomp runs
 *                a task to its end on the thread that starts it): timed
 *   DEPEND, PRIORITY  what they need are arguments of their own: timed
 *   DETACH       GOMP_task writes the event's handle into the first word
 *                of data (`*(void **)data = task`) before it copies data
 *                or runs fn on it, and the program's fn reads its event
 *                from there: the header's first word takes that write
 *                (task_hdr.event), and the handle goes to the program's
 *                first word before the program sees its data (task__body,
 *                task__cpy) and after the call (the program's own block,
 *                as without the shim): timed
 *   UP, GRAINSIZE, IF, NOGROUP, REDUCTION, STRICT  GOMP_taskloop's: on
 *                GOMP_task, like any bit not known here, the call is
 *                forwarded untouched (counted, not timed)
 * So are data above TASK_ARG_MAX (the block is on the caller's stack) or
 * aligned above 64, and a detach without a data word to write into.
 */
#define TASK_UNTIED (1u << 0)
#define TASK_FINAL (1u << 1)
#define TASK_MERGEABLE (1u << 2)
#define TASK_DEPEND (1u << 3)
#define TASK_PRIORITY (1u << 4)
#define TASK_DETACH (1u << 13)
#define TASK_FLAGS_TIMED \
	(TASK_UNTIED | TASK_FINAL | TASK_MERGEABLE | TASK_DEPEND | TASK_PRIORITY | TASK_DETACH)
#define TASK_ARG_MAX 4096

struct task_hdr {
	void *event; /* first: where libgomp writes a detachable task's event */
	gomp_fn fn;  /* the program's */
	void (*cpyfn)(void *, void *); /* the program's, or NULL */
	void *data;  /* the program's data: valid during the GOMP_task call */
	void *self;  /* the block the runtime was handed (copies are elsewhere) */
	size_t off;  /* the program's data (its copy) from the header */
	bool detach;
};

/* The program's data for its fn.  A block run without a copy, when a
 * cpyfn was to make the copy (LLVM's libomp runs an if(0) task on the
 * data it was handed), has none behind its header: the program's own
 * data then, as the runtime would have run it without the shim. */
static inline char *task__data(struct task_hdr *h)
{
	if (h->cpyfn && (void *)h == h->self)
		return h->data;
	return (char *)h + h->off;
}

static void task__body(void *p)
{
	struct task_hdr *h = p;
	char *data = task__data(h);
	struct omp_thr *th;
	uint64_t t0;

	/* The event libgomp wrote into the block's first word (kept by
	 * memcpy's copy), where the program's fn looks for it; a cpyfn's
	 * copy has it already (task__cpy). */
	if (h->detach && !h->cpyfn)
		memcpy(data, &h->event, sizeof(h->event));
	t0 = hs_clock__monotonic();
	h->fn(data);
	if ((th = hs_omp_thr__self()))
		hs_omp__task_ran(th, hs_clock__monotonic() - t0);
}

/* The runtime copies the block (inside GOMP_task, while the program's
 * data lives): the header, then the program's cpyfn from the program's
 * own data, the event written into that first, in GOMP_task's order. */
static void task__cpy(void *dst, void *src)
{
	struct task_hdr *s = src;

	memcpy(dst, s, sizeof(*s));
	if (s->detach)
		memcpy(s->data, &s->event, sizeof(s->event));
	s->cpyfn((char *)dst + s->off, s->data);
}

/* The call goes to the runtime as the program made it: not timed. */
static bool task__untouched(void *data, long arg_size, long arg_align, unsigned flags)
{
	if ((flags & ~TASK_FLAGS_TIMED) || arg_size < 0 || arg_size > TASK_ARG_MAX ||
	    arg_align > 64)
		return true;
	/* libgomp writes the event into data only when there is data */
	return (flags & TASK_DETACH) && (!data || arg_size < (long)sizeof(void *));
}

HS_EXPORT void GOMP_task(gomp_fn fn, void *data, void (*cpyfn)(void *, void *),
			 long arg_size, long arg_align, bool if_clause, unsigned flags,
			 void **depend, int priority, void *detach)
{
	struct omp_thr *th = gomp__thr();
	struct task_hdr *h;
	size_t align, off, copy;
	char *raw;

	if (th)
		hs_omp__task_created(th);
	if (!th || task__untouched(data, arg_size, arg_align, flags)) {
		REAL(GOMP_task)(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
				priority, detach);
		return;
	}
	align = arg_align > (long)alignof(struct task_hdr) ? (size_t)arg_align :
							      alignof(struct task_hdr);
	off = (sizeof(struct task_hdr) + align - 1) & ~(align - 1);
	copy = cpyfn ? 0 : (size_t)arg_size; /* a cpyfn copies from data itself */
	raw = __builtin_alloca(off + copy + align);
	h = (struct task_hdr *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
	*h = (struct task_hdr){ NULL, fn, cpyfn, data, h, off, (flags & TASK_DETACH) != 0 };
	if (h->detach) /* unchanged if the runtime writes none (cancelled) */
		memcpy(&h->event, data, sizeof(h->event));
	if (copy)
		memcpy((char *)h + off, data, copy);
	gomp.GOMP_task(task__body, h, cpyfn ? task__cpy : NULL, (long)(off + (size_t)arg_size),
		       (long)align, if_clause, flags, depend, priority, detach);
	if (h->detach) /* where libgomp writes it without the shim */
		memcpy(data, &h->event, sizeof(h->event));
}

/* ---- unsigned long long loops (GOMP_loop_ull_*) ------------------------------ *
 *
 * GCC uses them for a loop whose range does not fit a long: up says the
 * direction, incr is the step modulo 2^64 (a downward loop's is negative).
 */
static inline void loop__ull_incr(bool up, ull incr)
{
	struct omp_thr *th = gomp__thr();

	if (th) {
		th->ull_up = up;
		th->ull_incr = incr ? incr : 1;
	}
}

static inline void chunk__got_ull(bool r, ull *istart, ull *iend)
{
	struct omp_thr *th;
	ull n, step;

	if (!r || !istart || !iend || !(th = gomp__thr()))
		return;
	step = th->ull_up ? th->ull_incr : -th->ull_incr;
	if (!step)
		return;
	n = th->ull_up ? (*iend - *istart + step - 1) / step : (*istart - *iend + step - 1) / step;
	hs_omp__chunk(th, n);
}

#define LOOP_ULL_START(name)                                                           \
	HS_EXPORT bool name(bool up, ull start, ull end, ull incr, ull chunk, ull *istart, \
			    ull *iend)                                                 \
	{                                                                              \
		bool r;                                                                \
                                                                                       \
		loop__ull_incr(up, incr);                                              \
		r = REAL(name)(up, start, end, incr, chunk, istart, iend);             \
		chunk__got_ull(r, istart, iend);                                       \
		return r;                                                              \
	}
#define LOOP_ULL_START_RUNTIME(name)                                                    \
	HS_EXPORT bool name(bool up, ull start, ull end, ull incr, ull *istart, ull *iend) \
	{                                                                               \
		bool r;                                                                 \
                                                                                        \
		loop__ull_incr(up, incr);                                               \
		r = REAL(name)(up, start, end, incr, istart, iend);                     \
		chunk__got_ull(r, istart, iend);                                        \
		return r;                                                               \
	}
#define LOOP_ULL_START_GENERIC(name)                                                    \
	HS_EXPORT bool name(bool up, ull start, ull end, ull incr, long sched, ull chunk, \
			    ull *istart, ull *iend, uintptr_t *reductions, void **mem)  \
	{                                                                               \
		bool r;                                                                 \
                                                                                        \
		loop__ull_incr(up, incr);                                               \
		r = REAL(name)(up, start, end, incr, sched, chunk, istart, iend,        \
			       reductions, mem);                                        \
		chunk__got_ull(r, istart, iend);                                        \
		return r;                                                               \
	}
#define LOOP_ULL_NEXT(name)                              \
	HS_EXPORT bool name(ull *istart, ull *iend)      \
	{                                                \
		bool r = REAL(name)(istart, iend);       \
                                                         \
		chunk__got_ull(r, istart, iend);         \
		return r;                                \
	}

LOOP_ULL_START(GOMP_loop_ull_static_start)
LOOP_ULL_START(GOMP_loop_ull_dynamic_start)
LOOP_ULL_START(GOMP_loop_ull_guided_start)
LOOP_ULL_START(GOMP_loop_ull_nonmonotonic_dynamic_start)
LOOP_ULL_START(GOMP_loop_ull_nonmonotonic_guided_start)
LOOP_ULL_START_RUNTIME(GOMP_loop_ull_runtime_start)
LOOP_ULL_START_RUNTIME(GOMP_loop_ull_nonmonotonic_runtime_start)
LOOP_ULL_START_RUNTIME(GOMP_loop_ull_maybe_nonmonotonic_runtime_start)
LOOP_ULL_START(GOMP_loop_ull_ordered_static_start)
LOOP_ULL_START(GOMP_loop_ull_ordered_dynamic_start)
LOOP_ULL_START(GOMP_loop_ull_ordered_guided_start)
LOOP_ULL_START_RUNTIME(GOMP_loop_ull_ordered_runtime_start)
LOOP_ULL_START_GENERIC(GOMP_loop_ull_start)
LOOP_ULL_START_GENERIC(GOMP_loop_ull_ordered_start)
LOOP_ULL_NEXT(GOMP_loop_ull_static_next)
LOOP_ULL_NEXT(GOMP_loop_ull_dynamic_next)
LOOP_ULL_NEXT(GOMP_loop_ull_guided_next)
LOOP_ULL_NEXT(GOMP_loop_ull_runtime_next)
LOOP_ULL_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next)
LOOP_ULL_NEXT(GOMP_loop_ull_nonmonotonic_guided_next)
LOOP_ULL_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next)
LOOP_ULL_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next)
LOOP_ULL_NEXT(GOMP_loop_ull_ordered_static_next)
LOOP_ULL_NEXT(GOMP_loop_ull_ordered_dynamic_next)
LOOP_ULL_NEXT(GOMP_loop_ull_ordered_guided_next)
LOOP_ULL_NEXT(GOMP_loop_ull_ordered_runtime_next)

/* ---- ordered, atomic --------------------------------------------------------- *
 *
 * GOMP_ordered_start returns when the calling thread's iteration has its
 * turn; GOMP_atomic_start when it holds the runtime's one lock for the
 * atomics the machine cannot do (GOMP_atomic_end releases it: untouched).
 */
#define TURN(name, kind)                                  \
	HS_EXPORT void name(void)                         \
	{                                                 \
		struct omp_thr *th = gomp__thr();         \
		struct omp_wait w;                        \
                                                          \
		if (!th) {                                \
			REAL(name)();                     \
			return;                           \
		}                                         \
		hs_omp__wait_begin(th, &w);               \
		REAL(name)();                             \
		hs_omp__turn(th, &w, kind);               \
	}

TURN(GOMP_ordered_start, OMP_TURN_ORDERED)
TURN(GOMP_atomic_start, OMP_TURN_ATOMIC)

/* ---- taskloop ------------------------------------------------------------------ *
 *
 * The runtime writes each task's iteration range into the first words of
 * the task's copy of data, so the data is handed over untouched and the
 * tasks are not timed one by one: the encountering thread's taskloop is
 * counted and its wall recorded (creating the tasks, running those it
 * runs, and its implicit taskgroup's wait unless nogroup).
 */
HS_EXPORT void GOMP_taskloop(gomp_fn fn, void *data, void (*cpyfn)(void *, void *),
			     long arg_size, long arg_align, unsigned flags,
			     unsigned long num_tasks, int priority, long start, long end,
			     long step)
{
	struct omp_thr *th = gomp__thr();
	struct omp_wait w;

	if (th)
		hs_omp__wait_begin(th, &w);
	REAL(GOMP_taskloop)(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority,
			    start, end, step);
	if (th)
		hs_omp__taskloop(th, &w);
}

HS_EXPORT void GOMP_taskloop_ull(gomp_fn fn, void *data, void (*cpyfn)(void *, void *),
				 long arg_size, long arg_align, unsigned flags,
				 unsigned long num_tasks, int priority, ull start, ull end,
				 ull step)
{
	struct omp_thr *th = gomp__thr();
	struct omp_wait w;

	if (th)
		hs_omp__wait_begin(th, &w);
	REAL(GOMP_taskloop_ull)(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks,
				priority, start, end, step);
	if (th)
		hs_omp__taskloop(th, &w);
}

/* ---- teams on the host ------------------------------------------------------- *
 *
 * GOMP_teams_reg(fn, data, num_teams, ...) runs fn once per team (GCC 12's
 * libgomp: one after the other on the encountering thread; whichever
 * thread runs it, it is that thread's share): each run is a share of the
 * construct "omp teams @ file:line", its number the team's.  Teams have no
 * barrier in common: no wait.  GOMP_teams and GOMP_teams4 belong to target
 * regions (the host fallback runs the teams inline): not wrapped.
 */
struct gomp_league {
	gomp_fn fn;
	void *data;
	struct omp_construct *c;
	unsigned runs; /* atomic: teams run */
	unsigned published;
};

static void gomp__team_run(void *arg)
{
	struct gomp_league *lg = arg;
	struct omp_thr *th = hs_omp_thr__self();
	struct omp_share s;

	(void)__atomic_load_n(&lg->published, __ATOMIC_ACQUIRE);
	__atomic_fetch_add(&lg->runs, 1, __ATOMIC_ACQ_REL);
	if (!th) {
		lg->fn(lg->data);
		return;
	}
	hs_omp__work_begin(th, lg->c, &s, 1, gomp_num());
	lg->fn(lg->data);
	(void)hs_omp__work_end(th, &s);
	hs_omp__work_done(th, &s);
}

HS_EXPORT void GOMP_teams_reg(gomp_fn fn, void *data, unsigned num_teams,
			      unsigned thread_limit, unsigned flags)
{
	struct gomp_league lg = { fn, data, NULL, 0, 0 };
	uint32_t n, m;

	if (!gomp__rec() ||
	    !(lg.c = hs_omp_construct__get((const void *)fn, OMP_TEAMS, OMP_SRC_GOMP))) {
		REAL(GOMP_teams_reg)(fn, data, num_teams, thread_limit, flags);
		return;
	}
	__atomic_store_n(&lg.published, 1, __ATOMIC_RELEASE);
	REAL(GOMP_teams_reg)(gomp__team_run, &lg, num_teams, thread_limit, flags);
	n = __atomic_load_n(&lg.runs, __ATOMIC_ACQUIRE);
	m = __atomic_load_n(&lg.c->team_max, __ATOMIC_RELAXED);
	__atomic_fetch_add(&lg.c->teams, 1, __ATOMIC_RELAXED);
	while (n > m && !__atomic_compare_exchange_n(&lg.c->team_max, &m, n, true,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}
