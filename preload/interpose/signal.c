/* signal.c - results survive fatal signals; the program's handling does not
 * change.
 *
 * Every signal whose default action ends the process and that can be
 * caught is covered: the classic ones (the faults, SIGABRT, SIGTERM,
 * SIGINT, SIGQUIT, SIGHUP; SIGUSR1/2, SIGALRM, SIGVTALRM, SIGPROF, SIGPIPE,
 * SIGXCPU, SIGXFSZ that batch systems and limits send; SIGSTKFLT, SIGPWR,
 * SIGSYS, SIGTRAP, SIGIO) and the real-time signals SIGRTMIN..SIGRTMAX
 * (glibc keeps the two below SIGRTMIN for itself).  A real-time signal
 * that already has an action when the constructor runs is left alone
 * entirely: the shim's own rotation signal (preload/mux, installed before
 * this) or a library's.
 *
 * For each covered signal whose disposition is the default, the shim installs
 * a handler that writes the results gathered so far ("complete": false),
 * restores the default action and lets the signal take the process down as
 * it would have: a synchronous fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE)
 * re-executes the faulting instruction, an asynchronous signal is raised
 * again and delivered when the handler returns.  Either way the process
 * dies of the same signal, with the same core-dump behaviour.
 *
 * The program keeps full control: sigaction() and signal() are interposed,
 * a handler or SIG_IGN the program installs replaces ours for real (so its
 * semantics, SA_SIGINFO, sa_mask, SA_ONSTACK, SA_RESETHAND, are exactly its
 * own), and when it asks for SIG_DFL again our handler goes back in its
 * place.  The program always sees its own view of the disposition.
 *
 * Writing JSON from a handler is not async-signal-safe.  It is best effort:
 * a fault inside malloc may hang instead of writing; a fault inside the
 * writer dies of the signal without a file (the state is already
 * finished, so the handler does not try twice).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/core/core.h"
#include "preload/interpose/interpose.h"

static const int fatal_signals[] = {
	SIGSEGV,   SIGBUS,  SIGILL,  SIGFPE,  SIGABRT, SIGTERM,   SIGINT,
	SIGQUIT,   SIGHUP,  SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
	SIGPIPE,   SIGXCPU, SIGXFSZ, SIGSYS,  SIGTRAP, SIGIO,     SIGPWR,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

static hs_real_sigaction_fn real_sigaction;
static struct sigaction view[NSIG]; /* the program's idea of each action */
static bool covered[NSIG];

static bool is_default(const struct sigaction *sa)
{
	/* sa_handler and sa_sigaction share storage: SIG_DFL is 0 in both. */
	return sa->sa_handler == SIG_DFL;
}

static void sig__handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct sigaction dfl;

	(void)uc;
	hs_process__finish(HS_END_SIGNAL, sig);
	/* Another thread may be writing the results (exit, or another
	 * signal): dying now would lose them. */
	hs_publish__wait();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	real_sigaction(sig, &dfl, NULL);
	/* Sent signals (kill, raise, timers) must be sent again; it stays
	 * pending while this handler blocks it.  A fault with si_code > 0
	 * simply happens again when the instruction re-executes. */
	if (si->si_code <= 0 ||
	    !(sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE))
		syscall(SYS_tgkill, getpid(), gettid(), sig);
	errno = saved;
}

static void sig__ours(struct sigaction *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sa_sigaction = sig__handler;
	sa->sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa->sa_mask); /* no other handler runs inside ours */
}

static int sig__install_ours(int sig)
{
	struct sigaction sa;

	sig__ours(&sa);
	return real_sigaction(sig, &sa, NULL);
}

/* One system call per signal in the usual case (a default action, all a
 * fresh process has): ours goes in and the old action comes back in the
 * same call; only an action that was not the default (SIG_IGN inherited,
 * a handler from a constructor before ours) is put back with a second
 * one.  Signals are blocked meanwhile (hs_signal__init), so none can
 * arrive while ours stands in for that action. */
static void sig__cover(int sig, bool only_default)
{
	struct sigaction ours;

	sig__ours(&ours);
	if (real_sigaction(sig, &ours, &view[sig]) != 0)
		return;
	if (!is_default(&view[sig]))
		real_sigaction(sig, &view[sig], NULL);
	if (only_default && !is_default(&view[sig]))
		return;
	covered[sig] = true;
}

void hs_signal__init(void)
{
	sigset_t all, old;
	bool masked;

	real_sigaction = hs_real__sigaction();
	if (!real_sigaction)
		return;
	sigfillset(&all);
	masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sig__cover(fatal_signals[i], false);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX && sig < NSIG; sig++)
		sig__cover(sig, true);
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
}

HPCSHIM_API int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
	struct sigaction prev;
	int rc = 0;

	if (!real_sigaction)
		real_sigaction = hs_real__sigaction();
	if (!real_sigaction) {
		errno = ENOSYS;
		return -1;
	}
	if (sig <= 0 || sig >= NSIG || !covered[sig] || hs_process__foreign())
		return real_sigaction(sig, act, oldact);
	prev = view[sig];
	if (act) {
		if (is_default(act) &&
		    __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) == HS_RUNNING)
			rc = sig__install_ours(sig);
		else
			rc = real_sigaction(sig, act, NULL);
		if (rc != 0)
			return rc;
		view[sig] = *act;
	}
	if (oldact)
		*oldact = prev;
	return 0;
}

/* glibc's signal() calls its internal sigaction, which we would not see.
 * Same semantics: BSD style, the signal blocked in its handler, restart. */
HPCSHIM_API sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < NSIG)
		sigaddset(&sa.sa_mask, sig);
	sa.sa_flags = SA_RESTART;
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}
