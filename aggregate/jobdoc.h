/* jobdoc.h - the job document (docs/schema.md, "Job document"): the
 * results of a job's processes, one per rank, reduced to one document by
 * one code path, for the offline merge (tools/cmd_merge.c) and the
 * in-job reduction at MPI_Finalize (preload/mpi/).
 */
#ifndef HPCSHIM_AGGREGATE_JOBDOC_H
#define HPCSHIM_AGGREGATE_JOBDOC_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct dr_doc;
struct tree;
struct agg_jobsum;

/* The stall tree `name` for a libpfm4 model, or NULL: the job document's
 * drill-down (docs/drilldown.md) needs the tree the ranks evaluated, and
 * only the caller can read tree files (aggregate/ is below presets/). */
typedef const struct tree *(*agg_jobdoc_tree_fn)(void *ctx, const char *name,
						 const char *model);

/* One process's result document and what identifies it. */
struct agg_jobdoc_rank {
	char *path; /* the file it came from, or NULL (received in the job) */
	struct dr_doc *doc;
	int rank, size;
	const char *host, *end, *job, *mpi_job; /* strings of doc */
	int pid, generation;
	bool complete;
	double start_ns; /* the process's start */
	char *own[4];    /* streaming: the strings above, copied */
};

struct agg_jobdoc {
	const char *prog; /* prefix of the one-line diagnostics */
	struct agg_jobdoc_rank *r;
	size_t n, cap;
	struct json_object *ignored; /* files left out so far, or NULL */
	agg_jobdoc_tree_fn tree;     /* or NULL: no job drill-down */
	void *tree_ctx;
	/* Streaming (the offline merge): a document taken is read for who it
	 * is and released; the build reads each file again, one at a time,
	 * so the memory does not grow with the ranks' documents. */
	bool stream;
};

/* Adds one process result document (taken: released when it is not an
 * hpcshim process result, then false).  file: where it came from, or
 * NULL. */
bool agg_jobdoc__add(struct agg_jobdoc *j, struct json_object *doc, const char *file);
/* The same for a document read (aggregate/docread.h; taken, freed when
 * refused): 0, or its dr_doc__check_partial verdict (DR_NO_SCHEMA,
 * DR_SCHEMA: not a process result, a job document included; DR_LAYOUT: a
 * damaged one, why says how). */
int agg_jobdoc__take(struct agg_jobdoc *j, struct dr_doc *doc, const char *file, char *why,
		     size_t len);
/* One job at a time: keeps the ranks of job want, or of the only job the
 * inputs hold; the others (another job's, or with no job id beside a job)
 * go to ignored_files.  Inputs with no job id at all all stay.  0, with
 * *id the job kept (NULL: none; allocated), or -1 when no job can be
 * chosen: want is not there, or there are several and no want (the jobs
 * are listed on stderr, one line each). */
int agg_jobdoc__select(struct agg_jobdoc *j, const char *want, char **id);
/* The job document's text (tool: its "tool" member; *len its length;
 * malloc'd).  Renumbers and sorts j's ranks, drops duplicates, summarises
 * each rank (agg_jobdoc__summarise) and merges the summaries in the
 * in-job tree's order. */
char *agg_jobdoc__build(struct agg_jobdoc *j, const char *tool, size_t *len);
void agg_jobdoc__free(struct agg_jobdoc *j);
/* One rank's document into a summary (aggregate/jobsum.h): rank, its
 * number (-1: the document's), file: where it came from (NULL: in the
 * job); tree: for the drill-down's inputs, or NULL.  Out of memory:
 * agg_oom(). */
int agg_jobdoc__summarise(struct agg_jobsum *s, const struct dr_doc *doc, int rank,
			  const char *file, agg_jobdoc_tree_fn tree, void *tree_ctx);
/* The same from a source (aggregate/jobsrc.h): the bulk of the values
 * from src's callbacks, the small parts from src->doc.  The in-job
 * reduction's source is the writer's view (jobsrc_view.c). */
struct agg_jobsrc;
int agg_jobdoc__summarise_src(struct agg_jobsum *s, const struct agg_jobsrc *src, int rank,
			      const char *file, agg_jobdoc_tree_fn tree, void *tree_ctx);
/* A rank's entry of the document's ranks[] (JSON text, malloc'd). */
char *agg_jobdoc__entry(const struct dr_doc *doc, int rank, const char *file);
/* The job document of a summary of all the ranks, as text (malloc'd,
 * *len its length), one region's objects at a time.  ignored: the
 * ignored_files array (taken) or NULL; prog: the prefix of the
 * drill-down's one line on stderr. */
char *agg_jobdoc__render(const struct agg_jobsum *s, struct json_object *ignored,
			 const char *tool, const char *prog, agg_jobdoc_tree_fn tree,
			 void *tree_ctx, size_t *len);
/* fn(arg) with running out of memory in this file's functions turned into
 * a return of -1 (errno ENOMEM) instead of the tools' abort: for the shim,
 * which must never end the program. */
int agg_jobdoc__guard(int (*fn)(void *), void *arg);
/* text + "\n" to path atomically (a temporary name, fsync, rename): 0, or
 * -1 with the reason in err.  named: a path the user gave (-o), written
 * through when it is a device, pipe or FIFO (agg_result__write_text). */
int agg_jobdoc__write(const char *path, const char *text, bool named, char *err,
		      size_t errlen);

#endif
