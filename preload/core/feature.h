/* feature.h - how an optional feature plugs into the core.
 *
 * The core (preload/core/: process and thread state, regions, call sites,
 * fork, publishing the results) never names a feature.  A feature (range
 * restriction, multiplexing, presets; next wrapping and MPI) describes
 * itself with one struct hs_feature of hooks, the way Caliper's services
 * register for its events; boot.c lists them, in the order they run, and
 * hands the table to the core.  Every hook may be NULL.
 *
 * Order of the constructor:  the core's variables  ->  config (each)  ->
 * select (each)  ->  the event list is built from the configuration  ->
 * configure (each)  ->  probe  ->  setup (each)  ->  the interposition is
 * ready (signals, fork handlers)  ->  start (each)  ->  the main thread
 * starts (thread_start, each).
 */
#ifndef HPCSHIM_PRELOAD_FEATURE_H
#define HPCSHIM_PRELOAD_FEATURE_H

#include <stdbool.h>
#include <sys/types.h>

struct agg_process;
struct hs_config;
struct hs_thread;
struct pmu_evlist;

struct hs_feature {
	const char *name;
	/* First: parse the feature's own HPCSHIM_* variables
	 * (config/varparse.h) into its own state, one "hpcshim:" line per bad
	 * value, and tell the core what it needs through the generic fields
	 * of cfg (privilege, pinned, switcher: config.h).  The core names no
	 * feature's variable. */
	void (*config)(struct hs_config *cfg);
	/* Before the event list is built: add events to the configuration. */
	void (*select)(struct hs_config *cfg);
	/* The list is built, not probed yet: adjust its events. */
	void (*configure)(struct hs_config *cfg, struct pmu_evlist *el);
	/* After the probe: what opens on this host is known. */
	void (*setup)(struct pmu_evlist *el, const struct hs_config *cfg);
	/* The core is ready; the main thread is not counted yet. */
	void (*start)(void);
	/* On thread t itself, its counters open and t in the live list
	 * (also for the forking thread in a fork child). */
	void (*thread_start)(struct hs_thread *t);
	/* On t itself at its end, before the final read. */
	void (*thread_stop)(struct hs_thread *t);
	/* On t at its end, after the final read, before its counters close. */
	void (*thread_end)(struct hs_thread *t);
	/* t's state was inherited by a fork child: drop it without touching
	 * the parent's (shared) kernel objects. */
	void (*thread_forget)(struct hs_thread *t);
	/* First thing in a fork child, before the core rebuilds itself. */
	void (*fork_child)(void);
	/* At exit, under the core lock: before live thread t's final read
	 * (self: t is the calling thread). */
	void (*collect_thread)(struct hs_thread *t, bool self);
	/* At exit, under the core lock, after the threads. */
	void (*collect)(bool in_signal);
	/* The feature's part of the results: what the view computes with
	 * (agg_process fields) and the sections it writes (aggregate/
	 * section.h: agg_sections__add on p->sections).  partial: a flush or a
	 * snapshot (MPI_Finalize's job document) beside running threads: only
	 * what is safe then (what setup fixed, or records read like the
	 * core's); else the end of the process. */
	void (*result)(struct agg_process *p, bool partial);
	/* A task of the feature's own (not an uncovered program thread). */
	bool (*own_task)(pid_t tid);
	/* The feature keeps a pointer per thread: hs_features__set writes
	 * here its index in hs_thread.slot[] (-1: none left, the feature
	 * keeps no state per thread).  NULL: no slot. */
	int *slot;
};

/* features.c: the table (NULL-terminated), set once by boot.c; gives
 * out the per-thread slots. */
void hs_features__set(const struct hs_feature *const *table);

void hs_features__config(struct hs_config *cfg);
void hs_features__select(struct hs_config *cfg);
void hs_features__configure(struct hs_config *cfg, struct pmu_evlist *el);
void hs_features__setup(struct pmu_evlist *el, const struct hs_config *cfg);
void hs_features__start(void);
void hs_features__thread_start(struct hs_thread *t);
void hs_features__thread_stop(struct hs_thread *t);
void hs_features__thread_end(struct hs_thread *t);
void hs_features__thread_forget(struct hs_thread *t);
void hs_features__fork_child(void);
void hs_features__collect_thread(struct hs_thread *t, bool self);
void hs_features__collect(bool in_signal);
/* partial: a flush or snapshot (feature.h result). */
void hs_features__result(struct agg_process *p, bool partial);
bool hs_features__own_task(pid_t tid);

#endif
