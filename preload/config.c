/* config.c - HPCSHIM_* environment -> struct hs_config (see config.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/config.h"
#include "preload/log.h"

/* Software events first: they open everywhere.  The hardware ones are
 * dropped with a reason where no PMU is exposed (VMs, CI). */
static const char *const default_events[] = {
	"task-clock", "page-faults", "context-switches", "cpu-migrations",
	"cycles", "instructions", "branches", "branch-misses",
	"cache-references", "cache-misses",
};

static void config__add(struct hs_config *cfg, const char *spec, size_t len)
{
	if (cfg->nevents >= PMU_MAX_EVENTS) {
		if (cfg->nevents == PMU_MAX_EVENTS)
			hs_log(HS_LOG_ERROR, "HPCSHIM_EVENTS: more than %d events; "
			       "the rest are ignored", PMU_MAX_EVENTS);
		cfg->nevents = PMU_MAX_EVENTS + 1; /* report once */
		return;
	}
	cfg->events[cfg->nevents] = strndup(spec, len);
	if (cfg->events[cfg->nevents])
		cfg->nevents++;
}

/* Splits the list; returns whether empty items were seen. */
static bool config__events(struct hs_config *cfg, const char *v)
{
	const char *p = v;
	bool empty_seen = false;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		/* Trim blanks around an item: "a, b" is a common spelling. */
		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 0)
			empty_seen = true;
		else
			config__add(cfg, p, len);
		if (!end)
			break;
		p = end + 1;
		if (*p == '\0')
			empty_seen = true;
	}
	if (cfg->nevents > PMU_MAX_EVENTS)
		cfg->nevents = PMU_MAX_EVENTS;
	return empty_seen;
}

static int config__verbose(const char *v)
{
	char *end;
	long l;

	if (!v || !*v)
		return 0;
	errno = 0;
	l = strtol(v, &end, 10);
	if (errno || *end || l < 0 || l > HS_LOG_DEBUG) {
		hs_log(HS_LOG_ERROR, "HPCSHIM_VERBOSE='%s' is not a level 0-2; "
		       "using 0", v);
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

void hs_config__from_env(struct hs_config *cfg)
{
	const char *ev = getenv("HPCSHIM_EVENTS");
	bool empty = false;

	memset(cfg, 0, sizeof(*cfg));
	cfg->verbose = config__verbose(getenv("HPCSHIM_VERBOSE"));
	hs_log_set_level(cfg->verbose);
	config__output(cfg, getenv("HPCSHIM_OUTPUT"));
	if (ev)
		empty = config__events(cfg, ev);
	if (empty && cfg->nevents > 0)
		hs_log(HS_LOG_ERROR, "HPCSHIM_EVENTS='%s' has empty items; "
		       "they are ignored", ev);
	if (cfg->nevents == 0) {
		if (ev)
			hs_log(HS_LOG_ERROR, "HPCSHIM_EVENTS='%s' names no event; "
			       "using the default set", ev);
		cfg->events_default = true;
		for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
			config__add(cfg, default_events[i], strlen(default_events[i]));
	}
}

void hs_config__free(struct hs_config *cfg)
{
	for (int i = 0; i < cfg->nevents; i++)
		free(cfg->events[i]);
	cfg->nevents = 0;
}
