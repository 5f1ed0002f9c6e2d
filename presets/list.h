/* list.h - what this host can count: the listing of HPCSHIM_LIST=1 and of
 * hpcshim-list.  Sections are a table in list.c, so a new kind of preset
 * (the range forms of HPCSHIM_RANGE) adds one entry there. */
#ifndef HPCSHIM_PRESETS_LIST_H
#define HPCSHIM_PRESETS_LIST_H

#include <stddef.h>

#include "presets/preset.h"

/* Receives one line of the listing, without prefix or newline. */
typedef void (*pmu_list_emit)(void *ctx, const char *line);

struct pmu_list_env {
	const char *model;      /* libpfm4 CPU model, "" if none        */
	const char *model_note; /* why there is none, or ""             */
	const char *path;       /* the preset search path, as searched  */
	const struct preset_table *table;
};

/* The whole listing: model, search path, then every section. */
void pmu_list__run(const struct pmu_list_env *env, pmu_list_emit emit, void *ctx);

#endif
