/* section.h - a feature's own parts of the result document.
 *
 * The writer (json.c) lays out what every process has; a feature adds its
 * parts through one agg_section, the way a Caliper service writes its own
 * output: its result hook (preload/core/feature.h) adds the section, with
 * the data it writes from, to the process result (agg_sections__add), and
 * the writer calls it at three places of the document, naming no feature:
 *
 *   head    members of the document after "events" ("presets", "mux",
 *           "groups", "wrap")
 *   tail    members of the document after "regions", last ("ranges")
 *   thread  members of each thread object after "warnings" ("ranges",
 *           "rotation", "series"), before the core's "trace"
 *
 * and beside every event-keyed object "<key>" (docs/schema.md), siblings
 * such as "<key>_metrics" and "<key>_drilldown" (presets):
 *
 *   counts  one thread interval (a thread's "totals", a region record's
 *           "inclusive" and "exclusive"), after "<key>_multiplexed"
 *   sums    sums across threads: the process "totals" (one key, before
 *           "totals_multiplexed") and a region summary ("inclusive" and
 *           "exclusive" together, after its "wall_ns")
 *
 * At each place the sections are called in increasing `order`, those of
 * equal order as they were added, so that the document's order of keys
 * does not depend on the order of the features' table.  head and tail
 * write with the emitter (out.h) at the depth of the document's members;
 * thread adds json-c members to the thread's tail object, because it runs
 * while the thread's view (view.h) is valid, before the thread's regions
 * are streamed, and its members are written after them.
 */
#ifndef HPCSHIM_AGGREGATE_SECTION_H
#define HPCSHIM_AGGREGATE_SECTION_H

#include <stdbool.h>

struct agg_out;
struct agg_process;
struct agg_thread_view;
struct json_object;

/* Members of the document at depth, each after agg_out__next's separator
 * (first: none written yet at this depth). */
typedef void agg_section_doc_fn(struct agg_out *o, int depth, bool *first,
				const struct agg_process *p, const void *arg);
/* Siblings of the interval "<key>" (values iv), added to x. */
struct agg_interval_view;
struct agg_sum_view;
typedef void agg_section_counts_fn(struct json_object *x, const char *key,
				   const struct agg_process *p,
				   const struct agg_interval_view *iv, const void *arg);
/* Siblings of the n sums "<key[i]>" (values sv[i]) of one object. */
typedef void agg_section_sums_fn(struct json_object *x, const char *const *key,
				 const struct agg_sum_view *const *sv, int n,
				 const struct agg_process *p, const void *arg);
/* Members of thread tv's object, added to o. */
typedef void agg_section_thread_fn(struct json_object *o, const struct agg_process *p,
				   const struct agg_thread_view *tv, const void *arg);

struct agg_section {
	const char *name; /* the feature's, for the reader of the code */
	int order;        /* place among the sections at each place */
	agg_section_doc_fn *head;
	agg_section_doc_fn *tail;
	agg_section_thread_fn *thread;
	agg_section_counts_fn *counts;
	agg_section_sums_fn *sums;
};

/* The sections of one process result, in order; a fixed array, since the
 * end of a process may run in a signal handler. */
#define AGG_SECTIONS_MAX 16
struct agg_sections {
	int n;
	int ncounts, nsums; /* sections with counts, with sums: the writer
			     * skips the siblings' object without any */
	const struct agg_section *s[AGG_SECTIONS_MAX];
	const void *arg[AGG_SECTIONS_MAX];
};

/* Adds s with its data arg in its place (order).  -1 when full. */
int agg_sections__add(struct agg_sections *ss, const struct agg_section *s,
		      const void *arg);
/* Each section's part at one place (section.c). */
void agg_sections__head(const struct agg_sections *ss, struct agg_out *o, int depth,
			bool *first, const struct agg_process *p);
void agg_sections__tail(const struct agg_sections *ss, struct agg_out *o, int depth,
			bool *first, const struct agg_process *p);
void agg_sections__thread(const struct agg_sections *ss, struct json_object *o,
			  const struct agg_process *p, const struct agg_thread_view *tv);
void agg_sections__counts(const struct agg_sections *ss, struct json_object *x,
			  const char *key, const struct agg_process *p,
			  const struct agg_interval_view *iv);
void agg_sections__sums(const struct agg_sections *ss, struct json_object *x,
			const char *const *key, const struct agg_sum_view *const *sv,
			int n, const struct agg_process *p);

#endif
