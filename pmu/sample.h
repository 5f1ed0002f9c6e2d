/* sample.h - IP sampling rings (code points: point.h).
 *
 * Objects:
 *   pmu_ring   one thread's sampling fd for one event and its mmap ring
 *              buffer (sample.c)
 *
 * Like the rest of pmu/, nothing here knows about ranges, threads'
 * bookkeeping or JSON: samples go to a callback as (ip, kernel) pairs.
 */
#ifndef HPCSHIM_PMU_SAMPLE_H
#define HPCSHIM_PMU_SAMPLE_H

#include "pmu/pmu.h"

/* Software clock events sample from an hrtimer that the kernel never arms
 * for less than 10 us (perf_swevent_start_hrtimer): shorter periods would
 * make samples x period wrong, so they are raised to this. */
#define PMU_CLOCK_MIN_PERIOD 10000

struct pmu_ring {
	int fd;           /* -1 when not open                          */
	void *base;       /* control page + data pages                 */
	size_t len;       /* mapping length                            */
	size_t data_size; /* power of two                              */
	pid_t tid;        /* the sampled thread (for the TID check)    */
};

struct pmu_ring_stats {
	uint64_t samples;   /* PERF_RECORD_SAMPLE records of this thread   */
	uint64_t lost;      /* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t throttled; /* PERF_RECORD_THROTTLE: sampling paused once  */
};

typedef void (*pmu_sample_fn)(void *arg, uint64_t ip, bool kernel);

/* Opens a sampling copy of event attr ev for thread tid (0 = caller):
 * PERF_SAMPLE_IP | PERF_SAMPLE_TID every period events, a ring of up to
 * PMU_RING_PAGES data pages (halved while mmap is refused, e.g. by
 * perf_event_mlock_kb), waking pollers when half full.  The mapping is
 * MADV_DONTFORK: a fork child never sees, let alone consumes, it.  fds at
 * or above ceiling are refused (EMFILE).  Returns 0 or -errno. */
#define PMU_RING_PAGES 64
int pmu_ring__open(struct pmu_ring *r, const struct perf_event_attr *ev,
		   uint64_t period, bool disabled, pid_t tid, int ceiling);
/* Hands every new sample to fn and moves the tail.  Only one thread may
 * drain a ring at a time (the caller's lock). */
void pmu_ring__drain(struct pmu_ring *r, pmu_sample_fn fn, void *arg,
		     struct pmu_ring_stats *st);
/* unmap false in a fork child: the mapping was not inherited. */
void pmu_ring__close(struct pmu_ring *r, bool unmap);

#endif
