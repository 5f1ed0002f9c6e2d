/* quiet.h - processes that leave no file: dormant ones and images with
 * nothing to say.
 *
 *   dormant.c    the decision, before anything starts, that this process
 *                is not one to count (HPCSHIM_PROGRAMS, launchers)
 *   launchers.c  the default: launchers, their helpers, the shells and
 *                wrappers between a launcher and a rank (data only)
 *   quiet.c      whether an image ending by exec did anything measurable
 */
#ifndef HPCSHIM_PRELOAD_QUIET_H
#define HPCSHIM_PRELOAD_QUIET_H

#include <stdbool.h>

/* dormant.c: true when this process stays dormant: nothing may start
 * (no configuration, counters, handlers, file); every wrapper then passes
 * straight through because the state stays HS_OFF.  Decided once: later
 * calls return the first answer.  argv may be NULL (a caller before the
 * constructor): the name then comes from program_invocation_name. */
bool hs_dormant__decide(int argc, char **argv);
/* The decision taken (false before it is). */
bool hs_dormant__is(void);

/* launchers.c: NULL-terminated lists of fnmatch globs (names) and of
 * variable names. */
extern const char *const hs_launcher_programs[]; /* always dormant by default */
extern const char *const hs_launcher_helpers[];  /* dormant under a launcher  */
extern const char *const hs_launcher_vars[];     /* a launcher started us     */

/* quiet.c: where this image's own work starts (the constructor for an
 * exec'd image, the end of the fork handler for a fork child), and
 * whether, since then, it did nothing measurable: one thread, no region
 * entered or ended, and less than the floors below of CPU time and page
 * faults.  Call nothing from the thread that is not hs_self's owner. */
#define HS_QUIET_CPU_NS 5000000 /* 5 ms of CPU time */
#define HS_QUIET_FAULTS 512     /* minor + major: 2 MB touched */
void hs_quiet__mark(void);
bool hs_quiet__nothing(void);

#endif
