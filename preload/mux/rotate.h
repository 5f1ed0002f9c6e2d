/* rotate.h - the per-thread half of multiplexing (rotate.c): the rotation
 * of groups and the time series, driven by a sampler's signal.  mux.c
 * decides the setup once, in the constructor.
 */
#ifndef HPCSHIM_PRELOAD_ROTATE_H
#define HPCSHIM_PRELOAD_ROTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "pmu/pmu.h"

struct hs_thread;

/* What the constructor decided, for every thread. */
struct hs_mux_setup {
	bool rotate;                     /* threads rotate their groups    */
	bool interval;                   /* threads keep a time series     */
	struct perf_event_attr rot_attr; /* the slice sampler              */
	struct perf_event_attr int_attr; /* the interval sampler           */
	int signo;                       /* both samplers' signal, or -1   */
	uint64_t seed;                   /* of the rotation order          */
	uint64_t interval_ns;
	int interval_points;
	const int *leaders; /* event index of each group's leader */
};

void hs_rotate__init(const struct hs_mux_setup *s);
/* The thread's rotation state is in hs_thread.slot[hs_rotate_slot]
 * (core/feature.h: the core gives the slot out, mux.c asks for it). */
extern int hs_rotate_slot;
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
