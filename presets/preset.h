/* preset.h - named event sets and opcode classes from data files.
 *
 * A preset file (format: docs/presets.md) holds blocks:
 *
 *   preset NAME MODEL...      or    opcode CLASS MODEL...
 *     description TEXT
 *     event ALIAS = SPEC
 *     metric NAME = FORMULA
 *     unavailable REASON
 *   end
 *
 * MODEL is a libpfm4 PMU name (skl, amd64_fam19h_zen4, arm_n1, ...) or '*'.
 * The table holds every valid block of every file on the search path; a
 * malformed block is reported through the caller's callback as
 * "FILE:LINE: what" and left out.  presets/ never logs: the caller decides.
 */
#ifndef HPCSHIM_PRESETS_PRESET_H
#define HPCSHIM_PRESETS_PRESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/formula.h"

#define PRESET_MAX_EVENTS 16
#define PRESET_MAX_METRICS 16
#define PRESET_NAME_MAX 48
#define PRESET_TEXT_MAX 256
#define PRESET_SPEC_MAX 128 /* = PMU_NAME_MAX */

enum preset_kind { PRESET_NAMED, PRESET_OPCODE };

struct preset_event {
	char alias[FORMULA_NAME_MAX];
	char spec[PRESET_SPEC_MAX];
};

struct preset_metric {
	char name[PRESET_NAME_MAX];
	char text[PRESET_TEXT_MAX]; /* the formula as written */
};

struct preset {
	enum preset_kind kind;
	char name[PRESET_NAME_MAX];
	char models[PRESET_TEXT_MAX]; /* as written, blank-separated    */
	char description[PRESET_TEXT_MAX];
	char unavailable[PRESET_TEXT_MAX]; /* non-empty: cannot be counted   */
	int nevents;
	struct preset_event ev[PRESET_MAX_EVENTS];
	int nmetrics;
	struct preset_metric m[PRESET_MAX_METRICS];
	const char *file; /* owned by the table             */
	int line;         /* of the block's header          */
	int dir;          /* index of its search-path entry */
};

/* A block left out as malformed: its name and the diagnostic. */
struct preset_bad {
	enum preset_kind kind;
	char name[PRESET_NAME_MAX];
	char msg[1000];
};

struct preset_table {
	struct preset *p;
	int n, cap;
	struct preset_bad *bad;
	int nbad;
	char **files; /* file names the blocks point to */
	int nfiles;
	int ndirs;
};

/* Receives one diagnostic line ("FILE:LINE: what"), without prefix. */
typedef void (*preset_err_fn)(void *ctx, const char *msg);

void pmu_preset_table__init(struct preset_table *t);
void pmu_preset_table__free(struct preset_table *t);

/* Loads every "*.preset" file (in name order) of every directory of a
 * colon-separated path, in path order.  Empty entries and missing
 * directories are skipped.  Returns the number of files read. */
int pmu_preset_table__load_path(struct preset_table *t, const char *path,
				preset_err_fn err, void *ctx);
/* One stream; name is used in diagnostics, dir orders it among the
 * search-path entries.  Returns the number of valid blocks read. */
int pmu_preset_table__load_stream(struct preset_table *t, FILE *in, const char *name,
				  int dir, preset_err_fn err, void *ctx);

/* The block for name on this model (libpfm4 PMU name, "" if unknown):
 * directories in search order; in the first directory that has a block
 * of this name for the model, one listing the model wins over a '*'
 * block, and in one directory the first one read wins.  NULL if none. */
const struct preset *pmu_preset_table__find(const struct preset_table *t,
					    enum preset_kind kind, const char *name,
					    const char *model);
/* The diagnostic of a malformed block of this name, or NULL. */
const char *pmu_preset_table__bad(const struct preset_table *t,
				  enum preset_kind kind, const char *name);
/* Whether any block (any model) has this name. */
bool pmu_preset_table__known(const struct preset_table *t, enum preset_kind kind,
			     const char *name);
/* Distinct names of one kind in first-seen order: calls fn per name. */
void pmu_preset_table__names(const struct preset_table *t, enum preset_kind kind,
			     void (*fn)(void *ctx, const char *name), void *ctx);
/* Whether a block's model list names model (case-insensitive) or '*'. */
bool pmu_preset__matches(const struct preset *p, const char *model, bool *exact);
const char *pmu_preset_kind__name(enum preset_kind k);

/* The search path (preset_path.c): the user's directories
 * (HPCSHIM_PRESET_PATH, may be NULL) first, then the data found next to
 * the running code (build tree or install prefix), then the configured
 * $(pkgdatadir)/presets. */
void pmu_preset__search_path(const char *user, char *buf, size_t len);
/* Reads every file ending in suffix of the colon-separated directories
 * of path (a directory's files in byte order of their names) with load,
 * the directories numbered from *ndirs on (updated); err hears of a file
 * that cannot be read.  Returns the files read.  (preset_path.c) */
typedef void (*pmu_preset_load_fn)(void *tbl, FILE *in, const char *file, int dir,
				   preset_err_fn err, void *ctx);
int pmu_preset__load_files(const char *path, const char *suffix, int *ndirs,
			   pmu_preset_load_fn load, void *tbl, preset_err_fn err,
			   void *ctx);

/* Alias of an event spec inside a block, -1 if absent. */
int pmu_preset__event(const struct preset *p, const char *alias);

/* preset_probe.c: probes a block's events on this host (standalone
 * opens, as the shim's own probe).  Returns the number that open; reason
 * gets the first dropped event's reason, or the block's 'unavailable'
 * text. */
int pmu_preset__probe(const struct preset *p, char *reason, size_t len);

#endif
