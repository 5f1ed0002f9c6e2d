/* presets.h - HPCSHIM_PRESET, HPCSHIM_OPCODE and HPCSHIM_LIST in the
 * process (presets.c): the constructor calls select before it adds the
 * events to the evlist, finish after the probe; the writer takes view. */
#ifndef HPCSHIM_PRESETS_H
#define HPCSHIM_PRESETS_H

#include "aggregate/metric.h"
#include "pmu/pmu.h"
#include "preload/config/config.h"

/* Resolves the requested sets for the CPU model libpfm4 detects and
 * appends their events to cfg (after HPCSHIM_EVENTS; instead of the
 * default set).  Prints the listing first when HPCSHIM_LIST=1. */
void hs_presets__select(struct hs_config *cfg);
/* Statuses from the probe, one line per set that cannot be counted
 * (verbosity 1), and the metrics over the evlist's event indices. */
void hs_presets__finish(const struct pmu_evlist *el);
/* What the results say about presets, or NULL when none was asked for. */
const struct agg_metrics *hs_presets__view(void);

#endif
