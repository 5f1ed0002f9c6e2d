/* cmd_merge.c - hpcshim merge (and hpcshim-merge, its alias): the result files of a job merged into one job document.
 *
 * Usage: hpcshim-merge [-o OUT.json] [-j JOB] FILE.json|DIR ...
 *
 * Each input is one process's result file (a directory stands for the
 * *.json files in it that are process results).  Every process is one
 * rank: its `process.rank`, or, for files without a rank, the next number
 * after the highest rank seen (a build or a script merges as well as an
 * MPI job).  For every region and event, and for the process totals, the
 * job document gives the rank values' sum, mean, min, max, median,
 * standard deviation, the rank/host/pid of the min and the max, and the
 * imbalance max/mean - 1 (aggregate/job.c); the same over threads with the
 * tid of the min and the max; multiplexed values carry their standard
 * errors into the sum and the mean.  Ranks that are missing (a gap below
 * the highest rank, or below the size the launcher gave), incomplete (a
 * process killed or still running at its last flush) or given twice are
 * listed; ranks run with HPCSHIM_PRESET=topdown give the job's sums a
 * drill-down (the tree read from the preset search path, as `hpcshim
 * drilldown` reads it).  The document is written atomically (temp file, rename) to OUT,
 * or to stdout.  Layout: docs/schema.md, "Job document".
 *
 * Works for any MPI (it only reads files), for programs that never reach
 * MPI_Finalize, and for files from several hosts.  Unreadable inputs are
 * reported as "hpcshim-merge: FILE: reason" and left out; the exit status
 * is 1 then, 2 when nothing could be merged.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "aggregate/docread.h"
#include "aggregate/jobdoc.h"
#include "aggregate/result.h"
#include "common/filemode.h"
#include "tools/cmd.h"
#include "tools/results.h"
#include "presets/preset.h"
#include "presets/tree_file.h"

#include "tools/escape.h"
#include "tools/xalloc.h"

#define PROG "hpcshim-merge"

struct job {
	struct agg_jobdoc d;
	int failed; /* inputs that could not be read */
	bool trees_read;
	struct tree_table trees;
};

static void job__tree_err(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, PROG ": %s\n", msg);
}

/* The job drill-down's tree (aggregate/ reads no files): the stall trees
 * of the preset search path, read the first time a job needs one. */
static const struct tree *job__tree(void *ctx, const char *name, const char *model)
{
	struct job *j = ctx;
	char path[8192];

	if (!j->trees_read) {
		pmu_preset__search_path(getenv("HPCSHIM_PRESET_PATH"), path,
					sizeof(path));
		pmu_tree_table__init(&j->trees);
		pmu_tree_table__load_path(&j->trees, path, job__tree_err, NULL);
		j->trees_read = true;
	}
	return pmu_tree_table__find(&j->trees, name, model);
}

static void job__skip(struct job *j, const char *path, const char *why)
{
	fprintf(stderr, PROG ": %s: %s\n", esc__t(path), esc__t(why));
	j->failed++;
}

/* A file that is not a process result is named unless found in a
 * directory (quiet_if_foreign); a damaged one always is. */
static void job__add_file(struct job *j, const char *path, bool quiet_if_foreign)
{
	char why[512];
	struct dr_doc *doc = dr_doc__load(path, why, sizeof(why));
	int bad;

	if (!doc) {
		job__skip(j, path,
			  json_util_get_last_err() ? "not valid JSON" :
						     "cannot be read");
		return;
	}
	bad = agg_jobdoc__take(&j->d, doc, path, why, sizeof(why));
	if (bad == DR_LAYOUT)
		job__skip(j, path, why);
	else if (bad && !quiet_if_foreign)
		job__skip(j, path, "not an hpcshim process result");
}

/* The *.json files of a directory, in name order, so the result does not
 * depend on the order of readdir(); foreign JSON files are left alone. */
static void job__add_dir(struct job *j, const char *dir)
{
	char **list;
	ssize_t n = results__list_dir(dir, "", &list);

	if (n < 0) {
		job__skip(j, dir, strerror(errno));
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		job__add_file(j, list[i], true);
		free(list[i]);
	}
	free(list);
}

static void job__add(struct job *j, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		job__add_dir(j, path);
	else
		job__add_file(j, path, false);
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [-o OUT.json] [-j JOB] FILE.json|DIR ...\n");
}

/* The job document's mode: the shim's rule (common/filemode.h), 0600
 * unless HPCSHIM_UMASK says otherwise. */
static void merge__mode(void)
{
	const char *v = getenv("HPCSHIM_UMASK");
	unsigned mask = HS_FILEMODE_MASK;

	if (v && !hs_filemode__parse(v, &mask))
		fprintf(stderr,
			PROG ": HPCSHIM_UMASK='%.40s' is not an octal mask (0-0777); "
			     "using 077\n",
			v);
	agg_result__set_mode(hs_filemode__mode(mask));
}

/* `hpcshim merge`; the program hpcshim-merge is its alias (alias_merge.c). */
int merge_main(int argc, char **argv)
{
	struct job j = { .d = { .prog = PROG, .tree = job__tree, .stream = true } };
	const char *out = NULL, *want = NULL;
	char err[4400], *jobid, *text;
	size_t before, len;
	int opt, rc;

	while ((opt = getopt(argc, argv, "o:j:h")) != -1) {
		if (opt == 'o') {
			out = optarg;
		} else if (opt == 'j') {
			want = optarg;
		} else {
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind == argc) {
		usage();
		return 2;
	}
	for (int i = optind; i < argc; i++)
		job__add(&j, argv[i]);
	if (j.d.n == 0) {
		fprintf(stderr, PROG ": no hpcshim result files to merge\n");
		return 2;
	}
	before = j.d.n;
	if (agg_jobdoc__select(&j.d, want, &jobid) < 0) {
		agg_jobdoc__free(&j.d);
		return 2;
	}
	if (!want && j.d.n < before)
		fprintf(stderr,
			PROG
			": job %s: %zu file%s of no job left out (ignored_files)\n",
			jobid, before - j.d.n, before - j.d.n == 1 ? "" : "s");
	free(jobid);
	j.d.tree_ctx = &j;
	text = agg_jobdoc__build(&j.d, PROG, &len);
	if (out) {
		merge__mode();
		rc = agg_jobdoc__write(out, text, true, err, sizeof(err));
		if (rc != 0)
			fprintf(stderr, PROG ": %s\n", err);
	} else {
		rc = printf("%s\n", text) < 0 || fflush(stdout) != 0 ? -1 : 0;
	}
	free(text);
	agg_jobdoc__free(&j.d);
	if (j.trees_read)
		pmu_tree_table__free(&j.trees);
	return rc != 0 ? 2 : j.failed ? 1 : 0;
}
