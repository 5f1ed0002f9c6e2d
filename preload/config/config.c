/* config.c - HPCSHIM_* environment -> struct hs_config (see config.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/filemode.h"
#include "common/memclear.h"
#include "preload/config/config.h"
#include "preload/base/log.h"
#include "preload/config/varparse.h"

/* Software events first: they open everywhere.  The hardware ones are
 * dropped with a reason where no PMU is exposed (VMs, CI). */
static const char *const default_events[] = {
	"task-clock",       "page-faults",  "context-switches", "cpu-migrations",
	"cycles",           "instructions", "branches",         "branch-misses",
	"cache-references", "cache-misses",
};

static void config__add(struct hs_config *cfg, const char *spec, size_t len)
{
	if (cfg->nevents >= PMU_MAX_EVENTS) {
		cfg->events_ignored++;
		return;
	}
	cfg->events[cfg->nevents] = strndup(spec, len);
	cfg->event_group[cfg->nevents] = -1;
	if (cfg->events[cfg->nevents])
		cfg->nevents++;
}

/* Splits the list ({a,b} user groups: speclist.c).  Problems are counted,
 * not logged: the shim reports everything wrong with the list in one line
 * once events are probed. */
static void config__events(struct hs_config *cfg, const char *v)
{
	struct hs_speclist l;

	hs_speclist__parse(&l, v);
	for (int i = 0; i < l.n; i++) {
		cfg->events[i] = l.spec[i];
		cfg->event_group[i] = l.group[i];
	}
	cfg->nevents = l.n;
	cfg->events_empty = l.empty;
	cfg->events_ignored = l.ignored;
	cfg->events_braces = l.braces;
}

static int config__verbose(const char *v)
{
	uint64_t l;

	if (!v || !*v)
		return 0;
	if (!hs_var__uint(v, 0, HS_LOG_DEBUG, &l)) {
		hs_var__bad("HPCSHIM_VERBOSE", v, "is not a level 0-2; using 0");
		return 0;
	}
	return (int)l;
}

/* Only syntax is checked here; whether the directory is writable is
 * reported when the results are written (it may be created meanwhile). */
static void config__output(struct hs_config *cfg, const char *v)
{
	snprintf(cfg->output, sizeof(cfg->output), ".");
	if (!v)
		return;
	if (!*v) {
		hs_log(HS_LOG_ERROR, "HPCSHIM_OUTPUT is empty; writing to the "
				     "current directory");
		return;
	}
	if (strlen(v) >= sizeof(cfg->output) - 300) {
		hs_log(HS_LOG_ERROR, "HPCSHIM_OUTPUT is too long; writing to the "
				     "current directory");
		return;
	}
	snprintf(cfg->output, sizeof(cfg->output), "%s", v);
}

/* HPCSHIM_READ: "auto" (user-space reads where the hardware allows) or
 * "syscall" (always read()), for comparison and for kernels where user
 * access misbehaves. */
static bool config__user_read(const char *v)
{
	static const char *const modes[] = { "auto", "syscall" };

	return hs_var__choice("HPCSHIM_READ", v, modes, 2, 0) == 0;
}

/* HPCSHIM_PRESET_PATH: where data files are searched first, by the
 * features that read them (presets, and MPI's stall trees). */
static char *config__preset_path(const char *v)
{
	return v ? strdup(v) : NULL;
}

/* HPCSHIM_UMASK: the bits result files do not get (common/filemode.h). */
static unsigned config__file_mode(const char *v)
{
	unsigned mask = HS_FILEMODE_MASK;

	if (v && !hs_filemode__parse(v, &mask))
		hs_var__bad("HPCSHIM_UMASK", v,
			    "is not an octal mask (0-0777); using 077 (files 0600)");
	return hs_filemode__mode(mask);
}

/* HPCSHIM_TRACE=N: the last N region calls of each thread, with their
 * times, for `hpcshim trace`.  Unset or 0: none. */
static uint32_t config__trace(const char *v)
{
	uint64_t n;

	if (!v || !*v)
		return 0;
	if (!hs_var__uint(v, 0, 1000000, &n)) {
		hs_var__bad("HPCSHIM_TRACE", v,
			    "is not a count of region calls (0..1000000); no trace");
		return 0;
	}
	return (uint32_t)n;
}

/* HPCSHIM_PROFILE: 1 on, 0 (or unset) off. */
static bool config__profile(const char *v)
{
	static const char *const names[] = { "0", "1" };

	return hs_var__choice("HPCSHIM_PROFILE", v, names, 2, 0) == 1;
}

/* name is one of the configured event specs, as written. */
static bool config__has(const struct hs_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->nevents; i++)
		if (cfg->events[i] && strcmp(cfg->events[i], name) == 0)
			return true;
	return false;
}

void hs_config__from_env(struct hs_config *cfg)
{
	const char *ev = getenv("HPCSHIM_EVENTS");

	hs_mem__clear(cfg, sizeof(*cfg)); /* mostly untouched .bss */
	/* Events appended later (presets) belong to no user group. */
	for (int i = 0; i < PMU_MAX_EVENTS; i++)
		cfg->event_group[i] = -1;
	cfg->verbose = config__verbose(getenv("HPCSHIM_VERBOSE"));
	hs_log_set_level(cfg->verbose);
	config__output(cfg, getenv("HPCSHIM_OUTPUT"));
	cfg->file_mode = config__file_mode(getenv("HPCSHIM_UMASK"));
	cfg->user_read = config__user_read(getenv("HPCSHIM_READ"));
	hs_limits__from_env(&cfg->limits);
	cfg->flush_ns = hs_flush_config__from_env(getenv("HPCSHIM_FLUSH"));
	cfg->trace = config__trace(getenv("HPCSHIM_TRACE"));
	hs_sample_config__from_env(&cfg->sample, getenv("HPCSHIM_REGION_SAMPLE"));
	cfg->privilege = PMU_PLM_ALL;
	cfg->profile = config__profile(getenv("HPCSHIM_PROFILE"));
	if (ev)
		config__events(cfg, ev);
	if (cfg->nevents == 0 && cfg->profile && !(ev && *ev)) {
		/* The profile needs the CPU time only: one software clock,
		 * kept when presets add theirs (not a default set they
		 * replace). */
		config__add(cfg, "task-clock", strlen("task-clock"));
	} else if (cfg->profile && !config__has(cfg, "task-clock")) {
		config__add(cfg, "task-clock", strlen("task-clock"));
	}
	if (cfg->nevents == 0) {
		if (ev)
			hs_var__bad("HPCSHIM_EVENTS", ev,
				    "names no event; using the default set");
		cfg->events_default = true;
		cfg->events_empty = cfg->events_ignored = cfg->events_braces = 0;
		for (size_t i = 0;
		     i < sizeof(default_events) / sizeof(default_events[0]); i++)
			config__add(cfg, default_events[i], strlen(default_events[i]));
	}
	cfg->nuser = cfg->nevents;
	cfg->preset_path = config__preset_path(getenv("HPCSHIM_PRESET_PATH"));
}

void hs_config__free(struct hs_config *cfg)
{
	for (int i = 0; i < cfg->nevents; i++)
		free(cfg->events[i]);
	cfg->nevents = 0;
	free(cfg->preset_path);
	cfg->preset_path = NULL;
	hs_speclist__free(&cfg->pinned);
	for (int i = 0; i < cfg->sample.n; i++)
		free(cfg->sample.name[i]);
	cfg->sample.n = 0;
}
