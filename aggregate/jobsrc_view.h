/* jobsrc_view.h - the summary's source over the writer's view of this
 * process (jobsrc.h), for the in-job reduction at MPI_Finalize.
 *
 * Its tap (tap.h) goes into the snapshot's agg_process: while the writer
 * walks the view it copies the process totals, the region summaries and
 * every written thread record's inclusive values, as the file would
 * print them and docread read them back (a count as its printed integer,
 * a sum as the double the writer prints round-trip exact, a multiplexed
 * value's standard error as its "_multiplexed" entry's), and lets the
 * writer skip the records nobody reads from the document (all but what
 * the profile reads, pf__reads_region).  The document written so stays
 * small: it gives the summary its small parts (the rank facts, entry,
 * profile, OpenMP constructs).  A drill-down reads every region of the
 * document: with one, the caller summarises the whole document instead.
 */
#ifndef HPCSHIM_AGGREGATE_JOBSRC_VIEW_H
#define HPCSHIM_AGGREGATE_JOBSRC_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate/jobsrc.h"
#include "aggregate/tap.h"
#include "common/strtab.h"

struct jobsrc_vregion; /* a region summary's facts */
struct jobsrc_vthread; /* a thread's run of records */

struct agg_jobsrc_view {
	struct agg_tap tap;
	size_t ncol;
	char **colname;    /* [ncol] the totals' events, file order */
	int *evi;          /* [ncol] their index in the process's events */
	struct agg_jobsrc_val *tot; /* [ncol] */
	struct jobsrc_vregion *reg; /* [nreg] */
	struct agg_jobsrc_val *rval; /* [nreg][2][ncol]: inclusive, exclusive */
	size_t nreg;
	struct jobsrc_vthread *thr; /* [nthr] */
	size_t nthr, thr_cap;
	uint32_t *rec;               /* [nrec] the record's name in names */
	struct agg_jobsrc_val *recval; /* [nrec][ncol] */
	size_t nrec, rec_cap;
	struct hs_strtab names;
	const void *last_thread; /* the thread of the last record */
	bool taken; /* totals and summaries came: a complete source */
	bool keep_all; /* the writer writes every record (a check's) */
};

/* An empty source, its tap ready for agg_process.tap. */
void agg_jobsrc_view__init(struct agg_jobsrc_view *v);
/* The source (doc: the document the tap's writer wrote, parsed): 0, or
 * -1 when the writer never completed the walk. */
int agg_jobsrc_view__source(struct agg_jobsrc_view *v, const struct dr_doc *doc,
			    struct agg_jobsrc *src);
void agg_jobsrc_view__free(struct agg_jobsrc_view *v);
/* A whole process document (parsed) cut to what the tap lets the writer
 * write: the regions of its threads and its region summaries that the
 * summary reads from the view left out.  For HPCSHIM_MPI_SUMMARY=check,
 * which summarises one snapshot both ways. */
struct json_object;
void agg_jobsrc_view__prune(struct json_object *root);

#endif
