/* range.h - range restriction, checkpoints and start/stop triggers: the
 * feature the core runs through its hook table (its configuration:
 * config.h; its pieces: internal.h).
 *
 * Hooks: config (its variables; tells the core the privilege level of
 * every event, HPCSHIM_PRIVILEGE, and that HPCSHIM_TRIGGER switches every
 * counter), configure, start, thread_start, thread_end (after the final read, before the
 * counters close), fork_child, collect, result (p->range) and own_task
 * (the drain thread).
 */
#ifndef HPCSHIM_RANGE_H
#define HPCSHIM_RANGE_H

#include "preload/core/feature.h"

extern const struct hs_feature hs_range_feature;

#endif
