/* cmd.h - the subcommands of hpcshim (tools/hpcshim.c), one file each.
 * Every entry takes the subcommand's own argv (argv[0] is its name) and
 * returns the exit status. */
#ifndef HPCSHIM_TOOLS_CMD_H
#define HPCSHIM_TOOLS_CMD_H

int run_main(int argc, char **argv);
int report_main(int argc, char **argv);
int diff_main(int argc, char **argv);
int html_main(int argc, char **argv);
int trace_main(int argc, char **argv);
int convert_main(int argc, char **argv);
/* The programs hpcshim-merge, hpcshim-list and hpcshim-drilldown became
 * these; tools/alias_*.c are those programs' mains. */
int merge_main(int argc, char **argv);
int list_main(int argc, char **argv);
int drilldown_main(int argc, char **argv);

/* hpcshim report's summary view of one process result
 * (tools/report_summary.c), which hpcshim-report, the former program,
 * prints for each file. */
#include <stdbool.h>

struct dr_doc;
void report__summary(const struct dr_doc *doc);
/* report_openmp.c: --view openmp over every result (json: one array;
 * csv: the separator of one line per construct and thread, else NULL). */
struct results;
void report__openmp(const struct results *s, bool json, const char *csv);
/* report_profile.c: --view profile (where the time went; json or text):
 * 0, or 2 when nothing could be profiled. */
int report__profile(const struct results *s, bool json);
/* The first lines of the default text report when the results ran under
 * the profile (HPCSHIM_PROFILE): the job's split and the findings. */
void report__profile_head(const struct results *s);

#endif
