/* omp_sweep.c - every OpenMP runtime entry point the shim stands in front
 * of, one mode per construct, for tests/shim/test_omp_sweep.py (built by
 * the test with gcc -fopenmp and clang -fopenmp; docs/openmp.md has the
 * table of entry points and modes).
 *
 *   omp_sweep MODE      runs one mode: "omp_sweep list" names them all
 *
 * Built with -DSWEEP_GOMP50, the program keeps to the GOMP ABI up to
 * GOMP_5.0 (no target, no detach: GOMP_teams4 and omp_fulfill_event are
 * 5.1's), the ABI LLVM 14's libomp has: gcc's program on libomp.
 *
 * stdout: the mode's results, the same with and without the shim (sums
 * the construct computes, never an order or a thread's number).
 * stderr: "fig LINE NAME T V" lines, what the program knows of thread T's
 * part in the construct whose directive is on line LINE: V of the figure
 * NAME of the results' openmp section (iterations, chunks, ordered,
 * criticals, singles, atomics, barriers, taskwaits, tasks_created,
 * tasks_run, taskloops, calls), or of a name the test maps to one
 * (taskloop_tasks, locks, calls_total).
 *
 * Loop bounds come from the command line's world (volatile), so that the
 * compiler keeps each loop's call of the runtime (a constant trip count
 * would turn an unsigned long long loop into a long one).
 */
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 64
#define N 60  /* iterations of a loop */
#define CH 3  /* a chunk */
#define NT 12 /* tasks of a task mode */

static volatile long n_iter = N;
static volatile unsigned long long u_top = ~0ull; /* above LONG_MAX */
static long fig_a[MAXT], fig_b[MAXT], fig_c[MAXT];
static long sum; /* atomic */

static int tid(void)
{
	int t = omp_get_thread_num();

	return t >= 0 && t < MAXT ? t : 0;
}

static void add(long *f, long v)
{
	__atomic_fetch_add(&f[tid()], v, __ATOMIC_RELAXED);
}

/* The figure NAME of every thread of the last team of the construct at
 * line, from the program's counts f. */
static void fig_put(int line, const char *name, const long *f)
{
	for (int t = 0; t < omp_get_max_threads() && t < MAXT; t++)
		fprintf(stderr, "fig %d %s %d %ld\n", line, name, t, f[t]);
}

/* The same figure for every thread of the team. */
static void fig_all(int line, const char *name, long v)
{
	for (int t = 0; t < omp_get_max_threads() && t < MAXT; t++)
		fprintf(stderr, "fig %d %s %d %ld\n", line, name, t, v);
}

static void work(long i)
{
	__atomic_fetch_add(&sum, i, __ATOMIC_RELAXED);
}

/* A statement after a team's last worksharing construct: its barrier stays
 * its own (gcc makes it the team's end barrier when nothing follows). */
static void after(void)
{
	work(0);
}

/* ---- teams ------------------------------------------------------------------ */

static int m_parallel(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
		add(fig_a, 1);
#pragma omp master
		work(1000);
		work(tid() + 1);
	}
	fig_put(at, "calls", fig_a);
	printf("parallel sum=%ld\n", sum);
	return 0;
}

/* A reduction of each kind gcc makes: atomic (long), a compare-and-swap
 * loop (double) and the runtime's lock (long double: GOMP_atomic_start). */
static int m_reductions(void)
{
	long s = 0;
	double d = 0;
	long double q = 0;
#pragma omp parallel reduction(+ : s, d, q)
	{
		s += tid() + 1;
		d += 0.5;
		q += 2;
	}
	printf("reductions s=%ld d=%.1f q=%.0Lf\n", s, d, q);
	return 0;
}

/* ---- loops in a team (long) ---------------------------------------------------- */

/* Each schedule's start and next entry points, and the loop's end
 * barrier: iterations per thread (the chunks are the runtime's to choose:
 * the abi mode counts those it gets). */
static int m_loops(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp for schedule(dynamic, CH)
		for (long i = 0; i < n_iter; i++)
			add(fig_a, 1), work(i);
#pragma omp for schedule(monotonic : dynamic, CH)
		for (long i = 0; i < n_iter; i++)
			add(fig_a, 1), work(i);
#pragma omp for schedule(guided)
		for (long i = 0; i < n_iter; i++)
			add(fig_a, 1), work(i);
#pragma omp for schedule(monotonic : guided, 2)
		for (long i = 0; i < n_iter; i++)
			add(fig_a, 1), work(i);
#pragma omp for schedule(runtime)
		for (long i = 0; i < n_iter; i++)
			add(fig_a, 1), work(i);
#pragma omp for schedule(monotonic : runtime)
		for (long i = 0; i < n_iter; i++)
			add(fig_a, 1), work(i);
#pragma omp for schedule(nonmonotonic : runtime)
		for (long i = 0; i < n_iter; i++)
			add(fig_a, 1), work(i);
#pragma omp for schedule(static, CH)
		for (long i = 0; i < n_iter; i++)
			work(i); /* inline: no call, no iterations counted */
		after();
	}
	fig_put(at, "iterations", fig_a);
	fig_all(at, "barriers", 8);
	printf("loops sum=%ld\n", sum);
	return 0;
}

/* A downward loop, step -3: a chunk's iterations from its bounds. */
static int m_loop_down(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp for schedule(dynamic, 2)
		for (long i = n_iter; i > 0; i -= 3)
			add(fig_a, 1), work(i);
		after();
	}
	fig_put(at, "iterations", fig_a);
	printf("loop_down sum=%ld\n", sum);
	return 0;
}

static int m_ordered(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp for schedule(static) ordered
		for (long i = 0; i < n_iter; i++) {
			add(fig_a, 1);
#pragma omp ordered
			add(fig_b, 1), work(i);
		}
#pragma omp for schedule(dynamic, CH) ordered
		for (long i = 0; i < n_iter; i++) {
			add(fig_a, 1);
#pragma omp ordered
			add(fig_b, 1), work(i);
		}
#pragma omp for schedule(guided) ordered
		for (long i = 0; i < n_iter; i++) {
			add(fig_a, 1);
#pragma omp ordered
			add(fig_b, 1), work(i);
		}
#pragma omp for schedule(runtime) ordered
		for (long i = 0; i < n_iter; i++) {
			add(fig_a, 1);
#pragma omp ordered
			add(fig_b, 1), work(i);
		}
		after();
	}
	fig_put(at, "iterations", fig_a);
	fig_put(at, "ordered", fig_b);
	fig_all(at, "barriers", 4);
	printf("ordered sum=%ld\n", sum);
	return 0;
}

/* GCC 9's generic starts: a loop with a task reduction, and an ordered
 * one (GOMP_loop_start, GOMP_loop_ordered_start). */
static int m_loop_generic(void)
{
	long x = 0, y = 0;
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp for schedule(dynamic, CH) reduction(task, + : x)
		for (long i = 0; i < n_iter; i++)
			add(fig_a, 1), x += i;
#pragma omp for schedule(dynamic, CH) ordered reduction(task, + : y)
		for (long i = 0; i < n_iter; i++) {
			add(fig_a, 1);
#pragma omp ordered
			y += i;
		}
		after();
	}
	fig_put(at, "iterations", fig_a);
	printf("loop_generic x=%ld y=%ld\n", x, y);
	return 0;
}

/* ---- loops in a team (unsigned long long) ------------------------------------------ */

static int m_loops_ull(void)
{
	unsigned long long lo = u_top - (unsigned long long)n_iter, hi = u_top;
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp for schedule(dynamic, CH)
		for (unsigned long long i = lo; i < hi; i++)
			add(fig_a, 1), work((long)(i & 7));
#pragma omp for schedule(monotonic : dynamic, CH)
		for (unsigned long long i = lo; i < hi; i++)
			add(fig_a, 1), work((long)(i & 7));
#pragma omp for schedule(guided)
		for (unsigned long long i = hi; i > lo; i--)
			add(fig_a, 1), work((long)(i & 7));
#pragma omp for schedule(monotonic : guided, 2)
		for (unsigned long long i = lo; i < hi; i++)
			add(fig_a, 1), work((long)(i & 7));
#pragma omp for schedule(runtime)
		for (unsigned long long i = lo; i < hi; i++)
			add(fig_a, 1), work((long)(i & 7));
#pragma omp for schedule(monotonic : runtime)
		for (unsigned long long i = lo; i < hi; i++)
			add(fig_a, 1), work((long)(i & 7));
#pragma omp for schedule(nonmonotonic : runtime)
		for (unsigned long long i = lo; i < hi; i++)
			add(fig_a, 1), work((long)(i & 7));
		after();
	}
	fig_put(at, "iterations", fig_a);
	fig_all(at, "barriers", 7);
	printf("loops_ull sum=%ld\n", sum);
	return 0;
}

static int m_ordered_ull(void)
{
	unsigned long long lo = u_top - (unsigned long long)n_iter, hi = u_top;
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp for schedule(static) ordered
		for (unsigned long long i = lo; i < hi; i++) {
			add(fig_a, 1);
#pragma omp ordered
			add(fig_b, 1), work((long)(i & 7));
		}
#pragma omp for schedule(dynamic, CH) ordered
		for (unsigned long long i = lo; i < hi; i++) {
			add(fig_a, 1);
#pragma omp ordered
			add(fig_b, 1), work((long)(i & 7));
		}
#pragma omp for schedule(guided) ordered
		for (unsigned long long i = lo; i < hi; i++) {
			add(fig_a, 1);
#pragma omp ordered
			add(fig_b, 1), work((long)(i & 7));
		}
#pragma omp for schedule(runtime) ordered
		for (unsigned long long i = lo; i < hi; i++) {
			add(fig_a, 1);
#pragma omp ordered
			add(fig_b, 1), work((long)(i & 7));
		}
		after();
	}
	fig_put(at, "iterations", fig_a);
	fig_put(at, "ordered", fig_b);
	printf("ordered_ull sum=%ld\n", sum);
	return 0;
}

static int m_loop_generic_ull(void)
{
	unsigned long long lo = u_top - (unsigned long long)n_iter, hi = u_top;
	long x = 0, y = 0;
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp for schedule(dynamic, CH) reduction(task, + : x)
		for (unsigned long long i = lo; i < hi; i++)
			add(fig_a, 1), x += (long)(i & 7);
#pragma omp for schedule(dynamic, CH) ordered reduction(task, + : y)
		for (unsigned long long i = lo; i < hi; i++) {
			add(fig_a, 1);
#pragma omp ordered
			y += (long)(i & 7);
		}
		after();
	}
	fig_put(at, "iterations", fig_a);
	printf("loop_generic_ull x=%ld y=%ld\n", x, y);
	return 0;
}

/* ---- combined parallel loops ------------------------------------------------------- */

/* One construct per schedule: GOMP_parallel_loop_* each (static: the
 * compiler's own chunks in a GOMP_parallel).  gcc combines the two only
 * for a loop of constant bounds: N, not n_iter. */
static void pfor_done(int at)
{
	fig_put(at, "iterations", fig_a);
	memset(fig_a, 0, sizeof(fig_a));
}

static int m_parallel_for(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel for schedule(static)
	for (long i = 0; i < N; i++)
		work(i);
	at = __LINE__ + 1;
#pragma omp parallel for schedule(dynamic, CH)
	for (long i = 0; i < N; i++)
		add(fig_a, 1), work(i);
	pfor_done(at);
	at = __LINE__ + 1;
#pragma omp parallel for schedule(monotonic : dynamic, CH)
	for (long i = 0; i < N; i++)
		add(fig_a, 1), work(i);
	pfor_done(at);
	at = __LINE__ + 1;
#pragma omp parallel for schedule(guided)
	for (long i = 0; i < N; i++)
		add(fig_a, 1), work(i);
	pfor_done(at);
	at = __LINE__ + 1;
#pragma omp parallel for schedule(monotonic : guided)
	for (long i = 0; i < N; i++)
		add(fig_a, 1), work(i);
	pfor_done(at);
	at = __LINE__ + 1;
#pragma omp parallel for schedule(runtime)
	for (long i = 0; i < N; i++)
		add(fig_a, 1), work(i);
	pfor_done(at);
	at = __LINE__ + 1;
#pragma omp parallel for schedule(monotonic : runtime)
	for (long i = 0; i < N; i++)
		add(fig_a, 1), work(i);
	pfor_done(at);
	at = __LINE__ + 1;
#pragma omp parallel for schedule(nonmonotonic : runtime)
	for (long i = 0; i < N; i++)
		add(fig_a, 1), work(i);
	pfor_done(at);
	printf("parallel_for sum=%ld\n", sum);
	return 0;
}

/* ---- sections, single, critical, atomic, barrier, locks ------------------------------- */

static int m_sections(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
		work(0); /* a statement before: a parallel, not a parallel sections */
#pragma omp sections
		{
#pragma omp section
			add(fig_a, 1), work(1);
#pragma omp section
			add(fig_a, 1), work(2);
#pragma omp section
			add(fig_a, 1), work(4);
#pragma omp section
			add(fig_a, 1), work(8);
		}
		after();
	}
	fig_put(at, "iterations", fig_a);
	fig_all(at, "barriers", 1);
	printf("sections sum=%ld\n", sum);
	return 0;
}

static int m_parallel_sections(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel sections
	{
#pragma omp section
		add(fig_a, 1), work(1);
#pragma omp section
		add(fig_a, 1), work(2);
#pragma omp section
		add(fig_a, 1), work(4);
	}
	fig_put(at, "iterations", fig_a);
	printf("parallel_sections sum=%ld\n", sum);
	return 0;
}

static int m_single(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp single
		add(fig_a, 1), work(1);
#pragma omp single nowait
		add(fig_a, 1), work(2);
#pragma omp barrier
	}
	fig_put(at, "singles", fig_a);
	fig_all(at, "barriers", 2);
	printf("single sum=%ld\n", sum);
	return 0;
}

static int m_critical(void)
{
	long n = 0, k = 0;
	int at = __LINE__ + 1;
#pragma omp parallel
	{
		for (int r = 0; r < 3; r++) {
#pragma omp critical
			n++;
#pragma omp critical(sweep_named)
			k += 2;
			add(fig_a, 2);
		}
	}
	fig_put(at, "criticals", fig_a);
	printf("critical n=%ld k=%ld\n", n, k);
	return 0;
}

/* A long double: no instruction does it atomically, the runtime's lock
 * (gcc: GOMP_atomic_start; clang: libatomic, no runtime call). */
static int m_atomic(void)
{
	long double x = 0;
	int at = __LINE__ + 1;
#pragma omp parallel
	{
		for (int r = 0; r < 5; r++) {
#pragma omp atomic
			x += 1;
			add(fig_a, 1);
		}
	}
	fig_put(at, "atomics", fig_a);
	printf("atomic x=%.0Lf\n", x);
	return 0;
}

static int m_barrier(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
		for (int r = 0; r < 4; r++) {
			work(r);
#pragma omp barrier
		}
	}
	fig_all(at, "barriers", 4);
	printf("barrier sum=%ld\n", sum);
	return 0;
}

/* omp_set_lock and a nested lock: OMPT's mutex_acquire(d)/released of
 * kind lock; libgomp's locks are no GOMP_ entry point. */
static int m_locks(void)
{
	omp_lock_t l;
	omp_nest_lock_t nl;
	long n = 0;
	int at;

	omp_init_lock(&l);
	omp_init_nest_lock(&nl);
	at = __LINE__ + 1;
#pragma omp parallel
	{
		omp_set_lock(&l);
		n++;
		omp_unset_lock(&l);
		omp_set_nest_lock(&nl);
		omp_set_nest_lock(&nl);
		n++;
		omp_unset_nest_lock(&nl);
		omp_unset_nest_lock(&nl);
		add(fig_a, 2);
	}
	omp_destroy_lock(&l);
	omp_destroy_nest_lock(&nl);
	fig_put(at, "locks", fig_a);
	printf("locks n=%ld\n", n);
	return 0;
}

/* ---- tasks: one mode per clause ------------------------------------------------------ */

static void task_body(long i)
{
	add(fig_b, 1);
	work(i);
}

/* NT tasks of one kind, created by one thread, then a taskwait. */
static void tasks_of(const char *kind)
{
	long dep = 0;

	for (long i = 0; i < NT; i++) {
		add(fig_a, 1);
		if (!strcmp(kind, "plain")) {
#pragma omp task
			task_body(i);
		} else if (!strcmp(kind, "untied")) {
#pragma omp task untied
			task_body(i);
		} else if (!strcmp(kind, "final")) {
#pragma omp task final(i % 2)
			task_body(i);
		} else if (!strcmp(kind, "mergeable")) {
#pragma omp task mergeable
			task_body(i);
		} else if (!strcmp(kind, "depend")) {
#pragma omp task depend(inout : dep) shared(dep)
			{
				task_body(i);
				dep = dep * 3 + i; /* in creation order: the chain's */
			}
		} else if (!strcmp(kind, "priority")) {
#pragma omp task priority(i % 3)
			task_body(i);
		} else if (!strcmp(kind, "if0")) {
#pragma omp task if (0)
			task_body(i);
#ifndef SWEEP_GOMP50
		} else if (!strcmp(kind, "detach")) {
			omp_event_handle_t ev = 0; /* the runtime's to set */
#pragma omp task detach(ev)
			{
				task_body(i);
				omp_fulfill_event(ev);
			}
#endif
		} else if (!strcmp(kind, "shared")) {
#pragma omp task shared(dep)
			task_body(i + __atomic_load_n(&dep, __ATOMIC_RELAXED));
		}
	}
#pragma omp taskwait
	if (!strcmp(kind, "depend"))
		printf("depend chain=%ld\n", dep);
}

static int m_tasks(const char *kind)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp single
		{
			tasks_of(kind);
			add(fig_c, 1);
		}
	}
	fig_put(at, "tasks_created", fig_a);
	fig_put(at, "tasks_run", fig_b);
	fig_put(at, "taskwaits", fig_c);
	printf("tasks %s sum=%ld\n", kind, sum);
	return 0;
}

/* A firstprivate array of variable length: gcc's cpyfn copies the task's
 * data (clang takes none: a fixed length there, a plain copy). */
#ifdef __clang__
#define VLEN(i) 4
#else
#define VLEN(i) ((i) % 4 + 1)
#endif
static void tasks_vla(void)
{
	for (long i = 0; i < NT; i++) {
		long v[VLEN(i)];

		for (long k = 0; k < VLEN(i); k++)
			v[k] = i;
		add(fig_a, 1);
#pragma omp task firstprivate(v)
		task_body(v[VLEN(i) - 1]);
	}
#pragma omp taskwait
}

static int m_task_vla(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp single
		tasks_vla(), add(fig_c, 1);
	}
	fig_put(at, "tasks_created", fig_a);
	fig_put(at, "tasks_run", fig_b);
	fig_put(at, "taskwaits", fig_c);
	printf("task_vla sum=%ld\n", sum);
	return 0;
}

/* Tasks created by every thread with no wait after them: run in the
 * team's end barrier. */
static int m_task_end(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
		for (long i = 0; i < 4; i++) {
			add(fig_a, 1);
#pragma omp task
			task_body(i);
		}
	}
	fig_put(at, "tasks_created", fig_a);
	fig_put(at, "tasks_run", fig_b);
	printf("task_end sum=%ld\n", sum);
	return 0;
}

static int m_taskgroup(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp single
		{
#pragma omp taskgroup
			{
				for (long i = 0; i < NT; i++) {
					add(fig_a, 1);
#pragma omp task
					task_body(i);
				}
			}
			add(fig_c, 1);
		}
	}
	fig_put(at, "tasks_created", fig_a);
	fig_put(at, "tasks_run", fig_b);
	fig_put(at, "taskwaits", fig_c);
	printf("taskgroup sum=%ld\n", sum);
	return 0;
}

/* A task reduction: taskgroup task_reduction, tasks in_reduction (the
 * runtime's GOMP_taskgroup_reduction_register and _remap, not wrapped). */
static int m_task_reduction(void)
{
	long r = 0;
#pragma omp parallel
	{
#pragma omp single
		{
#pragma omp taskgroup task_reduction(+ : r)
			{
				for (long i = 0; i < NT; i++) {
#pragma omp task in_reduction(+ : r)
					r += i;
				}
			}
		}
	}
	printf("task_reduction r=%ld\n", r);
	return 0;
}

/* ---- taskloop: one mode per clause ----------------------------------------------------- */

/* The loop variable of the long taskloops: long is GOMP_taskloop's (an
 * unsigned one would be GOMP_taskloop_ull's); clang 14 warns of a signed
 * loop's sign against num_tasks or grainsize (its own unsigned count),
 * and its loops are OMPT's, of any type. */
#ifdef __clang__
typedef unsigned long tl_t;
#else
typedef long tl_t;
#endif

/* A taskloop's task counts itself at its first iteration (first is
 * firstprivate: each task has its own). */
#define TASKLOOP_BODY                                 \
	{                                             \
		if (first)                            \
			first = 0, add(fig_b, 1);     \
		add(fig_a, 1), work((long)i);               \
	}

static void taskloop_of(const char *kind)
{
	int first = 1;
	tl_t n = (tl_t)n_iter;

	if (!strcmp(kind, "plain")) {
#pragma omp taskloop firstprivate(first)
		for (tl_t i = 0; i < n; i++)
			TASKLOOP_BODY
	} else if (!strcmp(kind, "grainsize")) {
#pragma omp taskloop grainsize(7) firstprivate(first)
		for (tl_t i = 0; i < n; i++)
			TASKLOOP_BODY
	} else if (!strcmp(kind, "strict")) {
#ifdef __clang__ /* clang 14 has no strict modifier: GOMP's flag only */
#pragma omp taskloop grainsize(7) firstprivate(first)
#else
#pragma omp taskloop grainsize(strict : 7) firstprivate(first)
#endif
		for (tl_t i = 0; i < n; i++)
			TASKLOOP_BODY
	} else if (!strcmp(kind, "num_tasks")) {
#pragma omp taskloop num_tasks(5) firstprivate(first)
		for (tl_t i = 0; i < n; i++)
			TASKLOOP_BODY
	} else if (!strcmp(kind, "nogroup")) {
#pragma omp taskloop nogroup num_tasks(4) firstprivate(first)
		for (tl_t i = 0; i < n; i++)
			TASKLOOP_BODY
#pragma omp taskwait
	} else if (!strcmp(kind, "if0")) {
#pragma omp taskloop if (0) num_tasks(4) firstprivate(first)
		for (tl_t i = 0; i < n; i++)
			TASKLOOP_BODY
	} else if (!strcmp(kind, "final")) {
#pragma omp taskloop final(1) num_tasks(4) firstprivate(first)
		for (tl_t i = 0; i < n; i++)
			TASKLOOP_BODY
	} else if (!strcmp(kind, "priority")) {
#pragma omp taskloop priority(2) untied mergeable num_tasks(4) firstprivate(first)
		for (tl_t i = 0; i < n; i++)
			TASKLOOP_BODY
	}
}

static long taskloop_reduction(void)
{
	long r = 0;
	int first = 1;
	tl_t n = (tl_t)n_iter;

#pragma omp taskloop reduction(+ : r) num_tasks(4) firstprivate(first)
	for (tl_t i = 0; i < n; i++) {
		if (first)
			first = 0, add(fig_b, 1);
		add(fig_a, 1), r += (long)i;
	}
	return r;
}

static long taskloop_ull(void)
{
	unsigned long long lo = u_top - (unsigned long long)n_iter, hi = u_top;
	int first = 1;

#pragma omp taskloop num_tasks(4) firstprivate(first)
	for (unsigned long long i = lo; i < hi; i++) {
		if (first)
			first = 0, add(fig_b, 1);
		add(fig_a, 1), work((long)(i & 7));
	}
	return 0;
}

static int m_taskloop(const char *kind)
{
	long r = 0;
	int at = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp single
		{
			if (!strcmp(kind, "reduction"))
				r = taskloop_reduction();
			else if (!strcmp(kind, "ull"))
				r = taskloop_ull();
			else
				taskloop_of(kind);
			add(fig_c, 1);
		}
	}
	fig_put(at, "taskloop_tasks", fig_b);
	fig_put(at, "taskloops", fig_c);
	printf("taskloop %s sum=%ld r=%ld\n", kind, sum, r);
	return 0;
}

/* ---- teams on the host, cancellation, target's host fallback, doacross --------------------- */

static int m_teams(void)
{
	long runs = 0;
	int at = __LINE__ + 1;
#pragma omp teams num_teams(3)
	{
		__atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
		work(omp_get_team_num() + 1);
	}
	fprintf(stderr, "fig %d calls_total 0 %ld\n", at, runs);
	printf("teams runs=%ld sum=%ld\n", runs, sum);
	return 0;
}

/* cancel parallel + a barrier (GOMP_barrier_cancel), cancel for (the
 * loop's end: GOMP_loop_end_cancel): with OMP_CANCELLATION=true thread 0
 * cancels, and every other thread sees it at its barrier and leaves (none
 * goes past it); without, every thread does. */
static int m_cancel(void)
{
	long seen = 0, lsum = 0;
#pragma omp parallel
	{
		if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
		}
#pragma omp barrier
		__atomic_fetch_add(&seen, 1, __ATOMIC_RELAXED);
	}
#pragma omp parallel
	{
#pragma omp for schedule(dynamic, 1)
		for (long i = 0; i < n_iter; i++) {
			if (i == 0) {
#pragma omp cancel for
			}
			__atomic_fetch_add(&lsum, 1, __ATOMIC_RELAXED);
		}
		/* never taken; a cancel parallel in the team makes the loop's
		 * end barrier GOMP_loop_end_cancel */
		if (__atomic_load_n(&lsum, __ATOMIC_RELAXED) < 0) {
#pragma omp cancel parallel
		}
		after();
	}
	printf("cancel cancellation=%d after_barrier=%ld loop=%s\n", omp_get_cancellation(), seen,
	       lsum >= 1 && lsum <= n_iter ? "ok" : "wrong");
	return 0;
}

/* target on the host (no offload device): GOMP_target_ext and the teams
 * inside run untouched, the parallel inside is wrapped. */
#ifndef SWEEP_GOMP50
static int m_target(void)
{
	long s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(tofrom : s)
	for (long i = 0; i < N; i++)
		s += i;
	printf("target s=%ld\n", s);
	return 0;
}
#endif

/* doacross: ordered(1) with depend(sink)/depend(source) (the starts and
 * waits are not wrapped; the loop's next calls are). */
static int m_doacross(void)
{
	long a[N + 1] = { 0 };
#pragma omp parallel for ordered(1) schedule(dynamic, 2)
	for (long i = 1; i <= N; i++) {
#pragma omp ordered depend(sink : i - 1)
		a[i] = a[i - 1] + i;
#pragma omp ordered depend(source)
	}
	printf("doacross a[N]=%ld\n", a[N]);
	return 0;
}

/* ---- the GOMP ABI called by hand: entry points gcc 12 no longer emits ------------------ */

typedef void (*gomp_fn)(void *);
bool GOMP_loop_static_start(long, long, long, long, long *, long *);
bool GOMP_loop_static_next(long *, long *);
bool GOMP_loop_ull_static_start(bool, unsigned long long, unsigned long long,
				unsigned long long, unsigned long long, unsigned long long *,
				unsigned long long *);
bool GOMP_loop_ull_static_next(unsigned long long *, unsigned long long *);
void GOMP_loop_end(void);
void GOMP_loop_end_nowait(void);
void GOMP_parallel_loop_static(gomp_fn, void *, unsigned, long, long, long, long, unsigned);

/* schedule(static, CH) through the runtime: each range it hands out is a
 * chunk (libgomp's are CH long; LLVM's libomp hands each thread one). */
static void abi_static(void)
{
	long s, e;

	if (GOMP_loop_static_start(0, n_iter, 1, CH, &s, &e))
		do {
			add(fig_b, 1);
			for (long i = s; i < e; i++)
				add(fig_a, 1), work(i);
		} while (GOMP_loop_static_next(&s, &e));
	GOMP_loop_end();
}

static void abi_static_ull(void)
{
	unsigned long long lo = u_top - (unsigned long long)n_iter, s, e;

	if (GOMP_loop_ull_static_start(true, lo, u_top, 1, CH, &s, &e))
		do {
			add(fig_b, 1);
			for (unsigned long long i = s; i < e; i++)
				add(fig_a, 1), work((long)(i & 7));
		} while (GOMP_loop_ull_static_next(&s, &e));
	GOMP_loop_end();
}

/* GOMP_parallel_loop_static's fn: the loop is set up, each thread takes
 * its chunks with GOMP_loop_static_next. */
static void abi_combined_fn(void *arg)
{
	long s, e;

	(void)arg;
	while (GOMP_loop_static_next(&s, &e))
		for (long i = s; i < e; i++)
			add(fig_c, 1), work(i);
	GOMP_loop_end_nowait();
}

static int m_abi(void)
{
	int at = __LINE__ + 1;
#pragma omp parallel
	{
		abi_static();
		abi_static_ull();
	}
	fig_put(at, "iterations", fig_a);
	fig_put(at, "chunks", fig_b);
	memset(fig_a, 0, sizeof(fig_a));
	GOMP_parallel_loop_static(abi_combined_fn, NULL, 0, 0, n_iter, 1, CH, 0);
	fprintf(stderr, "abi_combined");
	for (int t = 0; t < omp_get_max_threads() && t < MAXT; t++)
		fprintf(stderr, " %ld", fig_c[t]);
	fprintf(stderr, "\n");
	printf("abi sum=%ld\n", sum);
	return 0;
}

/* ---- modes -------------------------------------------------------------------------- */

static const char *const task_kinds[] = {
	"plain", "untied", "final", "mergeable", "depend", "priority", "if0", "shared",
#ifndef SWEEP_GOMP50
	"detach",
#endif
};
static const char *const taskloop_kinds[] = { "plain",  "grainsize", "strict", "num_tasks",
					      "nogroup", "if0",      "final",  "priority",
					      "reduction", "ull" };

static const struct {
	const char *name;
	int (*fn)(void);
} modes[] = {
	{ "parallel", m_parallel },
	{ "reductions", m_reductions },
	{ "loops", m_loops },
	{ "loop_down", m_loop_down },
	{ "ordered", m_ordered },
	{ "loop_generic", m_loop_generic },
	{ "loops_ull", m_loops_ull },
	{ "ordered_ull", m_ordered_ull },
	{ "loop_generic_ull", m_loop_generic_ull },
	{ "parallel_for", m_parallel_for },
	{ "sections", m_sections },
	{ "parallel_sections", m_parallel_sections },
	{ "single", m_single },
	{ "critical", m_critical },
	{ "atomic", m_atomic },
	{ "barrier", m_barrier },
	{ "locks", m_locks },
	{ "task_vla", m_task_vla },
	{ "task_end", m_task_end },
	{ "taskgroup", m_taskgroup },
	{ "task_reduction", m_task_reduction },
	{ "teams", m_teams },
	{ "cancel", m_cancel },
#ifndef SWEEP_GOMP50
	{ "target", m_target },
#endif
	{ "doacross", m_doacross },
	{ "abi", m_abi },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void list(void)
{
	for (size_t i = 0; i < COUNT(modes); i++)
		printf("%s\n", modes[i].name);
	for (size_t i = 0; i < COUNT(task_kinds); i++)
		printf("task_%s\n", task_kinds[i]);
	for (size_t i = 0; i < COUNT(taskloop_kinds); i++)
		printf("taskloop_%s\n", taskloop_kinds[i]);
}

/* kind, if name is prefix followed by one of kinds, else NULL */
static const char *kind_of(const char *name, const char *prefix, const char *const *kinds,
			   size_t n)
{
	size_t l = strlen(prefix);

	if (strncmp(name, prefix, l))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name + l, kinds[i]))
			return kinds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *k;

	if (argc == 2 && !strcmp(argv[1], "list")) {
		list();
		return 0;
	}
	if (argc != 2 || omp_get_max_threads() > MAXT)
		return fprintf(stderr, "usage: %s MODE | list\n", argv[0]), 2;
	for (size_t i = 0; i < COUNT(modes); i++)
		if (!strcmp(argv[1], modes[i].name))
			return modes[i].fn();
	if ((k = kind_of(argv[1], "taskloop_", taskloop_kinds, COUNT(taskloop_kinds))))
		return m_taskloop(k);
	if ((k = kind_of(argv[1], "task_", task_kinds, COUNT(task_kinds))))
		return m_tasks(k);
	fprintf(stderr, "%s: no mode %s (list: the modes)\n", argv[0], argv[1]);
	return 2;
}
