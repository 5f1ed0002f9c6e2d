/* limits.c - HPCSHIM_MAX_REGIONS and HPCSHIM_MAX_THREADS: how many region
 * names and thread records a result file holds before the smallest are
 * folded into one summary (aggregate/view.c, docs/environment.md). */
#include <stdlib.h>
#include <string.h>

#include "preload/base/log.h"
#include "preload/config/config.h"
#include "preload/config/varparse.h"

/* A count, or 0 ("0" or "all": no limit); dflt when unset, empty or bad. */
static int limits__parse(const char *var, int dflt)
{
	const char *v = getenv(var);
	uint64_t n;

	if (!v || !*v)
		return dflt;
	if (strcmp(v, "all") == 0)
		return 0;
	if (!hs_var__uint(v, 0, 1u << 30, &n)) {
		hs_log(HS_LOG_ERROR,
		       "%s='%.40s' is not a count (or 'all'); using %d", var, v, dflt);
		return dflt;
	}
	return (int)n;
}

void hs_limits__from_env(struct hs_limits *l)
{
	l->max_regions = limits__parse("HPCSHIM_MAX_REGIONS", HS_MAX_REGIONS);
	l->max_threads = limits__parse("HPCSHIM_MAX_THREADS", HS_MAX_THREADS);
}
