/* docread_range.c - the reader's checkpoints and trigger points (the
 * "ranges" section: HPCSHIM_CHECKPOINT, HPCSHIM_TRIGGER), and the way
 * they were watched (docread.h). */
#include <string.h>

#include "aggregate/docread_internal.h"

static json_object *ranges(const struct dr_doc *d)
{
	return get(d->root, "ranges");
}

static size_t range__ncp(const struct dr_doc *d)
{
	return arr_len(get(ranges(d), "checkpoints"));
}

/* The trigger's start (k 0) or stop (1) point, or NULL. */
static json_object *range__trig(const struct dr_doc *d, int k)
{
	return get(get(ranges(d), "trigger"), k ? "stop" : "start");
}

size_t dr_doc__npoints(const struct dr_doc *d)
{
	return range__ncp(d) + (range__trig(d, 0) != NULL) + (range__trig(d, 1) != NULL);
}

void dr_doc__point(const struct dr_doc *d, size_t i, struct dr_point *out)
{
	size_t ncp = range__ncp(d);
	json_object *p;

	memset(out, 0, sizeof(*out));
	if (i < ncp) {
		p = arr_at(get(ranges(d), "checkpoints"), i);
		out->kind = "checkpoint";
		out->text = get_str(p, "checkpoint", "?");
		/* The process total: null when no thread counted it. */
		out->has = num(get(get(get(ranges(d), "totals"), "checkpoints"), out->text),
			       &out->count);
	} else {
		int k = i - ncp == 0 && range__trig(d, 0) ? 0 : 1;

		p = range__trig(d, k);
		out->kind = k ? "stop" : "start";
		out->text = get_str(p, "point", "?");
	}
	out->status = get_str(p, "status", "?");
	out->reason = get_str(p, "reason", NULL);
}

const char *dr_doc__point_method(const struct dr_doc *d, const char **note)
{
	*note = get_str(ranges(d), "point_method_note", NULL);
	return get_str(ranges(d), "point_method", NULL);
}

const char *dr_doc__trigger_state(const struct dr_doc *d)
{
	return get_str(get(ranges(d), "trigger"), "state", NULL);
}
