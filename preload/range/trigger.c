/* trigger.c - counting starts (and stops) when execution first reaches a
 * function: pfmon's --trigger / --start-address.
 *
 * The state moves one way, waiting -> started -> stopped, for the whole
 * process.  While waiting, every covered thread's counters are opened
 * disabled (their group leaders' attr.disabled, set here before the first
 * thread starts), and so are its sampling rings and checkpoints.  The
 * start point is an execute breakpoint with sigtrap in every thread: the
 * first thread to reach it gets a synchronous SIGTRAP before the first
 * instruction of the function runs.  The handler moves the state and
 * switches every live thread's descriptors with ioctl (a descriptor of
 * another thread can be enabled from any thread).  Threads created later
 * see the state when they start and follow it at once.  The stop point
 * works the same way, armed only while counting.
 *
 * Async-signal safety: the handler only does atomics, ioctl and
 * clock_gettime, and walks the slot registry (never freed) taking each
 * slot's lock with a try: a slot it cannot lock is brought up to date by
 * its holder (hs_range_slot__release, slot.c).  The thread that hit the
 * trigger switches its own counters last on start and first on stop, so
 * the handler's own work on other threads stays out of its counts.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "preload/base/real.h"
#include "preload/range/internal.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6 /* si_code of a perf event with sigtrap (Linux 5.13) */
#endif

/* attr.sig_data of our trigger breakpoints: "hpcs" + which one. */
#define TRIG_MAGIC 0x6870637300000000ull

static struct sigaction old_trap; /* the program's SIGTRAP action */

uint64_t hs_range_trig__sig_data(int which)
{
	return TRIG_MAGIC | (uint64_t)which;
}

const char *hs_range_trig__state_name(void)
{
	static const char *const names[] = { "waiting", "started", "stopped" };

	return names[__atomic_load_n(&hs_rng.state, __ATOMIC_ACQUIRE)];
}

static bool trig__armed(int which)
{
	return hs_rng.has_trig[which] && !hs_rng.trig[which].dropped;
}

void hs_range_trig__init(void)
{
	struct pmu_evlist *el = hs_rng.el;

	if (!trig__armed(TRIG_START)) {
		hs_rng.state = TRIG_STARTED;
		return;
	}
	hs_rng.state = TRIG_WAIT;
	/* Leaders only: a disabled leader holds its whole group. */
	for (int g = 0; g < el->ngroups; g++)
		el->ev[el->grp[g].idx[0]].attr.disabled = 1;
}

static void trig__fire(int which)
{
	int expected = which == TRIG_START ? TRIG_WAIT : TRIG_STARTED;
	struct rng_slot *self = hs_range_slot__self();

	if (__atomic_compare_exchange_n(&hs_rng.state, &expected, expected + 1,
					false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		uint64_t ns = hs_clock__realtime();

		__atomic_store_n(which == TRIG_START ? &hs_rng.started_tid :
						       &hs_rng.stopped_tid,
				 gettid(), __ATOMIC_RELAXED);
		__atomic_store_n(which == TRIG_START ? &hs_rng.started_ns :
						       &hs_rng.stopped_ns,
				 ns, __ATOMIC_RELEASE);
	}
	if (self && which == TRIG_STOP)
		hs_range_slot__apply(self, true);
	for (struct rng_slot *s = __atomic_load_n(&hs_rng.slots, __ATOMIC_ACQUIRE);
	     s; s = __atomic_load_n(&s->next, __ATOMIC_ACQUIRE))
		if (s != self && __atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
			hs_range_slot__apply(s, true);
	if (self && which == TRIG_START)
		hs_range_slot__apply(self, true);
}

void hs_range_trig__abandon_start(void)
{
	int expected = TRIG_WAIT;

	if (!__atomic_compare_exchange_n(&hs_rng.state, &expected, TRIG_STARTED,
					 false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	for (struct rng_slot *s = hs_rng.slots; s; s = s->next)
		if (__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
			hs_range_slot__apply(s, false);
}

/* Not ours: what the program's own action would have done. */
static void trap__chain(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *o = &old_trap;

	if (o->sa_handler == SIG_IGN)
		return;
	if (o->sa_handler == SIG_DFL) {
		/* Die of it as without us: the default action, raised again
		 * (pending until this handler returns). */
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		hs_real_sigaction(sig, &dfl, NULL);
		syscall(SYS_tgkill, getpid(), gettid(), sig);
		return;
	}
	if (o->sa_flags & SA_SIGINFO)
		o->sa_sigaction(sig, si, uc);
	else
		o->sa_handler(sig);
}

static void trap__handler(int sig, siginfo_t *si, void *uc)
{
	unsigned long data = 0;

	/* si_perf_data sits right after si_addr (the kernel's _sigfault
	 * union); glibc's siginfo_t does not name it. */
	if (si && si->si_code == TRAP_PERF)
		memcpy(&data, (const char *)&si->si_addr + sizeof(void *),
		       sizeof(data));
	if ((data & ~1ul) == TRIG_MAGIC) {
		int saved = errno;

		trig__fire((int)(data & 1));
		errno = saved;
		return;
	}
	trap__chain(sig, si, uc);
}

/* Installed with the real sigaction, keeping the program's earlier action
 * for the SIGTRAPs that are not ours.  A handler the program installs
 * later replaces ours (and triggers then reach the program's handler). */
void hs_range_trig__install_handler(void)
{
	struct sigaction sa;

	if (!trig__armed(TRIG_START) && !trig__armed(TRIG_STOP))
		return;
	if (!hs_real__sigaction())
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap__handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	hs_real_sigaction(SIGTRAP, &sa, &old_trap);
}
