/* boot.c - the constructor and the destructor: the one place that names
 * every feature.
 *
 * The table below is the whole list of optional features, in the order
 * their hooks run (core/feature.h).  A new feature is a folder with its
 * struct hs_feature and one line here; nothing in the core changes.
 */
#include "preload/base/real.h"
#include "preload/core/core.h"
#include "preload/core/feature.h"
#include "preload/interpose/interpose.h"
#include "preload/mux/mux.h"
#include "preload/presets/presets.h"
#include "preload/range/range.h"

/* presets add events before the list is built; range sets their
 * privilege before the probe; after it mux schedules the groups, and only
 * then do presets judge their sets (a set's status depends on where its
 * events landed). */
static const struct hs_feature *const features[] = {
	&hs_range_feature,
	&hs_mux_feature,
	&hs_presets_feature,
	NULL,
};

__attribute__((constructor)) static void boot__init(int argc, char **argv, char **envp)
{
	(void)envp;
	hs_real__init();
	hs_features__set(features);
	hs_process__configure(argc, argv);
	hs_signal__init();
	hs_process__start(hs_exec__generation());
	hs_flush__start();
}

__attribute__((destructor)) static void boot__fini(void)
{
	hs_process__finish(HS_END_EXIT, 0);
}
