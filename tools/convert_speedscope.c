/* convert_speedscope.c - hpcshim convert --to speedscope: speedscope's own
 * JSON (https://www.speedscope.app/file-format-schema.json), a profile per
 * thread named "rank R tid T", the frames (region names) shared.
 *
 * A thread with trace records (HPCSHIM_TRACE) is an "evented" profile:
 * each record opens its region at begin_ns and closes it at end_ns, in
 * nanoseconds from the earliest start among the results (none before
 * it: convert__span_times), nested as convert__nest orders them (speedscope refuses a close that is not the
 * innermost open frame).  A thread without records is a
 * "sampled" profile of its region tree: a sample per region, its nesting
 * path (root first) weighted by its exclusive wall time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/jsonutil.h"
#include "tools/convert.h"
#include "tools/results.h"
#include "tools/xalloc.h"

#define SS_MAX_DEPTH 4096

static json_object *ss_event(const char *type, size_t frame, long long at)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "frame", json_object_new_int64((int64_t)frame));
	json_object_object_add(o, "at", json_object_new_int64(at));
	return o;
}

static size_t ss_frame(struct hs_strtab *frames, const char *name)
{
	return xintern(frames, name, NULL);
}

/* The thread's trace as open/close events (convert__nest). */
static void ss_evented(json_object *p, const struct dr_thread *th, struct hs_strtab *frames,
		       long long t0)
{
	struct convert_ev *ev;
	size_t n = convert__nest(th, t0, &ev);
	json_object *evs = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(evs, ss_event(ev[i].open ? "O" : "C",
						    ss_frame(frames, dr_span__region(dr_thread__span(th, ev[i].span))),
						    ev[i].at - t0));
	json_object_object_add(p, "type", json_object_new_string("evented"));
	json_object_object_add(p, "unit", json_object_new_string("nanoseconds"));
	json_object_object_add(p, "startValue", json_object_new_int64(n ? ev[0].at - t0 : 0));
	json_object_object_add(p, "endValue", json_object_new_int64(n ? ev[n - 1].at - t0 : 0));
	json_object_object_add(p, "events", evs);
	free(ev);
}

/* The thread's region tree as weighted stacks. */
static void ss_sampled(json_object *p, const struct dr_thread *th, const struct dr_doc *d,
		       struct hs_strtab *frames)
{
	static size_t path[SS_MAX_DEPTH];
	json_object *samples = json_object_new_array(), *weights = json_object_new_array();
	struct convert_tree t;
	long long sum = 0;

	convert_tree__init(&t, th, d);
	for (size_t i = 0; i < t.n; i++) {
		size_t n = convert_tree__path(&t, i, path, SS_MAX_DEPTH);
		double w = dr_region__wall(t.r[i], DR_EXCLUSIVE);
		json_object *st = json_object_new_array();

		for (size_t k = n; k-- > 0;)
			json_object_array_add(st, json_object_new_int64((int64_t)ss_frame(
							  frames, dr_region__name(t.r[path[k]]))));
		json_object_array_add(samples, st);
		json_object_array_add(weights, json_object_new_int64(w > 0 ? (long long)w : 0));
		sum += w > 0 ? (long long)w : 0;
	}
	convert_tree__exit(&t);
	json_object_object_add(p, "type", json_object_new_string("sampled"));
	json_object_object_add(p, "unit", json_object_new_string("nanoseconds"));
	json_object_object_add(p, "startValue", json_object_new_int64(0));
	json_object_object_add(p, "endValue", json_object_new_int64(sum));
	json_object_object_add(p, "samples", samples);
	json_object_object_add(p, "weights", weights);
}

static json_object *ss_profile(const char *name)
{
	json_object *p = json_object_new_object();

	json_object_object_add(p, "name", json_object_new_string(name));
	return p;
}

int convert_speedscope(const struct results *s, const char *out, const char *prog)
{
	json_object *doc = json_object_new_object(), *shared = json_object_new_object();
	json_object *fr = json_object_new_array(), *profiles = json_object_new_array();
	long long t0 = (long long)convert__t0(s);
	struct hs_strtab frames;
	char name[300];
	int rc = 0;

	frames = (struct hs_strtab){ 0 };
	for (size_t i = 0; i < s->n; i++) {
		const struct dr_doc *d = s->r[i].doc;
		int rank = convert__rank(s, i);

		if (dr_doc__kind(d) == DR_JOB && !dr_doc__nthreads(d)) {
			json_object *p = ss_profile("job (the ranks' regions summed)");

			ss_sampled(p, NULL, d, &frames);
			json_object_array_add(profiles, p);
		}
		for (size_t k = 0; k < dr_doc__nthreads(d); k++) {
			const struct dr_thread *th = dr_doc__thread(d, k);
			json_object *p;
			int n = snprintf(name, sizeof(name), "rank %d tid %lld", rank,
					 dr_thread__tid(th));

			if (dr_thread__name(th))
				snprintf(name + n, sizeof(name) - (size_t)n, " %s",
					 dr_thread__name(th));
			p = ss_profile(name);
			if (dr_thread__nspans(th))
				ss_evented(p, th, &frames, t0);
			else
				ss_sampled(p, th, d, &frames);
			json_object_array_add(profiles, p);
		}
	}
	for (size_t i = 0; i < frames.n; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "name", json_object_new_string(frames.name[i]));
		json_object_array_add(fr, f);
	}
	json_object_object_add(doc, "$schema",
			       json_object_new_string("https://www.speedscope.app/file-format-schema.json"));
	json_object_object_add(shared, "frames", fr);
	json_object_object_add(doc, "shared", shared);
	json_object_object_add(doc, "profiles", profiles);
	json_object_object_add(doc, "name", json_object_new_string("hpcshim"));
	json_object_object_add(doc, "activeProfileIndex", json_object_new_int(0));
	json_object_object_add(doc, "exporter", json_object_new_string("hpcshim " PACKAGE_VERSION));
	if (!json_object_array_length(profiles))
		fprintf(stderr, "%s: no threads in the results: the file has no profiles\n", prog);
	if (convert__write_json(doc, out, prog) != 0)
		rc = -1;
	json_object_put(doc);
	hs_strtab__free(&frames);
	return rc;
}
