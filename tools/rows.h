/* rows.h - results as rows of values: the region, thread and rank views
 * that report, diff and html share (tools/rows.c). */
#ifndef HPCSHIM_TOOLS_ROWS_H
#define HPCSHIM_TOOLS_ROWS_H

#include <stddef.h>

#include "tools/results.h"

/* VIEW_TREE: the region view split by the region tree (each thread
 * record's "parent" chain), one row per path, depth-first. */
enum view { VIEW_REGION, VIEW_THREAD, VIEW_RANK, VIEW_TREE };

/* Per-call statistics merged over records: min, mean (over all calls),
 * max; n = 0 when no record had them. */
struct percall {
	long long n;
	double min, mean, max;
};

/* One event's value in one row.  se: the standard error of a multiplexed
 * estimate (-1: exact or unknown); cov: running/enabled (-1: counted all
 * the time); mux: some value behind it was multiplexed (a _multiplexed
 * entry), counted or not. */
struct cell {
	int has, mux;
	double v, se, cov;
	double run, en; /* summed running/enabled behind cov */
};

/* A metric of a row: the formula over the row's values (a ratio of sums,
 * as in the files); why says why it is unknown. */
struct mcell {
	int has;
	double v;
	const char *why;
};

struct metric_def;

struct row {
	char *name;   /* region name; NULL in the other views */
	int rank;     /* -1 in the region view (all ranks) */
	long long tid, omp; /* thread view: tid, OpenMP thread number or -1 */
	bool helper;  /* thread view: a helper thread of the MPI library (rows__helper) */
	const char *host;
	long long pid;
	long long calls;
	int threads, ranks;
	double wall; /* ns, -1 when the results have no wall time */
	double meas; /* ns the measurement cost, -1 when not said */
	struct cell *c; /* one per event of the table */
	int depth;        /* tree: 0 at the top                          */
	long up;          /* tree: the parent row's index, or -1         */
	const char *pc_event;       /* tree: per_call's event             */
	struct percall pc, pc_wall; /* tree: per_call, per_call_wall_ns   */
	int last_file;              /* tree: for counting ranks           */
	struct mcell *m;            /* one per metric of the set          */
};

struct hs_strtab;

struct rowset {
	enum view view;
	const char **ev;
	size_t nev;
	struct row *r;
	size_t n, cap;
	struct hs_strtab *paths; /* tree, while built: rows by "up/name" */
	int exclusive;
	size_t nm;               /* metrics of the results' presets   */
	struct metric_def *mdef; /* [nm]                              */
};

/* The metric names of a built rowset. */
const char *rows__metric_name(const struct rowset *rs, size_t k);

/* Whether thread th of doc is a helper thread of the MPI library, not one
 * that did the program's work: in a process of an MPI job, neither its
 * main thread (tid == pid) nor an OpenMP team's thread (with an
 * omp_thread: the shim labels only threads of a team), with no region of its own
 * but wrapped MPI and I/O calls (aggregate/profile.h's names), and, when
 * its task-clock is known, on a CPU less than a tenth of its wall time (a
 * service thread waiting on its sockets: Open MPI's and MPICH's progress
 * and PMIx threads).  The balance of a job's threads is over the others
 * (docs/command.md, html). */
bool rows__helper(const struct dr_doc *doc, const struct dr_thread *th);

/* Builds the rows of a view over every result; ev names the columns. */
void rows__build(struct rowset *rs, const struct results *s, enum view v, const char **ev,
		 size_t nev, int exclusive);
void rows__free(struct rowset *rs);
/* Sorts by key: "name", "calls", "wall" or an event (largest first). */
int rows__sort(struct rowset *rs, const char *key);

int rows__is_time(const char *ev);

#endif
