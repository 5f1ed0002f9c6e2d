/* stat.c - sum/min/max/mean of one value across threads. */
#include "aggregate/stat.h"

void agg_stat__add(struct agg_stat *s, double v)
{
	if (s->n == 0 || v < s->min)
		s->min = v;
	if (s->n == 0 || v > s->max)
		s->max = v;
	s->sum += v;
	s->n++;
}

double agg_stat__mean(const struct agg_stat *s)
{
	return s->n ? s->sum / (double)s->n : 0.0;
}
