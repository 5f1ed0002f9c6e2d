/* mux.c - the constructor's part of multiplexing (HPCSHIM_MUX, HPCSHIM_MUX_*,
 * HPCSHIM_INTERVAL), and the feature's hooks: after the probe the schedule
 * is decided (pmu/schedule.c), the samplers are probed, the signal handler
 * of the rotation is installed, and the partition is described for the
 * results.  The per-thread part is rotate.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "aggregate/mux.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/core/core.h"
#include "preload/mux/config.h"
#include "preload/mux/mux.h"
#include "preload/mux/rotate.h"

static struct hs_mux_config mux_config; /* the feature's variables */
static struct agg_group groups[PMU_MAX_EVENTS];
static int leaders[PMU_MAX_EVENTS];
static struct agg_mux mux;
static struct hs_mux_setup setup = { .signo = -1 };
static char note[320];

/* A real-time signal nobody has claimed yet (default disposition), from
 * the upper middle of the range: programs tend to use SIGRTMIN + n or
 * SIGRTMAX - n for small n. */
static int mux__pick_signal(void)
{
	for (int s = SIGRTMAX - 7; s >= SIGRTMIN + 4; s--) {
		struct sigaction old;

		if (hs_real_sigaction(s, NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
			return s;
	}
	return -1;
}

/* One line now, and the same text in the results' "mux.note". */
static void __attribute__((format(printf, 1, 2))) mux__note(const char *fmt, ...)
{
	size_t len = strlen(note);
	va_list ap;

	if (len)
		len += (size_t)snprintf(note + len, sizeof(note) - len, "; ");
	if (len >= sizeof(note))
		return;
	va_start(ap, fmt);
	vsnprintf(note + len, sizeof(note) - len, fmt, ap);
	va_end(ap);
	hs_log(HS_LOG_ERROR, "%s", note + len);
}

/* The samplers the threads will open, probed here once. */
static void mux__samplers(const struct hs_mux_config *m)
{
	if (m->mode == HS_MUX_ROTATE) {
		pmu_sampler__attr(&setup.rot_attr, m->slice_instructions, m->slice);
		if (pmu_sampler__probe(&setup.rot_attr) == 0) {
			setup.rotate = true;
		} else if (m->slice_instructions) {
			mux__note("HPCSHIM_MUX_SLICE: no instruction counter (%s); "
				  "rotating in slices of 1ms of thread CPU time",
				  pmu_errno__name(errno));
			mux.slice_instructions = false;
			mux.slice = HS_MUX_SLICE_NS;
			pmu_sampler__attr(&setup.rot_attr, false, HS_MUX_SLICE_NS);
			setup.rotate = pmu_sampler__probe(&setup.rot_attr) == 0;
		}
		if (!setup.rotate)
			mux__note("HPCSHIM_MUX=rotate: the task-clock sampler does "
				  "not open (%s); the kernel multiplexes instead",
				  pmu_errno__name(errno));
	}
	if (m->interval_ns) {
		pmu_sampler__attr(&setup.int_attr, false, m->interval_ns);
		setup.interval = pmu_sampler__probe(&setup.int_attr) == 0;
		if (!setup.interval)
			mux__note("HPCSHIM_INTERVAL: the task-clock sampler does not "
				  "open (%s); no time series",
				  pmu_errno__name(errno));
	}
}

static void mux__describe(const struct pmu_evlist *el)
{
	mux.ngroups = el->ngroups;
	mux.grp = groups;
	for (int g = 0; g < el->ngroups; g++) {
		const struct pmu_group *pg = &el->grp[g];

		groups[g] = (struct agg_group){
			.n = pg->n,
			.idx = pg->idx,
			.user = pg->user,
			.pinned = pg->pinned,
			.rotated = pg->rotated,
			.why = pg->why,
			.nclock = pg->nclock,
			.clock = pg->clock,
		};
		leaders[g] = pg->idx[0];
	}
	setup.leaders = leaders;
	mux.note = note[0] ? note : NULL;
}

/* The feature's variables (config.c); HPCSHIM_MUX_PINNED goes to the
 * core, which builds the event list. */
static void mux__config(struct hs_config *cfg)
{
	hs_mux_config__from_env(&mux_config, &cfg->pinned);
}

static void mux__setup(struct pmu_evlist *el, const struct hs_config *cfg)
{
	struct hs_mux_config m = mux_config;

	/* A feature that enables and disables every group of every thread at
	 * once (a start/stop trigger) cannot leave one rotated group on. */
	if (m.mode == HS_MUX_ROTATE && cfg->switcher) {
		mux__note("HPCSHIM_MUX=rotate does not combine with %s "
			  "(both switch the counters); the kernel multiplexes instead",
			  cfg->switcher);
		m.mode = HS_MUX_KERNEL;
	}
	mux.slice_instructions = m.slice_instructions;
	mux.slice = m.slice;
	mux.seeded = m.seeded;
	mux.seed = m.seed;
	mux.interval_points = m.interval_points;
	setup.seed = m.seeded ? m.seed :
				hs_clock__realtime() ^ ((uint64_t)getpid() << 32);
	mux__samplers(&m);
	if ((setup.rotate || setup.interval) && (setup.signo = mux__pick_signal()) < 0) {
		mux__note("HPCSHIM_MUX/HPCSHIM_INTERVAL: every real-time signal "
			  "has a handler; the kernel multiplexes, no time series");
		setup.rotate = setup.interval = false;
	}
	if (m.mode == HS_MUX_ROTATE && !setup.rotate)
		m.mode = HS_MUX_KERNEL;
	mux.mode = m.mode;
	mux.interval_ns = setup.interval ? m.interval_ns : 0;
	setup.interval_ns = mux.interval_ns;
	setup.interval_points = m.interval_points;
	pmu_schedule__apply(el, m.mode, setup.rotate ? &setup.rot_attr : NULL);
	mux__describe(el);
	if (setup.rotate || setup.interval)
		hs_rotate__init(&setup);
}

/* "mux" and "groups" after "presets", each thread's "rotation" after its
 * "ranges" (range: order 5); "series" after them. */
static const struct agg_section mux_section = {
	.name = "mux",
	.order = 20,
	.head = agg_mux__head,
	.thread = agg_mux__thread,
};
static const struct agg_section series_section = {
	.name = "series",
	.order = 25,
	.thread = agg_mux__series,
};

/* The series are records of the threads, read like the regions: in
 * flushes too.  The rest only at the end. */
static void mux__result(struct agg_process *p, bool partial)
{
	agg_sections__add(&p->sections, &series_section, NULL);
	if (partial)
		return;
	p->mux = &mux;
	agg_sections__add(&p->sections, &mux_section, &mux);
}

const struct hs_feature hs_mux_feature = {
	.name = "mux",
	.config = mux__config,
	.setup = mux__setup,
	.thread_start = hs_rotate__start,
	.thread_stop = hs_rotate__stop,
	.thread_forget = hs_rotate__forget,
	.collect_thread = hs_rotate__collect,
	.result = mux__result,
	.slot = &hs_rotate_slot,
};
