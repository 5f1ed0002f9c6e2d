/* list.h - what this host can count: the listing of HPCSHIM_LIST=1 and of
 * hpcshim-list.  Sections are a table in list.c, so a new kind of preset
 * (the range forms of HPCSHIM_RANGE) adds one entry there. */
#ifndef HPCSHIM_PMU_LIST_H
#define HPCSHIM_PMU_LIST_H

#include <stddef.h>

#include "pmu/preset.h"

/* Receives one line of the listing, without prefix or newline. */
typedef void (*pmu_list_emit)(void *ctx, const char *line);

struct pmu_list_env {
	const char *model;      /* libpfm4 CPU model, "" if none        */
	const char *model_note; /* why there is none, or ""             */
	const char *path;       /* the preset search path, as searched  */
	const struct preset_table *table;
};

/* Probes a block's events on this host (standalone opens, as the shim's
 * own probe).  Returns the number that open; reason gets the first
 * dropped event's reason, or the block's 'unavailable' text. */
int pmu_preset__probe(const struct preset *p, char *reason, size_t len);

/* The whole listing: model, search path, then every section. */
void pmu_list__run(const struct pmu_list_env *env, pmu_list_emit emit, void *ctx);

#endif
