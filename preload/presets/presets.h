/* presets.h - HPCSHIM_PRESET, HPCSHIM_OPCODE and HPCSHIM_LIST in the
 * process (presets.c), a feature of the shim (core/feature.h): select
 * resolves the requested sets for the CPU model libpfm4 detects and
 * appends their events to the configuration (after HPCSHIM_EVENTS;
 * instead of the default set), printing the listing first when
 * HPCSHIM_LIST=1; setup, after the probe, gives each set a status (one
 * line per set that cannot be counted, at verbosity 1) and maps the
 * metrics to the evlist's event indices; result hands them to the
 * results (NULL when no set was asked for). */
#ifndef HPCSHIM_PRESETS_H
#define HPCSHIM_PRESETS_H

#include "preload/core/feature.h"

extern const struct hs_feature hs_presets_feature;

#endif
