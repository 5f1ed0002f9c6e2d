/* event.c - event spec -> perf_event_attr.
 *
 * Lookup order: perf's generic/software names (table), raw rNNNN, then
 * libpfm4 (native names, perf:: names).  Table and raw names accept :u / :k
 * (and :uk) privilege modifiers; libpfm4 parses its own modifiers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/event_table.h"
#include "pmu/pmu.h"

#define NTABLE (sizeof(pmu_named_events) / sizeof(pmu_named_events[0]))

const char *pmu_source__name(enum pmu_source s)
{
	switch (s) {
	case PMU_SRC_UNKNOWN:
		return "unknown";
	case PMU_SRC_GENERIC:
		return "generic";
	case PMU_SRC_SOFTWARE:
		return "software";
	case PMU_SRC_RAW:
		return "raw";
	case PMU_SRC_PFM:
		return "libpfm4";
	}
	return "?";
}

bool pmu_event__is_hardware(const struct pmu_event *ev)
{
	/* Everything that is not a kernel software event needs a real PMU. */
	return ev->attr.type != PERF_TYPE_SOFTWARE;
}

const char *pmu_event__privilege(const struct pmu_event *ev)
{
	if (ev->attr.exclude_kernel)
		return ev->attr.exclude_user ? "none" : "user";
	return ev->attr.exclude_user ? "kernel" : "user+kernel";
}

static void event__drop(struct pmu_event *ev, int err, const char *reason)
{
	ev->status = PMU_EV_DROPPED;
	ev->err = err;
	snprintf(ev->reason, sizeof(ev->reason), "%s", reason);
}

/* Splits "name:mods" where mods is a non-empty subset of "ukh".  Returns
 * false when the suffix is not a modifier list (the name may be libpfm4's). */
static bool split_modifiers(const char *spec, char *base, size_t baselen,
			    struct perf_event_attr *attr, bool *explicit)
{
	const char *colon = strrchr(spec, ':');
	bool u = false, k = false, h = false;

	if (!colon) {
		snprintf(base, baselen, "%s", spec);
		return true;
	}
	if (colon[1] == '\0')
		return false;
	for (const char *m = colon + 1; *m; m++) {
		if (*m == 'u')
			u = true;
		else if (*m == 'k')
			k = true;
		else if (*m == 'h')
			h = true;
		else
			return false;
	}
	if ((size_t)(colon - spec) >= baselen)
		return false;
	memcpy(base, spec, (size_t)(colon - spec));
	base[colon - spec] = '\0';
	attr->exclude_user = !u;
	attr->exclude_kernel = !k;
	attr->exclude_hv = !h;
	*explicit = true;
	return true;
}

static const struct pmu_named_event *table_lookup(const char *name)
{
	for (size_t i = 0; i < NTABLE; i++)
		if (strcmp(pmu_named_events[i].name, name) == 0)
			return &pmu_named_events[i];
	return NULL;
}

static bool parse_raw(const char *name, uint64_t *config)
{
	char *end;

	if (name[0] != 'r' || !isxdigit((unsigned char)name[1]))
		return false;
	errno = 0;
	*config = strtoull(name + 1, &end, 16);
	return errno == 0 && *end == '\0';
}

static int parse_pfm(struct pmu_event *ev, const char *spec)
{
	struct pmu_encoding enc;
	char reason[96];

	if (pmu_pfm__encode(spec, &enc, ev->encoding, sizeof(ev->encoding), reason,
			    sizeof(reason)) < 0) {
		ev->status = PMU_EV_DROPPED;
		ev->err = ENOENT;
		snprintf(ev->reason, sizeof(ev->reason),
			 "unknown event: not a "
			 "perf generic or software name, not raw rNNNN, and "
			 "libpfm4 says: %s",
			 reason);
		return -1;
	}
	ev->source = PMU_SRC_PFM;
	ev->attr.type = enc.type;
	ev->attr.config = enc.config;
	ev->attr.config1 = enc.config1;
	ev->attr.config2 = enc.config2;
	ev->attr.exclude_user = enc.exclude_user;
	ev->attr.exclude_kernel = enc.exclude_kernel;
	ev->attr.exclude_hv = enc.exclude_hv;
	/* The default encoding counts both levels, so any excluded level
	 * came from a modifier (:u, :K, :k=0, ...) and must stand. */
	ev->plm_explicit = enc.exclude_user || enc.exclude_kernel;
	return 0;
}

/* An encoding that excludes user and kernel would count nothing. */
static int event__check_levels(struct pmu_event *ev)
{
	if (ev->status == PMU_EV_OK && ev->attr.exclude_user &&
	    ev->attr.exclude_kernel) {
		event__drop(ev, EINVAL,
			    "modifiers exclude both user and kernel "
			    "level: the event would count nothing");
		return -1;
	}
	return 0;
}

static int event__resolve(struct pmu_event *ev, const char *spec);

int pmu_event__parse(struct pmu_event *ev, const char *spec)
{
	if (event__resolve(ev, spec) < 0)
		return -1;
	return event__check_levels(ev);
}

static int event__resolve(struct pmu_event *ev, const char *spec)
{
	char base[PMU_NAME_MAX];
	const struct pmu_named_event *ne;
	uint64_t raw;

	memset(ev, 0, sizeof(*ev));
	ev->group = -1;
	ev->ugroup = -1;
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	if (spec[0] == '\0') {
		event__drop(ev, EINVAL, "empty event name");
		return -1;
	}
	if (strlen(spec) >= PMU_NAME_MAX) {
		event__drop(ev, ENAMETOOLONG, "event name longer than 127 characters");
		return -1;
	}
	ev->attr.size = sizeof(ev->attr);
	ev->attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			       PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING;

	if (split_modifiers(spec, base, sizeof(base), &ev->attr, &ev->plm_explicit)) {
		ne = table_lookup(base);
		if (ne) {
			ev->source = ne->type == PERF_TYPE_SOFTWARE ?
					     PMU_SRC_SOFTWARE :
					     PMU_SRC_GENERIC;
			ev->attr.type = ne->type;
			ev->attr.config = ne->config;
			return 0;
		}
		if (parse_raw(base, &raw)) {
			ev->source = PMU_SRC_RAW;
			ev->attr.type = PERF_TYPE_RAW;
			ev->attr.config = raw;
			return 0;
		}
	}
	/* Not ours: undo modifier bits and ask libpfm4 with the whole spec. */
	ev->attr.exclude_user = ev->attr.exclude_kernel = ev->attr.exclude_hv = 0;
	ev->plm_explicit = false;
	return parse_pfm(ev, spec);
}
