/* schedule.c - which groups share the PMU, and how (HPCSHIM_MUX).
 *
 * The partition (evlist.c) makes groups that can each be scheduled alone;
 * the kernel checks that at open.  Whether several groups fit on the PMU
 * *together* is only known once they are scheduled, so it is found by
 * trial: the groups are opened at once on the calling thread, the thread
 * spins for a moment, and a group that was not on a counter all the time it
 * was enabled (time running < time enabled) does not fit with the others.
 * Software groups never take a counter and always fit.
 *
 *   pinned groups (every mode): kept in order while they fit with the ones
 *       kept before them (and a hardware sampler); attr.pinned on their
 *       leaders, so the kernel never multiplexes them.
 *   kernel: the other groups are left to the kernel's multiplexing.
 *   off:    the other hardware groups are kept in order while they fit with
 *       everything kept; their leaders are pinned too.  No group is ever
 *       multiplexed; what does not fit is dropped with a reason.
 *   rotate: every other group is rotated by the shim: opened disabled
 *       (attr.disabled on the leader), enabled one at a time per thread.
 *       A rotated hardware group must fit next to the pinned groups.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "pmu/pmu.h"

/* Long enough for the kernel to have scheduled every group once, far
 * shorter than its multiplexing interval (4 ms by default), so a group that
 * did not get on at once has not been rotated on yet either. */
#define SPIN_NS 200000

static bool group__software(const struct pmu_evlist *el, const struct pmu_group *g)
{
	for (int m = 0; m < g->n; m++)
		if (pmu_event__is_hardware(&el->ev[g->idx[m]]))
			return false;
	return true;
}

static void spin(void)
{
	uint64_t end = hs_clock__thread() + SPIN_NS;
	volatile uint64_t x = 0;

	while (hs_clock__thread() < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
}

/* Opens group g with its leader pinned or not; the fds go to fds[].
 * Returns the leader's fd, or -1. */
static int sched__open(const struct pmu_evlist *el, int g, bool pinned, int *fds,
		       int *nfds)
{
	const struct pmu_group *grp = &el->grp[g];
	int leader = -1;

	for (int m = 0; m < grp->n; m++) {
		struct perf_event_attr a = el->ev[grp->idx[m]].attr;
		int fd;

		a.disabled = 0;
		a.pinned = m == 0 && pinned;
		fd = pmu_sys__open(&a, leader);
		if (fd < 0)
			return -1;
		fds[(*nfds)++] = fd;
		if (m == 0)
			leader = fd;
	}
	return leader;
}

/* Does group cand fit on the PMU next to the groups kept[] (and sampler)?
 * The kept ones are opened pinned, so the kernel puts them on first; the
 * candidate is flexible: it either gets a counter at once or not at all. */
static bool sched__fits(const struct pmu_evlist *el, const int *kept, int nkept,
			int cand, const struct perf_event_attr *sampler)
{
	int fds[2 * PMU_MAX_EVENTS + 1], nfds = 0, lead;
	uint64_t buf[3 + 2 * PMU_MAX_EVENTS];
	bool fits = false;

	if (sampler) {
		struct perf_event_attr a = *sampler;
		a.disabled = 0;
		a.pinned = 1;
		a.sample_period = 0; /* a plain count takes the same counter */
		int fd = pmu_sys__open(&a, -1);
		if (fd >= 0)
			fds[nfds++] = fd;
	}
	for (int k = 0; k < nkept; k++)
		if (sched__open(el, kept[k], true, fds, &nfds) < 0)
			goto out;
	lead = sched__open(el, cand, false, fds, &nfds);
	if (lead < 0)
		goto out;
	spin();
	if (read(lead, buf, sizeof(buf)) >= 3 * (ssize_t)sizeof(uint64_t))
		fits = buf[1] > 0 && buf[2] == buf[1];
out:
	for (int i = 0; i < nfds; i++)
		pmu_sys__close(fds[i]);
	return fits;
}

static void sched__drop_group(struct pmu_evlist *el, int g, const char *why)
{
	struct pmu_group *grp;

	pmu_evlist__underive(el, g); /* the clocks are counted without it */
	grp = &el->grp[g];
	for (int m = 0; m < grp->n; m++) {
		struct pmu_event *ev = &el->ev[grp->idx[m]];
		ev->status = PMU_EV_DROPPED;
		ev->err = EBUSY;
		snprintf(ev->reason, sizeof(ev->reason), "%s", why);
	}
	grp->n = 0;
}

/* Removes emptied groups and renumbers the events' group indices. */
static void sched__compact(struct pmu_evlist *el)
{
	int to = 0;

	for (int g = 0; g < el->ngroups; g++) {
		if (el->grp[g].n == 0)
			continue;
		if (to != g)
			el->grp[to] = el->grp[g];
		for (int m = 0; m < el->grp[to].n; m++)
			el->ev[el->grp[to].idx[m]].group = to;
		for (int k = 0; k < el->grp[to].nclock; k++)
			el->ev[el->grp[to].clock[k]].group = to;
		to++;
	}
	el->ngroups = to;
}

/* Keeps the groups that select() picks, in order, while each fits with the
 * ones kept so far; drops the others with why.  kept[] accumulates. */
static void sched__greedy(struct pmu_evlist *el, bool pinned_class, int *kept,
			  int *nkept, const struct perf_event_attr *sampler,
			  const char *why)
{
	for (int g = 0; g < el->ngroups; g++) {
		struct pmu_group *grp = &el->grp[g];

		if (grp->n == 0 || grp->pinned != pinned_class ||
		    group__software(el, grp))
			continue;
		if (sched__fits(el, kept, *nkept, g, sampler)) {
			kept[(*nkept)++] = g;
			continue;
		}
		char text[PMU_REASON_MAX];
		snprintf(text, sizeof(text), "%s (group %d: %s)", why, g, grp->why);
		sched__drop_group(el, g, text);
	}
}

/* Does rotated group g fit next to the kept (pinned) groups?  An
 * automatic group that does not (a hardware slice sampler takes a counter
 * of its own) gives up members from its end until it does; they form a new
 * group at the end of the list, checked in its turn.  A user group is never
 * split. */
static bool sched__shrink(struct pmu_evlist *el, int g, const int *kept, int nkept,
			  const struct perf_event_attr *sampler)
{
	struct pmu_group *grp = &el->grp[g];
	int moved[PMU_MAX_EVENTS], nmoved = 0;
	bool fits;

	while (!(fits = sched__fits(el, kept, nkept, g, sampler)) && !grp->user &&
	       grp->n > 1)
		moved[nmoved++] = grp->idx[--grp->n];
	if (nmoved && el->ngroups < PMU_MAX_EVENTS) {
		struct pmu_group *ng = &el->grp[el->ngroups];

		memset(ng, 0, sizeof(*ng));
		snprintf(ng->why, sizeof(ng->why),
			 "split from group %d: together "
			 "they do not fit on the PMU next to the pinned groups and "
			 "the slice sampler",
			 g);
		while (nmoved > 0) {
			int e = moved[--nmoved];
			ng->idx[ng->n++] = e;
			el->ev[e].group = el->ngroups;
		}
		el->ngroups++;
	} else if (nmoved) { /* no room for another group */
		grp->n += nmoved;
		fits = false;
	}
	return fits;
}

static void sched__pin(struct pmu_evlist *el, int g)
{
	el->ev[el->grp[g].idx[0]].attr.pinned = 1;
}

int pmu_schedule__apply(struct pmu_evlist *el, enum hs_mux_mode mode,
			const struct perf_event_attr *sampler)
{
	int kept[PMU_MAX_EVENTS], nkept = 0, nok;

	if (sampler && sampler->type == PERF_TYPE_SOFTWARE)
		sampler = NULL; /* a software sampler takes no counter */
	sched__greedy(el, true, kept, &nkept, sampler,
		      "does not fit on the PMU "
		      "together with the pinned groups before it");
	if (mode == HS_MUX_OFF)
		sched__greedy(el, false, kept, &nkept, sampler,
			      "HPCSHIM_MUX=off: "
			      "does not fit on the PMU together with the groups "
			      "kept before it (it would be multiplexed)");
	for (int g = 0; g < el->ngroups; g++) {
		struct pmu_group *grp = &el->grp[g];

		if (grp->n == 0)
			continue;
		if (grp->pinned || mode == HS_MUX_OFF) {
			sched__pin(el, g);
			grp->pinned = true;
			continue;
		}
		if (mode != HS_MUX_ROTATE)
			continue;
		if (!group__software(el, grp) &&
		    !sched__shrink(el, g, kept, nkept, sampler)) {
			sched__drop_group(
				el, g,
				grp->user ?
					"HPCSHIM_MUX=rotate: the user group does not fit on "
					"the PMU next to the pinned groups (and a hardware "
					"slice sampler)" :
					"HPCSHIM_MUX=rotate: does not fit on the PMU next to "
					"the pinned groups (and a hardware slice sampler)");
			continue;
		}
		grp = &el->grp[g];
		pmu_evlist__underive(el, g);
		grp = &el->grp[g];
		grp->rotated = true;
		el->ev[grp->idx[0]].attr.disabled = 1;
		/* At every context switch the kernel schedules pinned groups in
		 * before flexible ones and out after them; a flexible cpu-clock
		 * then counts ~150 ns less per switch than its running time
		 * (measured: a rotated cpu-clock 0.6% low against a pinned copy
		 * with 38,000 switches/s).  Software groups take no counter,
		 * so pinning them costs nothing.  Hardware groups stay flexible:
		 * a pinned group that loses its counter is put in error state. */
		if (group__software(el, grp))
			sched__pin(el, g);
	}
	sched__compact(el);
	nok = pmu_evlist__nok(el);
	el->ndropped = el->nevents - nok;
	el->hardware = false;
	for (int i = 0; i < el->nevents; i++)
		if (el->ev[i].status == PMU_EV_OK && pmu_event__is_hardware(&el->ev[i]))
			el->hardware = true;
	return nok;
}
