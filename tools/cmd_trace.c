/* cmd_trace.c - hpcshim trace: results as a Chrome trace event file, for
 * Perfetto (ui.perfetto.dev) and chrome://tracing.
 *
 * Usage: hpcshim trace [-o trace.json] FILE|DIR ...
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
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cmd.h"
#include "tools/results.h"

#define TOOL_PROG "hpcshim trace"
#define TOOL_OOM_STATUS 2
#include "tools/jsonread.h"

static const char usage_line[] = "usage: hpcshim trace [-o trace.json] FILE|DIR ...\n";

static void trace__help(void)
{
	fputs(usage_line, stdout);
	fputs("\nWrites a Chrome trace event file (Perfetto, chrome://tracing): a\n"
	      "process per rank, a track per thread, region spans from HPCSHIM_TRACE\n"
	      "(hpcshim run --trace N), counter tracks from HPCSHIM_INTERVAL series.\n"
	      "Without -o, to stdout.  Exit status: 0; 2 for unreadable input.\n",
	      stdout);
}

struct ev {
	double ts, dur;
	int order; /* M first; at one time, longer spans (parents) first */
	json_object *o;
};

struct evs {
	struct ev *v;
	size_t n;
};

static void evs__add(struct evs *e, json_object *o, double ts, double dur, int order)
{
	e->v = xrealloc(e->v, (e->n + 1) * sizeof(*e->v));
	e->v[e->n++] = (struct ev){ ts, dur, order, o };
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
	return 0;
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

static void trace__thread(struct evs *e, json_object *th, int pid, double t0)
{
	long long tid = get_int(th, "tid", 0), omp = get_int(th, "omp_thread", -1);
	json_object *tr = get(th, "trace"), *recs = get(tr, "records");
	json_object *series = get(th, "series");
	const char *evname = get_str(tr, "event", NULL);
	double start = (double)get_int(th, "start_ns", 0);
	char name[256];
	int n;

	n = snprintf(name, sizeof(name), "tid %lld", tid);
	if (get_str(th, "name", NULL))
		n += snprintf(name + n, sizeof(name) - (size_t)n, " %s", get_str(th, "name", ""));
	if (omp >= 0)
		snprintf(name + n, sizeof(name) - (size_t)n, " (OpenMP %lld)", omp);
	evs__add(e, meta("thread_name", pid, tid, "name", json_object_new_string(name)), 0, 0,
		 0);
	evs__add(e, meta("thread_sort_index", pid, tid, "sort_index",
			 json_object_new_int64(omp >= 0 ? omp : tid)),
		 0, 0, 0);
	for (size_t i = 0; i < arr_len(recs); i++) {
		json_object *r = arr_at(recs, i), *o = json_object_new_object();
		json_object *args = json_object_new_object();
		double b = (double)get_int(r, "begin_ns", 0), en = (double)get_int(r, "end_ns", 0);
		double ts = us(b, t0), dur = us(en, t0) - ts;

		json_object_object_add(o, "ph", json_object_new_string("X"));
		json_object_object_add(o, "name",
				       json_object_new_string(get_str(r, "region", "?")));
		json_object_object_add(o, "cat", json_object_new_string("region"));
		json_object_object_add(o, "pid", json_object_new_int(pid));
		json_object_object_add(o, "tid", json_object_new_int64(tid));
		json_object_object_add(o, "ts", json_object_new_double(ts));
		json_object_object_add(o, "dur", json_object_new_double(dur));
		if (evname)
			json_object_object_add(args, evname,
					       json_object_get(get(r, "delta")));
		json_object_object_add(args, "depth", json_object_get(get(r, "depth")));
		json_object_object_add(o, "args", args);
		evs__add(e, o, ts, dur, 1);
	}
	if (!series)
		return;
	json_object_object_foreach(series, key, val)
	{
		json_object *t = get(series, "t");
		double prev = 0;

		if (!json_object_is_type(val, json_type_array) || !strcmp(key, "t"))
			continue;
		for (size_t i = 0; i < arr_len(val) && i < arr_len(t); i++) {
			json_object *o = json_object_new_object(), *args = json_object_new_object();
			double ts = us(start + prev, t0), v;
			char cname[200];

			prev = (double)json_object_get_int64(arr_at(t, i));
			if (!results__num(arr_at(val, i), &v)) {
				json_object_put(o);
				json_object_put(args);
				continue;
			}
			snprintf(cname, sizeof(cname), "%s tid %lld", key, tid);
			json_object_object_add(o, "ph", json_object_new_string("C"));
			json_object_object_add(o, "name", json_object_new_string(cname));
			json_object_object_add(o, "pid", json_object_new_int(pid));
			json_object_object_add(o, "tid", json_object_new_int64(tid));
			json_object_object_add(o, "ts", json_object_new_double(ts));
			json_object_object_add(args, "value", json_object_get(arr_at(val, i)));
			json_object_object_add(o, "args", args);
			evs__add(e, o, ts, 0, 1);
		}
	}
}

int trace_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *out = NULL;
	struct results s;
	struct evs e = { NULL, 0 };
	json_object *doc, *arr;
	double t0 = -1;
	int opt, rc, spans = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'h') {
			trace__help();
			return 0;
		} else {
			fputs(usage_line, stderr);
			return 2;
		}
	}
	if (optind == argc) {
		fputs(usage_line, stderr);
		return 2;
	}
	if (!results__load(&s, "hpcshim trace", argc - optind, argv + optind)) {
		fprintf(stderr, "hpcshim trace: no result could be read\n");
		results__free(&s);
		return 2;
	}
	for (size_t i = 0; i < s.n; i++) {
		double st = (double)get_int(get(s.r[i].doc, "process"), "start_ns", 0);

		if (t0 < 0 || st < t0)
			t0 = st;
	}
	for (size_t i = 0; i < s.n; i++) {
		json_object *p = get(s.r[i].doc, "process"), *ths = get(s.r[i].doc, "threads");
		int pid = s.r[i].rank + 1;
		char name[300];

		snprintf(name, sizeof(name), "rank %d (%s:%lld)", s.r[i].rank,
			 get_str(p, "host", "?"), get_int(p, "pid", -1));
		evs__add(&e, meta("process_name", pid, -1, "name", json_object_new_string(name)),
			 0, 0, 0);
		evs__add(&e, meta("process_sort_index", pid, -1, "sort_index",
				  json_object_new_int(s.r[i].rank)),
			 0, 0, 0);
		for (size_t k = 0; k < arr_len(ths); k++) {
			spans += get(arr_at(ths, k), "trace") != NULL;
			trace__thread(&e, arr_at(ths, k), pid, t0);
		}
	}
	if (!spans)
		fprintf(stderr, "hpcshim trace: no region spans: the results have no "
				"threads[].trace (run with hpcshim run --trace N, or HPCSHIM_TRACE=N)\n");
	qsort(e.v, e.n, sizeof(*e.v), ev_cmp);
	doc = json_object_new_object();
	arr = json_object_new_array();
	for (size_t i = 0; i < e.n; i++)
		json_object_array_add(arr, e.v[i].o);
	json_object_object_add(doc, "traceEvents", arr);
	json_object_object_add(doc, "displayTimeUnit", json_object_new_string("ns"));
	if (out)
		rc = json_object_to_file_ext(out, doc, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE);
	else
		rc = puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								      JSON_C_TO_STRING_NOSLASHESCAPE)) <
		     0;
	if (rc)
		fprintf(stderr, "hpcshim trace: %s: cannot write\n", out ? out : "stdout");
	json_object_put(doc);
	free(e.v);
	rc = rc ? 2 : s.nbad ? 2 : 0;
	results__free(&s);
	return rc;
}
