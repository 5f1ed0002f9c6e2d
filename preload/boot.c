/* boot.c - the constructor and the destructor: the one place that names
 * every feature.
 *
 * The table below is the whole list of optional features, in the order
 * their hooks run (core/feature.h).  A new feature is a folder with its
 * struct hs_feature and one line here; nothing in the core changes.
 */
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "preload/annotations/annotations.h"
#include "preload/base/real.h"
#include "preload/core/core.h"
#include "preload/core/feature.h"
#include "preload/core/quiet.h"
#include "preload/dropped/dropped.h"
#include "preload/interpose/interpose.h"
#include "preload/measure/measure.h"
#include "preload/mpi/mpi.h"
#include "preload/mux/mux.h"
#include "preload/openmp/openmp.h"
#include "preload/presets/presets.h"
#include "preload/range/range.h"
#include "preload/wrap/wrap.h"

/* presets add events before the list is built; range sets their
 * privilege before the probe; after it mux schedules the groups, and only
 * then do presets judge their sets (a set's status depends on where its
 * events landed). */
static const struct hs_feature *const features[] = {
	&hs_measure_feature,
	&hs_range_feature,
	&hs_mux_feature,
	&hs_presets_feature,
	&hs_wrap_feature,
	&hs_dropped_feature,
	&hs_mpi_feature,
	&hs_openmp_feature,
	&hs_annotations_feature,
	NULL,
};

/* The constructor's work, run once: by the constructor, or earlier by the
 * first pthread_create that reaches us from a constructor that ran before
 * ours (boot__early).  0 not begun, 1 under way on boot_tid, 2 done. */
static int boot_state;
static pid_t boot_tid;

static void boot__run(int argc, char **argv)
{
	if (hs_dormant__decide(argc, argv))
		return; /* not a program to count: nothing starts */
	hs_real__init();
	hs_features__set(features);
	hs_process__configure(argc, argv);
	hs_signal__init();
	hs_process__start(hs_exec__generation());
	hs_flush__start();
}

/* false when the caller is the thread doing the work (an object our own
 * start-up loads creates a thread): it must go on without us. */
static bool boot__once(int argc, char **argv)
{
	int expected = 0;

	if (__atomic_load_n(&boot_state, __ATOMIC_ACQUIRE) == 2)
		return true;
	if (__atomic_compare_exchange_n(&boot_state, &expected, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&boot_tid, gettid(), __ATOMIC_RELAXED);
		boot__run(argc, argv);
		__atomic_store_n(&boot_state, 2, __ATOMIC_RELEASE);
		return true;
	}
	if (__atomic_load_n(&boot_tid, __ATOMIC_RELAXED) == gettid())
		return false;
	while (__atomic_load_n(&boot_state, __ATOMIC_ACQUIRE) != 2)
		sched_yield(); /* another thread is starting us: milliseconds */
	return true;
}

/* interpose/pthread.c's early start (interpose.h). */
static bool boot__early(void)
{
	char **argv;
	int argc;
	bool ok;

	if (__atomic_load_n(&boot_state, __ATOMIC_ACQUIRE) == 2)
		return true;
	argc = hs_cmdline__read(&argv);
	ok = boot__once(argc, argv);
	free(argv);
	return ok;
}

HS_EARLY_START(boot__early);

__attribute__((constructor)) static void boot__init(int argc, char **argv, char **envp)
{
	(void)envp;
	boot__once(argc, argv);
	/* Started early by another thread: this one is still to count. */
	hs_thread__adopt();
}

__attribute__((destructor)) static void boot__fini(void)
{
	hs_process__finish(HS_END_EXIT, 0);
}
