/* jobdoc.h - the job document (docs/schema.md, "Job document"): the
 * results of a job's processes, one per rank, reduced to one document by
 * one code path, for the offline merge (tools/hpcshim-merge.c) and the
 * in-job reduction at MPI_Finalize (preload/mpi/).
 */
#ifndef HPCSHIM_AGGREGATE_JOBDOC_H
#define HPCSHIM_AGGREGATE_JOBDOC_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* One process's result document and what identifies it. */
struct agg_jobdoc_rank {
	char *path; /* the file it came from, or NULL (received in the job) */
	struct json_object *doc;
	int rank, size;
	const char *host, *end, *job; /* strings of doc */
	int pid, generation;
	bool complete;
};

struct agg_jobdoc {
	const char *prog; /* prefix of the one-line diagnostics */
	struct agg_jobdoc_rank *r;
	size_t n, cap;
};

/* Adds one process result document (taken: released when it is not an
 * hpcshim process result, then false).  file: where it came from, or
 * NULL. */
bool agg_jobdoc__add(struct agg_jobdoc *j, struct json_object *doc, const char *file);
/* The job document (tool: its "tool" member).  Renumbers and sorts j's
 * ranks, drops duplicates. */
struct json_object *agg_jobdoc__build(struct agg_jobdoc *j, const char *tool);
void agg_jobdoc__free(struct agg_jobdoc *j);
/* text + "\n" to path atomically (a temporary name, fsync, rename): 0, or
 * -1 with the reason in err. */
int agg_jobdoc__write(const char *path, const char *text, char *err, size_t errlen);

#endif
