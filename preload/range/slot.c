/* slot.c - the per-thread slot registry and a slot's descriptor lock.
 *
 * A covered thread's sampling rings, checkpoints and trigger breakpoints
 * sit in one slot.  The registry is a list that only grows (the SIGTRAP
 * handler walks it without a lock, so a slot is never freed); a slot whose
 * thread ended is taken again by the next thread.  The descriptors of a
 * slot are switched by whoever holds its spin lock: the thread itself,
 * the thread that resolved a point (dlopen), the exit collection, or the
 * SIGTRAP handler of any thread, which only tries it (see internal.h).
 */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/lock.h"
#include "preload/range/internal.h"

static __thread struct rng_slot *slot_self __attribute__((tls_model("initial-exec")));

struct rng_slot *hs_range_slot__self(void)
{
	return slot_self;
}

void hs_range_slot__bind(struct rng_slot *s)
{
	slot_self = s;
}

struct rng_slot *hs_range_slot__claim(struct agg_range_thread *res)
{
	struct rng_slot *s;

	for (s = hs_rng.slots; s; s = s->next)
		if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
			break;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		s->next = hs_rng.slots;
		__atomic_store_n(&hs_rng.slots, s, __ATOMIC_RELEASE);
	}
	hs_range_slot__spin(s);
	s->tid = gettid();
	s->res = res;
	s->nleader = 0;
	for (int k = 0; k < PMU_MAX_EVENTS; k++)
		s->ring[k] = (struct pmu_ring){ .fd = -1 };
	for (int i = 0; i < RNG_MAX_POINTS; i++)
		s->cp[i] = -1;
	s->trig[0] = s->trig[1] = -1;
	/* The counters were opened disabled iff a start trigger waits. */
	s->applied = hs_rng.has_trig[TRIG_START] && !hs_rng.trig[TRIG_START].dropped ?
			     TRIG_WAIT :
			     TRIG_STARTED;
	__atomic_store_n(&s->live, 1, __ATOMIC_SEQ_CST);
	return s;
}

/* ---- the descriptor lock ----------------------------------------------- */

bool hs_range_slot__try(struct rng_slot *s)
{
	int free_ = 0;

	return __atomic_compare_exchange_n(&s->spin, &free_, 1, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

void hs_range_slot__spin(struct rng_slot *s)
{
	while (!hs_range_slot__try(s))
		sched_yield();
}

static bool slot__try_any(void *s)
{
	return hs_range_slot__try(s);
}

bool hs_range_slot__spin_bounded(struct rng_slot *s, bool in_signal)
{
	if (!in_signal) {
		hs_range_slot__spin(s);
		return true;
	}
	return hs_lock__bounded(slot__try_any, s);
}

/* A holder that let go must look at the trigger state again: the SIGTRAP
 * handler skips slots it cannot lock (seq_cst on both sides: either the
 * handler gets the lock or we see its new state). */
void hs_range_slot__release(struct rng_slot *s, bool in_signal)
{
	int applied = s->applied;

	__atomic_store_n(&s->spin, 0, __ATOMIC_SEQ_CST);
	if (!in_signal && __atomic_load_n(&s->live, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&hs_rng.state, __ATOMIC_SEQ_CST) != applied)
		hs_range_slot__apply(s, false);
}

/* ---- the trigger state of a slot's descriptors ------------------------- */

/* Puts s's descriptors in state st (under s->spin). */
static void slot__set(struct rng_slot *s, int st)
{
	bool on = st == TRIG_STARTED, was_on = s->applied == TRIG_STARTED;
	bool wait = st == TRIG_WAIT, was_wait = s->applied == TRIG_WAIT;

	if (on != was_on) {
		void (*sw)(int, bool) = on ? pmu_fd__enable : pmu_fd__disable;

		for (int i = 0; i < s->nleader; i++)
			sw(s->leader[i], true);
		for (int k = 0; k < hs_rng.nsev; k++)
			sw(s->ring[k].fd, false);
		for (int i = 0; i < hs_rng.ncp; i++)
			sw(s->cp[i], false);
		sw(s->trig[TRIG_STOP], false);
	}
	if (wait != was_wait)
		(wait ? pmu_fd__enable : pmu_fd__disable)(s->trig[TRIG_START], false);
	s->applied = st;
}

void hs_range_slot__apply(struct rng_slot *s, bool in_handler)
{
	for (;;) {
		int st;

		if (in_handler) {
			if (!hs_range_slot__try(s))
				return; /* the holder catches up when it lets go */
		} else {
			hs_range_slot__spin(s);
		}
		st = __atomic_load_n(&hs_rng.state, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&s->live, __ATOMIC_SEQ_CST) && s->applied != st)
			slot__set(s, st);
		__atomic_store_n(&s->spin, 0, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&s->live, __ATOMIC_SEQ_CST) ||
		    __atomic_load_n(&hs_rng.state, __ATOMIC_SEQ_CST) == st)
			return;
	}
}
