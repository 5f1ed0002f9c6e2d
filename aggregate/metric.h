/* metric.h - derived metrics over counts, and the sets they came from.
 *
 * preload/presets.c fills an agg_metrics once the events are probed.  The
 * view (view.c) evaluates every metric of every event-keyed object (thread
 * totals, region inclusive/exclusive, process totals and the cross-thread
 * region summary) on the estimates it reports there; an input that is
 * unknown makes the metric null with the reason.  metric.c writes the
 * "<key>_metrics" objects and the "presets" array.
 */
#ifndef HPCSHIM_AGGREGATE_METRIC_H
#define HPCSHIM_AGGREGATE_METRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "aggregate/aggregate.h"
#include "common/formula.h"

struct json_object;
struct agg_drill;

/* One derived metric, its formula's names mapped to events. */
struct agg_metric {
	const char *name; /* key in "<key>_metrics"            */
	const char *set;  /* preset or opcode class it is from  */
	const struct formula *f;
	int evidx[FORMULA_MAX_VARS];       /* per f->var: index into ev[], or -1 */
	const char *why[FORMULA_MAX_VARS]; /* evidx -1: why there is none   */
};

/* One requested preset or opcode class, as the results describe it. */
struct agg_set {
	const char *kind; /* "preset" or "opcode"                    */
	const char *name;
	const char *status; /* ok, partial, dropped, unavailable, unknown,
				   * invalid (malformed definition)         */
	const char *reason; /* NULL when ok                             */
	const char *model;  /* the CPU model it was chosen for, or ""   */
	const char *file;   /* the block's file and line, or NULL       */
	int line;
	const char *description; /* or NULL */
	int nevents;
	const char *const *alias; /* [nevents] */
	const char *const *event; /* [nevents] event specs (keys in ev[])   */
	int nmetrics;
	const char *const *mname; /* [nmetrics] */
	const char *const *mtext; /* [nmetrics] formulas as written          */
};

struct agg_metrics {
	const char *model; /* libpfm4 PMU model, "" if none detected   */
	int nsets;
	const struct agg_set *sets;
	int nmetrics;
	const struct agg_metric *m;
	const struct agg_drill *drill; /* HPCSHIM_PRESET=topdown: drill.h, or NULL */
};

/* One metric of one interval as the view (view.h) evaluated it. */
struct agg_mvalue {
	double value;
	const char *reason; /* NULL when value holds; lives as long as
				   * the view or the process's metrics      */
};

/* Adds "<key>_metrics" to parent: the metrics m[nmetrics] of one interval
 * as the view evaluated them.  Nothing when m is NULL. */
void agg_metrics__json(struct json_object *parent, const char *key,
		       const struct agg_process *p, const struct agg_mvalue *m);
/* The "presets" object (model, sets) of the document, if any set was
 * requested: a head section (section.h), arg the agg_metrics. */
struct agg_out;
void agg_metrics__head(struct agg_out *o, int depth, bool *first,
		       const struct agg_process *p, const void *arg);
/* The siblings "<key>_metrics" and "<key>_drilldown" of an interval and
 * of sums across threads (section.h counts, sums). */
struct agg_interval_view;
struct agg_sum_view;
void agg_metrics__counts(struct json_object *x, const char *key,
			 const struct agg_process *p,
			 const struct agg_interval_view *iv, const void *arg);
void agg_metrics__sums(struct json_object *x, const char *const *key,
		       const struct agg_sum_view *const *sv, int n,
		       const struct agg_process *p, const void *arg);

#endif
