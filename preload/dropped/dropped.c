/* dropped.c - threads whose events could not be counted are never silent.
 *
 * A thread whose counters did not all open at its start (no descriptor
 * room above the program's RLIMIT_NOFILE, an open failure) has those
 * events null in its entry, with the reason.  That alone is easy to miss
 * among thousands of entries while the totals quietly cover fewer
 * threads, so: one stderr line at the first such thread, one summary line
 * per reason at the end (`hpcshim: N of M threads not counted: reason`),
 * and the same figures in the document's top-level "warnings".
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>

#include "aggregate/aggregate.h"
#include "preload/base/log.h"
#include "preload/core/core.h"
#include "preload/dropped/dropped.h"

#define MAX_REASONS 8

static struct {
	pthread_mutex_t lock;
	uint64_t started; /* atomic */
	bool said;
	bool probe_no_room; /* no event opened at all: no descriptor room */
	int n;
	const char *reason[MAX_REASONS];
	uint64_t threads[MAX_REASONS];
	struct agg_warning out[MAX_REASONS];
} dropped = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void dropped__first(const struct hs_thread *t)
{
	struct rlimit view;

	if (t->ctr.err != EMFILE) {
		hs_log(HS_LOG_ERROR,
		       "thread %d not counted: %s (the count of such threads is "
		       "given at exit)",
		       t->agg->tid, t->ctr.reason);
		return;
	}
	pmu_fdspace__program(&view);
	hs_log(HS_LOG_ERROR,
	       "thread %d not counted: %s; RLIMIT_NOFILE soft %llu, hard %llu "
	       "(threads started from now on are not counted while this lasts; "
	       "their count is given at exit)",
	       t->agg->tid, t->ctr.reason, (unsigned long long)view.rlim_cur,
	       (unsigned long long)view.rlim_max);
}

/* No room from the start: the probe opened nothing (and said so on
 * stderr), so every thread goes uncounted for that reason. */
static void dropped__setup(struct pmu_evlist *el, const struct hs_config *cfg)
{
	(void)cfg;
	dropped.probe_no_room = pmu_evlist__nok(el) == 0 && pmu_fdspace__no_room();
	dropped.said = dropped.probe_no_room;
}

static void dropped__thread_start(struct hs_thread *t)
{
	const char *why = t->ctr.missing ? t->ctr.reason : NULL;
	int i;

	__atomic_add_fetch(&dropped.started, 1, __ATOMIC_RELAXED);
	if (dropped.probe_no_room)
		why = pmu_errno__reason(EMFILE);
	if (!why)
		return;
	pthread_mutex_lock(&dropped.lock);
	for (i = 0; i < dropped.n && dropped.reason[i] != why; i++)
		;
	if (i == dropped.n && i < MAX_REASONS) {
		dropped.reason[i] = why;
		__atomic_store_n(&dropped.n, i + 1, __ATOMIC_RELEASE);
	}
	if (i < MAX_REASONS)
		__atomic_add_fetch(&dropped.threads[i], 1, __ATOMIC_RELAXED);
	if (!dropped.said) {
		dropped.said = true;
		dropped__first(t);
	}
	pthread_mutex_unlock(&dropped.lock);
}

/* A fork child is a process of its own: its threads, its lines. */
static void dropped__fork_child(void)
{
	pthread_mutex_init(&dropped.lock, NULL);
	dropped.started = 0;
	dropped.said = dropped.probe_no_room;
	dropped.n = 0;
	memset(dropped.threads, 0, sizeof(dropped.threads));
}

/* At the end (also in a fatal signal's handler): no lock, the figures are
 * atomics and the reasons static texts. */
static void dropped__result(struct agg_process *p, bool partial)
{
	uint64_t of = __atomic_load_n(&dropped.started, __ATOMIC_RELAXED);
	int n = __atomic_load_n(&dropped.n, __ATOMIC_ACQUIRE);

	if (partial)
		return;
	for (int i = 0; i < n; i++) {
		struct agg_warning *w = &dropped.out[i];

		w->what = "threads not counted";
		w->reason = dropped.reason[i];
		w->threads = __atomic_load_n(&dropped.threads[i], __ATOMIC_RELAXED);
		w->of = of;
		hs_log(HS_LOG_ERROR, "%llu of %llu threads not counted: %s",
		       (unsigned long long)w->threads, (unsigned long long)of,
		       w->reason);
	}
	p->warnings = dropped.out;
	p->nwarnings = n;
}

const struct hs_feature hs_dropped_feature = {
	.name = "dropped",
	.setup = dropped__setup,
	.thread_start = dropped__thread_start,
	.fork_child = dropped__fork_child,
	.result = dropped__result,
};
