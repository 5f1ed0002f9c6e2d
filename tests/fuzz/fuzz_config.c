/* fuzz_config.c - libFuzzer target over the configuration and event-spec
 * parsers: the input becomes HPCSHIM_EVENTS (and, split at its first
 * newline, HPCSHIM_VERBOSE and HPCSHIM_OUTPUT), is parsed into a config,
 * every event spec is resolved (generic table, raw, libpfm4), and every
 * string that could reach the JSON is made valid UTF-8.  Further lines
 * become HPCSHIM_RANGE, HPCSHIM_RANGE_PERIOD, HPCSHIM_CHECKPOINT,
 * HPCSHIM_TRIGGER and HPCSHIM_PRIVILEGE (parsed with the config).  The whole input
 * is also read as a preset file and its first line as a metric formula
 * (evaluated over fixed inputs).  No counter is
 * opened: this is about parsing garbage, not about the kernel.
 * Built and run by tools/fuzz.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate/aggregate.h"
#include "pmu/pmu.h"
#include "pmu/preset.h"
#include "preload/config.h"
#include "preload/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	hs_log_set_fd(open("/dev/null", O_WRONLY | O_CLOEXEC));
	return 0;
}

/* Environment strings cannot hold NUL: cut there, like execve would. */
static char *field(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
	const uint8_t *stop = nl ? nl : end;
	size_t n = (size_t)(stop - *p);
	char *s = malloc(n + 1);

	memcpy(s, *p, n);
	s[n] = '\0';
	*p = nl ? nl + 1 : end;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	static const char *const range_vars[] = {
		"HPCSHIM_RANGE", "HPCSHIM_RANGE_PERIOD", "HPCSHIM_CHECKPOINT",
		"HPCSHIM_TRIGGER", "HPCSHIM_PRIVILEGE",
	};
	char *events = field(&p, end), *verbose = field(&p, end), *output = field(&p, end);
	static struct hs_config cfg; /* large (range places): not on the stack */

	setenv("HPCSHIM_EVENTS", events, 1);
	setenv("HPCSHIM_VERBOSE", verbose, 1);
	setenv("HPCSHIM_OUTPUT", output, 1);
	for (size_t i = 0; i < sizeof(range_vars) / sizeof(range_vars[0]); i++) {
		char *v = field(&p, end);

		setenv(range_vars[i], v, 1);
		free(v);
	}
	hs_config__from_env(&cfg);
	for (int i = 0; i < cfg.nevents; i++) {
		struct pmu_event ev;
		char *clean;

		pmu_event__parse(&ev, cfg.events[i]);
		clean = agg_utf8__clean(ev.name);
		free(clean);
		(void)pmu_event__privilege(&ev);
	}
	free(agg_utf8__clean(events));
	{
		static const double vals[FORMULA_MAX_VARS] = { 3, 0, -1, 1e300 };
		const char *why[FORMULA_MAX_VARS] = { 0 }, *reason;
		struct preset_table t;
		struct formula f;
		char err[200];
		double out;
		FILE *in = fmemopen((void *)data, size, "r");

		if (formula__parse(&f, events, err, sizeof(err)) == 0)
			(void)formula__eval(&f, vals, why, &out, &reason);
		preset_table__init(&t);
		if (in) {
			preset_table__load_stream(&t, in, "fuzz.preset", 0, NULL, NULL);
			fclose(in);
		}
		(void)preset_table__find(&t, PRESET_OPCODE, "loads", events);
		preset_table__free(&t);
	}
	hs_config__free(&cfg);
	free(events);
	free(verbose);
	free(output);
	return 0;
}
