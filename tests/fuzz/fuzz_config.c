/* fuzz_config.c - libFuzzer target over the configuration and event-spec
 * parsers: the input's lines become HPCSHIM_EVENTS, HPCSHIM_VERBOSE,
 * HPCSHIM_OUTPUT, HPCSHIM_RANGE, HPCSHIM_RANGE_PERIOD, HPCSHIM_CHECKPOINT,
 * HPCSHIM_TRIGGER, HPCSHIM_PRIVILEGE, HPCSHIM_MUX, HPCSHIM_MUX_SLICE,
 * HPCSHIM_INTERVAL, HPCSHIM_MUX_PINNED and HPCSHIM_REGION_SAMPLE (missing
 * lines: empty), are
 * parsed into a config (the core's variables, then the range and mux
 * features' own, as their config hooks do), every event spec (pinned ones too) is resolved
 * (generic table, raw, libpfm4), and every string that could reach the
 * JSON is made valid UTF-8.  The whole input is also read as a preset
 * file and its first line as a metric formula (evaluated over fixed
 * inputs).  No counter is opened: this is about parsing garbage, not
 * about the kernel.
 * Built and run by tools/fuzz.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate/aggregate.h"
#include "aggregate/utf8.h"
#include "pmu/pmu.h"
#include "presets/preset.h"
#include "preload/config/config.h"
#include "preload/base/log.h"
#include "preload/mux/config.h"
#include "preload/range/config.h"

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
	/* One variable per line of the input, in this order. */
	static const char *const vars[] = {
		"HPCSHIM_EVENTS", "HPCSHIM_VERBOSE", "HPCSHIM_OUTPUT",
		"HPCSHIM_RANGE", "HPCSHIM_RANGE_PERIOD", "HPCSHIM_CHECKPOINT",
		"HPCSHIM_TRIGGER", "HPCSHIM_PRIVILEGE",
		"HPCSHIM_MUX", "HPCSHIM_MUX_SLICE", "HPCSHIM_INTERVAL",
		"HPCSHIM_MUX_PINNED", "HPCSHIM_REGION_SAMPLE",
	};
	char *val[sizeof(vars) / sizeof(vars[0])];
	char *events;
	static struct hs_config cfg;
	static struct hs_range_config rc; /* large (places): not on the stack */
	struct hs_mux_config mc;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		val[i] = field(&p, end);
		setenv(vars[i], val[i], 1);
	}
	events = val[0];
	hs_config__from_env(&cfg);
	hs_range_config__from_env(&rc);
	hs_mux_config__from_env(&mc, &cfg.pinned);
	for (int i = 0; i < cfg.sample.n; i++)
		(void)hs_sample_config__every(&cfg.sample, cfg.sample.name[i]);
	for (int i = 0; i < cfg.pinned.n; i++) {
		struct pmu_event ev;

		pmu_event__parse(&ev, cfg.pinned.spec[i]);
	}
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

		if (hs_formula__parse(&f, events, err, sizeof(err)) == 0)
			(void)hs_formula__eval(&f, vals, why, &out, &reason);
		pmu_preset_table__init(&t);
		if (in) {
			pmu_preset_table__load_stream(&t, in, "fuzz.preset", 0, NULL, NULL);
			fclose(in);
		}
		(void)pmu_preset_table__find(&t, PRESET_OPCODE, "loads", events);
		pmu_preset_table__free(&t);
	}
	hs_config__free(&cfg);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		free(val[i]);
	return 0;
}
