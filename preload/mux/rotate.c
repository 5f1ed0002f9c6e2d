/* rotate.c - statistical multiplexing per thread (HPCSHIM_MUX=rotate, after
 * Azimi et al., "Online performance analysis by statistical sampling of
 * microprocessor performance counters") and counter time series
 * (HPCSHIM_INTERVAL).
 *
 * Each thread opens its rotated groups disabled and enables one at a time.
 * A sampler (pmu/sampler.c) interrupts the thread after each slice of its
 * CPU time (or instructions) with a real-time signal; the handler disables
 * the outgoing group, reads the thread's task clock (every group is off:
 * the switch gaps are measured exactly), enables the next group (ioctls
 * with PERF_IOC_FLAG_GROUP) and then reads the outgoing group, frozen: the
 * slice's counts, for the standard errors.  Every round visits each group once, in an order
 * shuffled anew for every round, so that no group is tied to a phase of a
 * loop that happens to match the round.  A second sampler, if asked,
 * appends the thread's cumulative readings to its series every interval.
 *
 * Region boundaries are not touched, but a switch must not fall between
 * the group reads of one boundary: the groups read before it and after it
 * would disagree by the handler's whole time (tens of us, under load a
 * 200 us region's rotated clock read +15%).  The owner's read of all
 * groups is therefore a section (pmu_counters__read): a slice signal that
 * comes inside it only marks the switch deferred, and the read runs it as
 * it ends (rot__deferred).  Each group read is itself a consistent
 * snapshot (read() is atomic per group; a user-space read is a seqlock
 * that retries, and finds a disabled group off the counters and falls back
 * to read()).  The estimate of an interval depends only on per-group
 * deltas (aggregate/mux.c), so the hot path costs the same as without
 * rotation (when its groups are readable in user space; a disabled group
 * is read with read()) but for the section's flag.
 *
 * The handler is async-signal-safe: system calls, relaxed atomic stores to
 * this thread's preallocated statistics, no allocation, no lock; errno is
 * preserved.  It finds its state through initial-exec TLS.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aggregate/mux.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/core/core.h"
#include "preload/mux/rotate.h"

struct hs_rot {
	struct pmu_counters *ctr;   /* the thread's; its read defers switches */
	struct agg_rotation *stats; /* the thread's result owns it     */
	struct agg_series *series;  /* idem, or NULL                    */
	int fd_rot, fd_int;         /* samplers, or -1                  */
	int fd_ref;                 /* task clock counted always, or -1 */
	int n;                      /* groups in the rotation           */
	int grp[PMU_MAX_EVENTS];    /* their indices, this round's order */
	int pos;                    /* grp[pos] is enabled              */
	uint64_t rng;
	int off;                         /* stopping: the handler does nothing */
	struct count *last;              /* [nev] at each group's last switch */
	uint64_t frozen[PMU_MAX_EVENTS]; /* each group's time enabled at its
				      * latest disable                  */
	struct count *scratch;           /* [nev] the handler's reading       */
};

static const struct hs_mux_setup *rot_setup;
static __thread struct hs_rot *rot_self __attribute__((tls_model("initial-exec")));
int hs_rotate_slot = -1; /* set by the core (hs_features__set) */

/* t's rotation state, or NULL. */
static struct hs_rot *rot__of(const struct hs_thread *t)
{
	return hs_rotate_slot >= 0 ? t->slot[hs_rotate_slot] : NULL;
}

static const char err_sampler[] = "the slice sampler could not be opened "
				  "(descriptors or perf_event_open): this thread's groups were left to "
				  "the kernel's multiplexing";
static const char err_alloc[] = "out of memory: this thread's groups were "
				"left to the kernel's multiplexing";

/* splitmix64: seeds and draws the shuffles. */
static uint64_t rot__rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void rot__shuffle(struct hs_rot *r)
{
	for (int i = r->n - 1; i > 0; i--) {
		int j = (int)(rot__rand(&r->rng) % (uint64_t)(i + 1)), x = r->grp[i];
		r->grp[i] = r->grp[j];
		r->grp[j] = x;
	}
}

/* The end of group g's slice: its counts since its previous slice ended.
 * Read after its disable, the reading is the group's frozen state. */
static void rot__slice(struct hs_rot *r, int g, bool disabled)
{
	const struct pmu_group *grp = &r->ctr->el->grp[g];
	int lead = grp->idx[0];
	uint64_t t;

	if (pmu_group__read(r->ctr, g, r->scratch) < 0) {
		hs_atomic__add(&r->stats->errors, 1);
		return;
	}
	t = r->scratch[lead].running - r->last[lead].running;
	if (disabled)
		r->frozen[g] = r->scratch[lead].enabled;
	for (int m = 0; m < grp->n; m++) {
		int e = grp->idx[m];
		uint64_t v = r->scratch[e].value;

		r->scratch[e].value = v - r->last[e].value;
		r->last[e].value = v;
		r->last[e].running = r->scratch[lead].running;
	}
	if (t > 0)
		agg_rotation__slice(r->stats, g, grp->idx, grp->n, r->scratch, t);
}

/* The task clock, read while every rotated group is disabled. */
static bool rot__clock(struct hs_rot *r, uint64_t *tau)
{
	if (r->fd_ref < 0 || !pmu_fdtab__valid(r->fd_ref) ||
	    read(r->fd_ref, tau, sizeof(*tau)) != (ssize_t)sizeof(*tau)) {
		hs_atomic__add(&r->stats->errors, 1);
		return false;
	}
	return true;
}

/* tau was read while every rotated group was disabled, so their times
 * enabled were frozen at the values they now have: the task clock minus
 * their sum is exactly the thread time in which none was enabled (the
 * switch gaps, and the moment before the first enable). */
static void rot__gap(struct hs_rot *r, uint64_t tau)
{
	uint64_t sum = 0;

	for (int i = 0; i < r->n; i++)
		sum += r->frozen[r->grp[i]];
	if (tau < sum)
		return;
	__atomic_store_n(&r->stats->gap_ns, tau - sum, __ATOMIC_RELAXED);
	__atomic_store_n(&r->stats->rotated_ns, sum, __ATOMIC_RELAXED);
}

static void rot__switch(struct hs_rot *r)
{
	int g = r->grp[r->pos], next;
	uint64_t t0, tau = 0;
	bool clock_ok;

	if (++r->pos == r->n) {
		rot__shuffle(r);
		r->pos = 0;
		hs_atomic__add(&r->stats->rounds, 1);
	}
	next = r->grp[r->pos];
	if (next == g) { /* the new round starts with the same group */
		rot__slice(r, g, false);
		return;
	}
	/* Disable first: enabling first could leave the new group waiting
	 * for a counter until the kernel's next rotation tick.  Only the
	 * clock is read in between (the gap); the old group stays frozen, so
	 * its slice is read after the new one is on. */
	t0 = hs_clock__monotonic();
	if (pmu_group__enable(r->ctr, g, false) < 0)
		hs_atomic__add(&r->stats->errors, 1);
	clock_ok = rot__clock(r, &tau);
	if (pmu_group__enable(r->ctr, next, true) < 0)
		hs_atomic__add(&r->stats->errors, 1);
	rot__slice(r, g, true);
	if (clock_ok)
		rot__gap(r, tau);
	hs_atomic__add(&r->stats->switch_ns, hs_clock__monotonic() - t0);
	hs_atomic__add(&r->stats->switches, 1);
}

/* Every group open in this thread into scratch; false when one read failed. */
static bool rot__read_all(struct hs_rot *r)
{
	const struct pmu_evlist *el = r->ctr->el;

	memset(r->scratch, 0, (size_t)el->nevents * sizeof(*r->scratch));
	for (int g = 0; g < el->ngroups; g++) {
		if (r->ctr->missing & (1ull << el->grp[g].idx[0]))
			continue;
		if (pmu_group__read(r->ctr, g, r->scratch) < 0)
			return false;
	}
	return true;
}

static void rot__point(struct hs_rot *r)
{
	if (rot__read_all(r))
		agg_series__append(r->series, hs_clock__thread(), r->scratch);
	else
		hs_atomic__add(&r->stats->errors, 1);
}

/* One slice ends: the switch, then the sampler armed for the next. */
static void rot__next(struct hs_rot *r)
{
	rot__switch(r);
	if (pmu_sampler__arm(r->fd_rot) < 0)
		hs_atomic__add(&r->stats->errors, 1);
}

/* A switch deferred by a boundary, run by the owner as its reads end (the
 * sampler is disarmed meanwhile: no other switch can come). */
static void rot__deferred(void *arg)
{
	struct hs_rot *r = arg;
	sigset_t sig, old;

	if (__atomic_load_n(&r->off, __ATOMIC_RELAXED) || r->fd_rot < 0)
		return;
	/* The interval sampler's handler shares the scratch reading. */
	sigemptyset(&sig);
	sigaddset(&sig, rot_setup->signo);
	pthread_sigmask(SIG_BLOCK, &sig, &old);
	rot__next(r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void rot__handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct hs_rot *r = rot_self;
	uint64_t t0, dt;

	(void)sig;
	(void)uc;
	/* si_code > 0: sent by the kernel for a sampler (POLL_IN/POLL_HUP),
	 * not by kill() or sigqueue(). */
	if (!r || __atomic_load_n(&r->off, __ATOMIC_RELAXED) || si->si_code <= 0)
		goto out;
	t0 = hs_clock__monotonic();
	if (si->si_fd == r->fd_rot && r->fd_rot >= 0) {
		if (r->ctr->reading) {
			/* Inside a boundary's reads: the switch waits for
			 * their end (rot__deferred), so that every group of
			 * one boundary is read on the same side of it. */
			r->ctr->deferred = 1;
			hs_atomic__add(&r->stats->deferred, 1);
			goto out;
		}
		rot__next(r);
	} else if (si->si_fd == r->fd_int && r->fd_int >= 0) {
		if (agg_series__tick(r->series))
			rot__point(r);
		if (pmu_sampler__arm(r->fd_int) < 0)
			hs_atomic__add(&r->stats->errors, 1);
	} else {
		goto out; /* a closed sampler's last signal */
	}
	dt = hs_clock__monotonic() - t0;
	hs_atomic__add(&r->stats->signals, 1);
	hs_atomic__add(&r->stats->handler_ns, dt);
	hs_atomic__max(&r->stats->handler_max_ns, dt);
out:
	errno = saved;
}

void hs_rotate__init(const struct hs_mux_setup *s)
{
	struct sigaction sa;

	rot_setup = s;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = rot__handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (hs_real_sigaction(s->signo, &sa, NULL) < 0)
		hs_log(HS_LOG_ERROR, "cannot install the rotation signal handler: %s",
		       strerror(errno));
}

static void rot__free(struct hs_rot *r)
{
	free(r->last);
	free(r->scratch);
	free(r);
}

/* Rotation could not start: every rotated group is enabled and left to the
 * kernel, whose scaling then applies to this thread (stats->active false). */
static void rot__kernel_fallback(struct hs_rot *r, const char *why)
{
	for (int i = 0; i < r->n; i++)
		pmu_group__enable(r->ctr, r->grp[i], true);
	r->stats->error = why;
	__atomic_store_n(&r->stats->active, false, __ATOMIC_RELAXED);
	r->n = 0;
}

static void rot__start_rotation(struct hs_rot *r, struct hs_thread *t)
{
	const struct pmu_evlist *el = &hs_proc.evlist;

	for (int g = 0; g < el->ngroups; g++)
		if (el->grp[g].rotated &&
		    !(t->ctr.missing & (1ull << el->grp[g].idx[0])))
			r->grp[r->n++] = g;
	r->stats->nrotated = r->n;
	if (r->n == 0)
		return;
	r->rng = rot_setup->seed ^ ((uint64_t)t->agg->tid * 0x9e3779b97f4a7c15ull);
	rot__shuffle(r);
	hs_atomic__add(&r->stats->rounds, 1);
	if (r->n > 1) {
		r->fd_ref = pmu_sampler__open_clock(&rot_setup->rot_attr);
		r->fd_rot = pmu_sampler__open(&rot_setup->rot_attr, rot_setup->signo);
		if (r->fd_rot < 0 || r->fd_ref < 0) {
			pmu_sampler__close(r->fd_ref);
			pmu_sampler__close(r->fd_rot);
			r->fd_ref = r->fd_rot = -1;
			rot__kernel_fallback(r, err_sampler);
			return;
		}
	}
	pmu_group__enable(r->ctr, r->grp[0], true);
	__atomic_store_n(&r->stats->active, true, __ATOMIC_RELAXED);
}

void hs_rotate__start(struct hs_thread *t)
{
	const struct pmu_evlist *el = &hs_proc.evlist;
	struct hs_rot *r;

	if (!rot_setup || !t)
		return;
	/* No slot to keep it in: as if out of memory. */
	r = hs_rotate_slot >= 0 ? calloc(1, sizeof(*r)) : NULL;
	if (r) {
		r->last = calloc((size_t)(el->nevents ? el->nevents : 1),
				 sizeof(*r->last));
		r->scratch = calloc((size_t)(el->nevents ? el->nevents : 1),
				    sizeof(*r->scratch));
		r->stats = agg_rotation__new(el->nevents, el->ngroups);
	}
	if (!r || !r->last || !r->scratch || !r->stats) {
		if (r) {
			agg_rotation__free(r->stats);
			rot__free(r);
		}
		/* The groups must not stay disabled: the kernel takes over
		 * (no rotation statistics: the kernel's scaling applies). */
		if (rot_setup->rotate)
			for (int g = 0; g < el->ngroups; g++)
				if (el->grp[g].rotated)
					pmu_group__enable(&t->ctr, g, true);
		hs_log(HS_LOG_DEBUG, "thread %d: %s", t->agg->tid, err_alloc);
		return;
	}
	r->ctr = &t->ctr;
	r->fd_rot = r->fd_int = r->fd_ref = -1;
	t->ctr.defer_arg = r;
	t->ctr.defer_fn = rot__deferred;
	t->agg->rot = r->stats;
	if (rot_setup->rotate)
		rot__start_rotation(r, t);
	if (rot_setup->interval) {
		r->series = agg_series__new(el->nevents, el->ngroups,
					    rot_setup->leaders,
					    rot_setup->interval_points,
					    rot_setup->interval_ns);
		if (r->series)
			r->fd_int = pmu_sampler__open(&rot_setup->int_attr,
						      rot_setup->signo);
		if (r->fd_int < 0) {
			agg_series__free(r->series);
			r->series = NULL;
		}
		t->agg->series = r->series;
	}
	t->slot[hs_rotate_slot] = r;
	rot_self = r;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (r->fd_rot >= 0 && pmu_sampler__arm(r->fd_rot) < 0)
		rot__kernel_fallback(r, err_sampler);
	if (r->fd_int >= 0)
		pmu_sampler__arm(r->fd_int);
}

void hs_rotate__stop(struct hs_thread *t)
{
	struct hs_rot *r = rot__of(t);

	if (!r)
		return;
	__atomic_store_n(&r->off, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pmu_sampler__close(r->fd_rot);
	pmu_sampler__close(r->fd_int);
	pmu_sampler__close(r->fd_ref);
	if (r->series) /* the last, partial interval */
		rot__point(r);
	if (rot_self == r)
		rot_self = NULL;
	t->ctr.defer_fn = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->slot[hs_rotate_slot] = NULL;
	rot__free(r);
}

void hs_rotate__forget(struct hs_thread *t)
{
	struct hs_rot *r = rot__of(t);

	if (!r)
		return;
	__atomic_store_n(&r->off, 1, __ATOMIC_RELAXED);
	/* The parent's events: a disable would stop the parent's sampler. */
	pmu_sys__close(r->fd_rot);
	pmu_sys__close(r->fd_int);
	pmu_sys__close(r->fd_ref);
	if (rot_self == r)
		rot_self = NULL;
	t->ctr.defer_fn = NULL;
	t->slot[hs_rotate_slot] = NULL;
	rot__free(r);
}

void hs_rotate__collect(struct hs_thread *t, bool self)
{
	struct hs_rot *r = rot__of(t);

	if (!r)
		return;
	if (self) {
		hs_rotate__stop(t);
		return;
	}
	/* Another live thread: its handler may be running right now.  No
	 * further switch or point; what it recorded stands (best effort). */
	__atomic_store_n(&r->off, 1, __ATOMIC_RELAXED);
}
