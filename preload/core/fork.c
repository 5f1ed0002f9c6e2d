/* fork.c - a fork()ed child is a process of its own.
 *
 * The child inherits a copy of our state but only the forking thread: the
 * other threads' records and every inherited counter fd describe the
 * parent (a per-thread fd keeps counting the parent's thread).  The child
 * drops them, reopens counters for its one thread and starts a result of
 * its own, which it writes when it ends.  The parent is not touched.
 * vfork() runs no fork handlers; hs_process__foreign() keeps a vfork child
 * away from the (shared) state instead.
 *
 * A fork child claims no MPI rank: a rank is a process its launcher
 * started (an exec'd image, with the rank in its start environment), and a
 * launcher's helper sets the rank up in a fork child before the exec.
 * Its own work starts at the end of this handler (core/quiet.c): a child
 * that only execs writes no file.
 */
#include <unistd.h>

#include "preload/base/log.h"
#include "preload/core/feature.h"
#include "preload/core/core.h"
#include "preload/core/quiet.h"

void hs_fork__child(void)
{
	struct hs_thread *self = hs_self, *t, *next;
	struct agg_thread *a, *an;

	/* The lock may have been held by a thread that does not exist here. */
	pthread_mutex_init(&hs_proc.lock, NULL);
	hs_site__fork_child();
	hs_features__fork_child();
	if (__atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) != HS_RUNNING)
		return;
	hs_proc.pid = getpid();
	hs_proc.start_ns = hs_clock__realtime();
	hs_proc.start_mono = hs_clock__monotonic();
	hs_proc.exec_generation = 0;
	hs_proc.rank = -1;
	hs_proc.size = -1;
	hs_proc.job[0] = '\0';
	hs_proc.mpi_job[0] = '\0';
	__atomic_store_n(&hs_proc.uncovered_calls, 0, __ATOMIC_RELAXED);
	for (a = hs_proc.done; a; a = an) {
		an = a->next;
		agg_thread__delete(a);
	}
	hs_proc.done = NULL;
	for (t = hs_proc.live; t; t = next) {
		next = t->next;
		if (t != self)
			hs_thread__discard(t);
	}
	hs_proc.live = NULL;
	if (!self || hs_thread__rebirth(self) < 0) {
		if (self)
			hs_thread__discard(self);
		hs_self = NULL;
		hs_log(HS_LOG_DEBUG, "fork child %d: thread not counted", getpid());
		hs_quiet__mark();
		return;
	}
	hs_proc.live = self;
	hs_features__thread_start(self);
	hs_quiet__mark();
}
