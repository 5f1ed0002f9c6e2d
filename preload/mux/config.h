/* config.h - the mux feature's variables (config.c): multiplexing and
 * time series, HPCSHIM_MUX, HPCSHIM_MUX_SLICE, HPCSHIM_MUX_PINNED,
 * HPCSHIM_MUX_SEED, HPCSHIM_INTERVAL, HPCSHIM_INTERVAL_POINTS.
 * Documented for users in docs/environment.md.
 */
#ifndef HPCSHIM_PRELOAD_MUX_CONFIG_H
#define HPCSHIM_PRELOAD_MUX_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "common/mux_mode.h"
#include "preload/config/config.h"

struct hs_mux_config {
	enum hs_mux_mode mode;
	bool slice_instructions; /* slices in instructions, not ns   */
	uint64_t slice;          /* ns, or instructions              */
	bool seeded;             /* HPCSHIM_MUX_SEED given           */
	uint64_t seed;
	uint64_t interval_ns; /* HPCSHIM_INTERVAL, 0 = no series  */
	int interval_points;  /* series buffer size per thread    */
};

#define HS_MUX_SLICE_NS 1000000ull /* 1 ms of thread CPU time   */
#define HS_MUX_INTERVAL_POINTS 512

/* Parses the variables into m, reporting each bad one on one line (its
 * default applies); HPCSHIM_MUX_PINNED into pinned, the core's list of
 * pinned events (struct hs_config). */
void hs_mux_config__from_env(struct hs_mux_config *m, struct hs_speclist *pinned);

#endif
