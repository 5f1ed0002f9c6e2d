/* mux.h - multiplexing and time series (HPCSHIM_MUX, HPCSHIM_MUX_*,
 * HPCSHIM_INTERVAL), a feature of the shim (core/feature.h).
 *
 *   config.c   the feature's variables (config.h)
 *   mux.c      constructor: the schedule, the samplers, the description
 *              for the results; the feature's hook table
 *   rotate.c   per thread: the rotation of groups and the series, driven
 *              by a sampler's signal (rotate.h)
 */
#ifndef HPCSHIM_PRELOAD_MUX_H
#define HPCSHIM_PRELOAD_MUX_H

#include "preload/core/feature.h"

extern const struct hs_feature hs_mux_feature;

#endif
