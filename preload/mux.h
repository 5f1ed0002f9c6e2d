/* mux.h - multiplexing and time series in preload/ (internal).
 *
 *   mux.c      constructor: events with user groups and pinned events, the
 *              schedule, the samplers, the description for the results
 *   rotate.c   per thread: the rotation of groups and the series, driven by
 *              a sampler's signal
 */
#ifndef HPCSHIM_PRELOAD_MUX_H
#define HPCSHIM_PRELOAD_MUX_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/pmu.h"
#include "preload/config/config.h"

struct agg_mux;
struct hs_thread;

/* What the constructor decided, for every thread. */
struct hs_mux_setup {
	bool rotate;                      /* threads rotate their groups    */
	bool interval;                    /* threads keep a time series     */
	struct perf_event_attr rot_attr;  /* the slice sampler              */
	struct perf_event_attr int_attr;  /* the interval sampler           */
	int signo;                        /* both samplers' signal, or -1   */
	uint64_t seed;                    /* of the rotation order          */
	uint64_t interval_ns;
	int interval_points;
	const int *leaders;               /* event index of each group's leader */
};

/* mux.c */
void hs_mux__add_events(struct pmu_evlist *el, const struct hs_config *cfg);
/* After pmu_evlist__probe. */
void hs_mux__setup(struct pmu_evlist *el, const struct hs_config *cfg);
/* The event of the per-call statistics: the first counted event that is
 * not rotated, or -1. */
int hs_mux__main_event(const struct pmu_evlist *el);
const struct agg_mux *hs_mux__agg(void);

/* rotate.c */
void hs_rotate__init(const struct hs_mux_setup *s);
/* On the thread itself, once its counters are open. */
void hs_rotate__start(struct hs_thread *t);
/* On the thread itself at its end, before the final read: stops the
 * samplers, adds the last series point, frees the rotation state. */
void hs_rotate__stop(struct hs_thread *t);
/* Fork child: drops the inherited state (the samplers are the parent's
 * events: closed, never disabled). */
void hs_rotate__forget(struct hs_thread *t);
/* Results collection: stop (self) or freeze (another live thread). */
void hs_rotate__collect(struct hs_thread *t, bool self);

#endif
