/* region.c - HPC_BEGIN / HPC_END: the region stack of one thread.
 *
 * One group read per boundary.  BEGIN reads last and END reads first, so
 * the bookkeeping falls outside the measured interval.  Names come two
 * ways: a literal through its call site's cached id (an array index into
 * the thread's records), anything else by hash lookup; both reach the same
 * per-thread record of a name.  Exclusive counts are the frame's delta
 * minus its children's inclusive deltas; the inclusive delta of a region
 * nested in itself is only added by the outermost instance, so recursion
 * is not double counted.
 *
 * Wall time comes with the counters' reading when they are read from user
 * space (its own clock-counter instant: thread__read_at); otherwise it
 * (monotonic, vDSO) is read once per boundary beside the
 * counters: at BEGIN just before the counter read, at END just after it.
 * The bookkeeping stays outside both intervals, the clock reads stay
 * outside the counted one (the counts do not change), and the wall
 * interval holds the counted one.  It is accounted whether or not the
 * counter readings succeeded or any event opened: it is never dropped.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>
#include <sys/timex.h>

#include "annotate/hpcshim.h"
#include "common/compiler.h"
#include "aggregate/trace.h"
#include "common/clock.h"
#include "common/rawclock.h"
#include "common/sys.h"
#include "common/seqlock.h"
#include "pmu/read.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/core/core.h"

#define MAX_DEPTH 4096
/* This boundary's stack position: below its caller's frame. */
#define SP_HERE ((uintptr_t)__builtin_frame_address(0))

static void region__uncovered(void)
{
	if (__atomic_load_n(&hs_proc.state, __ATOMIC_RELAXED) == HS_RUNNING)
		__atomic_fetch_add(&hs_proc.uncovered_calls, 1, __ATOMIC_RELAXED);
}

/* A sampled region's measured call: its own deltas' squares, for the
 * estimate's error (sampling.md). */
static __attribute__((noinline, cold)) void
frame__sample_sq(const struct hs_thread *t, const struct hs_frame *f, uint64_t wd)
{
	uint64_t d[PMU_MAX_EVENTS], x[PMU_MAX_EVENTS];

	for (int e = 0; e < t->nev; e++) {
		d[e] = t->now[e].value - f->start[e].value;
		x[e] = d[e] - f->child[e].value;
	}
	agg_region__sample_sq(f->region, d, x, wd, wd - f->wchild);
}

/* Pops frame i.  Without both readings the interval is unknown: the call
 * is not accounted (read_errors says so) rather than reported as 0 or as
 * everything since the thread started.  The call's delta goes to the
 * region (inclusive only from the outermost instance of a recursion;
 * exclusive = delta - children) and to the parent frame's children:
 * values for every event, enabled/running only for the events that carry
 * their group's times (hs_proc.timed; a member's are its leader's, the
 * view fills them in). */
static inline __attribute__((always_inline)) void
frame__close_inline(struct hs_thread *t, int i, bool now_ok)
{
	struct hs_frame *f = &t->frames[i];
	struct agg_region *r = f->region;
	const struct count *now = t->now, *st = f->start, *ch = f->child;
	struct count *sink, *parent, *inc, *exc;
	bool outermost;

	uint64_t wd = t->wnow - f->wstart;

	t->depth = i;
	if (f->sp)
		t->nsp--;
	outermost = --r->open == 0;
	agg_region__add_wall(r, wd, wd - f->wchild, outermost);
	if (i > 0)
		t->frames[i - 1].wchild += wd;
	if (unlikely(f->skip)) { /* timed, counters not read (sampling.md) */
		hs_atomic__add(&r->unmeasured, 1);
		return;
	}
	if (!now_ok || !f->valid)
		return;
	/* A top-level frame's parent sums and a recursion's inner inclusive
	 * sums go to the thread's sink: no test per event. */
	sink = t->now + t->nev;
	parent = i > 0 ? t->frames[i - 1].child : sink;
	inc = outermost ? r->c : sink;
	exc = r->c + r->nev;
	/* In locals: the records' relaxed atomic stores may alias t. */
	const int nev = t->nev, ntimed = t->ntimed;

	hs_atomic__add(&r->calls, 1);
	for (int e = 0; e < nev; e++) {
		uint64_t d = now[e].value - st[e].value;

		hs_atomic__add(&inc[e].value, d);
		hs_atomic__add(&exc[e].value, d - ch[e].value);
		parent[e].value += d;
	}
	for (int k = 0; k < ntimed; k++) {
		int e = t->timed[k];
		uint64_t de = now[e].enabled - st[e].enabled;
		uint64_t dr = now[e].running - st[e].running;

		hs_atomic__add(&inc[e].enabled, de);
		hs_atomic__add(&inc[e].running, dr);
		hs_atomic__add(&exc[e].enabled, de - ch[e].enabled);
		hs_atomic__add(&exc[e].running, dr - ch[e].running);
		parent[e].enabled += de;
		parent[e].running += dr;
	}
	if (unlikely(r->sq))
		frame__sample_sq(t, f, wd);
	if (t->main_ev >= 0) { /* a reading has every event's times */
		struct count d;

		count__sub(&d, &now[t->main_ev], &st[t->main_ev]);
		agg_region__percall(r, &d);
	}
	if (unlikely(t->agg->trace))
		agg_trace__add(t->agg->trace, r, f->wstart, t->wnow, i,
			       t->main_ev >= 0 ? &t->now[t->main_ev] : NULL,
			       t->main_ev >= 0 ? &f->start[t->main_ev] : NULL);
}

/* The same, out of line: for every caller but END's common case. */
static __attribute__((noinline)) void frame__close(struct hs_thread *t, int i, bool now_ok)
{
	frame__close_inline(t, i, now_ok);
}

/* The lean close (hs_thread.lean, chosen once per thread by
 * hs_region__select): the configuration where the main event is the one
 * event carrying times (a single group, its leader first; no trace).
 * The same accounting as frame__close_inline, in fewer branches: the
 * inclusive sums of a call inside a recursion and the children's sums of
 * a top-level frame go to the thread's sink (t->now + nev), not tested per
 * event; the leader's times once, and the main event's per-call
 * statistics from the same deltas. */
static inline __attribute__((always_inline)) void
frame__close_lean(struct hs_thread *t, int i, bool now_ok)
{
	struct hs_frame *f = &t->frames[i];
	struct agg_region *r = f->region;
	const struct count *now = t->now, *st = f->start, *ch = f->child;
	struct count *sink = t->now + t->nev;
	uint64_t wd = t->wnow - f->wstart;
	bool outermost;

	t->depth = i;
	if (f->sp)
		t->nsp--;
	outermost = --r->open == 0;
	agg_region__add_wall(r, wd, wd - f->wchild, outermost);
	if (i > 0)
		f[-1].wchild += wd;
	if (unlikely(!now_ok || !f->valid))
		return;

	const int nev = t->nev, m = t->main_ev;
	struct count *inc = outermost ? r->c : sink, *exc = r->c + r->nev;
	struct count *parent = i > 0 ? f[-1].child : sink;

	hs_atomic__add(&r->calls, 1);
	for (int e = 0; e < nev; e++) {
		uint64_t d = now[e].value - st[e].value;

		hs_atomic__add(&inc[e].value, d);
		hs_atomic__add(&exc[e].value, d - ch[e].value);
		parent[e].value += d;
	}
	uint64_t dv = now[m].value - st[m].value;
	uint64_t de = now[m].enabled - st[m].enabled;
	uint64_t dr = now[m].running - st[m].running;

	hs_atomic__add(&inc[m].enabled, de);
	hs_atomic__add(&inc[m].running, dr);
	hs_atomic__add(&exc[m].enabled, de - ch[m].enabled);
	hs_atomic__add(&exc[m].running, dr - ch[m].running);
	parent[m].enabled += de;
	parent[m].running += dr;
	if (unlikely(r->sq))
		frame__sample_sq(t, f, wd);
	if (likely(dr == de))
		agg_percall__add(&r->percall, dv);
	else /* multiplexed inside the call */
		agg_region__percall_scaled(r, &(struct count){ dv, de, dr });
}

/* Whether the thread's frames close the lean way (frame__close_lean):
 * chosen once, when its counters open. */
void hs_region__select(struct hs_thread *t)
{
	t->lean = t->nev > 0 && t->ntimed == 1 && t->main_ev >= 0 &&
		  t->timed[0] == t->main_ev && !t->agg->trace;
}

/* The top frame, a sampled region's unmeasured call: the clock only.
 * Out of line: END's measured path stays as short as before. */
static __attribute__((noinline)) void frame__close_unmeasured(struct hs_thread *t)
{
	t->wnow = hs_clock__monotonic();
	hs_seq__write_begin(&t->agg->seq);
	frame__close(t, t->depth - 1, false);
	hs_seq__write_end(&t->agg->seq);
}

void hs_region__close_all(struct hs_thread *t, bool now_ok)
{
	hs_atomic__add(&t->agg->warn.auto_closed, (uint64_t)t->depth);
	t->wnow = hs_clock__monotonic();
	hs_seq__write_begin(&t->agg->seq);
	while (t->depth > 0)
		frame__close(t, t->depth - 1, now_ok);
	hs_seq__write_end(&t->agg->seq);
}

typedef int (*omp_num_fn)(void);

/* The OpenMP thread number labels a thread in the results, when the
 * thread is in a team: asked once per thread, at its first region, when
 * the program has an OpenMP runtime.  Outside any parallel region
 * (omp_get_level() 0: the main thread before its first team, a plain
 * pthread, the MPI library's threads) omp_get_thread_num() says 0, which
 * is no thread number: the thread is left unlabelled (a team's master
 * whose first region came before its team is labelled by the OpenMP
 * feature when its share begins). */
static void thread__omp_label(struct hs_thread *t)
{
	static omp_num_fn omp_fn, level_fn;
	static int looked;
	omp_num_fn omp_num, omp_level;

	/* Two threads may look them up at once: both find the same symbols. */
	if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&omp_fn,
				 (omp_num_fn)hs_real__dlsym()(RTLD_DEFAULT,
							      "omp_get_thread_num"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&level_fn,
				 (omp_num_fn)hs_real__dlsym()(RTLD_DEFAULT, "omp_get_level"),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
	}
	omp_num = __atomic_load_n(&omp_fn, __ATOMIC_RELAXED);
	omp_level = __atomic_load_n(&level_fn, __ATOMIC_RELAXED);
	t->omp_checked = true;
	/* read by the exit path while this thread runs */
	if (omp_num && omp_level && omp_level() > 0)
		__atomic_store_n(&t->agg->omp_thread, omp_num(), __ATOMIC_RELAXED);
}

/* A region boundary's wall time without a clock_gettime of its own.  With
 * planned reads (user space) it is the instant of its reading on the perf
 * clock, which the same clock counter read gives.  With read() it is the
 * raw counter (common/rawclock.h) read beside the reading: before it at
 * BEGIN, after it at END, as the vDSO's clock would be.  Either runs at
 * the counter's own rate, while CLOCK_MONOTONIC runs faster or slower by
 * the NTP frequency correction (tens of parts per million is common: 1 us
 * over a 50 ms region), so the mapping onto CLOCK_MONOTONIC has a rate as
 * well as an anchor.  The perf clock's rate is the kernel's own figure at
 * first (adjtimex: tick length and frequency); the raw counter's is
 * unknown until measured over WALL_FIRST_NS (the vDSO's clock until then:
 * good to 1e-6 with anchors good to 50 ns).
 * Then the rate measured between this thread's anchors, taken again every
 * HS_CALIBRATE_NS at an END.  docs/internals.md, "Wall time". */
#define WALL_ONE (1ull << 32)		      /* a rate of 1, 32.32 */
#define WALL_FIRST_NS (100ull * 1000 * 1000) /* the raw counter's first rate */
#define WALL_TRIES 3
#define WALL_SURE 1e-6			    /* a measured rate's error at most */
#define WALL_WIDE_NS 2000ull		    /* an anchor this unsure may wait */
#define WALL_RETRY_NS (10ull * 1000 * 1000) /* ... and is tried again then */

static inline uint64_t wall__map(const struct hs_thread *t, uint64_t p)
{
	int64_t d = (int64_t)(p - t->wp0);

	return t->wm0 + (uint64_t)(int64_t)(((__int128)d * (__int128)t->wmult) >> 32);
}

/* CLOCK_MONOTONIC ns per raw ns as the kernel sets it now: tick is in us
 * per USER_HZ (100) tick, 10000 nominal; freq in ppm scaled by 2^16.  A
 * phase the NTP daemon still slews (ADJ_OFFSET) is not in it: the
 * measured rate takes it. */
static uint64_t wall__kernel_rate(void)
{
	struct timex tx = { .modes = 0 };
	double r;

	if (adjtimex(&tx) < 0)
		return WALL_ONE;
	r = (double)tx.tick / 10000.0 + (double)tx.freq / 65536.0 * 1e-6;
	return r > 0.999 && r < 1.001 ? (uint64_t)(r * (double)WALL_ONE) : WALL_ONE;
}

/* A thread's first rate: the process's latest measured one; for the perf
 * clock the kernel's before any; for the raw counter 0 (unknown). */
static uint64_t wall__first_rate(bool raw)
{
	uint64_t m;

	if (raw)
		return __atomic_load_n(&hs_proc.wraw_mult, __ATOMIC_RELAXED);
	m = __atomic_load_n(&hs_proc.wmult, __ATOMIC_RELAXED);
	if (!m) {
		m = wall__kernel_rate();
		__atomic_store_n(&hs_proc.wmult, m, __ATOMIC_RELAXED);
	}
	return m;
}

/* Whether the kernel keeps time with the raw counter (its clocksource):
 * then it runs at a constant rate, the same on every CPU.  Asked once per
 * process, before the first raw rate is taken. */
static bool wall__raw_ok(void)
{
	static const char path[] = "/sys/devices/system/clocksource/clocksource0/"
				   "current_clocksource";
	int ok = __atomic_load_n(&hs_proc.wraw_ok, __ATOMIC_RELAXED);
	char buf[64];
	long n = -1;
	int fd;

	if (ok)
		return ok > 0;
	fd = hs_sys__openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		n = hs_sys__read(fd, buf, sizeof(buf) - 1);
		hs_sys__close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	ok = HS_RAWCLOCK && strcmp(buf, HS_RAWCLOCK_SOURCE) == 0 ? 1 : -1;
	__atomic_store_n(&hs_proc.wraw_ok, ok, __ATOMIC_RELAXED);
	return ok > 0;
}

/* The rate measured between the anchor and (p, pm, width w), or 0 when
 * the interval is too short (at least WALL_FIRST_NS, or half the
 * recalibration period once mapped) or the anchors too unsure for it to
 * be good to WALL_SURE (each anchor's instant is good to half its width),
 * or the figure is not plausible (a perf clock within 0.1% of
 * CLOCK_MONOTONIC, a raw counter within 0.1% of the rate it had). */
static uint64_t wall__measure(const struct hs_thread *t, bool had, uint64_t p, uint64_t pm,
			      uint64_t w)
{
	uint64_t need = had ? HS_CALIBRATE_NS / 2 : WALL_FIRST_NS;
	uint64_t was = t->wraw ? __atomic_load_n(&hs_proc.wraw_mult, __ATOMIC_RELAXED) : WALL_ONE;
	double r, lo = was ? (double)was * 0.999 : 1e-3 * (double)WALL_ONE,
		  hi = was ? (double)was * 1.001 : 1e3 * (double)WALL_ONE;
	uint64_t span = pm - t->wm0;

	if (span < need || (double)(t->wwid + w) / 2 > WALL_SURE * (double)span ||
	    (int64_t)(p - t->wp0) <= 0)
		return 0;
	r = (double)(int64_t)span / (double)(int64_t)(p - t->wp0) * (double)WALL_ONE;
	return r > lo && r < hi ? (uint64_t)r : 0;
}

/* The anchor: the counter read between two monotonic reads, the tightest
 * of WALL_TRIES (a preemption or an interrupt between two of them makes
 * the anchor, and a rate it gives, that much less sure).  *p 0: none. */
static void wall__sample(struct hs_thread *t, uint64_t *p, uint64_t *m0, uint64_t *m1)
{
	*m0 = 0;
	*m1 = UINT64_MAX;
	*p = 0;
	for (int k = 0; k < WALL_TRIES; k++) {
		uint64_t a = hs_clock__monotonic();
		uint64_t q = t->wraw ? hs_rawclock__read() : pmu_counters__clock(&t->ctr);
		uint64_t b = hs_clock__monotonic();

		if (b - a < *m1 - *m0) {
			*m0 = a;
			*m1 = b;
			*p = q;
		}
	}
}

uint64_t hs_region__calibrate(struct hs_thread *t, uint64_t at)
{
	uint64_t m0, m1, p, w, pm, before = 0, mult;
	bool had = t->wsrc != HS_WALL_MONO, first = !t->wm0;

	if (first) /* which counter */
		t->wraw = HS_RAWCLOCK && !pmu_counters__planned(&t->ctr) &&
			  __atomic_load_n(&hs_proc.wraw_ok, __ATOMIC_RELAXED) >= 0;
	wall__sample(t, &p, &m0, &m1);
	if (!p || (t->wraw && !first && !wall__raw_ok())) {
		t->wsrc = HS_WALL_MONO;
		t->wcal = UINT64_MAX; /* nothing to map: the vDSO's clock from now on */
		return 0;
	}
	w = m1 - m0;
	pm = m0 + w / 2;
	/* A later anchor much less sure than the one it follows (preempted
	 * around it) waits for a better moment: the mapping stands. */
	if (!first && w > 2 * t->wwid && w > WALL_WIDE_NS) {
		t->wcal = m1 + WALL_RETRY_NS;
		return 0;
	}
	mult = first ? 0 : wall__measure(t, had, p, pm, w);
	if (mult && t->wraw && !__atomic_load_n(&hs_proc.wraw_mult, __ATOMIC_RELAXED))
		hs_log(HS_LOG_DEBUG, "wall time from the %s counter: %.6f ns per tick",
		       HS_RAWCLOCK_SOURCE, (double)mult / (double)WALL_ONE);
	if (mult)
		__atomic_store_n(t->wraw ? &hs_proc.wraw_mult : &hs_proc.wmult, mult,
				 __ATOMIC_RELAXED);
	else
		mult = had ? t->wmult : wall__first_rate(t->wraw);
	if (!mult) {
		/* The raw counter's first rate, not known yet: measured at an END
		 * WALL_FIRST_NS from the anchor.  A surer anchor than the one
		 * held starts the interval again. */
		if (first || w < t->wwid) {
			t->wp0 = p;
			t->wm0 = pm;
			t->wwid = w;
		}
		t->wsrc = HS_WALL_MONO;
		t->wcal = m1 + (first ? WALL_FIRST_NS : WALL_RETRY_NS);
		return 0;
	}
	if (!at) /* no reading of the caller's: the step now */
		at = p;
	if (had)
		before = wall__map(t, at);
	t->wp0 = p;
	t->wm0 = pm;
	t->wwid = w;
	t->wmult = mult;
	t->wcal = m1 + HS_CALIBRATE_NS;
	t->wsrc = t->wraw ? HS_WALL_RAW : HS_WALL_PERF;
	if (!had)
		return 0;
	/* The frames still open took their start on the old mapping and will
	 * end on the new one: their starts move with it, so a call's wall time
	 * never takes the step (which may be negative: a short call open
	 * across it would come out below zero). */
	uint64_t d = wall__map(t, at) - before;

	for (int i = 0; i < t->depth; i++)
		t->frames[i].wstart += d;
	return d;
}

/* The one-group plan's read from user space (pmu/read.h).  One copy
 * for both boundaries (not inlined into each): the instructions between
 * the reads of a group's members are then the same at BEGIN and at END,
 * so every event of a group counts the same interval (the test bed's
 * cycles:u equal instructions:u exactly). */
static __attribute__((noinline)) int thread__read_plan1(struct hs_thread *t, struct count *out,
							uint64_t *clock)
{
	return pmu_counters__read_fast(&t->ctr, out, clock);
}

/* Reads t's counters into out (and the reading's perf-clock instant into
 * *clock, 0 when the read gives none); a failure is counted.  Any other
 * read (read(), several groups) is pmu_counters__read_at's, called from
 * here: no extra call layer on that path. */
static inline __attribute__((always_inline)) bool
thread__read(struct hs_thread *t, struct count *out, uint64_t *clock)
{
	int rc = likely(pmu_counters__plan1(&t->ctr)) ? thread__read_plan1(t, out, clock) :
							 pmu_counters__read_at(&t->ctr, out, clock);

	if (likely(rc == 0))
		return true;
	hs_atomic__add(&t->agg->warn.read_errors, 1);
	return false;
}

/* The same with the reading's wall time in *wall (before the reading at a
 * BEGIN, after it at an END): the reading's own perf-clock instant or the
 * raw counter's, mapped (t->wsrc); else CLOCK_MONOTONIC.  At an END (after
 * the reading, outside every counted interval) the mapping is taken again
 * when due. */
static inline __attribute__((always_inline)) bool
thread__read_at(struct hs_thread *t, struct count *out, uint64_t *wall, bool end)
{
	uint64_t clock, p;
	bool ok;

	if (!end && t->wsrc != HS_WALL_PERF) {
		*wall = t->wsrc == HS_WALL_RAW ? wall__map(t, hs_rawclock__read()) :
						 hs_clock__monotonic();
		return thread__read(t, out, &clock);
	}
	ok = thread__read(t, out, &clock);
	if (likely(t->wsrc != HS_WALL_MONO)) {
		p = t->wsrc == HS_WALL_RAW ? hs_rawclock__read() : clock;
		if (likely(p)) {
			*wall = wall__map(t, p);
			if (end && unlikely(*wall > t->wcal))
				*wall += hs_region__calibrate(t, p); /* open frames moved too */
			return ok;
		}
	}
	*wall = hs_clock__monotonic();
	if (end && unlikely(*wall > t->wcal))
		hs_region__calibrate(t, 0); /* a first raw rate, or no source left */
	return ok;
}

/* Frames of wrapped calls that a longjmp or an exception left: their
 * stack position is below sp, the caller's now, so the call's frame is
 * gone.  Wrapped frames lie above older ones at higher positions; frames
 * above a gone one (annotated ones opened inside the call) are gone too.
 * They are closed with a reading taken now (warn.auto_closed counts them). */
static void region__unwind(struct hs_thread *t, uintptr_t sp)
{
	int k = -1;

	for (int i = t->depth - 1; i >= 0; i--) {
		uintptr_t fsp = t->frames[i].sp;

		if (!fsp)
			continue;
		if (fsp >= sp)
			break;
		k = i;
	}
	if (likely(k < 0))
		return;
	bool ok = thread__read_at(t, t->now, &t->wnow, true);

	hs_atomic__add(&t->agg->warn.auto_closed, (uint64_t)(t->depth - k));
	hs_seq__write_begin(&t->agg->seq);
	while (t->depth > k)
		frame__close(t, t->depth - 1, ok);
	hs_seq__write_end(&t->agg->seq);
}

/* The calling thread's state at a boundary, frames a longjmp left behind
 * closed; NULL when the thread is not counted. */
static struct hs_thread *thread__at(uintptr_t sp)
{
	struct hs_thread *t = hs_self;

	if (unlikely(!t)) {
		region__uncovered();
		return NULL;
	}
	if (unlikely(t->nsp))
		region__unwind(t, sp);
	return t;
}

/* The calling thread's state when a BEGIN can be recorded; NULL when the
 * thread is not counted or the BEGIN is skipped (its END then too). */
static struct hs_thread *begin__thread(uintptr_t sp)
{
	struct hs_thread *t = thread__at(sp);

	if (!t)
		return NULL;
	if (unlikely(t->depth == t->cap) &&
	    (t->cap >= MAX_DEPTH || hs_stack__reserve(t, 2 * t->cap) < 0)) {
		/* Its END must not close an outer frame of the same name. */
		t->skipped++;
		hs_atomic__add(&t->agg->warn.depth_overflow, 1);
		return NULL;
	}
	if (unlikely(!t->omp_checked))
		thread__omp_label(t);
	return t;
}

/* Whether this call of a sampled region is measured: one call at random
 * in each block of r->every (an unbiased sample whatever the calls'
 * pattern, unlike every Nth call). */
static bool sample__take(struct hs_thread *t, struct agg_region *r)
{
	bool take;

	if (unlikely(r->exact_left)) { /* an automatic point's first calls */
		r->exact_left--;
		return true;
	}
	if (unlikely(agg_region__base_due(r))) {
		hs_seq__write_begin(&t->agg->seq);
		agg_region__sample_base(r);
		hs_seq__write_end(&t->agg->seq);
	}

	if (r->pos == 0) {
		t->rng ^= t->rng << 13; /* xorshift64 */
		t->rng ^= t->rng >> 7;
		t->rng ^= t->rng << 17;
		r->pick = (uint32_t)(t->rng % r->every);
	}
	take = r->pos == r->pick;
	if (++r->pos == r->every)
		r->pos = 0;
	return take;
}

/* Opens a measured frame for r on top of the stack (room checked by the
 * caller); the readings come last (the clock, then the counters) so that
 * the bookkeeping falls outside the measured intervals. */
static inline __attribute__((always_inline)) void
frame__open(struct hs_thread *t, struct agg_region *r, uintptr_t sp, int id)
{
	struct hs_frame *f = &t->frames[t->depth];
	struct count *ch = f->child;
	const int nev = t->nev, ntimed = t->ntimed;

	f->region = r;
	f->id = id;
	f->sp = sp;
	t->nsp += sp != 0;
	f->skip = false;
	r->open++;
	for (int e = 0; e < nev; e++) /* only what frame__close adds to */
		ch[e].value = 0;
	if (likely(t->lean)) { /* the one event carrying times: the main one */
		ch[t->main_ev].enabled = 0;
		ch[t->main_ev].running = 0;
	} else {
		for (int k = 0; k < ntimed; k++) {
			ch[t->timed[k]].enabled = 0;
			ch[t->timed[k]].running = 0;
		}
	}
	f->wchild = 0;
	t->depth++;
	f->valid = thread__read_at(t, f->start, &f->wstart, false);
}

/* A sampled region's call not picked: timed only, with the vDSO's clock
 * and no counter reading (the cost sampling saves, while every call's
 * wall time stays exact).  Out of line: the measured path's registers,
 * and so its instructions after BEGIN's reading, stay as they were. */
static __attribute__((noinline)) void frame__open_timed(struct hs_thread *t, struct agg_region *r,
							uintptr_t sp, int id)
{
	struct hs_frame *f = &t->frames[t->depth++];

	f->region = r;
	f->id = id;
	f->sp = sp;
	t->nsp += sp != 0;
	f->skip = true;
	r->open++;
	f->wchild = 0;
	f->wstart = hs_clock__monotonic();
}

/* Opens a frame for r: measured, or timed only (a sampled region's call
 * not picked). */
static inline __attribute__((always_inline)) void
frame__begin(struct hs_thread *t, struct agg_region *r, uintptr_t sp, int id)
{
	if (unlikely(r->every > 1) && !sample__take(t, r)) {
		frame__open_timed(t, r, sp, id);
		return;
	}
	frame__open(t, r, sp, id);
}

/* The same for the general path, where r may be missing (out of memory:
 * the BEGIN is skipped, and its END).  Its frame names no site (id -1):
 * its END takes the general path too. */
static void frame__push(struct hs_thread *t, struct agg_region *r, uintptr_t sp)
{
	if (unlikely(!r)) { /* out of memory */
		t->skipped++;
		return;
	}
	frame__begin(t, r, sp, -1);
}

/* The thread's state when an END can be matched; NULL when not counted or
 * when it belongs to a skipped BEGIN. */
static struct hs_thread *end__thread(uintptr_t sp)
{
	struct hs_thread *t = thread__at(sp);

	if (!t)
		return NULL;
	if (unlikely(t->skipped > 0)) { /* the innermost BEGIN was not recorded */
		t->skipped--;
		return NULL;
	}
	return t;
}

/* Closes frame k and every frame above it (those are a mismatch).  The
 * readings come first (the counters, then the clock), before any
 * bookkeeping. */
static void end__close(struct hs_thread *t, int k)
{
	bool ok;

	if (k < 0) {
		hs_atomic__add(&t->agg->warn.unmatched_end, 1);
		return;
	}
	if (unlikely(t->frames[k].skip) && k == t->depth - 1) {
		frame__close_unmeasured(t);
		return;
	}
	ok = thread__read_at(t, t->now, &t->wnow, true);
	if (unlikely(k != t->depth - 1))
		hs_atomic__add(&t->agg->warn.auto_closed, (uint64_t)(t->depth - 1 - k));
	/* A flush may be copying the records (core/flush.c). */
	hs_seq__write_begin(&t->agg->seq);
	while (t->depth > k)
		frame__close(t, t->depth - 1, ok);
	hs_seq__write_end(&t->agg->seq);
}

/* ---- names built at run time: looked up by hash ---------------------- */

/* An automatic point's first calls, all measured: a region called less
 * often than this stays exact, its reading cost bounded by this many. */
#define AUTO_EXACT 64

static uint32_t region__auto_every(void)
{
	uint32_t n = __atomic_load_n(&hs_proc.auto_every, __ATOMIC_RELAXED);

	return n ? n : 1;
}

/* This thread's record of name.  A new record notes the region open then
 * as its parent (the region tree): work on the creation branch only, the
 * lookup is the one agg_thread__region would do. */
static struct agg_region *thread__region(struct hs_thread *t, const char *name, bool autop)
{
	struct agg_region *r = agg_thread__find(t->agg, name);

	if (likely(r))
		return r;
	r = agg_thread__add(t->agg, name,
			    t->depth ? t->frames[t->depth - 1].region : NULL);
	/* Out of memory for the squares: every call measured, still right.
	 * An automatic point (a wrapped call, an OpenMP construct) is
	 * sampled unless HPCSHIM_REGION_SAMPLE says otherwise
	 * (hs_proc.auto_every: preload/measure/). */
	if (r && autop)
		(void)agg_region__sample_after(
			r, hs_sample_config__every_or(&hs_proc.cfg.sample, name,
						      region__auto_every()),
			AUTO_EXACT);
	else if (r)
		(void)agg_region__sample(r, hs_sample_config__every(&hs_proc.cfg.sample,
								    name));
	return r;
}

HPCSHIM_API void hpcshim_region_begin(const char *name)
{
	struct hs_thread *t = begin__thread(SP_HERE);

	if (t)
		frame__push(t, thread__region(t, name ? name : "(null)", false), 0);
}

HPCSHIM_API void hpcshim_region_end(const char *name)
{
	struct hs_thread *t = end__thread(SP_HERE);
	int k;

	if (!t)
		return;
	if (!name)
		name = "(null)";
	/* Usually the top frame; a deeper match closes the ones above it. */
	for (k = t->depth - 1; k >= 0; k--)
		if (strcmp(t->frames[k].region->name, name) == 0)
			break;
	end__close(t, k);
}

/* ---- literal names: the call site caches a process-wide id ----------- */

/* The site's id for name, resolved on the site's first call; 0 when out of
 * memory.  A site whose cached name is not this pointer (never for a
 * literal) is resolved again rather than trusted. */
static inline int site__id(struct hpcshim_site *site, const char *name)
{
	int id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);

	if (unlikely(!id || __atomic_load_n(&site->name, __ATOMIC_RELAXED) != name))
		id = hs_site__resolve(site, name);
	return id;
}

/* This thread's record of region id; creates it when create is set. */
static struct agg_region *thread__by_id(struct hs_thread *t, int id,
					const char *name, bool create, bool autop)
{
	if (likely(id < t->nids && t->byid[id]))
		return t->byid[id];
	if (!create)
		return agg_thread__find(t->agg, name);
	if (id >= t->nids && hs_stack__reserve_ids(t, id + 1) < 0)
		return thread__region(t, name, autop);
	return t->byid[id] = thread__region(t, name, autop);
}

/* ---- the common case, in one pass ------------------------------------
 *
 * A BEGIN whose thread is counted, has room for a frame, has no frame of a
 * wrapped call open (no longjmp repair to look for) and has looked up its
 * OpenMP number, at a resolved site whose region this thread has a record
 * of (sampled or not); an END of the top frame under the same
 * conditions.  Everything else takes the general path below, which
 * handles it the same way, only with more tests. */

static inline __attribute__((always_inline)) bool
begin__fast(struct hpcshim_site *site, const char *name, uintptr_t sp)
{
	struct hs_thread *t = hs_self;
	struct agg_region *r;
	int id;

	if (unlikely(!t || t->nsp || t->depth >= t->cap || !t->omp_checked))
		return false;
	id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
	if (unlikely(id <= 0 || id >= t->nids ||
		     __atomic_load_n(&site->name, __ATOMIC_RELAXED) != name))
		return false;
	r = t->byid[id];
	if (unlikely(!r))
		return false;
	frame__begin(t, r, sp, id);
	return true;
}

/* sp: a wrapped call's own frame is the only one with a position. */
static inline __attribute__((always_inline)) bool
end__fast(struct hpcshim_site *site, const char *name, uintptr_t sp)
{
	struct hs_thread *t = hs_self;
	const struct hs_frame *f;
	bool ok;

	if (unlikely(!t || t->nsp != (sp != 0) || t->skipped || t->depth == 0))
		return false;
	f = &t->frames[t->depth - 1];
	/* The frame's record is this site's: opened by the one-pass BEGIN of
	 * a site of the same id (the thread's record of that id), the site
	 * still holding this name.  No lookup. */
	if (unlikely(f->sp != sp || f->id != __atomic_load_n(&site->id, __ATOMIC_ACQUIRE) ||
		     __atomic_load_n(&site->name, __ATOMIC_RELAXED) != name))
		return false;
	if (unlikely(f->skip)) {
		frame__close_unmeasured(t);
		return true;
	}
	ok = thread__read_at(t, t->now, &t->wnow, true);
	/* A flush may be copying the records (core/flush.c). */
	hs_seq__write_begin(&t->agg->seq);
	if (likely(t->lean))
		frame__close_lean(t, t->depth - 1, ok);
	else
		frame__close_inline(t, t->depth - 1, ok);
	hs_seq__write_end(&t->agg->seq);
	return true;
}

/* The general paths: sp is the frame's stack position (a wrapped call's,
 * else 0), here the boundary's own (for frames a longjmp left); autop: an
 * automatic point's (the shim's own, not the program's annotation). */
static __attribute__((noinline)) void site__begin(struct hpcshim_site *site,
						  const char *name, uintptr_t sp,
						  uintptr_t here, bool autop)
{
	struct hs_thread *t = begin__thread(here);
	int id;

	if (!t)
		return;
	id = site__id(site, name);
	frame__push(t,
		    id ? thread__by_id(t, id, name, true, autop) :
			 thread__region(t, name, autop),
		    sp);
}

static __attribute__((noinline)) void site__end(struct hpcshim_site *site,
						const char *name, uintptr_t sp,
						uintptr_t here)
{
	struct hs_thread *t = end__thread(here);
	struct agg_region *r;
	int id, k;

	if (!t)
		return;
	id = site__id(site, name);
	/* No record yet: never begun on this thread. */
	r = id ? thread__by_id(t, id, name, false, false) : agg_thread__find(t->agg, name);
	/* A wrapped call's frame is its own (the top one once the gone ones
	 * are closed); an annotation's, the innermost of its region. */
	for (k = t->depth - 1; k >= 0 && r; k--)
		if (t->frames[k].region == r && (!sp || t->frames[k].sp == sp))
			break;
	end__close(t, r ? k : -1);
}

HPCSHIM_API void hpcshim_site_begin(struct hpcshim_site *site, const char *name)
{
	if (unlikely(!name)) {
		hpcshim_region_begin(name);
		return;
	}
	if (!begin__fast(site, name, 0))
		site__begin(site, name, 0, SP_HERE, false);
}

HPCSHIM_API void hpcshim_site_end(struct hpcshim_site *site, const char *name)
{
	if (unlikely(!name)) {
		hpcshim_region_end(name);
		return;
	}
	if (!end__fast(site, name, 0))
		site__end(site, name, 0, SP_HERE);
}

/* ---- wrapped calls (preload/wrap/): a site, and a stack position ----- */

void hs_region__call_begin(struct hpcshim_site *site, const char *name, uintptr_t sp)
{
	if (!begin__fast(site, name, sp))
		site__begin(site, name, sp, sp, true);
}

void *hs_region__call_begin_to(struct hpcshim_site *site, const char *name, uintptr_t sp,
			       void *to)
{
	if (!begin__fast(site, name, sp))
		site__begin(site, name, sp, sp, true);
	return to;
}

void hs_region__call_end(struct hpcshim_site *site, const char *name, uintptr_t sp)
{
	if (!end__fast(site, name, sp))
		site__end(site, name, sp, sp);
}

/* ---- a restart (preload/annotations/: LIKWID's double start) ---------- */

bool hs_region__drop_top(const char *name)
{
	struct hs_thread *t = hs_self;
	struct hs_frame *f;

	if (!t || !name || t->depth == 0 || t->skipped || t->nsp)
		return false;
	f = &t->frames[t->depth - 1];
	if (f->sp || strcmp(f->region->name, name) != 0)
		return false;
	f->region->open--;
	t->depth--;
	return true;
}

HPCSHIM_API int hpcshim_active(void)
{
	return hs_self != NULL;
}

HPCSHIM_API void hpcshim_thread_name(const char *name)
{
	struct hs_thread *t = hs_self;

	if (t && name)
		agg_thread__set_name(t->agg, name);
}
