/* job.c - statistics of one value across the ranks of a job (job.h). */
#include <math.h>
#include <stdlib.h>

#include "aggregate/job.h"

static int job__cmp(const void *a, const void *b)
{
	const struct agg_job_sample *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->who - y->who; /* equal values: the lowest rank first */
}

/* The standard deviation is the population one (every rank is there, not
 * a sample of ranks), computed around the mean in a second pass so that
 * large equal counts do not cancel catastrophically. */
void agg_job__stats(struct agg_job_sample *s, size_t n, struct agg_job_stats *out)
{
	double var = 0.0, err2 = 0.0;

	*out = (struct agg_job_stats){ .n = n, .min_who = -1, .max_who = -1 };
	if (n == 0)
		return;
	qsort(s, n, sizeof(*s), job__cmp);
	for (size_t i = 0; i < n; i++) {
		out->sum += s[i].value;
		err2 += s[i].stderr_ * s[i].stderr_;
		out->has_error |= s[i].stderr_ > 0;
	}
	out->mean = out->sum / (double)n;
	for (size_t i = 0; i < n; i++)
		var += (s[i].value - out->mean) * (s[i].value - out->mean);
	out->sd = sqrt(var / (double)n);
	out->min = s[0].value;
	out->min_who = s[0].who;
	/* the first of the largest: scan back over ties */
	size_t top = n - 1;
	while (top > 0 && s[top - 1].value == s[n - 1].value)
		top--;
	out->max = s[top].value;
	out->max_who = s[top].who;
	out->median = n % 2 ? s[n / 2].value : (s[n / 2 - 1].value + s[n / 2].value) / 2;
	/* max/mean - 1 as (max - mean)/mean: one rounding, not two, so
	 * 4000 over a mean of 2500 is 0.6, not 0.6000000000000001. */
	out->imbalance = out->mean != 0 ? (out->max - out->mean) / out->mean : 0.0;
	out->sum_stderr = sqrt(err2);
	out->mean_stderr = out->sum_stderr / (double)n;
}
