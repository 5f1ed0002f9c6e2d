/* html.h - what the parts of hpcshim html share: the page
 * (tools/cmd_html.c) and its drill-down section (tools/html_drill.c). */
#ifndef HPCSHIM_TOOLS_HTML_H
#define HPCSHIM_TOOLS_HTML_H

#include <stdbool.h>
#include <stdio.h>

struct results;
struct dr_doc;

/* The drill-down section on f: the results' own drill-downs (the
 * process's or job's and each region's inclusive one), then the scopes of
 * offline (`hpcshim drilldown --json`, or NULL); nothing when neither. */
void html__drilldown(FILE *f, const struct results *s, const struct dr_doc *offline);
/* The stall trees read for it. */
void html__drilldown_free(void);

/* Where the time went (tools/html_profile.c): the job's parts as a stacked
 * bar, one per rank, the findings, the MPI and I/O tables; false (and
 * nothing written) when the results carry no profile data. */
bool html__profile(FILE *f, const struct results *s);
/* The OpenMP constructs: per thread work and wait bars, the imbalance, the
 * slowest thread; false (nothing written) when there is none. */
bool html__openmp(FILE *f, const struct results *s);

#endif
