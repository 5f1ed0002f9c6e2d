/* job.h - statistics of one value across the ranks (or threads) of a job.
 *
 * The job view of a region's event is one sample per rank: its value, the
 * rank's standard error when the value was a multiplexed estimate, and who
 * it came from.  agg_job__stats() reduces the samples to what performance
 * tools print for a job (mpiP, Caliper's cross-process aggregation, APS):
 * sum, mean, min, max, median, standard deviation, who holds the min and
 * the max, and the imbalance max/mean - 1.  Pure computation: no JSON and
 * no I/O, so the offline merge and an in-job reduction share it.
 */
#ifndef HPCSHIM_AGGREGATE_JOB_H
#define HPCSHIM_AGGREGATE_JOB_H

#include <stdbool.h>
#include <stddef.h>

/* One rank's (or thread's) value. */
struct agg_job_sample {
	double value;
	double stderr_; /* the value's own standard error; 0 when exact */
	int who;        /* index into the caller's table of ranks/threads */
};

struct agg_job_stats {
	size_t n;          /* samples */
	double sum, mean, min, max, median, sd;
	int min_who, max_who;   /* the sample's who, ties to the first */
	double imbalance;       /* max / mean - 1; 0 when mean is 0 */
	bool has_error;         /* some sample was an estimate */
	double sum_stderr;      /* the samples' errors combined as independent */
	double mean_stderr;     /* sum_stderr / n */
};

/* Reduces n samples (n >= 1); sorts the array in place (by value). */
void agg_job__stats(struct agg_job_sample *s, size_t n, struct agg_job_stats *out);

#endif
