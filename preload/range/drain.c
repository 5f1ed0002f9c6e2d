/* drain.c - samples into per-range counts, and the thread that drains.
 *
 * A drain thread of our own sleeps in epoll_wait on every ring; the kernel
 * wakes it when a ring is half full (and it looks once a second anyway),
 * and it attributes each sample's IP to the ranges containing it.  A
 * thread's ring is also drained one last time when the thread ends, and
 * every ring when the results are collected (range.c).  All draining is
 * under hs_rng.lock, which also guards the interval table it reads.
 */
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/range/internal.h"

struct attr_ctx {
	uint64_t *hits; /* [nranges] of one sampled event */
};

/* One sample: which ranges hold its IP (under hs_rng.lock). */
static void sample__attribute(void *arg, uint64_t ip, bool kernel)
{
	struct attr_ctx *c = arg;
	uint64_t in = kernel ? hs_rng.kernel_mask : 0;

	for (int i = 0; i < hs_rng.niv; i++)
		if (ip - hs_rng.iv[i].lo < hs_rng.iv[i].hi - hs_rng.iv[i].lo)
			in |= 1ull << hs_rng.iv[i].range;
	in = (in ^ hs_rng.inverse_mask) & hs_rng.all_mask;
	while (in) {
		c->hits[__builtin_ctzll(in)]++;
		in &= in - 1;
	}
}

void hs_range_slot__drain(struct rng_slot *s)
{
	struct agg_range_thread *res = s->res;

	for (int k = 0; k < hs_rng.nsev; k++) {
		struct pmu_ring_stats st = { 0 };
		struct attr_ctx c = {
			.hits = res->hits + (size_t)k * (size_t)res->nranges,
		};

		if (!s->ring[k].base)
			continue;
		pmu_ring__drain(&s->ring[k], sample__attribute, &c, &st);
		res->samples[k] += st.samples;
		res->lost[k] += st.lost;
		res->throttled[k] += st.throttled;
	}
}

static void drain__all(void)
{
	hs_range_resolve__new_objects(true);
	for (struct rng_slot *s = hs_rng.slots; s; s = s->next)
		if (__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
			hs_range_slot__drain(s);
}

/* The drain thread: woken when a ring is half full (and once a second). */
static void *drain__main(void *unused)
{
	(void)unused;
	__atomic_store_n(&hs_rng.drain_tid, gettid(), __ATOMIC_RELEASE);
	for (;;) {
		struct epoll_event ev[8];
		int fd = __atomic_load_n(&hs_rng.epfd, __ATOMIC_RELAXED);

		if (fd < 0 || !pmu_fdtab__valid(fd) ||
		    (epoll_wait(fd, ev, 8, 1000) < 0 && errno != EINTR)) {
			/* The program closed our epoll descriptor: poll. */
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		pthread_mutex_lock(&hs_rng.lock);
		if (!hs_rng.frozen)
			drain__all();
		pthread_mutex_unlock(&hs_rng.lock);
	}
	return NULL;
}

/* Started by the first covered thread, not at start: a program that never
 * runs a thread with rings never gets one.  The epoll descriptor goes into
 * pmu/'s table of our descriptors, so that the program closing it (or
 * dup2 over it) is seen (pmu_fdtab__valid) and the thread falls back to
 * polling.  The thread blocks every signal: signals meant for the program
 * must never be delivered to it.  Created with the real pthread_create:
 * it is ours, not a program thread to count. */
void hs_range_drain__ensure(void)
{
	hs_real_pthread_create_fn create;
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t th;

	if (hs_rng.drain_started || hs_rng.nsev == 0)
		return;
	hs_rng.drain_started = true;
	create = hs_real__pthread_create();
	hs_rng.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (hs_rng.epfd >= 0)
		pmu_fdtab__own(hs_rng.epfd);
	if (!create || pthread_attr_init(&attr) != 0)
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (create(&th, &attr, drain__main, NULL) == 0)
		pthread_setname_np(th, "hpcshim-drain");
	else
		hs_log(HS_LOG_ERROR, "HPCSHIM_RANGE: cannot start the drain thread; "
				     "samples are drained only when threads end");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

bool hs_range_drain__own_task(pid_t tid)
{
	return tid == __atomic_load_n(&hs_rng.drain_tid, __ATOMIC_ACQUIRE);
}

/* The drain thread does not exist in a fork child; the epoll descriptor
 * is the parent's (it watches the parent's rings). */
void hs_range_drain__fork_child(void)
{
	if (hs_rng.epfd >= 0)
		pmu_sys__close(hs_rng.epfd);
	hs_rng.epfd = -1;
	hs_rng.drain_started = false;
	__atomic_store_n(&hs_rng.drain_tid, 0, __ATOMIC_RELAXED);
}
