/* points.c - checkpoints (exact execution counts of an address) and the
 * breakpoints of the start/stop triggers.
 *
 * Each is a point per thread (a hardware execute breakpoint or a uprobe,
 * method.c chooses), opened by the thread itself at its start, or by
 * whichever thread resolves the address later (dlopen) for every live
 * thread (perf_event_open with the thread's tid).  With breakpoints a
 * thread has few debug registers (x86: 4), found by probing at start:
 * the triggers get theirs first, then the checkpoints in the order given;
 * the rest are dropped with a reason.  Every hit is a trap (a few
 * microseconds), so a checkpoint on a hot function costs time.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/log.h"
#include "preload/range/internal.h"

static void point__setup(struct rng_point *pt, const struct rng_place *pl)
{
	pt->pl = pl;
	/* An absolute address needs no object. */
	if (pl->form == RNG_ADDR && !pl->obj[0]) {
		pt->addr = pl->lo;
		pt->defs = 1;
	}
}

static void point__drop(struct rng_point *pt, const char *why)
{
	pt->dropped = true;
	snprintf(pt->reason, sizeof(pt->reason), "%s", why);
}

/* No method counts here: every point is dropped with the reasons. */
static void points__drop_all(int ntrig)
{
	for (int i = 0; i < hs_rng.ncp; i++)
		point__drop(&hs_rng.cp[i], hs_rng.method_note);
	for (int k = 0; k < 2; k++)
		point__drop(&hs_rng.trig[k], hs_rng.method_note);
	if (hs_rng.ncp)
		hs_log(HS_LOG_ERROR, "HPCSHIM_CHECKPOINT: %s; not counted",
		       hs_rng.method_note);
	if (ntrig)
		hs_log(HS_LOG_ERROR, "HPCSHIM_TRIGGER: %s; counting is not delayed",
		       hs_rng.method_note);
}

/* Breakpoints: the triggers get their registers first, then the
 * checkpoints in the order given; the rest are dropped. */
static void points__fit_registers(int ntrig)
{
	const struct hs_range_config *rc = hs_rng.rc;
	char why[200], names[300] = "";
	int len = 0, ndrop = 0, avail;

	if (rc->has_stop && hs_rng.bp_limit < ntrig) /* one register: start wins */
		point__drop(&hs_rng.trig[TRIG_STOP],
			    "one hardware breakpoint per "
			    "thread: used by the start trigger");
	avail = hs_rng.bp_limit - ntrig;
	snprintf(why, sizeof(why),
		 "no debug register left: a thread has %d "
		 "hardware breakpoints%s",
		 hs_rng.bp_limit, ntrig ? ", the trigger takes some first" : "");
	for (int i = avail > 0 ? avail : 0; i < hs_rng.ncp; i++) {
		point__drop(&hs_rng.cp[i], why);
		if (len < (int)sizeof(names) - 60)
			len += snprintf(names + len, sizeof(names) - (size_t)len,
					"%s'%.40s'", ndrop ? ", " : "",
					hs_rng.cp[i].pl->text);
		ndrop++;
	}
	if (ndrop)
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_CHECKPOINT: %d checkpoints but a thread "
		       "has %d hardware breakpoints%s: %s not counted%s%s",
		       hs_rng.ncp, hs_rng.bp_limit,
		       ntrig ? " (the trigger takes its own first)" : "", names,
		       hs_rng.method_note[0] ? "; " : "", hs_rng.method_note);
}

void hs_range_points__init(void)
{
	const struct hs_range_config *rc = hs_rng.rc;
	int ntrig = rc->has_start + rc->has_stop;

	hs_rng.ncp = rc->ncheckpoints;
	for (int i = 0; i < hs_rng.ncp; i++)
		point__setup(&hs_rng.cp[i], &rc->checkpoint[i]);
	hs_rng.has_trig[TRIG_START] = rc->has_start;
	hs_rng.has_trig[TRIG_STOP] = rc->has_stop;
	point__setup(&hs_rng.trig[TRIG_START], &rc->start);
	point__setup(&hs_rng.trig[TRIG_STOP], &rc->stop);
	if (hs_rng.ncp + ntrig == 0)
		return;
	hs_range_method__choose(hs_rng.ncp + ntrig);
	if (hs_rng.method < 0)
		points__drop_all(ntrig);
	else if (hs_rng.method == PMU_POINT_BREAKPOINT)
		points__fit_registers(ntrig);
}

static uint64_t point__addr(const struct rng_point *pt)
{
	return pt->dropped ? 0 : __atomic_load_n(&pt->addr, __ATOMIC_ACQUIRE);
}

/* Where the point is for the method in use: its address, and for a uprobe
 * the file and offset, found once (under hs_rng.lock).  false with the
 * reason in pt->reason. */
static bool point__locate(struct rng_point *pt, uint64_t a)
{
	char path[PATH_MAX];

	char why[200];

	pt->loc.addr = a;
	if (hs_rng.method != PMU_POINT_UPROBE)
		return true;
	if (!pmu_point__locate(&pt->loc, path, sizeof(path), why, sizeof(why))) {
		snprintf(pt->reason, sizeof(pt->reason),
			 "a uprobe at 0x%llx cannot be armed: %s",
			 (unsigned long long)a, why);
		return false;
	}
	pt->loc.path = strdup(path); /* lives as long as the point */
	if (!pt->loc.path) {
		snprintf(pt->reason, sizeof(pt->reason), "out of memory");
		return false;
	}
	return true;
}

/* A point that resolved to an address no breakpoint can take (a kernel
 * address, say) would fail in every thread: try it once, drop it with
 * the reason (under hs_rng.lock). */
void hs_range_points__verify(void)
{
	static const char *const var[] = {
		"HPCSHIM_CHECKPOINT: '",
		"HPCSHIM_TRIGGER: 'start:",
		"HPCSHIM_TRIGGER: 'stop:",
	};
	struct rng_point *all[RNG_MAX_POINTS + 2];
	int kind[RNG_MAX_POINTS + 2], n = 0;

	for (int i = 0; i < hs_rng.ncp; i++)
		all[n] = &hs_rng.cp[i], kind[n++] = 0;
	for (int k = 0; k < 2; k++)
		if (hs_rng.has_trig[k])
			all[n] = &hs_rng.trig[k], kind[n++] = 1 + k;
	for (int i = 0; i < n; i++) {
		struct rng_point *pt = all[i];
		uint64_t a = point__addr(pt);
		int fd;

		if (!a || pt->verified)
			continue;
		if (!point__locate(pt, a))
			goto drop;
		fd = pmu_point__open(hs_rng.method, &pt->loc, 0, true, 0, 1 << 30);
		if (fd >= 0) {
			pmu_sys__close(fd);
			__atomic_store_n(&pt->verified, true, __ATOMIC_RELEASE);
			continue;
		}
		snprintf(pt->reason, sizeof(pt->reason),
			 "a %s at 0x%llx "
			 "cannot be armed: %s: %s",
			 pmu_point__method_name(hs_rng.method), (unsigned long long)a,
			 pmu_errno__name(errno),
			 errno == EINVAL ? "not an address a "
					   "user-level point can watch" :
					   pmu_errno__reason(errno));
drop:
		pt->dropped = true;
		hs_log(HS_LOG_ERROR, "%s%.80s' ignored: %s%s", var[kind[i]],
		       pt->pl->text, pt->reason,
		       kind[i] == 1 ? "; counting is not delayed" : "");
		if (kind[i] == 1)
			hs_range_trig__abandon_start();
	}
}

/* Resolved, located and tried once (verify): it can be armed. */
static bool point__ready(const struct rng_point *pt)
{
	return !pt->dropped && __atomic_load_n(&pt->verified, __ATOMIC_ACQUIRE);
}

/* Opens what s lacks among the resolved points (under s->spin); tid 0
 * for the calling thread. */
void hs_range_points__open(struct rng_slot *s, pid_t tid)
{
	int ceiling = pmu_sys__fd_ceiling();
	const struct rng_point *pt;
	int m = hs_rng.method;

	for (int i = 0; i < hs_rng.ncp; i++) {
		if (s->cp[i] != -1 || !point__ready(pt = &hs_rng.cp[i]))
			continue;
		s->cp[i] = pmu_point__open(m, &pt->loc, tid, s->applied != TRIG_STARTED,
					   0, ceiling);
		if (s->cp[i] < 0) {
			s->res->cp_missing |= 1ull << i;
			if (!s->res->cp_reason)
				s->res->cp_reason = pmu_errno__reason(errno);
			s->cp[i] = -2;
		}
	}
	if (s->trig[TRIG_START] == -1 && s->applied == TRIG_WAIT &&
	    point__ready(pt = &hs_rng.trig[TRIG_START])) {
		s->trig[TRIG_START] = pmu_point__open(
			m, &pt->loc, tid, false, hs_range_trig__sig_data(TRIG_START),
			ceiling);
		if (s->trig[TRIG_START] < 0)
			s->trig[TRIG_START] = -2;
	}
	if (s->trig[TRIG_STOP] == -1 && s->applied != TRIG_STOPPED &&
	    point__ready(pt = &hs_rng.trig[TRIG_STOP])) {
		s->trig[TRIG_STOP] = pmu_point__open(m, &pt->loc, tid,
						     s->applied != TRIG_STARTED,
						     hs_range_trig__sig_data(TRIG_STOP),
						     ceiling);
		if (s->trig[TRIG_STOP] < 0)
			s->trig[TRIG_STOP] = -2;
	}
}

/* Points just resolved (a library was loaded): arm them in every live
 * thread (under hs_rng.lock). */
void hs_range_points__install(void)
{
	pid_t me = gettid();

	for (struct rng_slot *s = hs_rng.slots; s; s = s->next) {
		if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
			continue;
		hs_range_slot__spin(s);
		if (__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
			hs_range_points__open(s, s->tid == me ? 0 : s->tid);
		hs_range_slot__release(s, false);
	}
}

void hs_range_points__read(struct rng_slot *s)
{
	struct agg_range_thread *res = s->res;

	for (int i = 0; i < hs_rng.ncp; i++) {
		uint64_t v;

		if (s->cp[i] >= 0 && pmu_point__read(s->cp[i], &v)) {
			res->cp[i] = v;
			continue;
		}
		res->cp_missing |= 1ull << i;
		if (s->cp[i] >= 0 && !res->cp_reason)
			res->cp_reason = "the breakpoint could not be read or was not "
					 "always armed (another user of the debug registers?)";
	}
}

void hs_range_points__close(struct rng_slot *s)
{
	for (int i = 0; i < hs_rng.ncp; i++) {
		if (s->cp[i] >= 0)
			pmu_sys__close(s->cp[i]);
		s->cp[i] = -1;
	}
	for (int k = 0; k < 2; k++) {
		if (s->trig[k] >= 0)
			pmu_sys__close(s->trig[k]);
		s->trig[k] = -1;
	}
}

bool hs_range_points__pending(void)
{
	for (int i = 0; i < hs_rng.ncp; i++)
		if (!hs_rng.cp[i].dropped &&
		    !__atomic_load_n(&hs_rng.cp[i].addr, __ATOMIC_ACQUIRE))
			return true;
	for (int k = 0; k < 2; k++)
		if (hs_rng.has_trig[k] && !hs_rng.trig[k].dropped &&
		    !__atomic_load_n(&hs_rng.trig[k].addr, __ATOMIC_ACQUIRE))
			return true;
	return false;
}
