/* config.h - the core's HPCSHIM_* environment variables, parsed once.
 *
 *   HPCSHIM_EVENTS   comma list of event specs (default: see config.c)
 *   HPCSHIM_OUTPUT   directory for the result file (default ".")
 *   HPCSHIM_VERBOSE  0 errors only (default), 1 info, 2 debug
 *   HPCSHIM_READ     auto (user-space counter reads if able) | syscall
 *   HPCSHIM_PRESET_PATH  colon list of directories searched before the
 *                    installed data files (presets, stall trees), for
 *                    every feature that reads them
 *   HPCSHIM_MAX_REGIONS, HPCSHIM_MAX_THREADS   limits.c
 *   HPCSHIM_FLUSH    flushconfig.c
 *   HPCSHIM_TRACE    region calls kept per thread (config.c)
 *   HPCSHIM_UMASK    permission bits the result files do not get (octal,
 *                    default 077: 0600; common/filemode.h)
 *   HPCSHIM_REGION_SAMPLE   sampleconfig.c
 *   HPCSHIM_PROGRAMS  comma list of program-name globs (programs.c); read
 *                    before the rest, by core/dormant.c
 *
 * A feature's variables are its own (Caliper's services): it parses them
 * in its config hook (core/feature.h) with varparse.h, in its folder:
 *
 *   HPCSHIM_PRIVILEGE, HPCSHIM_RANGE, HPCSHIM_RANGE_PERIOD,
 *   HPCSHIM_CHECKPOINT, HPCSHIM_TRIGGER          preload/range/config.h
 *   HPCSHIM_MUX, HPCSHIM_MUX_SLICE, HPCSHIM_MUX_PINNED, HPCSHIM_MUX_SEED,
 *   HPCSHIM_INTERVAL, HPCSHIM_INTERVAL_POINTS    preload/mux/config.h
 *   HPCSHIM_PRESET, HPCSHIM_OPCODE, HPCSHIM_LIST preload/presets/presets.c
 *   HPCSHIM_MPI_FILES, HPCSHIM_MPI_FILES_RANKS   preload/mpi/mpi.c
 *   HPCSHIM_WRAP, HPCSHIM_WRAP_PATH              preload/wrap/wrap.c
 *
 * and tells the core what it needs through the generic fields at the end
 * of struct hs_config.  Documented for users in docs/environment.md.
 */
#ifndef HPCSHIM_CONFIG_H
#define HPCSHIM_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "pmu/pmu.h"

/* A comma list of event specs with optional {a,b} groups (speclist.c). */
struct hs_speclist {
	char *spec[PMU_MAX_EVENTS];
	int group[PMU_MAX_EVENTS]; /* user group number, or -1        */
	int n, ngroups;
	int empty;   /* empty items (ignored)            */
	int ignored; /* items beyond PMU_MAX_EVENTS      */
	int braces;  /* misplaced or unbalanced braces   */
};

/* speclist.c */
void hs_speclist__parse(struct hs_speclist *l, const char *v);
void hs_speclist__free(struct hs_speclist *l);

/* Result size (limits.c): beyond these, the smallest region names and
 * thread records are folded into one summary.  0: no limit. */
struct hs_limits {
	int max_regions; /* HPCSHIM_MAX_REGIONS: names written per process */
	int max_threads; /* HPCSHIM_MAX_THREADS: thread records written   */
};

#define HS_MAX_REGIONS 1000
#define HS_MAX_THREADS 1000

void hs_limits__from_env(struct hs_limits *l);

/* HPCSHIM_REGION_SAMPLE (sampleconfig.c): one call in `every` of a
 * region is measured, the others only counted. */
#define HS_SAMPLE_MAX 64
struct hs_sample_config {
	uint32_t every; /* for regions not named, 1: every call */
	int n;
	int ignored; /* names beyond HS_SAMPLE_MAX */
	/* every was given (N): it applies to automatic points too.  In the
	 * padding before name[]: hs_config's layout, and the offsets of the
	 * hot path's hs_proc fields after it, stay as they were. */
	bool every_set;
	char *name[HS_SAMPLE_MAX];
	uint32_t name_every[HS_SAMPLE_MAX];
};

struct hs_config {
	char *events[PMU_MAX_EVENTS]; /* specs, in order                   */
	int nevents;
	bool events_default; /* HPCSHIM_EVENTS unset: default set   */
	/* HPCSHIM_PROFILE=1: where a job's time went (docs/environment.md):
	 * the events are task-clock (added to HPCSHIM_EVENTS, or alone in
	 * place of the default set); features read it (wrap: @mpi,@io). */
	bool profile;
	int events_empty;    /* empty items in the list (ignored)   */
	int events_ignored;  /* items beyond PMU_MAX_EVENTS         */
	char output[PATH_MAX];
	int verbose;
	bool user_read;    /* HPCSHIM_READ=auto                   */
	char *preset_path; /* HPCSHIM_PRESET_PATH, or NULL       */
	unsigned file_mode; /* result files' mode, HPCSHIM_UMASK */
	/* A feature may append events (select hook) after the user's. */
	int nuser;                       /* events from HPCSHIM_EVENTS/default */
	int event_group[PMU_MAX_EVENTS]; /* user group ({a,b}) of each spec, or -1 */
	int events_braces;               /* misplaced or unbalanced braces      */
	struct hs_limits limits;         /* limits.c                            */
	uint64_t flush_ns; /* HPCSHIM_FLUSH period, 0: off (flushconfig.c) */
	uint32_t trace;    /* HPCSHIM_TRACE: region calls kept per thread, 0: off */
	struct hs_sample_config sample; /* HPCSHIM_REGION_SAMPLE (sampleconfig.c) */

	/* What the features ask of the core, set by their config hooks
	 * (core/feature.h); the core reads these, never a feature's own. */
	enum pmu_plm privilege;    /* of every event (default all; range)  */
	struct hs_speclist pinned; /* events never rotated nor multiplexed,
				    * in the syntax of HPCSHIM_EVENTS (mux) */
	const char *switcher;      /* the variable of a feature that switches
				    * every thread's counters on and off at
				    * once, for messages (range:
				    * HPCSHIM_TRIGGER), or NULL */
};

/* sampleconfig.c: HPCSHIM_REGION_SAMPLE.  The number of calls in which
 * one is measured, for a region name (1: every call). */
uint32_t hs_sample_config__every(const struct hs_sample_config *sc,
				 const char *name);
/* The same where the default is not 1 but dflt: the N of an automatic
 * point (a wrapped call, an OpenMP construct) unless the variable names
 * the region or gives an N for all. */
uint32_t hs_sample_config__every_or(const struct hs_sample_config *sc,
				    const char *name, uint32_t dflt);
void hs_sample_config__from_env(struct hs_sample_config *sc, const char *v);

/* HPCSHIM_PROGRAMS (programs.c): the valid globs, in order.  Bad ones
 * are reported (one line each) and left out; n == 0 means unset. */
#define HS_PROGRAMS_MAX 64
struct hs_programs {
	char *glob[HS_PROGRAMS_MAX];
	int n;
	int ignored; /* globs beyond HS_PROGRAMS_MAX */
};

void hs_programs__from_env(struct hs_programs *p);
/* True when name matches one of globs[0..n) (fnmatch, no flags). */
bool hs_programs__match(const char *const *globs, int n, const char *name);
void hs_programs__free(struct hs_programs *p);

/* The default period of the periodic flush (HPCSHIM_FLUSH unset). */
#define HS_FLUSH_DEFAULT_NS 1000000000ull

/* flushconfig.c: HPCSHIM_FLUSH's value -> period in ns, 0 for off. */
uint64_t hs_flush_config__from_env(const char *v);

/* Fills cfg from the environment (the core's variables; the generic
 * fields get their defaults).  Malformed values are reported with one
 * "hpcshim:" line each and replaced by defaults; never fails. */
void hs_config__from_env(struct hs_config *cfg);
void hs_config__free(struct hs_config *cfg);

#endif
