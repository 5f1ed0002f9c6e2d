/* results.h - the inputs of the hpcshim subcommands that read results:
 * files and directories turned into a list of process results, bad files
 * named on stderr and remembered, so the output can say what it left out.
 */
#ifndef HPCSHIM_TOOLS_RESULTS_H
#define HPCSHIM_TOOLS_RESULTS_H

#include <stddef.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "aggregate/docread.h"

/* The schema this tool was written for; other versions of "hpcshim/N"
 * are read for what they have, with one line saying so. */
#define RESULTS_SCHEMA "hpcshim/1"

struct result {
	char *path;
	struct dr_doc *doc; /* a process result or a job document, checked */
	int rank; /* process.rank, or the order among rankless files; a job
		     document: its first rank */
};

struct skipped {
	char *path;
	char *why;
};

struct results {
	struct result *r;
	size_t n;
	struct skipped *bad;
	size_t nbad;
	const char *prog; /* "hpcshim report": the prefix of the messages */
};

/* Reads every argument: a result file or a job document, or a directory
 * standing for its hpcshim-*.json result files (in name order; a job
 * document there is left alone).  A file that cannot be used is
 * reported as "PROG: FILE: why" and listed in bad; the others are kept,
 * sorted by rank.  Returns the number of usable results. */
size_t results__load(struct results *s, const char *prog, int argc, char **argv);
/* The files PREFIX*.json of directory dir as "dir/name", in name order
 * (allocated, as *names); -1 with errno when it cannot be read. */
ssize_t results__list_dir(const char *dir, const char *prefix, char ***names);

/* results__load, and when nothing could be read one more line, "PROG: no
 * result could be read", s freed and -1. */
int results__open(struct results *s, const char *prog, int argc, char **argv);
void results__free(struct results *s);

/* The arguments read as results__load reads them, but one file at a
 * time, for a writer whose memory must not grow with the job (hpcshim
 * convert --to otf2): cb gets a results holding one file (rank as the
 * file has it, -1 when none) and it is freed after.  The bad files are
 * named on stderr and counted in *nbad.  Returns how many files cb took
 * (returned 0 for). */
size_t results__each(const char *prog, int argc, char **argv,
		     int (*cb)(struct results *one, void *arg), void *arg, size_t *nbad);

/* Event names with status "ok" over all results, first seen first. */
size_t results__events(const struct results *s, const char ***names);

/* The skipped files as "skipped: FILE (why)" lines on stream f. */
void results__print_skipped(const struct results *s, void *f);

#endif
