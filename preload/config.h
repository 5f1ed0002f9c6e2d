/* config.h - all HPCSHIM_* environment variables, parsed once.
 *
 *   HPCSHIM_EVENTS   comma list of event specs (default: see config.c)
 *   HPCSHIM_OUTPUT   directory for the result file (default ".")
 *   HPCSHIM_VERBOSE  0 errors only (default), 1 info, 2 debug
 *   HPCSHIM_READ     auto (user-space counter reads if able) | syscall
 *   HPCSHIM_PRIVILEGE, HPCSHIM_RANGE, HPCSHIM_RANGE_PERIOD,
 *   HPCSHIM_CHECKPOINT, HPCSHIM_TRIGGER   see preload/range.h
 *   HPCSHIM_PRESET, HPCSHIM_OPCODE  comma lists of preset / opcode-class
 *                    names (resolved by preload/presets.c)
 *   HPCSHIM_PRESET_PATH  colon list of directories searched before the
 *                    installed presets
 *   HPCSHIM_LIST     1: print what is usable on this host at start
 *
 * Documented for users in docs/environment.md.
 */
#ifndef HPCSHIM_CONFIG_H
#define HPCSHIM_CONFIG_H

#include <limits.h>
#include <stdbool.h>

#include "pmu/pmu.h"
#include "preload/range.h"

struct hs_config {
	char *events[PMU_MAX_EVENTS]; /* specs, in order                   */
	int nevents;
	bool events_default;          /* HPCSHIM_EVENTS unset: default set   */
	int events_empty;             /* empty items in the list (ignored)   */
	int events_ignored;           /* items beyond PMU_MAX_EVENTS         */
	char output[PATH_MAX];
	int verbose;
	bool user_read;               /* HPCSHIM_READ=auto                   */
	struct hs_range_config range; /* HPCSHIM_PRIVILEGE, _RANGE*, _CHECKPOINT, _TRIGGER */
	/* Presets (preload/presets.c appends their events after nuser). */
	char *presets, *opcodes, *preset_path; /* as given, or NULL        */
	bool list;                    /* HPCSHIM_LIST=1                     */
	int nuser;                    /* events from HPCSHIM_EVENTS/default */
};

/* Fills cfg from the environment.  Malformed values are reported with one
 * "hpcshim:" line each and replaced by defaults; never fails. */
void hs_config__from_env(struct hs_config *cfg);
void hs_config__free(struct hs_config *cfg);

#endif
