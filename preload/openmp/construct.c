/* construct.c - the constructs and each thread's figures of them: the API
 * every source of OpenMP events feeds (internal.h).
 *
 * A construct is keyed by its outlined function (gomp.c: the same
 * parallel directive always hands the runtime the same function) or by
 * the call that starts its teams (ompt.c: OMPT's codeptr_ra).  The table is
 * looked up without a lock (an open-addressed array of pointers, set
 * once each); a construct is created and named under the lock, on the
 * thread that starts its first team, before the team runs.
 *
 * A thread's share of a construct is one region of the core (region.c,
 * like a wrapped function's call): the work, named for the construct; its
 * implicit barrier's wait is timed by the thread that ends the team, to
 * the last arrival (hs_omp__work_done, hs_omp__waited).  With
 * HPCSHIM_OPENMP=barrier (GOMP) the wait is a second region, measured on
 * the thread (hs_omp__barrier_begin/_end).  Their counts are the core's
 * records; the figures kept here are wall times and numbers of things
 * (chunks, tasks, waits), written by the thread alone and read at the end.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "preload/core/core.h"
#include "preload/openmp/internal.h"

bool hs_omp_on;
bool hs_omp_barrier;
int hs_omp_slot = -1; /* set by the core (hs_features__set) */

#define TAB_CAP (2 * OMP_CONSTRUCTS_MAX)

static pthread_mutex_t omp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct omp_construct *omp_tab[TAB_CAP];  /* by fn, open addressing */
static struct omp_construct *omp_list[OMP_CONSTRUCTS_MAX]; /* by id        */
static int omp_n;                                /* atomic             */
static struct omp_thr *omp_threads;              /* atomic list head   */

static const char *const kind_text[OMP_KINDS] = {
	[OMP_PARALLEL] = "omp parallel",
	[OMP_PARALLEL_LOOP] = "omp parallel for",
	[OMP_PARALLEL_SECTIONS] = "omp parallel sections",
	[OMP_TEAMS] = "omp teams",
};

static size_t tab__slot(const void *fn)
{
	uintptr_t h = (uintptr_t)fn;

	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 40) & (TAB_CAP - 1);
}

static void construct__names(struct omp_construct *c)
{
	const char *what = kind_text[c->kind];
	const char *base;
	Dl_info di;

	hs_omp_lines__name(c);
	base = strrchr(c->file, '/');
	base = base ? base + 1 : c->file;
	if (c->file[0] && c->line > 0) {
		snprintf(c->name, sizeof(c->name), "%s @ %s:%d", what, base, c->line);
		snprintf(c->wait_name, sizeof(c->wait_name),
			 "omp implicit barrier @ %s:%d", base, c->line);
	} else if (c->function[0]) {
		snprintf(c->name, sizeof(c->name), "%s @ %s", what, c->function);
		snprintf(c->wait_name, sizeof(c->wait_name), "omp implicit barrier @ %s",
			 c->function);
	} else if (dladdr(c->fn, &di) && di.dli_fname && di.dli_fbase) {
		/* a stripped object: its file and the offset, the same from run
		 * to run (an address is not, with ASLR) */
		const char *f = strrchr(di.dli_fname, '/');
		unsigned long off = (unsigned long)((uintptr_t)c->fn - (uintptr_t)di.dli_fbase);

		f = f ? f + 1 : di.dli_fname;
		snprintf(c->name, sizeof(c->name), "%s @ %s+0x%lx", what, f, off);
		snprintf(c->wait_name, sizeof(c->wait_name), "omp implicit barrier @ %s+0x%lx",
			 f, off);
	} else {
		snprintf(c->name, sizeof(c->name), "%s @ %p", what, c->fn);
		snprintf(c->wait_name, sizeof(c->wait_name), "omp implicit barrier @ %p",
			 c->fn);
	}
}

struct omp_construct *hs_omp_construct__get(const void *fn, enum omp_kind kind,
					    enum omp_source src)
{
	size_t j = tab__slot(fn);
	struct omp_construct *c;

	for (; (c = __atomic_load_n(&omp_tab[j], __ATOMIC_ACQUIRE)); j = (j + 1) & (TAB_CAP - 1))
		if (c->fn == fn)
			return c;
	pthread_mutex_lock(&omp_lock);
	for (j = tab__slot(fn); (c = omp_tab[j]); j = (j + 1) & (TAB_CAP - 1))
		if (c->fn == fn)
			goto out;
	if (omp_n >= OMP_CONSTRUCTS_MAX || !(c = calloc(1, sizeof(*c))))
		goto out;
	c->fn = fn;
	c->kind = kind;
	c->source = src;
	c->wait_region = src == OMP_SRC_GOMP && kind != OMP_TEAMS && hs_omp_barrier;
	c->id = omp_n;
	construct__names(c);
	omp_list[c->id] = c;
	__atomic_store_n(&omp_n, c->id + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&omp_tab[j], c, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&omp_lock);
	return c;
}

int hs_omp_construct__count(void)
{
	return __atomic_load_n(&omp_n, __ATOMIC_ACQUIRE);
}

struct omp_construct *hs_omp_construct__at(int i)
{
	return omp_list[i];
}

struct omp_thr *hs_omp_thr__self(void)
{
	struct hs_thread *t = hs_self;
	struct omp_thr *th;

	if (!t || hs_omp_slot < 0)
		return NULL;
	th = t->slot[hs_omp_slot];
	if (th)
		return th;
	if (!(th = calloc(1, sizeof(*th))))
		return NULL;
	th->tid = (pid_t)gettid();
	th->incr = 1;
	th->next = __atomic_load_n(&omp_threads, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&omp_threads, &th->next, th, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	t->slot[hs_omp_slot] = th;
	return th;
}

struct omp_thr *hs_omp_thr__all(void)
{
	return __atomic_load_n(&omp_threads, __ATOMIC_ACQUIRE);
}

struct omp_figs *hs_omp_thr__figs(struct omp_thr *th, int id, bool create)
{
	struct omp_figs *p = __atomic_load_n(&th->page[id / OMP_PAGE], __ATOMIC_ACQUIRE);

	if (!p) {
		if (!create || !(p = calloc(OMP_PAGE, sizeof(*p))))
			return NULL;
		for (int i = 0; i < OMP_PAGE; i++)
			p[i].omp_thread = -1;
		__atomic_store_n(&th->page[id / OMP_PAGE], p, __ATOMIC_RELEASE);
	}
	return &p[id % OMP_PAGE];
}

/* Counters a thread alone writes, read at the end by another: relaxed
 * atomic stores keep the reader from tearing them. */
static inline void fig__add(uint64_t *f, uint64_t v)
{
	__atomic_store_n(f, *f + v, __ATOMIC_RELAXED);
}

/* The thread's label in the results (omp_thread): its number in the
 * first team it takes part in.  The core labels a thread whose first
 * region is inside a team; a master's first region often comes before its
 * team, and a thread outside any team reads omp_get_thread_num() 0, which
 * is no label. */
void hs_omp__label(int omp_thread)
{
	struct hs_thread *t = hs_self;

	if (t && t->agg && omp_thread >= 0 &&
	    __atomic_load_n(&t->agg->omp_thread, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&t->agg->omp_thread, omp_thread, __ATOMIC_RELAXED);
}

void hs_omp__work_begin(struct omp_thr *th, struct omp_construct *c,
			struct omp_share *s, long incr, int omp_thread)
{
	s->c = c;
	s->saved_cur = th->cur;
	s->saved_fig = th->fig;
	s->saved_incr = th->incr;
	s->fig = hs_omp_thr__figs(th, c->id, true);
	th->cur = s->fig ? c : NULL;
	if (s->fig)
		__atomic_store_n(&s->fig->omp_thread, omp_thread, __ATOMIC_RELAXED);
	hs_omp__label(omp_thread);
	th->fig = s->fig;
	th->incr = incr ? incr : 1;
	s->t0 = hs_clock__monotonic();
	hs_region__call_begin(&c->site, c->name, 0);
}

uint64_t hs_omp__work_end(struct omp_thr *th, struct omp_share *s)
{
	hs_region__call_end(&s->c->site, s->c->name, 0);
	s->t1 = hs_clock__monotonic();
	(void)th;
	return s->t1;
}

void hs_omp__barrier_begin(struct omp_thr *th, struct omp_share *s)
{
	s->task0 = hs_omp__task_total(th);
	hs_region__call_begin(&s->c->wait_site, s->c->wait_name, 0);
}

void hs_omp__barrier_end(struct omp_thr *th, struct omp_share *s, bool last)
{
	uint64_t t2, tasks;
	struct omp_figs *f = s->fig;

	hs_region__call_end(&s->c->wait_site, s->c->wait_name, 0);
	t2 = hs_clock__monotonic();
	tasks = hs_omp__task_total(th) - s->task0;
	if (f) {
		fig__add(&f->calls, 1);
		fig__add(&f->work_ns, s->t1 - s->t0);
		fig__add(&f->wait_ns, t2 - s->t1 > tasks ? t2 - s->t1 - tasks : 0);
		if (last)
			fig__add(&f->last, 1);
	}
	th->cur = s->saved_cur;
	th->fig = s->saved_fig;
	th->incr = s->saved_incr;
}

void hs_omp__work_done(struct omp_thr *th, struct omp_share *s)
{
	struct omp_figs *f = s->fig;

	if (f) {
		fig__add(&f->calls, 1);
		fig__add(&f->work_ns, s->t1 - s->t0);
	}
	th->cur = s->saved_cur;
	th->fig = s->saved_fig;
	th->incr = s->saved_incr;
}

void hs_omp__waited(struct omp_figs *f, uint64_t ns, bool last)
{
	__atomic_fetch_add(&f->wait_ns, ns, __ATOMIC_RELAXED);
	if (last)
		__atomic_fetch_add(&f->last, 1, __ATOMIC_RELAXED);
}

uint64_t hs_omp__task_total(struct omp_thr *th)
{
	return __atomic_load_n(&th->task_total, __ATOMIC_RELAXED);
}

void hs_omp__wait_begin(struct omp_thr *th, struct omp_wait *w)
{
	w->task0 = hs_omp__task_total(th);
	w->t0 = hs_clock__monotonic();
}

void hs_omp__wait_end(struct omp_thr *th, struct omp_wait *w, enum omp_sync k)
{
	uint64_t d = hs_clock__monotonic() - w->t0, tasks = hs_omp__task_total(th) - w->task0;
	struct omp_figs *f = th->fig;

	if (!f)
		return;
	d = d > tasks ? d - tasks : 0;
	if (k == OMP_SYNC_BARRIER) {
		fig__add(&f->barriers, 1);
		fig__add(&f->barrier_ns, d);
	} else {
		fig__add(&f->taskwaits, 1);
		fig__add(&f->taskwait_ns, d);
	}
}

void hs_omp__critical_acquired(struct omp_thr *th, struct omp_wait *w)
{
	uint64_t now = hs_clock__monotonic();

	if (th->ncrit < OMP_CRIT_DEPTH)
		th->crit_t[th->ncrit] = now;
	th->ncrit++;
	if (th->fig) {
		fig__add(&th->fig->criticals, 1);
		fig__add(&th->fig->critical_wait_ns, now - w->t0);
	}
}

void hs_omp__critical_released(struct omp_thr *th)
{
	if (th->ncrit <= 0)
		return;
	th->ncrit--;
	if (th->fig && th->ncrit < OMP_CRIT_DEPTH)
		fig__add(&th->fig->critical_held_ns,
			 hs_clock__monotonic() - th->crit_t[th->ncrit]);
}

void hs_omp__turn(struct omp_thr *th, struct omp_wait *w, enum omp_turn k)
{
	uint64_t d = hs_clock__monotonic() - w->t0;

	if (!th->fig)
		return;
	if (k == OMP_TURN_ORDERED) {
		fig__add(&th->fig->ordered, 1);
		fig__add(&th->fig->ordered_wait_ns, d);
	} else {
		fig__add(&th->fig->atomics, 1);
		fig__add(&th->fig->atomic_wait_ns, d);
	}
}

void hs_omp__taskloop(struct omp_thr *th, struct omp_wait *w)
{
	uint64_t d = hs_clock__monotonic() - w->t0,
		 tasks = hs_omp__task_total(th) - w->task0;

	if (!th->fig)
		return;
	fig__add(&th->fig->taskloops, 1);
	fig__add(&th->fig->taskloop_ns, d > tasks ? d - tasks : 0);
}

void hs_omp__chunk(struct omp_thr *th, uint64_t n)
{
	if (!th->fig)
		return;
	fig__add(&th->fig->chunks, 1);
	fig__add(&th->fig->iterations, n);
}

void hs_omp__single(struct omp_thr *th)
{
	if (th->fig)
		fig__add(&th->fig->singles, 1);
}

void hs_omp__task_created(struct omp_thr *th)
{
	if (th->fig)
		fig__add(&th->fig->tasks_created, 1);
}

void hs_omp__task_ran(struct omp_thr *th, uint64_t ns)
{
	fig__add(&th->task_total, ns); /* read by the master of a team (gomp.c) */
	if (th->fig) {
		fig__add(&th->fig->tasks_run, 1);
		fig__add(&th->fig->task_ns, ns);
	}
}

/* The parent's other threads are gone, and their figures with them: the
 * child's results start anew (the constructs stay known). */
void hs_omp_construct__fork_child(void)
{
	pthread_mutex_init(&omp_lock, NULL);
	__atomic_store_n(&omp_threads, NULL, __ATOMIC_RELAXED);
	for (int i = 0; i < omp_n; i++) { /* the child's own teams from here */
		omp_list[i]->teams = 0;
		omp_list[i]->team_max = 0;
	}
	if (hs_self && hs_omp_slot >= 0)
		hs_self->slot[hs_omp_slot] = NULL;
}
