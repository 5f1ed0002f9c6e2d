/* stat.h - statistics of one value across threads (stat.c).
 */
#ifndef HPCSHIM_AGGREGATE_STAT_H
#define HPCSHIM_AGGREGATE_STAT_H

#include <stdint.h>

/* Statistics of one value across threads. */
struct agg_stat {
	double sum, min, max;
	uint64_t n;
};
void agg_stat__add(struct agg_stat *s, double v);
double agg_stat__mean(const struct agg_stat *s);

#endif
