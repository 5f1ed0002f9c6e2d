/* thread.c - one covered thread: its counters, frame storage and result.
 *
 * start runs on the thread itself (the constructor for the main thread,
 * interpose/pthread.c's trampoline for the others; adopt, for the main
 * thread when another thread started the shim early), stop at its end; in a
 * fork child, rebirth makes the forking thread the child's own and
 * discard drops the others.  The features hear of each through the hook
 * table.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/log.h"
#include "aggregate/trace.h"
#include "preload/core/core.h"
#include "preload/core/feature.h"

#define FRAMES_INIT 16

static void thread__free(struct hs_thread *t)
{
	free(t->byid);
	free(t->frames);
	free(t->store);
	free(t->now);
	free(t);
}

/* Events this thread cannot count (open failure, reserve, descriptors
 * closed by the program) are null in its results, with the reason. */
void hs_thread__sync_missing(struct hs_thread *t)
{
	__atomic_store_n(&t->agg->reads_user,
			 __atomic_load_n(&t->ctr.user_reads, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&t->agg->reads_syscall,
			 __atomic_load_n(&t->ctr.syscall_reads, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	t->agg->missing = __atomic_load_n(&t->ctr.missing, __ATOMIC_RELAXED);
	t->agg->err = t->ctr.err;
	t->agg->reason = __atomic_load_n(&t->ctr.reason, __ATOMIC_RELAXED);
}

/* Opens t's counters for the calling thread, from now on, into t->agg:
 * a new thread, or the forking thread in a fork child.  What the kernel
 * counted for the thread until now (since its clone or fork, through any
 * exec) is its "before start" bucket: taken last, right before the open,
 * so that the two add up to the thread's whole life. */
static void thread__open(struct hs_thread *t)
{
	t->agg->start_ns = hs_clock__realtime();
	t->agg->start_mono = hs_clock__monotonic();
	hs_taskstat__self(&t->agg->before);
	pmu_counters__open(&t->ctr, &hs_proc.evlist);
	hs_region__calibrate(t, 0);
	hs_region__select(t);
	hs_thread__sync_missing(t);
	if (t->ctr.missing)
		hs_log(HS_LOG_DEBUG, "thread %d: some counters not opened: %s",
		       t->agg->tid, t->ctr.reason);
}

/* A thread's region records are made at the first BEGIN of each name,
 * often while an enclosing region is open (region.c): an allocation that
 * reaches a fresh heap page would add that page fault to the enclosing
 * region.  Touching the allocator's next pages now, outside any region,
 * keeps the records of a thread's first names (some 25, about 300 bytes
 * each) from faulting; past them a record may still fault once per page
 * (docs/internals.md).  Done before the thread's counters open, so these
 * faults are nobody's. */
#define WARM_HEAP (8 * 1024)

static void thread__warm_heap(void)
{
	volatile char *p = malloc(WARM_HEAP);

	if (!p)
		return;
	for (size_t i = 0; i < WARM_HEAP; i += 1024)
		p[i] = 0;
	free((void *)p);
}

struct hs_thread *hs_thread__start(void)
{
	struct hs_thread *t = calloc(1, sizeof(*t));
	int nev = hs_proc.evlist.nevents;

	if (!t)
		return NULL;
	t->nev = nev;
	t->main_ev = hs_proc.main_ev;
	t->ntimed = hs_proc.ntimed;
	memcpy(t->timed, hs_proc.timed, sizeof(t->timed));
	/* Any nonzero seed; threads differ by tid and start time. */
	t->rng = ((uint64_t)gettid() * 0x9E3779B97F4A7C15ull) ^ hs_clock__monotonic();
	t->rng |= 1;
	t->now = calloc(2 * (size_t)nev, sizeof(struct count)); /* and the sink */
	t->agg = agg_thread__new(gettid(), nev);
	if (!t->now || !t->agg || hs_stack__reserve(t, FRAMES_INIT) < 0 ||
	    agg_trace__attach(t->agg, hs_proc.cfg.trace) < 0)
		goto fail_free;
	thread__warm_heap(); /* before the counters open: not the thread's faults */
	thread__open(t);

	pthread_mutex_lock(&hs_proc.lock);
	if (__atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) != HS_RUNNING) {
		pthread_mutex_unlock(&hs_proc.lock);
		pmu_counters__close(&t->ctr);
		goto fail_free;
	}
	t->next = hs_proc.live;
	if (t->next)
		t->next->prev = t;
	hs_proc.live = t;
	pthread_mutex_unlock(&hs_proc.lock);
	hs_features__thread_start(t);
	return t;

fail_free:
	agg_thread__delete(t->agg);
	thread__free(t);
	return NULL;
}

void hs_thread__adopt(void)
{
	if (!hs_self && __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) == HS_RUNNING)
		hs_self = hs_thread__start();
}

/* Under the lock throughout: the exit path may be reading this thread's
 * counters and records, and a closed fd number could be reused by the
 * host program before that read. */
void hs_thread__stop(struct hs_thread *t)
{
	bool ok;

	pthread_mutex_lock(&hs_proc.lock);
	if (__atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) != HS_RUNNING) {
		/* Exit already collected this thread: its fds and records are
		 * being read, so leave them (and this object) alone. */
		pthread_mutex_unlock(&hs_proc.lock);
		return;
	}
	hs_features__thread_stop(t);
	ok = pmu_counters__read(&t->ctr, t->now) == 0;
	if (!ok)
		hs_atomic__add(&t->agg->warn.read_errors, 1);
	hs_thread__sync_missing(t);
	hs_features__thread_end(t);
	pmu_counters__close(&t->ctr);
	hs_region__close_all(t, ok);
	agg_thread__set_totals(t->agg, t->now);
	agg_thread__seal(t->agg);
	t->agg->end_ns = hs_clock__realtime();
	t->agg->end_mono = hs_clock__monotonic();
	if (t->prev)
		t->prev->next = t->next;
	else
		hs_proc.live = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->agg->next = hs_proc.done;
	hs_proc.done = t->agg;
	pthread_mutex_unlock(&hs_proc.lock);
	thread__free(t);
}

/* Frees a thread object and its results (fork child: not our threads). */
void hs_thread__discard(struct hs_thread *t)
{
	hs_features__thread_forget(t);
	pmu_counters__forget_pages(&t->ctr);
	pmu_counters__close(&t->ctr);
	agg_thread__delete(t->agg);
	thread__free(t);
}

int hs_thread__rebirth(struct hs_thread *t)
{
	struct agg_thread *agg = agg_thread__new(gettid(), t->nev), *parent;

	/* The inherited fds count the parent's thread: close them. */
	hs_features__thread_forget(t);
	pmu_counters__forget_pages(&t->ctr);
	pmu_counters__close(&t->ctr);
	if (!agg || agg_trace__attach(agg, hs_proc.cfg.trace) < 0) {
		agg_thread__delete(agg);
		return -1;
	}
	parent = t->agg;
	t->agg = agg;
	thread__open(t);
	/* Regions open across fork() go on in the child, counted from the
	 * fork: fresh counters start at zero, so the frames start there. */
	for (int i = 0; i < t->depth; i++) {
		struct hs_frame *f = &t->frames[i];
		const char *name = f->region->name; /* the parent's, freed below */

		f->region = agg_thread__find(agg, name);
		if (!f->region) /* the tree as before the fork */
			f->region = agg_thread__add(
				agg, name, i ? t->frames[i - 1].region : NULL);
		if (!f->region) { /* out of memory: drop this frame and above */
			t->depth = i;
			break;
		}
		f->region->open++;
		f->id = -1; /* its site's record is the parent's: no one pass */
		memset(f->start, 0, (size_t)t->nev * sizeof(struct count));
		memset(f->child, 0, (size_t)t->nev * sizeof(struct count));
		f->valid = true;
	}
	agg_thread__delete(parent);
	/* The cached records were the parent's. */
	if (t->byid)
		memset(t->byid, 0, (size_t)t->nids * sizeof(*t->byid));
	t->omp_checked = false;
	t->prev = t->next = NULL;
	return 0;
}
