/* sampling.c - which counted events are sampled, how often, and each
 * covered thread's sampling rings.
 *
 * Counts restricted to a code range come from IP sampling: every covered
 * thread has, per sampled event, a sampling descriptor with an mmap ring
 * (opened disabled while a start trigger waits).  Each ring is watched by
 * the drain thread's epoll descriptor (drain.c), which the kernel wakes
 * when the ring is half full: the program's threads are never interrupted
 * for this (no signal, no EINTR in its system calls).
 */
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "preload/base/log.h"
#include "preload/range/internal.h"

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK ||
		a->config == PERF_COUNT_SW_CPU_CLOCK);
}

/* Defaults: clocks every 100 us (10 kHz per thread), other software events
 * every event (exact attribution), hardware events every 1000003. */
static uint64_t period__default(const struct perf_event_attr *a)
{
	if (is_clock(a))
		return 100000;
	return a->type == PERF_TYPE_SOFTWARE ? 1 : 1000003;
}

void hs_range_sampling__init(void)
{
	const struct hs_range_config *rc = hs_rng.rc;
	const struct pmu_evlist *el = hs_rng.el;
	bool used[PMU_MAX_EVENTS] = { false };

	for (int i = 0; rc->nranges && i < el->nevents; i++) {
		const struct pmu_event *ev = &el->ev[i];
		uint64_t p = period__default(&ev->attr);

		if (ev->status != PMU_EV_OK)
			continue;
		for (int j = 0; j < rc->nperiods; j++)
			if (!rc->period[j].event[0]) {
				p = rc->period[j].period;
				used[j] = true;
			}
		for (int j = 0; j < rc->nperiods; j++)
			if (strcmp(rc->period[j].event, ev->name) == 0) {
				p = rc->period[j].period;
				used[j] = true;
			}
		if (p == 0)
			continue;
		if (is_clock(&ev->attr) && p < PMU_CLOCK_MIN_PERIOD)
			p = PMU_CLOCK_MIN_PERIOD;
		hs_rng.sev_ev[hs_rng.nsev] = i;
		hs_rng.sev_period[hs_rng.nsev++] = p;
	}
	for (int j = 0; j < rc->nperiods; j++)
		if (!used[j] && rc->nranges)
			hs_log(HS_LOG_ERROR,
			       "HPCSHIM_RANGE_PERIOD: '%.60s=%llu' ignored: "
			       "not a counted event (see HPCSHIM_EVENTS)",
			       rc->period[j].event[0] ? rc->period[j].event : "",
			       (unsigned long long)rc->period[j].period);
	if (rc->nranges && hs_rng.nsev == 0) {
		snprintf(hs_rng.sampling_note, sizeof(hs_rng.sampling_note),
			 "no counted "
			 "event to sample (every event dropped or given period 0): "
			 "the ranges count nothing");
		hs_log(HS_LOG_ERROR, "HPCSHIM_RANGE: %s", hs_rng.sampling_note);
	}
	/* What a sample counts for (drain.c): every range its IP is in, every
	 * inverted one it is not in, the kernel ones when taken in the kernel. */
	for (int r = 0; r < rc->nranges; r++) {
		const struct rng_place *pl = &rc->range[r];

		hs_rng.all_mask |= 1ull << r;
		if (pl->inverse)
			hs_rng.inverse_mask |= 1ull << r;
		if (pl->form == RNG_KERNEL)
			hs_rng.kernel_mask |= 1ull << r;
	}
}

void hs_range_rings__open(struct rng_slot *s, int ceiling)
{
	struct agg_range_thread *res = s->res;

	for (int k = 0; k < hs_rng.nsev; k++) {
		const struct pmu_event *ev = &hs_rng.el->ev[hs_rng.sev_ev[k]];
		int rc = pmu_ring__open(&s->ring[k], &ev->attr, hs_rng.sev_period[k],
					s->applied != TRIG_STARTED, 0, ceiling);

		if (rc < 0) {
			res->sev_missing |= 1ull << k;
			if (!res->sev_reason)
				res->sev_reason = pmu_errno__reason(-rc);
			continue;
		}
		if (hs_rng.epfd >= 0 && pmu_fdtab__valid(hs_rng.epfd)) {
			struct epoll_event e = { .events = EPOLLIN };

			epoll_ctl(hs_rng.epfd, EPOLL_CTL_ADD, s->ring[k].fd, &e);
		}
	}
}

void hs_range_rings__close(struct rng_slot *s, bool unmap)
{
	for (int k = 0; k < hs_rng.nsev; k++) {
		if (s->ring[k].fd >= 0 && unmap && hs_rng.epfd >= 0 &&
		    pmu_fdtab__valid(hs_rng.epfd) && pmu_fdtab__valid(s->ring[k].fd))
			epoll_ctl(hs_rng.epfd, EPOLL_CTL_DEL, s->ring[k].fd, NULL);
		pmu_ring__close(&s->ring[k], unmap);
	}
}
