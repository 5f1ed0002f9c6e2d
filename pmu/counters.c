/* counters.c - one thread's counters over an evlist.
 *
 * Opened by the thread itself (pid 0 = calling thread, cpu -1), never by
 * inheritance: a per-thread fd set gives per-thread truth and costs no
 * per-CPU fan-out at thread creation.  Each group is read with one read()
 * (PERF_FORMAT_GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING), or,
 * when every member is a hardware event on a counter and the evlist allows
 * it, from user space through the members' mmap pages (userread.c) with no
 * system call at all.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/compiler.h"
#include "common/sys.h"
#include "pmu/internal.h"
#include "pmu/read.h"
#include "pmu/userread.h"

static const char revoked_reason[] = "the program closed the counter "
				     "descriptors";
static const char read_reason[] = "reading the counters failed";

static void counters__unmap_group(struct pmu_counters *c, int g)
{
	const struct pmu_group *grp = &c->el->grp[g];

	for (int m = 0; m < grp->n; m++) {
		int i = grp->idx[m];
		pmu_userread__unmap(c->page[i]);
		c->page[i] = NULL;
	}
	c->user[g] = false;
}

/* Maps every member's page, or none: a group is read one way or the other.
 * A failed mmap (e.g. the locked-memory limit with many threads) only
 * costs the system-call path. */
static void counters__map_group(struct pmu_counters *c, int g)
{
	const struct pmu_group *grp = &c->el->grp[g];

	for (int m = 0; m < grp->n; m++) {
		int i = grp->idx[m];
		if (!pmu_event__is_hardware(&c->el->ev[i]))
			return;
	}
	for (int m = 0; m < grp->n; m++) {
		int i = grp->idx[m];
		c->page[i] = pmu_userread__map(c->fd[i]);
		if (!c->page[i]) {
			counters__unmap_group(c, g);
			return;
		}
	}
	c->user[g] = true;
}

/* Opens one group; on any failure the whole group is closed again, since a
 * missing member would break the group's read layout.  The members open
 * where the kernel puts them and move to our space together
 * (pmu_fdspace__place_n): their old numbers go in one close_range, not one
 * close each (a thread's start opens a group per thread). */
static int counters__open_group(struct pmu_counters *c, int g)
{
	const struct pmu_group *grp = &c->el->grp[g];
	int fd[PMU_MAX_EVENTS];

	for (int m = 0; m < grp->n; m++) {
		struct perf_event_attr attr = c->el->ev[grp->idx[m]].attr;
		int err;

		fd[m] = pmu_sys__open_unplaced(&attr, m ? fd[0] : -1);
		if (fd[m] >= 0)
			continue;
		err = errno;
		while (m-- > 0)
			hs_sys__close(fd[m]);
		return -err;
	}
	if (pmu_fdspace__place_n(fd, grp->n) != 0)
		return -EMFILE;
	for (int m = 0; m < grp->n; m++) {
		pmu_fdtab__own(fd[m]);
		c->fd[grp->idx[m]] = fd[m];
	}
	if (c->el->user_read)
		counters__map_group(c, g);
	return 0;
}

/* The bits of group g's events: its members and the clocks derived from
 * its times. */
static uint64_t counters__group_bits(const struct pmu_group *grp)
{
	uint64_t bits = 0;

	for (int m = 0; m < grp->n; m++)
		bits |= 1ull << grp->idx[m];
	for (int k = 0; k < grp->nclock; k++)
		bits |= 1ull << grp->clock[k];
	return bits;
}

/* No descriptor room (fdspace.c): the thread is not counted at all, rather
 * than with whichever groups happened to fit. */
static int counters__no_room(struct pmu_counters *c)
{
	pmu_counters__close(c);
	c->err = EMFILE;
	c->reason = pmu_errno__no_room;
	for (int g = 0; g < c->el->ngroups; g++)
		c->missing |= counters__group_bits(&c->el->grp[g]);
	return 0;
}

/* The lean read's plan (struct pmu_counters.nplan), or none.  From user
 * space: every group read there and filling out[] entirely.  With read():
 * no group read from user space, nothing dropped or missing (derived
 * clocks are filled in from their group's times). */
static void counters__plan(struct pmu_counters *c)
{
	const struct pmu_evlist *el = c->el;
	int n = 0, user = 0;

	c->nplan = 0;
	c->plan1 = false;
	if (el->ndropped || c->missing || el->ngroups == 0)
		return;
	for (int g = 0; g < el->ngroups; g++)
		user += c->user[g];
	if (user == 0) {
		c->nplan = -1;
		return;
	}
	if (el->nderived || user != el->ngroups)
		return;
	for (int g = 0; g < el->ngroups; g++) {
		const struct pmu_group *grp = &el->grp[g];

		for (int m = 0; m < grp->n; m++)
			c->plan[n++] = (struct pmu_plan){ c->page[grp->idx[m]],
							  grp->idx[m], m == 0 };
	}
	if (n != el->nevents)
		return;
	c->plan1 = el->ngroups == 1;
	c->nplan = n;
}

int pmu_counters__open(struct pmu_counters *c, const struct pmu_evlist *el)
{
	int opened = 0;

	memset(c, 0, sizeof(*c));
	c->el = el;
	for (int i = 0; i < PMU_MAX_EVENTS; i++)
		c->fd[i] = -1;
	for (int g = 0; g < el->ngroups; g++) {
		const struct pmu_group *grp = &el->grp[g];
		int rc = counters__open_group(c, g);

		if (rc == 0) { /* its derived clocks are counted with it */
			opened += grp->n + grp->nclock;
			continue;
		}
		/* EMFILE with the space full is no room; any other EMFILE
		 * (a seccomp filter, say) is an error like the others. */
		if (rc == -EMFILE && pmu_fdspace__no_room())
			return counters__no_room(c);
		if (!c->err)
			c->err = -rc;
		if (!c->reason)
			c->reason = pmu_errno__reason(-rc);
		c->missing |= counters__group_bits(grp);
	}
	counters__plan(c);
	return opened;
}

/* Every member still ours?  A program closing any of them (not only the
 * leader) breaks the group. */
static bool counters__group_intact(const struct pmu_counters *c,
				   const struct pmu_group *grp)
{
	for (int m = 0; m < grp->n; m++)
		if (!pmu_fdtab__valid(c->fd[grp->idx[m]]))
			return false;
	return true;
}

/* The group's events are not counted in this thread from now on.  Atomics:
 * the exit path may read another thread's counters while their owner reads
 * them too. */
static void counters__lose_group(struct pmu_counters *c,
				 const struct pmu_group *grp, const char *why)
{
	__atomic_or_fetch(&c->missing, counters__group_bits(grp), __ATOMIC_RELAXED);
	__atomic_store_n(&c->reason, why, __ATOMIC_RELAXED);
	__atomic_store_n(&c->nplan, 0, __ATOMIC_RELAXED); /* out[] is not all read */
}

/* One read() of group g into out[]; false when it failed (then the
 * group's events read as zeros and are missing from now on).  check: a
 * descriptor was revoked since the last read found all intact, so the
 * members' ownership is checked again before the read (always for a
 * group read from user space, whose descriptors are not checked then). */
static bool counters__read_syscall(struct pmu_counters *c, int g, struct count *out,
				   bool check)
{
	const struct pmu_group *grp = &c->el->grp[g];
	/* nr, time_enabled, time_running, then {value, id} per member */
	uint64_t buf[3 + 2 * PMU_MAX_EVENTS];
	int fd = c->fd[grp->idx[0]];
	ssize_t want = (ssize_t)((3 + 2 * grp->n) * sizeof(uint64_t));
	ssize_t got;

	if (unlikely(__atomic_load_n(&c->revoked, __ATOMIC_RELAXED) & (1ull << g)))
		fd = -1;
	else if (unlikely(check || c->user[g]) && fd >= 0 && !counters__group_intact(c, grp)) {
		/* Closed by the program: the number may be its file now. */
		__atomic_or_fetch(&c->revoked, 1ull << g, __ATOMIC_RELAXED);
		counters__lose_group(c, grp, revoked_reason);
		fd = -1;
	}
	/* The system call itself, not glibc's read(): no cancellation point
	 * inside a region boundary, and no wrapper of the program's. */
	got = fd < 0 ? -1 : hs_sys__read(fd, buf, sizeof(buf));
	if (unlikely(got != want || buf[0] != (uint64_t)grp->n)) {
		for (int m = 0; m < grp->n; m++)
			memset(&out[grp->idx[m]], 0, sizeof(struct count));
		if (fd < 0)
			return true; /* not counted here: no new failure */
		/* Unknown from now on, never a silent 0. */
		counters__lose_group(c, grp, read_reason);
		if (got >= 0)
			errno = EIO;
		return false;
	}
	for (int m = 0; m < grp->n; m++) {
		struct count *o = &out[grp->idx[m]];
		o->value = buf[3 + 2 * m];
		o->enabled = buf[1];
		o->running = buf[2];
	}
	hs_atomic__add(&c->syscall_reads, 1);
	return true;
}

/* Group g from user space; false when some member is not on a counter
 * right now (then read() must do).  The members share the leader's times:
 * a group is scheduled as one. */
static bool counters__read_user(struct pmu_counters *c, int g, struct count *out)
{
	const struct pmu_group *grp = &c->el->grp[g];
	struct count *lead = &out[grp->idx[0]];

	if (!pmu_userread__read(c->page[grp->idx[0]], lead, true, NULL))
		return false;
	for (int m = 1; m < grp->n; m++) {
		struct count *o = &out[grp->idx[m]];
		if (!pmu_userread__read(c->page[grp->idx[m]], o, false, NULL))
			return false;
		o->enabled = lead->enabled;
		o->running = lead->running;
	}
	hs_atomic__add(&c->user_reads, 1);
	return true;
}

/* The plan's read: one pass over the pages, a leader's times handed to
 * its members; false when some event is not on a counter right now (then
 * the general read does the whole read again). */
static bool counters__read_plan(struct pmu_counters *c, struct count *out, int n,
				uint64_t *clock)
{
	uint64_t enabled = 0, running = 0;

	for (int k = 0; k < n; k++) {
		const struct pmu_plan *p = &c->plan[k];
		struct count *o = &out[p->ev];

		if (p->lead) {
			/* The first leader's instant is the reading's. */
			if (!pmu_userread__read(p->page, o, true, k ? NULL : clock))
				return false;
			enabled = o->enabled;
			running = o->running;
			continue;
		}
		if (!pmu_userread__read(p->page, o, false, NULL))
			return false;
		o->enabled = enabled;
		o->running = running;
	}
	hs_atomic__add(&c->user_reads, (uint64_t)c->el->ngroups); /* all, in a plan */
	return true;
}

/* The read() plan's read (nplan < 0): per group one read() of exactly
 * its size, its members' counts and its derived clocks filled in.  False
 * when a descriptor may have changed hands since the last check, or a
 * read fails: then the general read does it all again, with its checks and
 * its accounting of failures. */
static inline __attribute__((always_inline)) bool
counters__read_sysplan(struct pmu_counters *c, struct count *out)
{
	const struct pmu_evlist *el = c->el;
	uint64_t buf[3 + 2 * PMU_MAX_EVENTS];

	if (unlikely(pmu_fdtab__generation() != __atomic_load_n(&c->fdgen, __ATOMIC_RELAXED)))
		return false;
	for (int g = 0; g < el->ngroups; g++) {
		const struct pmu_group *grp = &el->grp[g];
		long want = (3 + 2 * (long)grp->n) * (long)sizeof(uint64_t);

		if (unlikely(hs_sys__read(c->fd[grp->idx[0]], buf, (unsigned long)want) != want ||
			     buf[0] != (uint64_t)grp->n))
			return false;
		for (int m = 0; m < grp->n; m++)
			out[grp->idx[m]] = (struct count){ buf[3 + 2 * m], buf[1], buf[2] };
		pmu_group__clocks(grp, out, buf[2]);
	}
	hs_atomic__add(&c->syscall_reads, (uint64_t)el->ngroups);
	return true;
}

static int counters__read(struct pmu_counters *c, struct count *out, bool self)
{
	const struct pmu_evlist *el = c->el;
	uint64_t gen = pmu_fdtab__generation();
	bool check = gen != __atomic_load_n(&c->fdgen, __ATOMIC_RELAXED);
	int rc = 0;

	/* Dropped events belong to no group: give them defined zeros. */
	if (unlikely(el->ndropped))
		memset(out, 0, (size_t)el->nevents * sizeof(*out));
	for (int g = 0; g < el->ngroups; g++) {
		if (self && c->user[g] && counters__read_user(c, g, out))
			continue;
		if (!counters__read_syscall(c, g, out, check))
			rc = -1;
	}
	/* Every group checked at gen: not again until a revocation. */
	if (unlikely(check))
		__atomic_store_n(&c->fdgen, gen, __ATOMIC_RELAXED);
	/* After the groups, once: a read with no derived clock pays one test
	 * (a failed group read its leader as zeros, so its clocks too). */
	if (unlikely(el->nderived))
		for (int g = 0; g < el->ngroups; g++)
			pmu_group__clocks(&el->grp[g], out,
					  out[el->grp[g].idx[0]].running);
	return rc;
}

int pmu_counters__read_at(struct pmu_counters *c, struct count *out, uint64_t *clock)
{
	/* Another thread's read_other may drop the plan (counters__lose_group). */
	int rc, n = __atomic_load_n(&c->nplan, __ATOMIC_RELAXED);

	*clock = 0;
	c->reading = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (likely(n > 0) && (c->plan1 ? pmu_counters__read_plan1(c, out, n, clock) :
					 counters__read_plan(c, out, n, clock)))
		rc = 0;
	else if (n < 0 && counters__read_sysplan(c, out))
		rc = 0;
	else {
		*clock = 0;
		rc = counters__read(c, out, true);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->reading = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(c->deferred))
		pmu_counters__run_deferred(c);
	return rc;
}

void pmu_counters__run_deferred(struct pmu_counters *c)
{
	int saved = errno;

	c->deferred = 0;
	if (c->defer_fn)
		c->defer_fn(c->defer_arg);
	errno = saved;
}

uint64_t pmu_counters__clock(const struct pmu_counters *c)
{
	return pmu_counters__planned(c) ? pmu_userread__clock(c->plan[0].page) : 0;
}

int pmu_counters__read(struct pmu_counters *c, struct count *out)
{
	uint64_t clock;

	return pmu_counters__read_at(c, out, &clock);
}

int pmu_counters__read_other(struct pmu_counters *c, struct count *out)
{
	return counters__read(c, out, false);
}

/* fork() does not copy perf mappings (VM_DONTCOPY): in the child the
 * addresses are free and may already hold the child's own memory. */
void pmu_counters__forget_pages(struct pmu_counters *c)
{
	memset(c->page, 0, sizeof(c->page));
	memset(c->user, 0, sizeof(c->user));
	__atomic_store_n(&c->nplan, 0, __ATOMIC_RELAXED);
}

/* A thread's descriptors usually sit side by side (fdspace.c hands out the
 * lowest free numbers of our space): then one close_range closes them all,
 * not one close each.  Only numbers still ours (pmu_fdtab__revoke) and
 * only when they fill the range exactly; else one close each. */
void pmu_counters__close(struct pmu_counters *c)
{
	int mine[PMU_MAX_EVENTS], n = 0, lo = INT_MAX, hi = -1;

	__atomic_store_n(&c->nplan, 0, __ATOMIC_RELAXED);
	for (int g = 0; c->el && g < c->el->ngroups; g++)
		counters__unmap_group(c, g);
	for (int i = 0; i < PMU_MAX_EVENTS; i++) {
		int fd = c->fd[i];

		c->fd[i] = -1;
		if (fd < 0)
			continue;
		if (!pmu_fdtab__revoke(fd)) { /* the program's number now */
			if (!pmu_fdtab__tracked(fd))
				hs_sys__close(fd);
			continue;
		}
		mine[n++] = fd;
		lo = fd < lo ? fd : lo;
		hi = fd > hi ? fd : hi;
	}
	if (n > 1 && hi - lo + 1 == n &&
	    syscall(SYS_close_range, (unsigned int)lo, (unsigned int)hi, 0) == 0)
		return;
	for (int i = 0; i < n; i++)
		hs_sys__close(mine[i]);
}
