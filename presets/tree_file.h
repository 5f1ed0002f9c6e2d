/* tree_file.h - stall-tree data files (*.tree on the preset search path).
 *
 * Format: docs/drilldown.md.  A malformed statement is reported through the
 * callback as "FILE:LINE: what"; a bad node is left out with its subtree,
 * the rest of the tree stays.  presets/ never logs: the caller decides.
 */
#ifndef HPCSHIM_PRESETS_TREE_FILE_H
#define HPCSHIM_PRESETS_TREE_FILE_H

#include <stdio.h>

#include "common/tree.h"
#include "presets/preset.h"

struct tree_table {
	struct tree **t;
	int n;
	char **files;
	int nfiles;
	int ndirs;
};

void pmu_tree_table__init(struct tree_table *tt);
void pmu_tree_table__free(struct tree_table *tt);
/* Every "*.tree" file (name order) of every directory of a colon list.
 * Returns the number of files read. */
int pmu_tree_table__load_path(struct tree_table *tt, const char *path,
			      preset_err_fn err, void *ctx);
/* One stream; returns the number of trees read. */
int pmu_tree_table__load_stream(struct tree_table *tt, FILE *in, const char *name,
				int dir, preset_err_fn err, void *ctx);
/* The tree for a model (libpfm4 PMU name), the preset rules: first
 * directory that has one, a tree naming the model over a '*' one, first
 * read among equals.  name NULL: any tree name. */
const struct tree *pmu_tree_table__find(const struct tree_table *tt,
					const char *name, const char *model);

#endif
