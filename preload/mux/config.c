/* config.c - the mux feature's variables, multiplexing and time series
 * (config.h, docs/environment.md):
 *
 *   HPCSHIM_MUX              kernel (default) | rotate | off
 *   HPCSHIM_MUX_SLICE        rotation slice: 1ms (default), 500us, 2000000inst
 *   HPCSHIM_MUX_PINNED       events (list syntax) never rotated, always counted
 *   HPCSHIM_MUX_SEED         seed of the rotation order (default: from time)
 *   HPCSHIM_INTERVAL         time series period (thread CPU time), e.g. 10ms
 *   HPCSHIM_INTERVAL_POINTS  series points kept per thread (default 512)
 *
 * A bad value gives one "hpcshim:" line and its default.
 */
#include <stdlib.h>
#include <string.h>

#include "common/memclear.h"
#include "preload/config/varparse.h"
#include "preload/mux/config.h"

static void mux__mode(struct hs_mux_config *m, const char *v)
{
	static const char *const names[] = { "kernel", "rotate", "off" };
	static const enum hs_mux_mode modes[] = { HS_MUX_KERNEL, HS_MUX_ROTATE,
						  HS_MUX_OFF };

	m->mode = modes[hs_var__choice("HPCSHIM_MUX", v, names, 3, 0)];
}

/* The slice: a duration of thread CPU time (10us .. 10s), or a number of
 * instructions ("<n>inst", 10000 .. 10^12). */
static void mux__slice(struct hs_mux_config *m, const char *v)
{
	const char *end;
	uint64_t n;

	m->slice = HS_MUX_SLICE_NS;
	m->slice_instructions = false;
	if (!v || !*v)
		return;
	if (hs_var__duration(v, 10000, 10000000000ull, &m->slice))
		return;
	if (hs_var__uint_at(v, false, 10000, 1000000000000ull, &end, &n) &&
	    strcmp(end, "inst") == 0) {
		m->slice = n;
		m->slice_instructions = true;
		return;
	}
	m->slice = HS_MUX_SLICE_NS;
	hs_var__bad("HPCSHIM_MUX_SLICE", v,
		    "is not a duration (10us..10s, e.g. 1ms) "
		    "or an instruction count (e.g. 1000000inst); using 1ms");
}

static void mux__seed(struct hs_mux_config *m, const char *v)
{
	const char *end;

	if (!v || !*v)
		return;
	if (!hs_var__uint_at(v, true, 0, UINT64_MAX, &end, &m->seed) || *end) {
		m->seed = 0;
		hs_var__bad("HPCSHIM_MUX_SEED", v,
			    "is not an unsigned number; using a seed from the clock");
		return;
	}
	m->seeded = true;
}

static void mux__interval(struct hs_mux_config *m, const char *v)
{
	m->interval_ns = 0;
	if (!v || !*v)
		return;
	if (!hs_var__duration(v, 100000, 3600000000000ull, &m->interval_ns)) {
		m->interval_ns = 0;
		hs_var__bad("HPCSHIM_INTERVAL", v,
			    "is not a duration (100us..1h, e.g. 10ms); no time series");
	}
}

static void mux__points(struct hs_mux_config *m, const char *v)
{
	uint64_t n;

	m->interval_points = HS_MUX_INTERVAL_POINTS;
	if (!v || !*v)
		return;
	if (!hs_var__uint(v, 16, 1000000, &n)) {
		hs_var__bad("HPCSHIM_INTERVAL_POINTS", v,
			    "is not a number 16..1000000; using 512");
		return;
	}
	m->interval_points = (int)(n + (n & 1)); /* even: points merge in pairs */
}

void hs_mux_config__from_env(struct hs_mux_config *m, struct hs_speclist *pinned)
{
	const char *pv = getenv("HPCSHIM_MUX_PINNED");

	hs_mem__clear(m, sizeof(*m));
	mux__mode(m, getenv("HPCSHIM_MUX"));
	mux__slice(m, getenv("HPCSHIM_MUX_SLICE"));
	mux__seed(m, getenv("HPCSHIM_MUX_SEED"));
	mux__interval(m, getenv("HPCSHIM_INTERVAL"));
	mux__points(m, getenv("HPCSHIM_INTERVAL_POINTS"));
	if (pv)
		hs_speclist__parse(pinned, pv);
}
