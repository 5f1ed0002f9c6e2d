/* flush.c - the periodic flush (HPCSHIM_FLUSH): the results so far,
 * published every period, so that a SIGKILL or a raw exit_group (Go's
 * runtime, hydra's kill on MPI_Abort) loses at most one period.
 *
 * One thread of the shim's own does it.  It is started with the real
 * pthread_create (no counters, not in the live list), with every signal
 * blocked (a signal for the program never runs on it), reports its tid
 * to the uncovered-thread scan as ours, and is started again in a fork
 * child.  Nothing waits for it: at the end of the image it finds the
 * state no longer running and returns, or the process ends around it; a
 * flush that was under way cannot replace the end's file (publish.c).
 *
 * A flush holds the core lock only to take the list of threads: for each
 * live thread its counters read now (the descriptors stay open while the
 * lock is held), its tallies and missing events; the finished threads as
 * they are (never changed again).  The live threads' region records are
 * not copied: records are never freed or moved, and the writer copies
 * each one, when it reads it, under the thread's sequence count
 * (common/seqlock.h, aggregate/view.c) into a buffer of one record, so
 * every region in a flush is consistent (calls, inclusive, exclusive and
 * per-call statistics of the same completed calls) and a flush needs
 * memory for one record at a time, not a copy of them all.  Open regions are not in it (only their closed calls), nor the
 * features' parts (rotation, series, ranges, metrics): a flush contains
 * what the end would write if the open regions had not been closed.
 *
 * The period stretches to ten times the last flush's duration, so the
 * flushes of a large result never take more than a tenth of one core.
 *
 * The thread starts with the process (hs_flush__start), so that a
 * SIGKILL loses at most one period of any process.  Issue 18 tried a lazy
 * start (at the program's first pthread_create, or at a region END one
 * period after the start), which keeps glibc's single-threaded fast paths (57
 * instructions less per read(), tests/pmubed) and the thread off the
 * start; but a process that neither creates a thread nor ends a region
 * then had no periodic flush at all.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/core/core.h"

#define FLUSH_DUTY 10   /* period >= FLUSH_DUTY x the last flush's time */

static void flush__launch(void);
static int launched; /* the thread was created in this image (CAS) */

/* The flusher sleeps on wake_cv; the main thread's pthread_exit sets stop
 * (a key destructor runs only then, never at exit()).  glibc ends the
 * process when its last thread ends, counting ours: the flusher must be
 * gone by then, or the process would outlive the program. */
static pthread_mutex_t wake_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cv;
static bool stop;
static pthread_key_t main_key;
static bool main_key_made;

static void flush__main_exit(void *v)
{
	(void)v;
	pthread_mutex_lock(&wake_mu);
	stop = true;
	pthread_cond_signal(&wake_cv);
	pthread_mutex_unlock(&wake_mu);
}

/* A live thread as the flush writes it: an agg_thread of its own with the
 * counters read at the flush and the tallies, sharing the thread's region
 * records, which the view copies one at a time under the thread's
 * sequence count (aggregate/view.c). */
static struct agg_thread *flush__new_copy(const struct hs_thread *t,
					  const struct count *now, uint64_t at,
					  uint64_t at_mono)
{
	const struct agg_thread *a = t->agg;
	struct agg_thread *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->totals = calloc((size_t)(t->nev ? t->nev : 1), sizeof(struct count));
	if (!c->totals) {
		free(c);
		return NULL;
	}
	memcpy(c->totals, now, (size_t)t->nev * sizeof(struct count));
	c->tid = a->tid;
	c->nev = a->nev;
	c->start_ns = a->start_ns;
	c->end_ns = at;
	c->start_mono = a->start_mono;
	c->end_mono = at_mono;
	c->alive_at_exit = true;
	c->omp_thread = __atomic_load_n(&a->omp_thread, __ATOMIC_RELAXED);
	/* Names are kept until the thread's results are freed. */
	c->name = __atomic_load_n(&a->name, __ATOMIC_ACQUIRE);
	c->reads_user = __atomic_load_n(&t->ctr.user_reads, __ATOMIC_RELAXED);
	c->reads_syscall = __atomic_load_n(&t->ctr.syscall_reads, __ATOMIC_RELAXED);
	c->missing = a->missing;
	c->err = a->err;
	c->reason = a->reason;
	/* Records are never freed or moved while the process runs; those
	 * published after this are read too (the list is append-only). */
	c->head = __atomic_load_n(&a->head, __ATOMIC_ACQUIRE);
	c->records_seq = &a->seq;
	c->warn.unmatched_end = hs_atomic__get(&a->warn.unmatched_end);
	c->warn.auto_closed = hs_atomic__get(&a->warn.auto_closed);
	c->warn.depth_overflow = hs_atomic__get(&a->warn.depth_overflow);
	c->warn.read_errors = hs_atomic__get(&a->warn.read_errors);
	return c;
}

static void flush__free_copies(struct agg_thread *c, const struct agg_thread *done)
{
	while (c && c != done) {
		struct agg_thread *next = c->next;

		free(c->totals);
		free(c);
		c = next;
	}
}

/* One flush at a time: the periodic one, the MPI snapshot and
 * hs_flush__now may be asked for at once from two threads (TSan saw an
 * MPI snapshot's view and the periodic flush's run together), and a
 * flush is not written for concurrency with itself.  Never taken by the
 * end of the image, which does not wait for a flush. */
static pthread_mutex_t once_mu = PTHREAD_MUTEX_INITIALIZER;

static bool flush__once_locked(enum hs_end end, const struct agg_tap *tap);

/* One flush (end: HS_END_FLUSH, or HS_END_SNAPSHOT rendered in memory):
 * false when the image is no longer running. */
static bool flush__once(enum hs_end end)
{
	bool r;

	pthread_mutex_lock(&once_mu);
	r = flush__once_locked(end, NULL);
	pthread_mutex_unlock(&once_mu);
	return r;
}

static bool flush__once_locked(enum hs_end end, const struct agg_tap *tap)
{
	struct agg_thread *copies = NULL, *done;
	struct agg_uncovered *unc = NULL;
	struct count now[PMU_MAX_EVENTS];
	uint64_t at, at_mono;
	int nunc;

	pthread_mutex_lock(&hs_proc.lock);
	if (__atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) != HS_RUNNING ||
	    getpid() != hs_proc.pid) {
		pthread_mutex_unlock(&hs_proc.lock);
		return false;
	}
	at = hs_clock__realtime();
	at_mono = hs_clock__monotonic();
	done = hs_proc.done;
	for (struct hs_thread *t = hs_proc.live; t; t = t->next) {
		struct agg_thread *c;

		if (pmu_counters__read_other(&t->ctr, now) != 0)
			hs_atomic__add(&t->agg->warn.read_errors, 1);
		c = flush__new_copy(t, now, at, at_mono);
		if (!c)
			break;
		c->next = copies;
		copies = c;
	}
	nunc = hs_uncovered__scan(&unc);
	pthread_mutex_unlock(&hs_proc.lock);

	/* The copies first, then the finished threads as they are. */
	if (copies) {
		struct agg_thread *last = copies;

		while (last->next)
			last = last->next;
		last->next = done;
	} else {
		copies = done;
	}
	hs_process__write(copies, at, at_mono, end, 0, unc, nunc, tap);
	flush__free_copies(copies, done);
	free(unc);
	return true;
}

/* false when the flusher must go (the main thread called pthread_exit). */
static bool flush__sleep_until(uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline / 1000000000ull),
		.tv_nsec = (long)(deadline % 1000000000ull),
	};
	bool go_on;

	pthread_mutex_lock(&wake_mu);
	while (!stop && pthread_cond_timedwait(&wake_cv, &wake_mu, &ts) != ETIMEDOUT)
		;
	go_on = !stop;
	pthread_mutex_unlock(&wake_mu);
	return go_on;
}

static void flush__fork_child(void);

static void *flush__main(void *arg)
{
	uint64_t period = hs_proc.cfg.flush_ns, next;

	(void)arg;
	__atomic_store_n(&hs_proc.flusher, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELAXED);
	next = hs_clock__monotonic() + period;
	for (;;) {
		uint64_t t0, took;

		if (!flush__sleep_until(next))
			return NULL;
		t0 = hs_clock__monotonic();
		if (!flush__once(HS_END_FLUSH))
			return NULL;
		took = hs_clock__monotonic() - t0;
		next = t0 + (period > FLUSH_DUTY * took ? period : FLUSH_DUTY * took);
	}
}

bool hs_flush__now(void)
{
	return flush__once(HS_END_FLUSH);
}

char *hs_flush__snapshot(size_t *len)
{
	return hs_flush__snapshot_tap(len, NULL);
}

char *hs_flush__snapshot_tap(size_t *len, const struct agg_tap *tap)
{
	bool r;

	pthread_mutex_lock(&once_mu);
	r = flush__once_locked(HS_END_SNAPSHOT, tap);
	pthread_mutex_unlock(&once_mu);
	return r ? hs_publish__take_rendered(len) : NULL;
}

static void flush__fork_child(void)
{
	if (getpid() != hs_proc.pid) /* the core left this child alone */
		return;
	hs_publish__fork_child();
	hs_flush__start();
}

/* Starts the flush on the process's main thread (the constructor, or the
 * one thread of a fork child). */
void hs_flush__start(void)
{
	pthread_condattr_t ca;

	__atomic_store_n(&hs_proc.flusher, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&launched, 0, __ATOMIC_RELAXED);
	/* Fresh in a fork child: the parent's flusher may have held it. */
	pthread_mutex_init(&once_mu, NULL);
	if (!hs_proc.cfg.flush_ns || !hs_real__pthread_create() ||
	    __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) != HS_RUNNING)
		return;
	/* Fresh in a fork child too: the parent's flusher may have held them. */
	pthread_mutex_init(&wake_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wake_cv, &ca);
	pthread_condattr_destroy(&ca);
	stop = false;
	if (!main_key_made && pthread_key_create(&main_key, flush__main_exit) == 0) {
		main_key_made = true;
		/* After the core's own child handler (registered before). */
		pthread_atfork(NULL, NULL, flush__fork_child);
	}
	/* The calling thread is the process's main thread (the constructor,
	 * or the one thread of a fork child). */
	if (main_key_made)
		pthread_setspecific(main_key, &main_key);
	flush__launch();
}

/* With every signal blocked while it is created, the thread starts with
 * them all blocked; the caller's mask is restored. */
static void flush__launch(void)
{
	hs_real_pthread_create_fn create = hs_real__pthread_create();
	sigset_t all, old;
	pthread_attr_t attr;
	clockid_t cid;
	pthread_t th;
	int rc, expected = 0;

	if (!__atomic_compare_exchange_n(&launched, &expected, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	if (__atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) != HS_RUNNING)
		return;
	sigfillset(&all);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = create(&th, &attr, flush__main, NULL);
	/* Its tid now, before it runs: a process that ends at once must not
	 * list it as an uncovered thread.  The kernel encodes the tid in a
	 * thread's CPU clock id as ~tid << 3 (the thread sleeps a period
	 * before it can end). */
	if (rc == 0 && pthread_getcpuclockid(th, &cid) == 0)
		__atomic_store_n(&hs_proc.flusher, (pid_t) ~(cid >> 3),
				 __ATOMIC_RELAXED);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_FLUSH: no thread for the periodic flush (%s); results "
		       "are written at the end only",
		       strerror(rc));
}
