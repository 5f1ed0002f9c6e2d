/* range.c - range restriction at run time: where the ranges are, which
 * events are sampled, the per-thread sampling rings and their drain
 * thread, and the thread/fork/exit hooks of the whole range feature
 * (checkpoints and triggers live in points.c and trigger.c).
 *
 * Counts restricted to a code range come from IP sampling: every covered
 * thread has, per sampled event, a sampling descriptor with an mmap ring.
 * A drain thread of our own sleeps in epoll_wait on all rings; the kernel
 * wakes it when a ring is half full, and it attributes each sample's IP to
 * the ranges containing it.  The program's threads are never interrupted
 * for this (no signal, no EINTR in its system calls).  A thread's ring is
 * drained one last time when it ends, and every ring when the results are
 * collected.
 *
 * Addresses: a range resolves to intervals when the object it names is
 * loaded.  Objects are scanned at start, and again whenever the dynamic
 * linker's load count (dlpi_adds) has moved: before every drain (an IP in
 * a library can only be sampled after the library was mapped, so samples
 * are never attributed before their library is known) and after dlopen
 * when a checkpoint or trigger waits for an object (dlopen.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/lock.h"
#include "preload/base/log.h"
#include "preload/range/internal.h"
#include "preload/shim.h"
#include "preload/range/symbols.h"

struct rng_state R = {
	.lock = PTHREAD_MUTEX_INITIALIZER, .epfd = -1, .bp_limit = -1,
};

static __thread struct rng_slot *rng_self __attribute__((tls_model("initial-exec")));

struct rng_slot *slot__self(void)
{
	return rng_self;
}

/* ---- slot lock --------------------------------------------------------- */

bool slot__try(struct rng_slot *s)
{
	int free_ = 0;

	return __atomic_compare_exchange_n(&s->spin, &free_, 1, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

void slot__spin(struct rng_slot *s)
{
	while (!slot__try(s))
		sched_yield();
}

/* A holder that let go must look at the trigger state again: the SIGTRAP
 * handler skips slots it cannot lock (seq_cst on both sides: either the
 * handler gets the lock or we see its new state). */
void slot__release(struct rng_slot *s, bool in_signal)
{
	int applied = s->applied;

	__atomic_store_n(&s->spin, 0, __ATOMIC_SEQ_CST);
	if (!in_signal && __atomic_load_n(&s->live, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&R.state, __ATOMIC_SEQ_CST) != applied)
		slot__apply(s, false);
}

static bool slot__try_any(void *s)
{
	return slot__try(s);
}

/* Bounded wait for the exit path in a signal handler, which may have
 * interrupted the holder itself. */
static bool slot__spin_bounded(struct rng_slot *s, bool in_signal)
{
	if (!in_signal) {
		slot__spin(s);
		return true;
	}
	return hs_lock__bounded(slot__try_any, s);
}

/* ---- address intervals ------------------------------------------------- */

/* Object names in the results outlive everything: interned, never freed. */
static const char *intern(const char *path)
{
	static char *pool[256];
	static int npool;

	for (int i = 0; i < npool; i++)
		if (strcmp(pool[i], path) == 0)
			return pool[i];
	if (npool == (int)(sizeof(pool) / sizeof(pool[0])))
		return "(many objects)";
	pool[npool] = strdup(path);
	return pool[npool] ? pool[npool++] : "?";
}

static void iv__add(uint64_t lo, uint64_t hi, int range, const char *object)
{
	if (R.niv == RNG_MAX_IV) {
		R.iv_full = true;
		return;
	}
	R.iv[R.niv].lo = lo;
	R.iv[R.niv].hi = hi;
	R.iv[R.niv].range = range;
	R.iv[R.niv].object = object;
	R.niv++;
}

static void iv__segments(const struct sym_object *o, int range)
{
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *ph = &o->phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			iv__add(o->base + ph->p_vaddr, o->base + ph->p_vaddr + ph->p_memsz,
				range, intern(o->path));
	}
}

/* Has this object (base and path) been scanned?  Marks it if not. */
static bool seen__check(const struct sym_object *o)
{
	uint64_t h = hs_hash__str(hs_hash__u64(HS_HASH_INIT, o->base), o->path);
	for (int i = 0; i < R.nseen; i++)
		if (R.seen[i] == h)
			return true;
	if (R.nseen == R.capseen) {
		int cap = R.capseen ? 2 * R.capseen : 64;
		uint64_t *n = realloc(R.seen, (size_t)cap * sizeof(*n));

		if (!n)
			return true; /* out of memory: scan nothing more */
		R.seen = n;
		R.capseen = cap;
	}
	R.seen[R.nseen++] = h;
	return false;
}

/* Symbol lookups of one object: who asked for names[i]. */
struct lookup {
	const struct sym_object *o;
	const char *names[RNG_MAX_RANGES + RNG_MAX_POINTS + 2];
	int who[RNG_MAX_RANGES + RNG_MAX_POINTS + 2]; /* range r, or ~point */
	int n;
};

static struct rng_point *point__by_index(int i)
{
	return i < RNG_MAX_POINTS ? &R.cp[i] : &R.trig[i - RNG_MAX_POINTS];
}

static void lookup__found(void *arg, int i, uint64_t addr, uint64_t size)
{
	struct lookup *lk = arg;
	struct rng_point *pt;

	if (lk->who[i] >= 0) {
		iv__add(addr, addr + (size ? size : 1), lk->who[i], intern(lk->o->path));
		return;
	}
	pt = point__by_index(~lk->who[i]);
	pt->defs++;
	if (__atomic_load_n(&pt->addr, __ATOMIC_RELAXED) == 0) {
		pt->object = intern(lk->o->path);
		__atomic_store_n(&pt->addr, addr, __ATOMIC_SEQ_CST);
	}
}

static bool obj_ok(const struct sym_object *o, const char *obj)
{
	return obj[0] == '\0' || sym__matches(o, obj);
}

static void point__object(struct lookup *lk, struct rng_point *pt, int idx)
{
	const struct rng_place *pl = pt->pl;

	if (pt->dropped || __atomic_load_n(&pt->addr, __ATOMIC_RELAXED))
		return;
	if (pl->form == RNG_ADDR && pl->obj[0] && sym__matches(lk->o, pl->obj)) {
		pt->object = intern(lk->o->path);
		pt->defs = 1;
		__atomic_store_n(&pt->addr, lk->o->base + pl->lo, __ATOMIC_SEQ_CST);
	} else if (pl->form == RNG_FUNC && obj_ok(lk->o, pl->obj)) {
		lk->names[lk->n] = pl->name;
		lk->who[lk->n++] = ~idx;
	}
}

static void resolve__object(const struct sym_object *o)
{
	const struct hs_range_config *rc = R.rc;
	struct lookup lk = { .o = o };

	for (int r = 0; r < rc->nranges; r++) {
		const struct rng_place *pl = &rc->range[r];

		if ((pl->form == RNG_SO && sym__matches(o, pl->name)) ||
		    (pl->form == RNG_EXE && o->is_exe))
			iv__segments(o, r);
		else if (pl->form == RNG_ADDR && pl->obj[0] && sym__matches(o, pl->obj))
			iv__add(o->base + pl->lo, o->base + pl->hi, r, intern(o->path));
		else if (pl->form == RNG_FUNC && obj_ok(o, pl->obj)) {
			lk.names[lk.n] = pl->name;
			lk.who[lk.n++] = r;
		}
	}
	for (int i = 0; i < R.ncp; i++)
		point__object(&lk, &R.cp[i], i);
	for (int k = 0; k < 2; k++)
		if (R.has_trig[k])
			point__object(&lk, &R.trig[k], RNG_MAX_POINTS + k);
	if (lk.n)
		sym__lookup(o, lk.names, lk.n, lookup__found, &lk);
}

/* Scans the objects loaded since the last scan (under R.lock) and, with
 * install, arms newly resolved breakpoints in the live threads. */
static void resolve__new_objects(bool install)
{
	unsigned long long adds = sym__adds();
	struct sym_object *objs;
	int n;

	if (adds == R.adds)
		return;
	R.adds = adds;
	objs = sym__objects(&n);
	if (!objs)
		return;
	for (int i = 0; i < n; i++)
		if (!seen__check(&objs[i]))
			resolve__object(&objs[i]);
	free(objs);
	points__verify();
	if (install)
		points__install();
}

void hs_range__loaded(void)
{
	if (!R.active || hs_process__foreign())
		return;
	pthread_mutex_lock(&R.lock);
	if (!R.frozen)
		resolve__new_objects(true);
	pthread_mutex_unlock(&R.lock);
	if (!points__pending())
		hs_dlopen__hook(false);
}

/* ---- sampling ---------------------------------------------------------- */

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK ||
		a->config == PERF_COUNT_SW_CPU_CLOCK);
}

/* Defaults: clocks every 100 us (10 kHz per thread), other software events
 * every event (exact attribution), hardware events every 1000003. */
static uint64_t period__default(const struct perf_event_attr *a)
{
	if (is_clock(a))
		return 100000;
	return a->type == PERF_TYPE_SOFTWARE ? 1 : 1000003;
}

static void sampling__init(void)
{
	const struct hs_range_config *rc = R.rc;
	const struct pmu_evlist *el = &hs_proc.evlist;
	bool used[PMU_MAX_EVENTS] = { false };

	for (int i = 0; rc->nranges && i < el->nevents; i++) {
		const struct pmu_event *ev = &el->ev[i];
		uint64_t p = period__default(&ev->attr);

		if (ev->status != PMU_EV_OK)
			continue;
		for (int j = 0; j < rc->nperiods; j++)
			if (!rc->period[j].event[0]) {
				p = rc->period[j].period;
				used[j] = true;
			}
		for (int j = 0; j < rc->nperiods; j++)
			if (strcmp(rc->period[j].event, ev->name) == 0) {
				p = rc->period[j].period;
				used[j] = true;
			}
		if (p == 0)
			continue;
		if (is_clock(&ev->attr) && p < PMU_CLOCK_MIN_PERIOD)
			p = PMU_CLOCK_MIN_PERIOD;
		R.sev_ev[R.nsev] = i;
		R.sev_period[R.nsev++] = p;
	}
	for (int j = 0; j < rc->nperiods; j++)
		if (!used[j] && rc->nranges)
			hs_log(HS_LOG_ERROR, "HPCSHIM_RANGE_PERIOD: '%.60s=%llu' ignored: "
			       "not a counted event (see HPCSHIM_EVENTS)",
			       rc->period[j].event[0] ? rc->period[j].event : "",
			       (unsigned long long)rc->period[j].period);
	if (rc->nranges && R.nsev == 0) {
		snprintf(R.sampling_note, sizeof(R.sampling_note), "no counted event "
			 "to sample (every event dropped or given period 0): the "
			 "ranges count nothing");
		hs_log(HS_LOG_ERROR, "HPCSHIM_RANGE: %s", R.sampling_note);
	}
	for (int r = 0; r < rc->nranges; r++) {
		const struct rng_place *pl = &rc->range[r];

		R.all_mask |= 1ull << r;
		if (pl->inverse)
			R.inverse_mask |= 1ull << r;
		if (pl->form == RNG_KERNEL)
			R.kernel_mask |= 1ull << r;
		if (pl->form == RNG_ADDR && !pl->obj[0])
			iv__add(pl->lo, pl->hi, r, NULL);
	}
}

struct attr_ctx {
	uint64_t *hits; /* [nranges] of one sampled event */
};

/* One sample: which ranges hold its IP (under R.lock). */
static void sample__attribute(void *arg, uint64_t ip, bool kernel)
{
	struct attr_ctx *c = arg;
	uint64_t in = kernel ? R.kernel_mask : 0;

	for (int i = 0; i < R.niv; i++)
		if (ip - R.iv[i].lo < R.iv[i].hi - R.iv[i].lo)
			in |= 1ull << R.iv[i].range;
	in = (in ^ R.inverse_mask) & R.all_mask;
	while (in) {
		c->hits[__builtin_ctzll(in)]++;
		in &= in - 1;
	}
}

/* Drains every ring of s into its results (under R.lock). */
static void slot__drain(struct rng_slot *s)
{
	struct agg_range_thread *res = s->res;

	for (int k = 0; k < R.nsev; k++) {
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
	resolve__new_objects(true);
	for (struct rng_slot *s = R.slots; s; s = s->next)
		if (__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
			slot__drain(s);
}

/* The drain thread: woken when a ring is half full (and once a second). */
static void *drain__main(void *unused)
{
	(void)unused;
	__atomic_store_n(&R.drain_tid, gettid(), __ATOMIC_RELEASE);
	for (;;) {
		struct epoll_event ev[8];
		int fd = __atomic_load_n(&R.epfd, __ATOMIC_RELAXED);

		if (fd < 0 || !pmu_fdtab__valid(fd) ||
		    (epoll_wait(fd, ev, 8, 1000) < 0 && errno != EINTR)) {
			/* The program closed our epoll descriptor: poll. */
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		pthread_mutex_lock(&R.lock);
		if (!R.frozen)
			drain__all();
		pthread_mutex_unlock(&R.lock);
	}
	return NULL;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				 void *(*)(void *), void *);

/* Under R.lock.  The thread blocks every signal: signals meant for the
 * program must never be delivered to it. */
static void drain__ensure(void)
{
	pthread_create_fn create;
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t th;

	if (R.drain_started || R.nsev == 0)
		return;
	R.drain_started = true;
	create = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
	R.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (R.epfd >= 0)
		pmu_fdtab__own(R.epfd);
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

bool hs_range__own_task(pid_t tid)
{
	return R.active && tid == __atomic_load_n(&R.drain_tid, __ATOMIC_ACQUIRE);
}

static void rings__open(struct rng_slot *s, int ceiling)
{
	struct agg_range_thread *res = s->res;

	for (int k = 0; k < R.nsev; k++) {
		const struct pmu_event *ev = &hs_proc.evlist.ev[R.sev_ev[k]];
		int rc = pmu_ring__open(&s->ring[k], &ev->attr, R.sev_period[k],
					s->applied != TRIG_STARTED, 0, ceiling);

		if (rc < 0) {
			res->sev_missing |= 1ull << k;
			if (!res->sev_reason)
				res->sev_reason = pmu_errno__reason(-rc);
			continue;
		}
		if (R.epfd >= 0 && pmu_fdtab__valid(R.epfd)) {
			struct epoll_event e = { .events = EPOLLIN };

			epoll_ctl(R.epfd, EPOLL_CTL_ADD, s->ring[k].fd, &e);
		}
	}
}

static void rings__close(struct rng_slot *s, bool unmap)
{
	for (int k = 0; k < R.nsev; k++) {
		if (s->ring[k].fd >= 0 && unmap && R.epfd >= 0 &&
		    pmu_fdtab__valid(R.epfd) && pmu_fdtab__valid(s->ring[k].fd))
			epoll_ctl(R.epfd, EPOLL_CTL_DEL, s->ring[k].fd, NULL);
		pmu_ring__close(&s->ring[k], unmap);
	}
}

/* ---- threads ----------------------------------------------------------- */

/* A free slot (its thread ended) or a new one, owned and live (R.lock). */
static struct rng_slot *slot__claim(struct agg_range_thread *res)
{
	struct rng_slot *s;

	for (s = R.slots; s; s = s->next)
		if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE))
			break;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		s->next = R.slots;
		__atomic_store_n(&R.slots, s, __ATOMIC_RELEASE);
	}
	slot__spin(s);
	s->tid = gettid();
	s->res = res;
	s->nleader = 0;
	for (int k = 0; k < PMU_MAX_EVENTS; k++)
		s->ring[k] = (struct pmu_ring){ .fd = -1 };
	for (int i = 0; i < RNG_MAX_POINTS; i++)
		s->cp[i] = -1;
	s->trig[0] = s->trig[1] = -1;
	/* The counters were opened disabled iff a start trigger waits. */
	s->applied = R.has_trig[TRIG_START] && !R.trig[TRIG_START].dropped ?
		TRIG_WAIT : TRIG_STARTED;
	__atomic_store_n(&s->live, 1, __ATOMIC_SEQ_CST);
	return s;
}

void hs_range__thread_start(struct hs_thread *t)
{
	const struct pmu_evlist *el = &hs_proc.evlist;
	struct agg_range_thread *res;
	struct rng_slot *s;
	int ceiling;

	if (!R.active || !t)
		return;
	res = agg_range_thread__new(R.nsev, R.rc->nranges, R.ncp);
	if (!res)
		return;
	ceiling = pmu_sys__fd_ceiling();
	pthread_mutex_lock(&R.lock);
	drain__ensure();
	/* After the collection the writer reads t->agg unlocked: hands off. */
	s = R.frozen ? NULL : slot__claim(res); /* returns with s->spin held */
	if (!s) {
		pthread_mutex_unlock(&R.lock);
		agg_range_thread__delete(res);
		return;
	}
	for (int g = 0; g < el->ngroups; g++)
		if (t->ctr.fd[el->grp[g].idx[0]] >= 0)
			s->leader[s->nleader++] = t->ctr.fd[el->grp[g].idx[0]];
	rings__open(s, ceiling);
	points__open(s, 0);
	t->agg->range = res;
	rng_self = s;
	pthread_mutex_unlock(&R.lock);
	slot__release(s, false); /* and catch up with the trigger state */
}

void hs_range__thread_stop(struct hs_thread *t)
{
	struct rng_slot *s = rng_self;

	(void)t;
	if (!s)
		return;
	rng_self = NULL;
	pthread_mutex_lock(&R.lock);
	if (!R.frozen)
		resolve__new_objects(true);
	slot__spin(s);
	/* Not live first: the handler must not switch descriptors that are
	 * about to be closed (and whose numbers the program may reuse). */
	__atomic_store_n(&s->live, 0, __ATOMIC_SEQ_CST);
	if (!R.frozen)
		slot__drain(s);
	rings__close(s, true);
	if (!R.frozen)
		points__read(s);
	points__close(s);
	__atomic_store_n(&s->spin, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&R.lock);
}

/* In a fork child: the other threads do not exist, the drain thread does
 * not either, every inherited descriptor describes the parent, and the
 * rings were not inherited at all (MADV_DONTFORK).  The forking thread is
 * started again by fork.c through hs_range__thread_start. */
void hs_range__fork_child(void)
{
	if (!R.active)
		return;
	pthread_mutex_init(&R.lock, NULL);
	R.pid = getpid();
	for (struct rng_slot *s = R.slots; s; s = s->next) {
		__atomic_store_n(&s->spin, 0, __ATOMIC_RELAXED);
		if (!__atomic_load_n(&s->live, __ATOMIC_RELAXED))
			continue;
		rings__close(s, false);
		points__close(s);
		__atomic_store_n(&s->live, 0, __ATOMIC_RELAXED);
	}
	if (R.epfd >= 0)
		pmu_sys__close(R.epfd);
	R.epfd = -1;
	R.drain_started = false;
	__atomic_store_n(&R.drain_tid, 0, __ATOMIC_RELAXED);
	rng_self = NULL;
}

/* ---- the end of the image ---------------------------------------------- */

static bool lock__bounded(bool in_signal)
{
	return hs_lock__mutex(&R.lock, in_signal);
}

static bool range__resolved(int r)
{
	const struct rng_place *pl = &R.rc->range[r];

	if (pl->form == RNG_KERNEL || pl->form == RNG_EXE ||
	    (pl->form == RNG_ADDR && !pl->obj[0]))
		return true;
	for (int i = 0; i < R.niv; i++)
		if (R.iv[i].range == r)
			return true;
	return false;
}

/* Why a place matched nothing (static buffer per call site). */
static void place__why(const struct rng_place *pl, char *buf, size_t len)
{
	if (pl->form == RNG_FUNC)
		snprintf(buf, len, "no function named '%.80s' in %s%.80s%s", pl->name,
			 pl->obj[0] ? "an object named '" : "the executable or any "
			 "loaded object", pl->obj, pl->obj[0] ? "'" : "");
	else
		snprintf(buf, len, "no loaded object named '%.80s'",
			 pl->form == RNG_SO ? pl->name : pl->obj);
}

/* One line per variable for what never resolved. */
static void report__unresolved(void)
{
	const struct hs_range_config *rc = R.rc;
	char why[300];

	for (int r = 0; r < rc->nranges; r++)
		if (!range__resolved(r)) {
			place__why(&rc->range[r], why, sizeof(why));
			hs_log(HS_LOG_ERROR, "HPCSHIM_RANGE: '%.80s' matched nothing: %s; "
			       "it counted nothing", rc->range[r].text, why);
			break;
		}
	for (int i = 0; i < R.ncp; i++)
		if (!R.cp[i].dropped && !R.cp[i].addr) {
			place__why(R.cp[i].pl, why, sizeof(why));
			hs_log(HS_LOG_ERROR, "HPCSHIM_CHECKPOINT: '%.80s' matched nothing: "
			       "%s; not counted", R.cp[i].pl->text, why);
			break;
		}
	for (int k = 0; k < 2; k++)
		if (R.has_trig[k] && !R.trig[k].dropped && !R.trig[k].addr) {
			place__why(R.trig[k].pl, why, sizeof(why));
			hs_log(HS_LOG_ERROR, "HPCSHIM_TRIGGER: '%s:%.80s' matched nothing: "
			       "%s; %s", k ? "stop" : "start", R.trig[k].pl->text, why,
			       k ? "counting was never stopped" : "counting never started");
		}
}

void hs_range__collect(bool in_signal)
{
	if (!R.active)
		return;
	if (!lock__bounded(in_signal)) {
		hs_log(HS_LOG_ERROR, "HPCSHIM_RANGE: a signal arrived while samples "
		       "were being drained; the last samples are not counted");
		return;
	}
	resolve__new_objects(false);
	for (struct rng_slot *s = R.slots; s; s = s->next) {
		if (!__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) ||
		    !slot__spin_bounded(s, in_signal))
			continue;
		slot__drain(s);
		points__read(s);
		slot__release(s, true);
	}
	R.frozen = true;
	pthread_mutex_unlock(&R.lock);
	report__unresolved();
}

/* ---- results ------------------------------------------------------------ */

static struct agg_range_info info;
static struct agg_place places[RNG_MAX_RANGES + RNG_MAX_POINTS + 2];
static struct agg_interval ivs[RNG_MAX_IV + RNG_MAX_POINTS + 2];
static struct agg_sampled sev[PMU_MAX_EVENTS];
static char reasons[RNG_MAX_RANGES][300];

static void result__point(struct agg_place *out, struct rng_point *pt,
			  struct agg_interval *iv)
{
	uint64_t addr = __atomic_load_n(&pt->addr, __ATOMIC_ACQUIRE);

	out->text = pt->pl->text;
	out->definitions = pt->defs;
	if (pt->dropped) {
		out->status = "dropped";
		out->reason = pt->reason;
	} else if (!addr) {
		out->status = "unresolved";
		place__why(pt->pl, pt->reason, sizeof(pt->reason));
		out->reason = pt->reason;
	} else {
		out->status = "ok";
	}
	if (addr) {
		iv->start = addr;
		iv->end = addr + 1;
		iv->object = pt->object;
		out->iv = iv;
		out->nintervals = 1;
	}
}

const struct agg_range_info *hs_range__result(void)
{
	const struct hs_range_config *rc = R.rc;
	int niv = 0, np = 0;

	if (!R.active)
		return NULL;
	info = (struct agg_range_info){
		.privilege = pmu_plm__name(rc->privilege),
		.nranges = rc->nranges, .range = places,
		.nsev = R.nsev, .sev = sev,
		.sampling_note = R.sampling_note[0] ? R.sampling_note : NULL,
		.ncp = R.ncp, .bp_limit = R.bp_limit,
		.trigger_state = trig__state_name(),
		.started_ns = __atomic_load_n(&R.started_ns, __ATOMIC_ACQUIRE),
		.stopped_ns = __atomic_load_n(&R.stopped_ns, __ATOMIC_ACQUIRE),
		.started_tid = __atomic_load_n(&R.started_tid, __ATOMIC_ACQUIRE),
		.stopped_tid = __atomic_load_n(&R.stopped_tid, __ATOMIC_ACQUIRE),
	};
	for (int r = 0; r < rc->nranges; r++, np++) {
		struct agg_place *p = &places[np];

		*p = (struct agg_place){ .text = rc->range[r].text, .status = "ok",
					 .iv = &ivs[niv] };
		for (int i = 0; i < R.niv; i++)
			if (R.iv[i].range == r) {
				ivs[niv++] = (struct agg_interval){ R.iv[i].lo, R.iv[i].hi,
								    R.iv[i].object };
				p->nintervals++;
			}
		if (!range__resolved(r)) {
			p->status = "unresolved";
			place__why(&rc->range[r], reasons[r], sizeof(reasons[r]));
			p->reason = reasons[r];
		} else if (R.iv_full) {
			p->reason = "more than 1024 address intervals: later ones ignored";
		}
	}
	info.cp = &places[np];
	for (int i = 0; i < R.ncp; i++)
		result__point(&places[np++], &R.cp[i], &ivs[niv++]);
	for (int k = 0; k < 2; k++) {
		if (!R.has_trig[k])
			continue;
		result__point(&places[np], &R.trig[k], &ivs[niv++]);
		if (k == TRIG_START)
			info.start = &places[np++];
		else
			info.stop = &places[np++];
	}
	for (int k = 0; k < R.nsev; k++)
		sev[k] = (struct agg_sampled){ hs_proc.evlist.ev[R.sev_ev[k]].name,
					       R.sev_period[k] };
	return &info;
}

/* ---- start -------------------------------------------------------------- */

void hs_range__init(void)
{
	const struct hs_range_config *rc = &hs_proc.cfg.range;

	if (!rng_config__active(rc))
		return;
	R.active = true;
	R.rc = rc;
	R.pid = getpid();
	sampling__init();
	points__init();
	pthread_mutex_lock(&R.lock);
	R.adds = ~0ull; /* scan even if nothing was ever loaded */
	resolve__new_objects(false); /* no thread yet */
	pthread_mutex_unlock(&R.lock);
	trig__init(); /* after the start point had its chance to be dropped */
	trig__install_handler();
	if (points__pending())
		hs_dlopen__hook(true);
}
