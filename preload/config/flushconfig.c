/* flushconfig.c - HPCSHIM_FLUSH: the period of the periodic flush.
 *
 * "1s", "500ms", ... (10ms .. 24h): every period the results so far are
 * published (core/flush.c), so a SIGKILL or a raw exit_group loses at
 * most one period.  "0" or "off" turns it off; unset or empty is the
 * default (HS_FLUSH_DEFAULT_NS, docs/benchmarks.md says how it was chosen).
 */
#include <string.h>

#include "preload/config/config.h"
#include "preload/config/varparse.h"

#define FLUSH_MIN_NS 10000000ull                 /* 10ms */
#define FLUSH_MAX_NS (24ull * 3600 * 1000000000) /* 24h */

uint64_t hs_flush_config__from_env(const char *v)
{
	uint64_t ns;

	if (!v || !*v)
		return HS_FLUSH_DEFAULT_NS;
	if (strcmp(v, "0") == 0 || strcmp(v, "off") == 0)
		return 0;
	if (hs_var__duration(v, FLUSH_MIN_NS, FLUSH_MAX_NS, &ns))
		return ns;
	hs_var__bad("HPCSHIM_FLUSH", v,
		    "is not a duration (10ms..24h, e.g. 1s) or off; using %llums",
		    (unsigned long long)(HS_FLUSH_DEFAULT_NS / 1000000));
	return HS_FLUSH_DEFAULT_NS;
}
