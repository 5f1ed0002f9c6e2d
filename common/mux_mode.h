/* mux_mode.h - how groups that do not fit on the PMU at once are shared
 * (HPCSHIM_MUX): one enum for the configuration, the perf layer's
 * schedule and the results. */
#ifndef HPCSHIM_COMMON_MUX_MODE_H
#define HPCSHIM_COMMON_MUX_MODE_H

enum hs_mux_mode {
	HS_MUX_KERNEL, /* all enabled; the kernel multiplexes and scales   */
	HS_MUX_ROTATE, /* one rotated group enabled at a time (the shim)   */
	HS_MUX_OFF,    /* only groups that fit at once are kept            */
};

/* The name HPCSHIM_MUX takes and the results print. */
static inline const char *hs_mux_mode__name(enum hs_mux_mode m)
{
	switch (m) {
	case HS_MUX_KERNEL:
		return "kernel";
	case HS_MUX_ROTATE:
		return "rotate";
	case HS_MUX_OFF:
		return "off";
	}
	return "?";
}

#endif
