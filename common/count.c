/* count.c - scaling of multiplexed readings (libperf's counts_values__scale). */
#include "common/count.h"

bool hs_count__estimate(const struct count *c, double *out)
{
	if (c->running == c->enabled) {
		*out = (double)c->value;
		return true;
	}
	if (c->running == 0) /* never scheduled: do not extrapolate from nothing */
		return false;
	*out = (double)c->value * ((double)c->enabled / (double)c->running);
	return true;
}

double hs_count__coverage(const struct count *c)
{
	if (c->enabled == 0)
		return 1.0;
	return (double)c->running / (double)c->enabled;
}
