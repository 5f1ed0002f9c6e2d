/* evlist.c - the process-wide event set: parse, probe, partition.
 *
 * The probe runs once, on the thread that starts the shim.  Every thread
 * later opens the same partition, so the groups are decided here by trial:
 * an event joins the current group if the kernel accepts it there (x86 and
 * arm64 validate group schedulability at open), otherwise it leads a new one.
 * Software events get groups of their own so that they are never
 * multiplexed together with hardware events; task-clock and cpu-clock are
 * read from the software group's times (see evlist__derive).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/memclear.h"
#include "pmu/internal.h"

void pmu_evlist__init(struct pmu_evlist *el)
{
	hs_mem__clear(el, sizeof(*el)); /* mostly untouched .bss */
	el->paranoid = -99;
}

int pmu_evlist__find(const struct pmu_evlist *el, const char *name)
{
	for (int i = 0; i < el->nevents; i++)
		if (strcmp(el->ev[i].name, name) == 0)
			return i;
	return -1;
}

int pmu_evlist__add_grouped(struct pmu_evlist *el, const char *spec, int ugroup,
			    bool pinned)
{
	if (pmu_evlist__add(el, spec) < 0)
		return -1;
	el->ev[el->nevents - 1].ugroup = ugroup;
	el->ev[el->nevents - 1].pinned = pinned;
	return 0;
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

/* The probe's descriptor of each event stays open until the first thread
 * has opened its own (pmu_evlist__release).  The kernel switches a
 * software event type's hooks on with a static key when the first event
 * of that type in the system opens and off when the last one closes, each
 * time patching the kernel text on every CPU (IPIs): closing the probe's
 * events before the partition's trials and the first thread's counters
 * opened them again cost a process about 0.7 ms at start (3 software
 * types, measured with bench/start.sh; perf record showed the time in
 * static_key_slow_inc/dec). */
static void evlist__hold(struct pmu_evlist *el, const struct pmu_event *ev, int fd)
{
	/* Software events only: a held hardware event would take a counter
	 * from the schedule's trials and the first thread's groups. */
	if (el->hold && el->nheld < PMU_MAX_EVENTS && !pmu_event__is_hardware(ev))
		el->held[el->nheld++] = fd;
	else
		pmu_sys__close(fd);
}

void pmu_evlist__release(struct pmu_evlist *el)
{
	while (el->nheld > 0)
		pmu_sys__close(el->held[--el->nheld]);
}

/* One standalone open; downgrades to user-only on EACCES/EPERM unless the
 * privilege was given explicitly (then the user's wish stands or fails).
 * The descriptor is held (evlist__hold). */
static void evlist__probe_one(struct pmu_evlist *el, struct pmu_event *ev, bool want_user)
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
	evlist__hold(el, ev, fd);
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
 * read 180-197 ms for a 200 ms busy loop.  They need no descriptor at all,
 * though: a per-thread group's time running is the thread's time on a CPU
 * while the group counts (measured: equal to a task-clock group of its own
 * to within 6 us in 120 of 120 intervals of 8 threads x 40 ms on 2 CPUs,
 * and to CLOCK_THREAD_CPUTIME_ID within the cost of the reads).  So a clock
 * event is derived from the times of the software group before it, and
 * the boundary reads one group less.  That holds while the group counts
 * whenever the thread runs: not for a group the shim rotates (schedule.c
 * gives the clock its own group back: pmu_evlist__underive), nor in a user
 * group (opened as the user wrote it).  A clock with no software group
 * before it leads one of its own, and later clocks derive from it. */
static const char clock_alone[] = "task-clock and cpu-clock are always alone "
				  "(kernel quirk: wrong counts in a group with other events)";

static bool evlist__derive(struct pmu_evlist *el, struct pmu_group *g, int i)
{
	if (!g || g->user || g->rotated || g->nclock >= PMU_MAX_CLOCKS)
		return false;
	el->ev[i].derived = true;
	el->nderived++;
	el->ev[i].group = (int)(g - el->grp);
	g->clock[g->nclock++] = i;
	return true;
}

void pmu_evlist__underive(struct pmu_evlist *el, int g)
{
	while (el->grp[g].nclock > 0 && el->ngroups < PMU_MAX_EVENTS) {
		struct pmu_group *from = &el->grp[g], *ng = &el->grp[el->ngroups];
		int i = from->clock[--from->nclock];

		memset(ng, 0, sizeof(*ng));
		ng->pinned = from->pinned;
		snprintf(ng->why, sizeof(ng->why),
			 "%s: group %d is rotated, so its time is not the "
			 "thread's",
			 clock_alone, g);
		ng->idx[ng->n++] = i;
		el->ev[i].derived = false;
		el->nderived--;
		el->ev[i].group = el->ngroups++;
	}
}

/* A user group is software when all its members are. */
static bool evlist__software(const struct pmu_evlist *el, int i)
{
	int ug = el->ev[i].ugroup;

	if (ug < 0)
		return el->ev[i].attr.type == PERF_TYPE_SOFTWARE;
	for (int j = 0; j < el->nevents; j++)
		if (el->ev[j].ugroup == ug && el->ev[j].status == PMU_EV_OK &&
		    el->ev[j].attr.type != PERF_TYPE_SOFTWARE)
			return false;
	return true;
}

static bool evlist__first_of_ugroup(const struct pmu_evlist *el, int i)
{
	for (int j = 0; j < i; j++)
		if (el->ev[j].ugroup == el->ev[i].ugroup)
			return false;
	return true;
}

/* One class (pinned or not, software or not) in placement order: user
 * groups at their first member and the other non-clock events in list
 * order, then the clock events. */
static int evlist__order(const struct pmu_evlist *el, bool pinned, bool software,
			 int *order)
{
	int n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < el->nevents; i++) {
			const struct pmu_event *ev = &el->ev[i];
			bool user = ev->ugroup >= 0;

			if (ev->status != PMU_EV_OK || ev->pinned != pinned ||
			    evlist__software(el, i) != software)
				continue;
			if (user ? pass == 0 && evlist__first_of_ugroup(el, i) :
				   is_clock(ev) == (pass == 1))
				order[n++] = i;
		}
	return n;
}

/* "{a,b,c}" of user group ug, cut to fit. */
static void evlist__ugroup_name(const struct pmu_evlist *el, int ug, char *buf,
				size_t len)
{
	size_t o = 0;

	o += (size_t)snprintf(buf, len, "{");
	for (int j = 0; j < el->nevents && o < len; j++)
		if (el->ev[j].ugroup == ug)
			o += (size_t)snprintf(buf + o, len - o, "%s%.40s",
					      o > 1 ? "," : "", el->ev[j].name);
	if (o < len)
		snprintf(buf + o, len - o, "}");
}

static void evlist__drop_ugroup(struct pmu_evlist *el, int ug, int err, const char *why)
{
	char name[120];

	evlist__ugroup_name(el, ug, name, sizeof(name));
	for (int j = 0; j < el->nevents; j++) {
		struct pmu_event *ev = &el->ev[j];

		if (ev->ugroup != ug || ev->status != PMU_EV_OK)
			continue;
		ev->status = PMU_EV_DROPPED;
		ev->err = err;
		snprintf(ev->reason, sizeof(ev->reason),
			 "user group %s is counted as one or not at all: %s", name,
			 why);
	}
}

/* A member of a user group that was dropped takes the group with it: a
 * user group is never split. */
static void evlist__ugroups_whole(struct pmu_evlist *el)
{
	for (int i = 0; i < el->nevents; i++) {
		const struct pmu_event *ev = &el->ev[i];
		char why[PMU_REASON_MAX];

		if (ev->ugroup < 0 || ev->status == PMU_EV_OK)
			continue;
		snprintf(why, sizeof(why), "'%.60s' was dropped (%.120s)", ev->name,
			 ev->reason);
		evlist__drop_ugroup(el, ev->ugroup, ev->err, why);
	}
}

static struct pmu_group *evlist__new_group(struct pmu_evlist *el, bool pinned,
					   bool user, const char *why)
{
	struct pmu_group *g = &el->grp[el->ngroups++];

	memset(g, 0, sizeof(*g));
	g->pinned = pinned;
	g->user = user;
	snprintf(g->why, sizeof(g->why), "%s", why);
	return g;
}

/* Opens user group ug as one group (list order, the first member leads).
 * Any refusal drops the whole group.  The open fds go to fds[]. */
static void evlist__place_ugroup(struct pmu_evlist *el, int ug, bool pinned,
				 int *fds, int *nfds)
{
	int members[PMU_MAX_EVENTS], n = 0, leader = -1, first = *nfds;
	struct pmu_group *g;

	for (int j = 0; j < el->nevents; j++)
		if (el->ev[j].ugroup == ug && el->ev[j].status == PMU_EV_OK)
			members[n++] = j;
	for (int m = 0; n > 1 && m < n; m++)
		if (is_clock(&el->ev[members[m]])) {
			evlist__drop_ugroup(el, ug, EINVAL, clock_alone);
			return;
		}
	for (int m = 0; m < n; m++) {
		int fd = pmu_sys__open(&el->ev[members[m]].attr, leader);

		if (fd < 0) {
			char why[PMU_REASON_MAX];
			int err = errno;

			snprintf(why, sizeof(why),
				 "the kernel refused '%.60s' in it: "
				 "%s: %s",
				 el->ev[members[m]].name, pmu_errno__name(err),
				 pmu_errno__reason(err));
			close_all(fds + first, *nfds - first);
			*nfds = first;
			evlist__drop_ugroup(el, ug, err, why);
			return;
		}
		fds[(*nfds)++] = fd;
		if (m == 0)
			leader = fd;
	}
	g = evlist__new_group(el, pinned, true, "user group");
	for (int m = 0; m < n; m++) {
		el->ev[members[m]].group = (int)(g - el->grp);
		g->idx[g->n++] = members[m];
	}
}

/* Partitions the OK events of one class (pinned or not, software or not)
 * into groups; every new group records why it was started. */
static void evlist__partition(struct pmu_evlist *el, bool pinned, bool software)
{
	int fds[PMU_MAX_EVENTS], order[PMU_MAX_EVENTS], nfds = 0;
	int n = evlist__order(el, pinned, software, order);
	struct pmu_group *g = NULL;
	int leader = -1;

	for (int k = 0; k < n; k++) {
		struct pmu_event *ev = &el->ev[order[k]];
		bool may_join = g && !is_clock(ev) && !is_clock(&el->ev[g->idx[0]]);
		int fd, err = 0;
		char why[PMU_REASON_MAX];

		if (ev->ugroup >= 0) {
			evlist__place_ugroup(el, ev->ugroup, pinned, fds, &nfds);
			continue;
		}
		if (software && is_clock(ev) && evlist__derive(el, g, order[k]))
			continue;
		fd = may_join ? pmu_sys__open(&ev->attr, leader) : -1;
		if (may_join && fd < 0)
			err = errno;
		if (fd < 0) {
			/* Start a new group with this event as its leader. */
			fd = pmu_sys__open(&ev->attr, -1);
			if (fd < 0) { /* opened alone in the probe, not now */
				evlist__drop(ev, errno);
				continue;
			}
			if (err)
				snprintf(why, sizeof(why),
					 "the kernel refused '%.60s' "
					 "in group %d: %s: %s",
					 ev->name, (int)(g - el->grp),
					 pmu_errno__name(err), pmu_errno__reason(err));
			else
				snprintf(why, sizeof(why),
					 "first group of the %s%s "
					 "events",
					 pinned ? "pinned " : "",
					 software ? "software" : "hardware");
			g = evlist__new_group(el, pinned, false, why);
			leader = fd;
		}
		fds[nfds++] = fd;
		ev->group = (int)(g - el->grp);
		g->idx[g->n++] = order[k];
	}
	close_all(fds, nfds);
}

/* An Arm common event the core does not implement opens (the kernel takes
 * any raw number) and reads 0 for ever: dropped with the reason, so what
 * is computed over it is null, never 0.  It leaves its user group alone
 * (it would take no counter's worth of counts): the rest of the group
 * still counts together (a stall tree's level-1 group on a core that
 * lacks its slot events keeps its cycles and instructions). */
static bool evlist__unimplemented(struct pmu_evlist *el, struct pmu_event *ev)
{
	unsigned long long n = ev->attr.config & 0xffff;

	if (ev->attr.type != PERF_TYPE_RAW ||
	    pmu_sys__arm_implements(el->cpu_pmu, n) != 0)
		return false;
	ev->status = PMU_EV_DROPPED;
	ev->err = EOPNOTSUPP;
	ev->ugroup = -1;
	snprintf(ev->reason, sizeof(ev->reason),
		 "%s does not implement event %#llx (PMCEID bit clear, not in "
		 "its events/): it would count nothing",
		 el->cpu_pmu, n);
	return true;
}

int pmu_evlist__probe(struct pmu_evlist *el)
{
	el->paranoid = pmu_sys__paranoid();
	pmu_sys__cpu_pmu(el->cpu_pmu, sizeof(el->cpu_pmu));
	for (int i = 0; i < el->nevents; i++)
		if (el->ev[i].status == PMU_EV_OK && !evlist__unimplemented(el, &el->ev[i]))
			evlist__probe_one(el, &el->ev[i], el->user_read);
	evlist__ugroups_whole(el);
	/* Pinned classes first: they get the lower group numbers, and the
	 * kernel puts pinned groups on the PMU before any other. */
	for (int pinned = 1; pinned >= 0; pinned--) {
		evlist__partition(el, pinned, true);
		evlist__partition(el, pinned, false);
	}
	el->hardware = false;
	for (int i = 0; i < el->nevents; i++)
		if (el->ev[i].status == PMU_EV_OK && pmu_event__is_hardware(&el->ev[i]))
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
	case PMU_PLM_ALL:
		return "all";
	case PMU_PLM_USER:
		return "user";
	case PMU_PLM_KERNEL:
		return "kernel";
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
		snprintf(buf, len,
			 "perf_event_paranoid=%d refused kernel level: "
			 "%d event%s count%s user level only",
			 el->paranoid, down, down == 1 ? "" : "s",
			 down == 1 ? "s" : "");
	else if (refused && plm == PMU_PLM_KERNEL)
		snprintf(buf, len,
			 "perf_event_paranoid=%d refused kernel level: "
			 "%d event%s dropped (kernel-only counting is never "
			 "downgraded)",
			 el->paranoid, refused, refused == 1 ? "" : "s");
}
