/* evlist.c - the process-wide event set: parse, probe, partition.
 *
 * The probe runs once, on the thread that starts the shim.  Every thread
 * later opens the same partition, so the groups are decided here by trial:
 * an event joins the current group if the kernel accepts it there (x86 and
 * arm64 validate group schedulability at open), otherwise it leads a new one.
 * Software events get groups of their own so that they are never
 * multiplexed together with hardware events.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pmu/pmu.h"

void pmu_evlist__init(struct pmu_evlist *el)
{
	memset(el, 0, sizeof(*el));
	el->paranoid = -99;
}

int pmu_evlist__add(struct pmu_evlist *el, const char *spec)
{
	struct pmu_event *ev;

	if (el->nevents >= PMU_MAX_EVENTS)
		return -1;
	ev = &el->ev[el->nevents++];
	if (pmu_event__parse(ev, spec) < 0)
		return 0;
	for (int i = 0; i < el->nevents - 1; i++) {
		if (strcmp(el->ev[i].name, ev->name) == 0) {
			ev->status = PMU_EV_DROPPED;
			ev->err = EEXIST;
			snprintf(ev->reason, sizeof(ev->reason),
				 "duplicate of an earlier event in the list");
			break;
		}
	}
	return 0;
}

static void evlist__drop(struct pmu_event *ev, int err)
{
	ev->status = PMU_EV_DROPPED;
	ev->err = err;
	snprintf(ev->reason, sizeof(ev->reason), "%s: %s", pmu_errno__name(err),
		 pmu_errno__reason(err));
}

/* Opens ev alone.  With want_user, a hardware event first asks for user
 * space access in the most capable form the kernel accepts (arm64: 64-bit
 * counter with user access, then 32-bit, then none); the attr keeps the
 * form that opened, so every thread opens the same. */
static int evlist__open_alone(struct pmu_event *ev, bool want_user)
{
	int level = 0, fd;

	if (!want_user || !pmu_event__is_hardware(ev))
		return pmu_sys__open(&ev->attr, -1);
	for (;;) {
		int next = pmu_userread__request(&ev->attr, level);
		fd = pmu_sys__open(&ev->attr, -1);
		if (fd >= 0 || next < 0)
			return fd;
		level = next;
	}
}

/* One standalone open; downgrades to user-only on EACCES/EPERM unless the
 * privilege was given explicitly (then the user's wish stands or fails). */
static void evlist__probe_one(struct pmu_event *ev, bool want_user)
{
	int fd = evlist__open_alone(ev, want_user);

	if (fd < 0 && (errno == EACCES || errno == EPERM) && !ev->plm_explicit &&
	    !ev->attr.exclude_kernel && !ev->attr.exclude_user) {
		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
		fd = evlist__open_alone(ev, want_user);
		if (fd >= 0)
			ev->downgraded = true;
		else
			ev->attr.exclude_kernel = ev->attr.exclude_hv = 0;
	}
	if (fd < 0) {
		evlist__drop(ev, errno);
		return;
	}
	pmu_sys__close(fd);
}

static void close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			pmu_sys__close(fds[i]);
}

static bool is_clock(const struct pmu_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
		ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

/* Kernel quirk (measured on 6.18, software events only): task-clock and
 * cpu-clock do not mix with other events in a group.  As a leader they lose
 * their siblings' counts (page faults short in 54 of 160 thread intervals
 * with 8 threads on 2 CPUs); as a sibling of a page-fault leader task-clock
 * read 180-197 ms for a 200 ms busy loop.  Alone they are exact, and the
 * other software events are exact together.  So clock events always get a
 * group of their own, and are tried last so they do not split the rest. */
static int evlist__order(const struct pmu_evlist *el, bool software, int *order)
{
	int n = 0;

	for (int pass = 0; pass < 2; pass++) /* non-clock events first */
		for (int i = 0; i < el->nevents; i++) {
			const struct pmu_event *ev = &el->ev[i];
			if (ev->status == PMU_EV_OK &&
			    (ev->attr.type == PERF_TYPE_SOFTWARE) == software &&
			    is_clock(ev) == (pass == 1))
				order[n++] = i;
		}
	return n;
}

/* Partitions the OK events of one class (software or not) into groups. */
static void evlist__partition(struct pmu_evlist *el, bool software)
{
	int fds[PMU_MAX_EVENTS], order[PMU_MAX_EVENTS], nfds = 0;
	int n = evlist__order(el, software, order);
	struct pmu_group *g = NULL;
	int leader = -1;

	for (int k = 0; k < n; k++) {
		struct pmu_event *ev = &el->ev[order[k]];
		bool may_join = g && !is_clock(ev) && !is_clock(&el->ev[g->idx[0]]);
		int fd = may_join ? pmu_sys__open(&ev->attr, leader) : -1;

		if (fd < 0) {
			/* Start a new group with this event as its leader. */
			fd = pmu_sys__open(&ev->attr, -1);
			if (fd < 0) { /* opened alone in the probe, not now */
				evlist__drop(ev, errno);
				continue;
			}
			g = &el->grp[el->ngroups++];
			g->n = 0;
			leader = fd;
		}
		fds[nfds++] = fd;
		ev->group = (int)(g - el->grp);
		g->idx[g->n++] = order[k];
	}
	close_all(fds, nfds);
}

int pmu_evlist__probe(struct pmu_evlist *el)
{
	el->paranoid = pmu_sys__paranoid();
	pmu_sys__cpu_pmu(el->cpu_pmu, sizeof(el->cpu_pmu));
	for (int i = 0; i < el->nevents; i++)
		if (el->ev[i].status == PMU_EV_OK)
			evlist__probe_one(&el->ev[i], el->user_read);
	evlist__partition(el, true);
	evlist__partition(el, false);
	el->hardware = false;
	for (int i = 0; i < el->nevents; i++)
		if (el->ev[i].status == PMU_EV_OK &&
		    pmu_event__is_hardware(&el->ev[i]))
			el->hardware = true;
	el->ndropped = el->nevents - pmu_evlist__nok(el);
	return el->nevents - el->ndropped;
}

int pmu_evlist__nok(const struct pmu_evlist *el)
{
	int n = 0;

	for (int i = 0; i < el->nevents; i++)
		n += el->ev[i].status == PMU_EV_OK;
	return n;
}

/* The counted events' common privilege, or "mixed". */
const char *pmu_evlist__privilege(const struct pmu_evlist *el)
{
	const char *common = NULL;

	for (int i = 0; i < el->nevents; i++) {
		const struct pmu_event *ev = &el->ev[i];
		const char *p = pmu_event__privilege(ev);

		if (ev->status != PMU_EV_OK)
			continue;
		if (common && strcmp(common, p) != 0)
			return "mixed";
		common = p;
	}
	return common ? common : "none";
}

const char *pmu_plm__name(enum pmu_plm plm)
{
	switch (plm) {
	case PMU_PLM_ALL: return "all";
	case PMU_PLM_USER: return "user";
	case PMU_PLM_KERNEL: return "kernel";
	}
	return "?";
}

void pmu_evlist__set_privilege(struct pmu_evlist *el, enum pmu_plm plm)
{
	for (int i = 0; i < el->nevents; i++) {
		struct perf_event_attr *a = &el->ev[i].attr;

		if (el->ev[i].status != PMU_EV_OK || el->ev[i].plm_explicit)
			continue;
		if (plm == PMU_PLM_USER) {
			a->exclude_user = 0;
			a->exclude_kernel = a->exclude_hv = 1;
		} else if (plm == PMU_PLM_KERNEL) {
			a->exclude_kernel = 0;
			a->exclude_user = a->exclude_hv = 1;
		}
	}
}

void pmu_evlist__privilege_note(const struct pmu_evlist *el, enum pmu_plm plm,
				char *buf, size_t len)
{
	int down = 0, refused = 0;

	for (int i = 0; i < el->nevents; i++) {
		const struct pmu_event *ev = &el->ev[i];

		down += ev->status == PMU_EV_OK && ev->downgraded;
		refused += ev->status != PMU_EV_OK && ev->err == EACCES;
	}
	buf[0] = '\0';
	if (down)
		snprintf(buf, len, "perf_event_paranoid=%d refused kernel level: "
			 "%d event%s count%s user level only", el->paranoid, down,
			 down == 1 ? "" : "s", down == 1 ? "s" : "");
	else if (refused && plm == PMU_PLM_KERNEL)
		snprintf(buf, len, "perf_event_paranoid=%d refused kernel level: "
			 "%d event%s dropped (kernel-only counting is never "
			 "downgraded)", el->paranoid, refused, refused == 1 ? "" : "s");
}
