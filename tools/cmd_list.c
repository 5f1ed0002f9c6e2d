/* cmd_list.c - hpcshim list (and hpcshim-list, its alias): which presets and opcode classes this host can count.
 *
 * Usage: hpcshim-list
 *
 * Reads the preset files the shim would read (HPCSHIM_PRESET_PATH, then
 * the installed directory), chooses each set's definition for the CPU
 * model libpfm4 detects (LIBPFM_FORCE_PMU forces one), opens its events
 * once and prints one line per set on stdout: usable, partly usable or not
 * usable with the reason.  The same listing as HPCSHIM_LIST=1 under the
 * shim.  Problems in preset files go to stderr as
 * "hpcshim-list: FILE:LINE: what"; the exit status is then 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cmd.h"
#include "presets/list.h"
#include "pmu/pfm.h"
#include "presets/preset.h"

static int file_errors;

static void on_error(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "hpcshim-list: %s\n", msg);
	file_errors++;
}

static void on_line(void *ctx, const char *line)
{
	(void)ctx;
	printf("%s\n", line);
}

/* `hpcshim list`; the program hpcshim-list is its alias for one release. */
int list_main(int argc, char **argv)
{
	char model[64], note[256], path[8192];
	struct preset_table t;
	struct pmu_list_env env = {
		.model = model, .model_note = note, .path = path, .table = &t
	};

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		puts("usage: hpcshim list\n\nThe presets and opcode classes this host can count, "
		     "one line each.\nHPCSHIM_PRESET_PATH adds preset files, LIBPFM_FORCE_PMU "
		     "forces a CPU model.\nhpcshim-list is an alias of 'hpcshim list', kept "
		     "for one release.");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: hpcshim-list (no arguments; see "
				"HPCSHIM_PRESET_PATH and LIBPFM_FORCE_PMU)\n");
		return 2;
	}
	note[0] = '\0';
	if (pmu_pfm__host_model(model, sizeof(model), note, sizeof(note)) < 0)
		model[0] = '\0';
	pmu_preset__search_path(getenv("HPCSHIM_PRESET_PATH"), path, sizeof(path));
	pmu_preset_table__init(&t);
	pmu_preset_table__load_path(&t, path, on_error, NULL);
	pmu_list__run(&env, on_line, NULL);
	pmu_preset_table__free(&t);
	return file_errors ? 1 : 0;
}
