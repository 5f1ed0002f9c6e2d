/* range.c - the range feature: range restriction, checkpoints and
 * start/stop triggers, plugged into the core through hs_range_feature.
 *
 * This file is the lifecycle: the configuration step, the start, a
 * covered thread's start and end, the fork child and the exit collection.
 * The pieces are one concept per file (internal.h lists them); the state
 * they share is hs_rng (state.c).
 */
#include <unistd.h>

#include "common/lock.h"
#include "preload/base/log.h"
#include "preload/core/feature.h"
#include "preload/interpose/dlopen.h"
#include "preload/range/internal.h"
#include "preload/range/range.h"
#include "preload/core/core.h"

/* The feature's variables (config.c); large (the places as written): not
 * on a stack. */
static struct hs_range_config range_config;

/* What the core must know of them: the privilege level applies to every
 * counted event (HPCSHIM_PRIVILEGE belongs to this feature's variables),
 * active or not; a trigger switches every thread's counters at once
 * (trigger.c), which another feature may not combine with its own
 * switching (mux's rotation). */
static void hs_range__config(struct hs_config *cfg)
{
	hs_range_config__from_env(&range_config);
	hs_rng.rc = &range_config;
	cfg->privilege = range_config.privilege;
	if (range_config.has_start || range_config.has_stop)
		cfg->switcher = "HPCSHIM_TRIGGER";
}

/* Before the probe: the list the samplers and points refer to. */
static void hs_range__configure(struct hs_config *cfg, struct pmu_evlist *el)
{
	(void)cfg;
	hs_rng.el = el;
}

/* dlopen loaded something while a point waits for its object: resolve
 * and arm what waited; unhook once nothing waits any more. */
static void hs_range__loaded(void)
{
	if (!hs_rng.active || hs_process__foreign())
		return;
	pthread_mutex_lock(&hs_rng.lock);
	if (!hs_rng.frozen)
		hs_range_resolve__new_objects(true);
	pthread_mutex_unlock(&hs_rng.lock);
	if (!hs_range_points__pending())
		hs_dlopen__on_load(NULL);
}

/* The core is ready, no thread counted yet. */
static void hs_range__init(void)
{
	if (!hs_rng.rc || !rng_config__active(hs_rng.rc))
		return;
	hs_rng.active = true;
	hs_rng.pid = getpid();
	hs_range_sampling__init();
	hs_range_points__init();
	hs_range_resolve__start();
	hs_range_trig__init(); /* after the start point had its chance to be dropped */
	hs_range_trig__install_handler();
	if (hs_range_points__pending())
		hs_dlopen__on_load(hs_range__loaded);
}

static void hs_range__thread_start(struct hs_thread *t)
{
	const struct pmu_evlist *el = hs_rng.el;
	struct agg_range_thread *res;
	struct rng_slot *s;
	int ceiling;

	if (!hs_rng.active || !t)
		return;
	res = agg_range_thread__new(hs_rng.nsev, hs_rng.rc->nranges, hs_rng.ncp);
	if (!res)
		return;
	ceiling = pmu_sys__fd_ceiling();
	pthread_mutex_lock(&hs_rng.lock);
	hs_range_drain__ensure();
	/* After the collection the writer reads t->agg unlocked: hands off. */
	s = hs_rng.frozen ? NULL : hs_range_slot__claim(res); /* s->spin held */
	if (!s)
		goto fail_unlock;
	/* The trigger switches the thread's counters through their group
	 * leaders (pmu_counters has no accessor for a leader's descriptor). */
	for (int g = 0; g < el->ngroups; g++)
		if (t->ctr.fd[el->grp[g].idx[0]] >= 0)
			s->leader[s->nleader++] = t->ctr.fd[el->grp[g].idx[0]];
	hs_range_rings__open(s, ceiling);
	hs_range_points__open(s, 0);
	t->agg->range = res;
	hs_range_slot__bind(s);
	pthread_mutex_unlock(&hs_rng.lock);
	hs_range_slot__release(s, false); /* and catch up with the trigger state */
	return;

fail_unlock:
	pthread_mutex_unlock(&hs_rng.lock);
	agg_range_thread__delete(res);
}

/* At the thread's end, after the final read of its counters and before
 * they close: the leaders in the slot are still the thread's. */
static void hs_range__thread_stop(struct hs_thread *t)
{
	struct rng_slot *s = hs_range_slot__self();

	(void)t;
	if (!s)
		return;
	hs_range_slot__bind(NULL);
	pthread_mutex_lock(&hs_rng.lock);
	if (!hs_rng.frozen)
		hs_range_resolve__new_objects(true);
	hs_range_slot__spin(s);
	/* Not live first: the handler must not switch descriptors that are
	 * about to be closed (and whose numbers the program may reuse). */
	__atomic_store_n(&s->live, 0, __ATOMIC_SEQ_CST);
	if (!hs_rng.frozen)
		hs_range_slot__drain(s);
	hs_range_rings__close(s, true);
	if (!hs_rng.frozen)
		hs_range_points__read(s);
	hs_range_points__close(s);
	__atomic_store_n(&s->spin, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&hs_rng.lock);
}

/* In a fork child: the other threads do not exist, the drain thread does
 * not either, every inherited descriptor describes the parent, and the
 * rings were not inherited at all (MADV_DONTFORK).  The forking thread is
 * started again by the core (thread_start). */
static void hs_range__fork_child(void)
{
	if (!hs_rng.active)
		return;
	pthread_mutex_init(&hs_rng.lock, NULL);
	hs_rng.pid = getpid();
	for (struct rng_slot *s = hs_rng.slots; s; s = s->next) {
		__atomic_store_n(&s->spin, 0, __ATOMIC_RELAXED);
		if (!__atomic_load_n(&s->live, __ATOMIC_RELAXED))
			continue;
		hs_range_rings__close(s, false);
		hs_range_points__close(s);
		__atomic_store_n(&s->live, 0, __ATOMIC_RELAXED);
	}
	hs_range_drain__fork_child();
	hs_range_slot__bind(NULL);
}

/* At exit, under hs_proc.lock: the last samples and checkpoint counts of
 * every live thread, then the state is frozen for the writer. */
static void hs_range__collect(bool in_signal)
{
	if (!hs_rng.active)
		return;
	if (!hs_lock__mutex(&hs_rng.lock, in_signal)) {
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_RANGE: a signal arrived while samples "
		       "were being drained; the last samples are not counted");
		return;
	}
	hs_range_resolve__new_objects(false);
	for (struct rng_slot *s = hs_rng.slots; s; s = s->next) {
		if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) ||
		    !hs_range_slot__spin_bounded(s, in_signal))
			continue;
		hs_range_slot__drain(s);
		hs_range_points__read(s);
		hs_range_slot__release(s, true);
	}
	hs_rng.frozen = true;
	pthread_mutex_unlock(&hs_rng.lock);
	hs_range_result__report_unresolved();
}

/* Each thread's "ranges" first among the sections; the process's
 * "ranges" last in the document. */
static const struct agg_section range_section = {
	.name = "range",
	.order = 5,
	.tail = agg_range__tail,
	.thread = agg_range__thread,
};

static void hs_range__result(struct agg_process *p, bool partial)
{
	if (partial || !hs_rng.active)
		return;
	agg_sections__add(&p->sections, &range_section, hs_range_result__build());
}

/* Our drain thread is not an uncovered program thread. */
static bool hs_range__own_task(pid_t tid)
{
	return hs_rng.active && hs_range_drain__own_task(tid);
}

const struct hs_feature hs_range_feature = {
	.name = "range",
	.config = hs_range__config,
	.configure = hs_range__configure,
	.start = hs_range__init,
	.thread_start = hs_range__thread_start,
	.thread_end = hs_range__thread_stop,
	.fork_child = hs_range__fork_child,
	.collect = hs_range__collect,
	.result = hs_range__result,
	.own_task = hs_range__own_task,
};
