/* jobsum.h - a job's results as mergeable summaries (issue 30): for every
 * (region, what, event) one agg_rstat (summary.h) over the ranks, region
 * and event names joined by name, plus what the job document says of the
 * ranks in bounded space (how many, which are missing as intervals, the
 * incomplete ones up to a cap).  Its size depends on the regions, events
 * and the spread of the values (the sketches' buckets), never on the
 * number of ranks, so a binomial tree of merges costs every rank
 * O(log P) messages of one size.
 *
 * agg_jobsum__merge(a, b) is exact for counts, minima, maxima, holders and
 * sketches; sums are floating point, so an order of merges is fixed: the
 * binomial tree by rank, left operand the lower ranks, which the offline
 * merge reproduces with agg_jobsum_stack (O(log P) summaries in memory).
 */
#ifndef HPCSHIM_AGGREGATE_JOBSUM_H
#define HPCSHIM_AGGREGATE_JOBSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate/summary.h"
#include "common/strtab.h"

struct dr_doc;

/* What a cell is over: the event's value in the process totals or a
 * region (inclusive, exclusive), a region's calls or wall time, a
 * process's wall time, a thread's inclusive value (thread extremes), a
 * region's presence (the ranks that ran it). */
enum agg_what {
	AGG_TOTAL,
	AGG_INCL,
	AGG_EXCL,
	AGG_CALLS,
	AGG_WALL_IN,
	AGG_WALL_EX,
	AGG_WALL_PROC,
	AGG_THREAD,
	AGG_PRESENT,
	/* the drill-down's inputs, event: the tree event's index; region
	 * AGG_NONE with AGG_DRILL_TOT: the process totals */
	AGG_DRILL_TOT, /* a rank's number: its value and error */
	AGG_DRILL_IN,
	AGG_DRILL_EX,
	AGG_DRILL_NOERR_TOT, /* a rank's estimate without an error figure */
	AGG_DRILL_NOERR_IN,
	AGG_DRILL_NOERR_EX,
	AGG_DRILL_WHY_TOT, /* a rank without a number: value its rank, the
			    * holder's tid the index of the reason in whys */
	AGG_DRILL_WHY_IN,
	AGG_DRILL_WHY_EX,
	/* a thread's inclusive value by its role: the process's main thread,
	 * an OpenMP thread (omp_thread set), any other (MPI's progress
	 * threads, the program's pthreads) */
	AGG_ROLE_MAIN,
	AGG_ROLE_OMP,
	AGG_ROLE_OTHER,
	/* what the profile view needs (aggregate/profile.h), per rank: its
	 * peak resident memory; the parts of its main thread's time and of
	 * all its threads' (event: AGG_PART_*, a raw index); a wrapped
	 * function's bytes (region: the function's) */
	AGG_PEAK_RSS,
	AGG_PART_MAIN,
	AGG_PART_ALL,
	AGG_BYTES,
	/* an OpenMP construct (region: its region's): per OpenMP thread t a
	 * figure of its share (event AGG_OMP_EVENT(field, t)), and the
	 * construct's own per rank (event AGG_OMP_EVENT(field, AGG_OMP_TEAM)) */
	AGG_OMP,
	AGG_NWHAT
};
#define AGG_OMP_THREADS 256 /* OpenMP threads kept per construct: 0..255 */
#define AGG_OMP_TEAM AGG_OMP_THREADS /* the construct's figures of a rank */
#define AGG_OMP_EVENT(field, t) ((uint32_t)(field) * (AGG_OMP_THREADS + 1) + (uint32_t)(t))
/* A thread's fields (the rank files' per_thread), then a rank's. */
enum agg_omp_field {
	AGG_OMP_CALLS,
	AGG_OMP_WORK,
	AGG_OMP_WAIT,
	AGG_OMP_BARRIER,
	AGG_OMP_CRIT_WAIT,
	AGG_OMP_TASKWAIT,
	AGG_OMP_TASK,
	AGG_OMP_CHUNKS,
	AGG_OMP_ITERATIONS,
	AGG_OMP_WAIT_SHARE_T, /* wait / (work + wait), a share of at least 1 ms */
	AGG_OMP_NTHREAD_FIELDS,
	/* a rank's: its imbalance and waiting share of the construct */
	AGG_OMP_IMBALANCE = AGG_OMP_NTHREAD_FIELDS,
	AGG_OMP_WAIT_SHARE,
	AGG_OMP_TEAMS,
	AGG_OMP_NFIELDS
};
/* The parts of AGG_PART_MAIN and AGG_PART_ALL: profile.h's enum pf_cat
 * (compute, mpi, io, openmp_wait, off_cpu, measurement), its MPI kinds
 * (collective, point_to_point, wait, other, init_finalize), then wall and
 * task-clock time (jobdoc.c checks these against profile.h). */
#define AGG_PART_KINDS 6  /* first MPI kind: PF_NCAT */
#define AGG_PART_WALL 11
#define AGG_PART_CPU 12
#define AGG_NPARTS 13
#define AGG_NONE UINT32_MAX /* no region (process) or no event */

struct agg_cell {
	uint32_t region, event; /* indices into the summary's tables */
	uint32_t what;
	struct agg_rstat s;
};

#define AGG_INCOMPLETE_LISTED 64
#define AGG_INTERVALS 64 /* rank intervals kept; beyond, the gaps are counted only */

/* Ranks listed in the job document's ranks[] with their totals: every
 * rank up to this many, beyond only the ranks the document names. */
#define AGG_RANKS_LISTED 256

/* The drill-down the ranks carry: the tree's name and CPU model of the
 * lowest rank with one, and the first rank that disagrees (kind 1: its
 * tree, 2: its model; other: its tree or model). */
struct agg_jobsum_drill {
	bool has;
	char *name, *model, *other;
	int32_t first, orank, kind;
};

struct agg_jobsum {
	struct hs_strtab regions, events, hosts;
	struct agg_cell *cell;
	size_t n, cap;
	/* cell index + 1 by (region, event, what), the key beside it: a
	 * probe compares in the table, never in the (large) cell */
	struct agg_jobsum_slot {
		uint32_t region, event, what, idx;
	} *slot;
	size_t nslot;
	size_t next; /* the cell after the last one added to: tried first */
	uint64_t ranks;      /* ranks summarised */
	int32_t size;        /* the largest size a rank gave, -1 none */
	int32_t lo[AGG_INTERVALS], hi[AGG_INTERVALS]; /* ranks present */
	uint32_t nint;
	bool lost_intervals;
	uint64_t nincomplete;
	int32_t incomplete[AGG_INCOMPLETE_LISTED];
	char *job, *mpi_job; /* the lowest rank's */
	/* ranks[] of the document: rank and its entry (JSON text), by rank;
	 * none once there are more than AGG_RANKS_LISTED ranks */
	uint32_t nent;
	int32_t *erank;
	char **etext;
	bool ent_dropped;
	struct agg_jobsum_drill drill;
	struct hs_strtab whys; /* the drill-down's reasons */
	bool oom;
};

/* The index of a name in a table of s (AGG_NONE out of memory). */
uint32_t agg_jobsum__name(struct agg_jobsum *s, struct hs_strtab *t, const char *name);
/* One value into the cell (region, event, what) (indices). */
int agg_jobsum__add_cell(struct agg_jobsum *s, uint32_t region, uint32_t event,
			 enum agg_what what, double v, double err, struct agg_who who);
/* A rank's entry of ranks[] (text copied). */
int agg_jobsum__add_entry(struct agg_jobsum *s, int rank, const char *text);
/* The same for a rank the document names (the holders of extremes),
 * listed also when the others are not. */
int agg_jobsum__add_named(struct agg_jobsum *s, int rank, const char *text);
/* The ranks the document names: the holders of the process totals' and
 * wall time's extremes, then the regions', at most max, ascending (their
 * entries are listed when not every rank is). */
int agg_jobsum__named(const struct agg_jobsum *s, int *ranks, int max);
/* The drill-down of a rank (name, model: its tree's and CPU's). */
int agg_jobsum__add_drill(struct agg_jobsum *s, int rank, const char *name,
			  const char *model);
/* Pieces of the same, for callers that have no document (the bench's
 * simulated ranks, the tests): a rank, a host's index, one value. */
int agg_jobsum__add_rank(struct agg_jobsum *s, int rank, int size, bool complete);
int agg_jobsum__host(struct agg_jobsum *s, const char *host);
int agg_jobsum__add_value(struct agg_jobsum *s, const char *region, const char *event,
			  enum agg_what what, double v, double err, struct agg_who who);
/* b into a (a: the lower ranks).  0, or -1 out of memory. */
int agg_jobsum__merge(struct agg_jobsum *a, const struct agg_jobsum *b);
/* The cell, or NULL. */
const struct agg_cell *agg_jobsum__cell(const struct agg_jobsum *s, uint32_t region,
					uint32_t event, enum agg_what what);
void agg_jobsum__free(struct agg_jobsum *s);

/* Serialised for a message (names once, then the cells). */
int agg_jobsum__pack(const struct agg_jobsum *s, struct agg_buf *b);
/* 0, or -1: a damaged buffer or out of memory (s empty). */
int agg_jobsum__unpack(struct agg_jobsum *s, struct agg_buf *b);

/* The binomial tree's order of merges for inputs given by rank, one at a
 * time: level k holds the merge of 2^k consecutive inputs. */
struct agg_jobsum_stack {
	struct agg_jobsum *lv[64];
	uint64_t count[64];
	int depth;
};
/* Takes one (a malloc'd summary of the next input in rank order). */
int agg_jobsum_stack__push(struct agg_jobsum_stack *st, struct agg_jobsum *one);
/* The whole (taken by the caller), the stack emptied. */
struct agg_jobsum *agg_jobsum_stack__finish(struct agg_jobsum_stack *st);

#endif
