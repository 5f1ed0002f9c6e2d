/* tap.h - what the writer hands a reader of the view while it writes a
 * document (json.c), and which of the regions' records it writes.
 *
 * The in-job reduction summarises a rank from its view (jobsrc_view.c):
 * the writer computes every record's values anyway, so the tap takes
 * them there, in the one walk, and the document is written without the
 * records nobody reads from it (keep), far smaller to write and to
 * parse.  Without a tap (agg_process.tap NULL) the writer is unchanged.
 */
#ifndef HPCSHIM_AGGREGATE_TAP_H
#define HPCSHIM_AGGREGATE_TAP_H

#include <stdbool.h>

struct agg_process;
struct agg_thread;
struct agg_view;
struct agg_region_view;

struct agg_tap {
	void *ctx;
	/* The process totals, before any thread: 0, or -1 (the document
	 * fails). */
	int (*totals)(void *ctx, const struct agg_view *v);
	/* A written thread's written region record, in document order (rv
	 * valid only during the call). */
	int (*region)(void *ctx, const struct agg_view *v, const struct agg_thread *t,
		      const struct agg_region_view *rv);
	/* The region summaries, complete (v->sum[0 .. nsums)). */
	int (*sums)(void *ctx, const struct agg_view *v);
	/* Whether the record or summary named name is written (its values
	 * went to the tap either way). */
	bool (*keep)(void *ctx, const char *name);
};

#endif
