/* method.c - how checkpoints and triggers are watched: hardware
 * breakpoints or uprobes (pmu/point.h), chosen once at start from what
 * actually counts on this host.
 *
 * A breakpoint that opens is not one that fires: under some hypervisors
 * (seen under PVM) perf_event_open accepts an execute breakpoint and the
 * debug exception never comes, so a count of 0 would be written as if it
 * were measured.  Each candidate is therefore tried on a function of the
 * shim's, executed once, before any point is armed.  auto prefers
 * breakpoints (no privilege, any address) when they fire and the points
 * fit in the debug registers; uprobes otherwise (no register limit, but
 * CAP_SYS_ADMIN and file-backed code only).  A method forced by
 * HPCSHIM_RANGE_METHOD is used alone.  When none works every point is
 * dropped with the reasons, never counted as 0.
 */
#include <stdio.h>

#include "preload/base/log.h"
#include "preload/range/internal.h"

struct candidates {
	bool bp, up;         /* fires here */
	bool bp_tried, up_tried;
	char bp_why[200], up_why[200];
};

/* HPCSHIM_DEBUG_POINT_PROBE=skip: the breakpoint check executes
 * nothing, as on a host whose breakpoints never fire. */
static bool method__works(enum pmu_point_method m, char *why, size_t len)
{
	bool execute = m != PMU_POINT_BREAKPOINT || !hs_rng.rc->probe_skip;

	return pmu_point__works(m, execute, why, len);
}

static void method__try_bp(struct candidates *c)
{
	c->bp_tried = true;
	hs_rng.bp_limit = pmu_bp__limit(&hs_rng.bp_err);
	if (hs_rng.bp_limit == 0)
		snprintf(c->bp_why, sizeof(c->bp_why),
			 "hardware breakpoints unavailable: %s",
			 pmu_errno__reason(hs_rng.bp_err));
	else
		c->bp = method__works(PMU_POINT_BREAKPOINT, c->bp_why, sizeof(c->bp_why));
}

static void method__try_up(struct candidates *c)
{
	c->up_tried = true;
	c->up = method__works(PMU_POINT_UPROBE, c->up_why, sizeof(c->up_why));
}

/* Every reason a tried method gave, for the note. */
static void method__why_none(const struct candidates *c)
{
	snprintf(hs_rng.method_note, sizeof(hs_rng.method_note), "%s%s%s",
		 c->bp_tried ? c->bp_why : "", c->bp_tried && c->up_tried ? "; " : "",
		 c->up_tried ? c->up_why : "");
}

void hs_range_method__choose(int npoints)
{
	enum rng_method asked = hs_rng.rc->method;
	struct candidates c = { 0 };

	if (asked != RNG_METHOD_UPROBE)
		method__try_bp(&c);
	if (asked == RNG_METHOD_UPROBE ||
	    (asked == RNG_METHOD_AUTO && (!c.bp || npoints > hs_rng.bp_limit)))
		method__try_up(&c);
	if (c.up) {
		hs_rng.method = PMU_POINT_UPROBE;
		if (asked == RNG_METHOD_AUTO && !c.bp)
			snprintf(hs_rng.method_note, sizeof(hs_rng.method_note),
				 "%s: uprobes used", c.bp_why);
		else if (asked == RNG_METHOD_AUTO)
			snprintf(hs_rng.method_note, sizeof(hs_rng.method_note),
				 "%d points but a thread has %d hardware "
				 "breakpoints: uprobes used",
				 npoints, hs_rng.bp_limit);
		else
			snprintf(hs_rng.method_note, sizeof(hs_rng.method_note),
				 "HPCSHIM_RANGE_METHOD=uprobe");
		if (asked == RNG_METHOD_AUTO && !c.bp)
			hs_log(HS_LOG_ERROR,
			       "checkpoints and triggers: %s (exact, per thread)",
			       hs_rng.method_note);
	} else if (c.bp) {
		hs_rng.method = PMU_POINT_BREAKPOINT;
		if (c.up_tried)
			snprintf(hs_rng.method_note, sizeof(hs_rng.method_note),
				 "uprobes, for the points beyond the debug "
				 "registers: %s",
				 c.up_why);
	} else {
		method__why_none(&c);
	}
}
