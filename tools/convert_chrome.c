/* convert_chrome.c - results as a Chrome trace event file, for Perfetto
 * (ui.perfetto.dev) and chrome://tracing: hpcshim trace, and hpcshim
 * convert --to chrome.
 *
 * One process per rank, named "rank R (host:pid)" (pid R+1 in the file:
 * some viewers treat 0 as the idle task), one thread track per thread
 * (named by tid, HPC_THREAD_NAME and its OpenMP number).  Region spans
 * ("X" events) come from threads[].trace (HPCSHIM_TRACE=N: the last N
 * calls of each thread); counter tracks ("C") from threads[].series
 * (HPCSHIM_INTERVAL).  Perfetto's JSON counters belong to the process,
 * so each is named with its thread: "page-faults tid 1234".  A series
 * point is placed at its thread's start plus its CPU time (the series is
 * kept in thread CPU time): exact for a thread that never waits.  All
 * times are relative to the earliest start among the results, in
 * microseconds; every result shares CLOCK_REALTIME.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/jsonutil.h"
#include "tools/convert.h"
#include "tools/results.h"

#include "tools/xalloc.h"

/* An event as its JSON text in one arena, not as its json-c object
 * (about 2 KB each: two hash tables): an interval series of a million
 * points is two million "C" events (docs/benchmarks.md, "The tools'
 * memory per byte of input"). */
struct ev {
	double ts, dur;
	int order; /* M first; at one time, longer spans (parents) first */
	size_t seq, off, len; /* seq: the order made, for a stable sort */
};

struct evs {
	struct ev *v;
	size_t n, cap;
	char *text; /* the events' JSON, back to back */
	size_t used, room;
};

/* o's text into the arena; o is put. */
static void evs__add(struct evs *e, json_object *o, double ts, double dur, int order)
{
	size_t len;
	const char *t = json_object_to_json_string_length(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);

	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 1024;
		e->v = xrealloc(e->v, e->cap * sizeof(*e->v));
	}
	while (e->used + len > e->room) {
		e->room = e->room ? 2 * e->room : 1 << 16;
		e->text = xrealloc(e->text, e->room);
	}
	memcpy(e->text + e->used, t, len);
	e->v[e->n] = (struct ev){ ts, dur, order, e->n, e->used, len };
	e->n++;
	e->used += len;
	json_object_put(o);
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->order != y->order && (x->order == 0 || y->order == 0))
		return x->order - y->order;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The file: the events in order, as json-c would print the document
 * {"traceEvents": [...], "displayTimeUnit": "ns"} (plain). */
static char *evs__document(const struct evs *e)
{
	static const char head[] = "{\"traceEvents\":[", tail[] = "],\"displayTimeUnit\":\"ns\"}";
	char *doc = xrealloc(NULL, sizeof(head) + e->used + e->n + sizeof(tail));
	size_t k = sizeof(head) - 1;

	memcpy(doc, head, k);
	for (size_t i = 0; i < e->n; i++) {
		if (i)
			doc[k++] = ',';
		memcpy(doc + k, e->text + e->v[i].off, e->v[i].len);
		k += e->v[i].len;
	}
	memcpy(doc + k, tail, sizeof(tail));
	return doc;
}

static json_object *meta(const char *what, int pid, long long tid, const char *key,
			 json_object *val)
{
	json_object *o = json_object_new_object(), *args = json_object_new_object();

	json_object_object_add(o, "ph", json_object_new_string("M"));
	json_object_object_add(o, "name", json_object_new_string(what));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	if (tid >= 0)
		json_object_object_add(o, "tid", json_object_new_int64(tid));
	json_object_object_add(args, key, val);
	json_object_object_add(o, "args", args);
	return o;
}

static double us(double ns, double t0)
{
	/* nanoseconds kept: three decimals of a microsecond */
	return round((ns - t0)) / 1e3;
}

/* The thread's name, its sort index and its region spans. */
static void trace__spans(struct evs *e, const struct dr_thread *th, int pid, double t0)
{
	/* time 0 as a whole ns (t0 may not be one): no span's ts below 0 */
	long long floor = (long long)ceil(t0);
	long long tid = dr_thread__tid(th), omp = dr_thread__omp(th);
	const char *evname = dr_thread__trace_event(th);
	char name[256];
	int n;

	n = snprintf(name, sizeof(name), "tid %lld", tid);
	if (dr_thread__name(th))
		n += snprintf(name + n, sizeof(name) - (size_t)n, " %s", dr_thread__name(th));
	if (omp >= 0)
		snprintf(name + n, sizeof(name) - (size_t)n, " (OpenMP %lld)", omp);
	evs__add(e, meta("thread_name", pid, tid, "name", json_object_new_string(name)), 0, 0,
		 0);
	evs__add(e, meta("thread_sort_index", pid, tid, "sort_index",
			 json_object_new_int64(omp >= 0 ? omp : tid)),
		 0, 0, 0);
	for (size_t i = 0; i < dr_thread__nspans(th); i++) {
		const struct dr_span *r = dr_thread__span(th, i);
		json_object *o = json_object_new_object(), *args = json_object_new_object();
		long long b, en;
		double ts, dur;

		convert__span_times(r, floor, &b, &en);
		ts = us((double)b, t0);
		dur = us((double)en, t0) - ts;
		json_object_object_add(o, "ph", json_object_new_string("X"));
		json_object_object_add(o, "name", json_object_new_string(dr_span__region(r)));
		json_object_object_add(o, "cat", json_object_new_string("region"));
		json_object_object_add(o, "pid", json_object_new_int(pid));
		json_object_object_add(o, "tid", json_object_new_int64(tid));
		json_object_object_add(o, "ts", agg_json__dbl(ts));
		json_object_object_add(o, "dur", agg_json__dbl(dur));
		if (evname)
			json_object_object_add(args, evname, json_object_get(dr_span__delta(r)));
		json_object_object_add(args, "depth", json_object_get(dr_span__depth(r)));
		json_object_object_add(o, "args", args);
		evs__add(e, o, ts, dur, 1);
	}
}

/* The thread's counter tracks from its series. */
static void trace__series(struct evs *e, const struct dr_thread *th, int pid, double t0)
{
	const struct dr_series *se = dr_thread__series(th);
	double start = (double)dr_thread__start_ns(th);
	long long tid = dr_thread__tid(th);
	const char *key;

	for (size_t k = 0; se && (key = dr_series__event(se, k)); k++) {
		double prev = 0;

		for (size_t i = 0; i < dr_series__len(se, key); i++) {
			json_object *o, *args;
			double ts = us(start + prev, t0), v;
			char cname[200];

			dr_series__t(se, i, &prev);
			prev = (double)(long long)prev;
			if (!dr_series__point(se, key, i, &v))
				continue;
			o = json_object_new_object();
			args = json_object_new_object();
			snprintf(cname, sizeof(cname), "%s tid %lld", key, tid);
			json_object_object_add(o, "ph", json_object_new_string("C"));
			json_object_object_add(o, "name", json_object_new_string(cname));
			json_object_object_add(o, "pid", json_object_new_int(pid));
			json_object_object_add(o, "tid", json_object_new_int64(tid));
			json_object_object_add(o, "ts", agg_json__dbl(ts));
			json_object_object_add(args, "value",
					       json_object_get(dr_series__json(se, key, i)));
			json_object_object_add(o, "args", args);
			evs__add(e, o, ts, 0, 1);
		}
	}
}

/* A process per rank: a process result's own, or each of a job
 * document's (which keeps no threads: the processes are named, empty). */
static int trace__doc(struct evs *e, const struct result *r, double t0)
{
	const struct dr_doc *doc = r->doc;
	int spans = 0;

	for (size_t k = 0; k < dr_doc__nranks(doc); k++) {
		struct dr_rank rk;
		int rank, pid;
		char name[300];

		dr_doc__rank(doc, k, &rk);
		rank = dr_doc__kind(doc) == DR_JOB ? rk.rank : r->rank;
		pid = rank + 1;
		snprintf(name, sizeof(name), "rank %d (%s:%lld)", rank, rk.host, rk.pid);
		evs__add(e, meta("process_name", pid, -1, "name", json_object_new_string(name)),
			 0, 0, 0);
		evs__add(e, meta("process_sort_index", pid, -1, "sort_index",
				 json_object_new_int(rank)),
			 0, 0, 0);
	}
	for (size_t k = 0; k < dr_doc__nthreads(doc); k++) {
		const struct dr_thread *th = dr_doc__thread(doc, k);

		spans += dr_thread__has_trace(th);
		trace__spans(e, th, r->rank + 1, t0);
		trace__series(e, th, r->rank + 1, t0);
	}
	return spans;
}

int convert_chrome(const struct results *s, const char *out, const char *prog)
{
	struct evs e = { 0 };
	double t0 = convert__t0(s);
	int rc = 0, spans = 0;
	char *doc;

	for (size_t i = 0; i < s->n; i++)
		spans += trace__doc(&e, &s->r[i], t0);
	if (!spans)
		fprintf(stderr, "%s: no region spans: the results have no "
				"threads[].trace (run with hpcshim run --trace N, or HPCSHIM_TRACE=N)\n",
			prog);
	qsort(e.v, e.n, sizeof(*e.v), ev_cmp);
	doc = evs__document(&e);
	free(e.text);
	free(e.v);
	if (convert__write_text(doc, out, prog) != 0)
		rc = -1;
	free(doc);
	return rc;
}
