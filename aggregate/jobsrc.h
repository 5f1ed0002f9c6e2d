/* jobsrc.h - where agg_jobdoc__summarise reads a rank's values from.
 *
 * The summary (jobsum.h) of one rank is made of its rank facts, process
 * totals, region summaries and every thread's region records (the bulk:
 * regions x events x inclusive/exclusive/threads), plus small parts: its
 * entry of ranks[], its profile, its OpenMP constructs, its drill-down.
 * The bulk comes through this source; the small parts always from a
 * document (doc), read by docread.
 *
 * Two sources, one summary:
 *   jobsrc_doc.c   over a whole result document (hpcshim merge of rank
 *                  files, and the in-job fallback): doc is that document
 *   jobsrc_view.c  over the writer's view of the running process
 *                  (MPI_Finalize): the values as the file would print
 *                  them and docread read them back, taken while the
 *                  document is written without its bulk; doc is that
 *                  small document
 * Both must give the same numbers for the same process: the packed
 * summaries are compared byte for byte (tests/mpi/test_mpi_viewsum.py).
 *
 * A value: has (a number, docread's `has`), v the number, err the error
 * the summary carries (a multiplexed value's standard error, else 0).
 */
#ifndef HPCSHIM_AGGREGATE_JOBSRC_H
#define HPCSHIM_AGGREGATE_JOBSRC_H

#include <stdbool.h>
#include <stddef.h>

#include "aggregate/docread.h"

struct agg_jobsrc_val {
	bool has;
	double v, err;
};

/* A region summary: its name (NULL: none, skipped), calls when written
 * as a number, wall times (-1: none). */
struct agg_jobsrc_region {
	const char *name;
	bool has_calls;
	double calls, wall_in, wall_ex;
};

struct agg_jobsrc_ops {
	/* The process totals' events in file order, NULL past the end. */
	const char *(*total_event)(const void *src, size_t e);
	/* A column for event name (what the value calls take), looked up
	 * once per event of the summary. */
	long (*column)(const void *src, const char *name);
	void (*total)(const void *src, long col, const char *ev, struct agg_jobsrc_val *out);
	size_t (*nregions)(const void *src);
	void (*region)(const void *src, size_t i, struct agg_jobsrc_region *out);
	/* which: DR_INCLUSIVE or DR_EXCLUSIVE */
	void (*region_value)(const void *src, size_t i, enum dr_key which, long col,
			     const char *ev, struct agg_jobsrc_val *out);
	size_t (*nthreads)(const void *src);
	/* A thread's tid and OpenMP thread number (-1: none). */
	void (*thread)(const void *src, size_t t, long long *tid, long long *omp);
	size_t (*thread_nregions)(const void *src, size_t t);
	const char *(*thread_region)(const void *src, size_t t, size_t i);
	/* A thread's region record's inclusive value (err unused). */
	void (*thread_value)(const void *src, size_t t, size_t i, long col, const char *ev,
			     struct agg_jobsrc_val *out);
};

struct agg_jobsrc {
	const struct agg_jobsrc_ops *ops;
	const void *ctx;
	/* rank facts, the entry, profile, OpenMP constructs, drill-down */
	const struct dr_doc *doc;
};

/* jobsrc_doc.c: the source over a whole result document. */
void agg_jobsrc__doc(struct agg_jobsrc *src, const struct dr_doc *doc);

#endif
