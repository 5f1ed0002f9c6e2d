/* json.c - the process result's layout (docs/schema.md), streamed into a
 * result file by the emitter (out.h).
 *
 * Counts are JSON numbers: the exact count, or the scaled estimate when
 * the event was multiplexed (then a "multiplexed" entry next to it carries
 * raw, enabled, running and coverage).  An event that never ran in an
 * interval is null, never 0.  Written with the emitter's own writers but
 * for what is once per document or rare (the totals, "folded", the
 * features' json-c parts); the region records and summaries, which there
 * are many of, are json_region.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common/compiler.h"
#include "aggregate/trace.h"
#include "aggregate/aggregate.h"
#include "aggregate/json.h"
#include "aggregate/json_region.h"
#include "aggregate/jsonutil.h"
#include "aggregate/mux.h"
#include "aggregate/out.h"
#include "aggregate/section.h"
#include "aggregate/tap.h"
#include "aggregate/view.h"

/* A string as json_object_new_string prints it (static texts, names the
 * kernel gives: no UTF-8 repair), null for NULL. */
static void doc__str(struct agg_out *o, int depth, const char *s)
{
	size_t len;

	if (!s) {
		agg_out__write(o, "null", 4);
		return;
	}
	if (!agg_json__plain(s, &len) || len + 2 > AGG_OUT_BUF) {
		agg_out__value(o, depth, json_object_new_string(s));
		return;
	}
	agg_out__write(o, "\"", 1);
	agg_out__write(o, s, len);
	agg_out__write(o, "\"", 1);
}

static void doc__bool(struct agg_out *o, bool b)
{
	if (b)
		agg_out__write(o, "true", 4);
	else
		agg_out__write(o, "false", 5);
}

/* Closes an array opened at depth - 1: json-c breaks the line of an
 * empty one too. */
static void doc__array_end(struct agg_out *o, int depth)
{
	agg_out__newline(o, depth - 1);
	agg_out__write(o, "]", 1);
}

/* "process": who ran, how it ended. */
static void doc__process(struct agg_out *o, int depth, bool *first,
			 const struct agg_process *p)
{
	int d = depth + 1;
	bool f = true, g = true;

	AGG_OUT_KEY(o, depth, first, "process");
	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, d, &f, "pid");
	agg_out__i64(o, p->pid);
	AGG_OUT_KEY(o, d, &f, "ppid");
	agg_out__i64(o, p->ppid);
	AGG_OUT_KEY(o, d, &f, "host");
	agg_out__text(o, d, p->host);
	AGG_OUT_KEY(o, d, &f, "rank");
	if (p->rank >= 0)
		agg_out__i64(o, p->rank);
	else
		agg_out__write(o, "null", 4);
	AGG_OUT_KEY(o, d, &f, "size");
	if (p->size > 0)
		agg_out__i64(o, p->size);
	else
		agg_out__write(o, "null", 4);
	AGG_OUT_KEY(o, d, &f, "job");
	agg_out__text(o, d, p->job && p->job[0] ? p->job : NULL);
	AGG_OUT_KEY(o, d, &f, "mpi_job");
	agg_out__text(o, d, p->mpi_job && p->mpi_job[0] ? p->mpi_job : NULL);
	AGG_OUT_KEY(o, d, &f, "command");
	agg_out__write(o, "[", 1);
	for (int i = 0; i < p->argc; i++) {
		agg_out__next(o, d + 1, &g);
		agg_out__text(o, d + 1, p->argv[i]);
	}
	doc__array_end(o, d + 1);
	AGG_OUT_KEY(o, d, &f, "start_ns");
	agg_out__u64(o, p->start_ns);
	AGG_OUT_KEY(o, d, &f, "end_ns");
	agg_out__u64(o, p->end_ns);
	AGG_OUT_KEY(o, d, &f, "wall_ns");
	agg_out__u64(o, p->wall_ns);
	if (p->peak_rss_bytes) {
		AGG_OUT_KEY(o, d, &f, "peak_rss_bytes");
		agg_out__u64(o, p->peak_rss_bytes);
	}
	AGG_OUT_KEY(o, d, &f, "complete");
	doc__bool(o, p->complete);
	AGG_OUT_KEY(o, d, &f, "end");
	doc__str(o, d, p->end);
	if (p->signal) {
		AGG_OUT_KEY(o, d, &f, "signal");
		agg_out__i64(o, p->signal);
		AGG_OUT_KEY(o, d, &f, "signal_name");
		doc__str(o, d, sigabbrev_np(p->signal) ? sigabbrev_np(p->signal) : "?");
	}
	AGG_OUT_KEY(o, d, &f, "exec_generation");
	agg_out__i64(o, p->exec_generation);
	/* Visible in /proc/self/task, never a program thread. */
	if (p->shim_tid > 0) {
		g = true;
		AGG_OUT_KEY(o, d, &f, "shim_threads");
		agg_out__write(o, "[", 1);
		agg_out__next(o, d + 1, &g);
		agg_out__i64(o, p->shim_tid);
		doc__array_end(o, d + 1);
	}
	agg_out__end(o, d);
}

/* One requested event, an array element at depth. */
static void doc__event(struct agg_out *o, int depth, const struct agg_event *e)
{
	int d = depth + 1;
	bool f = true;

	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, d, &f, "name");
	agg_out__text(o, d, e->name);
	AGG_OUT_KEY(o, d, &f, "status");
	doc__str(o, d, e->ok ? "ok" : "dropped");
	AGG_OUT_KEY(o, d, &f, "source");
	doc__str(o, d, e->source);
	if (e->encoding && e->encoding[0]) {
		AGG_OUT_KEY(o, d, &f, "encoding");
		doc__str(o, d, e->encoding);
	}
	if (e->ok) {
		AGG_OUT_KEY(o, d, &f, "privilege");
		doc__str(o, d, e->privilege);
		if (e->downgraded) {
			AGG_OUT_KEY(o, d, &f, "downgraded");
			doc__bool(o, true);
		}
		AGG_OUT_KEY(o, d, &f, "group");
		agg_out__i64(o, e->group);
		if (e->group_time) {
			AGG_OUT_KEY(o, d, &f, "from_group_time");
			doc__bool(o, true);
		}
	} else {
		AGG_OUT_KEY(o, d, &f, "errno");
		agg_out__i64(o, e->err);
		AGG_OUT_KEY(o, d, &f, "error");
		doc__str(o, d, e->errname);
		AGG_OUT_KEY(o, d, &f, "reason");
		agg_out__text(o, d, e->reason);
	}
	agg_out__end(o, d);
}

static void doc__events(struct agg_out *o, int depth, bool *first,
			const struct agg_process *p)
{
	bool f = true;

	AGG_OUT_KEY(o, depth, first, "events");
	agg_out__write(o, "[", 1);
	for (int i = 0; i < p->nev; i++) {
		agg_out__next(o, depth + 1, &f);
		doc__event(o, depth + 1, &p->ev[i]);
	}
	doc__array_end(o, depth + 1);
}

static void doc__pmu(struct agg_out *o, int depth, bool *first,
		     const struct agg_process *p)
{
	const struct agg_pmu_info *m = &p->pmu;
	int d = depth + 1;
	bool f = true;

	AGG_OUT_KEY(o, depth, first, "pmu");
	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, d, &f, "cpu_pmu");
	doc__str(o, d, m->cpu_pmu[0] ? m->cpu_pmu : NULL);
	AGG_OUT_KEY(o, d, &f, "hardware");
	doc__bool(o, m->hardware);
	AGG_OUT_KEY(o, d, &f, "fallback");
	doc__str(o, d, m->fallback);
	AGG_OUT_KEY(o, d, &f, "privilege");
	doc__str(o, d, m->privilege);
	AGG_OUT_KEY(o, d, &f, "perf_event_paranoid");
	agg_out__i64(o, m->paranoid);
	AGG_OUT_KEY(o, d, &f, "privilege_requested");
	doc__str(o, d, m->privilege_requested ? m->privilege_requested : "all");
	AGG_OUT_KEY(o, d, &f, "privilege_note");
	doc__str(o, d, m->privilege_note);
	agg_out__end(o, d);
}

/* A thread's "warnings": what went wrong in its regions and reads. */
static void doc__thread_warnings(struct agg_out *o, int depth, bool *first,
				 const struct agg_thread_warnings *w)
{
	bool f = true;

	AGG_OUT_KEY(o, depth, first, "warnings");
	agg_out__write(o, "{", 1);
#define WARN(field)                                   \
	AGG_OUT_KEY(o, depth + 1, &f, #field);        \
	agg_out__u64(o, __atomic_load_n(&w->field, __ATOMIC_RELAXED))
	WARN(unmatched_end);
	WARN(auto_closed);
	WARN(depth_overflow);
	WARN(read_errors);
#undef WARN
	agg_out__end(o, depth + 1);
}

/* Everything before the features' head sections: up to "events". */
static void doc__head(struct agg_out *o, int depth, bool *first,
		      const struct agg_process *p)
{
	bool f = true;

	AGG_OUT_KEY(o, depth, first, "schema");
	doc__str(o, depth, AGG_SCHEMA);
	AGG_OUT_KEY(o, depth, first, "tool");
	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, depth + 1, &f, "name");
	doc__str(o, depth + 1, "hpcshim");
	AGG_OUT_KEY(o, depth + 1, &f, "version");
	doc__str(o, depth + 1, p->version);
	agg_out__end(o, depth + 1);
	agg_out__member(o, depth, first, "warnings",
			agg_warnings__json(p->warnings, p->nwarnings));
	doc__process(o, depth, first, p);
	doc__pmu(o, depth, first, p);
	doc__events(o, depth, first, p);
}

/* A region's wall time, always present: "wall_ns" (inclusive, exclusive)
 * and "per_call_wall_ns" (null when no call completed). */
static void json_wall(json_object *o, const struct agg_wall *w)
{
	json_object *t = json_object_new_object(), *c = NULL;

	json_object_object_add(t, "inclusive", agg_json__u64(w->incl));
	json_object_object_add(t, "exclusive", agg_json__u64(w->excl));
	json_object_object_add(o, "wall_ns", t);
	if (w->call.n) {
		c = json_object_new_object();
		json_object_object_add(c, "calls", agg_json__u64(w->call.n));
		json_object_object_add(c, "min", agg_json__u64(w->call.min));
		json_object_object_add(c, "max", agg_json__u64(w->call.max));
		json_object_object_add(
			c, "mean",
			agg_json__dbl((double)w->call.sum / (double)w->call.n));
	}
	json_object_object_add(o, "per_call_wall_ns", c);
}

static json_object *json_stats(const struct agg_process *p, const struct agg_sum *sum)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < p->nev; i++) {
		const struct agg_stat *st = &sum[i].st;
		json_object *so;

		if (!p->ev[i].ok)
			continue;
		if (st->n == 0) {
			json_object_object_add(o, p->ev[i].name, NULL);
			continue;
		}
		so = json_object_new_object();
		json_object_object_add(so, "sum", agg_json__dbl(st->sum));
		json_object_object_add(so, "min", agg_json__dbl(st->min));
		json_object_object_add(so, "max", agg_json__dbl(st->max));
		json_object_object_add(so, "mean", agg_json__dbl(agg_stat__mean(st)));
		json_object_object_add(so, "threads",
				       json_object_new_int64((int64_t)st->n));
		json_object_object_add(o, p->ev[i].name, so);
	}
	return o;
}

/* Process totals: per event the sum of the threads' estimates, the
 * sections' siblings (section.h sums: the metrics over those sums), and
 * their coverage and standard error. */
static void json_totals(json_object *doc, const struct agg_process *p,
			const struct agg_sum_view *s)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < p->nev; i++) {
		if (!p->ev[i].ok)
			continue;
		json_object_object_add(o, p->ev[i].name,
				       s->ev[i].st.n ? agg_json__u64(s->ev[i].shown) :
						       NULL);
	}
	json_object_object_add(doc, "totals", o);
	agg_sections__sums(&p->sections, doc, (const char *const[]){ "totals" },
			   (const struct agg_sum_view *const[]){ s }, 1, p);
	agg_mux_sum__json(doc, "totals", p, s->ev);
}

/* How this thread's counters were read: "user" (mmap page, no system
 * call), "syscall" (read()), "mixed", or "none" (never read). */
static void doc__reads(struct agg_out *o, int depth, bool *first,
		       const struct agg_thread *t)
{
	uint64_t u = __atomic_load_n(&t->reads_user, __ATOMIC_RELAXED);
	uint64_t s = __atomic_load_n(&t->reads_syscall, __ATOMIC_RELAXED);
	bool f = true;

	AGG_OUT_KEY(o, depth, first, "reads");
	agg_out__write(o, "{", 1);
	AGG_OUT_KEY(o, depth + 1, &f, "method");
	agg_out__str(o, u && s ? "\"mixed\"" :
			u      ? "\"user\"" :
			s      ? "\"syscall\"" :
				 "\"none\"");
	AGG_OUT_KEY(o, depth + 1, &f, "user");
	agg_out__u64(o, u);
	AGG_OUT_KEY(o, depth + 1, &f, "syscall");
	agg_out__u64(o, s);
	agg_out__end(o, depth + 1);
}

/* A thread's members before "regions", at depth: who it is, how it was
 * read, its totals (tv) and what ran before its counters opened. */
static void doc__thread_head(struct agg_out *o, int depth, bool *first,
			     const struct agg_process *p, const struct agg_thread *t,
			     const struct agg_thread_view *tv)
{
	const struct agg_name *nm = __atomic_load_n(&t->name, __ATOMIC_ACQUIRE);
	int omp = __atomic_load_n(&t->omp_thread, __ATOMIC_RELAXED);
	json_object *before = json_object_new_object();

	AGG_OUT_KEY(o, depth, first, "tid");
	agg_out__i64(o, t->tid);
	AGG_OUT_KEY(o, depth, first, "start_ns");
	agg_out__u64(o, t->start_ns);
	AGG_OUT_KEY(o, depth, first, "end_ns");
	agg_out__u64(o, t->end_ns);
	AGG_OUT_KEY(o, depth, first, "wall_ns");
	agg_out__u64(o, agg_thread__wall_ns(t));
	AGG_OUT_KEY(o, depth, first, "alive_at_exit");
	agg_out__str(o, t->alive_at_exit ? "true" : "false");
	if (omp >= 0) {
		AGG_OUT_KEY(o, depth, first, "omp_thread");
		agg_out__i64(o, omp);
	}
	if (nm) {
		AGG_OUT_KEY(o, depth, first, "name");
		agg_out__text(o, depth, nm->s);
	}
	doc__reads(o, depth, first, t);
	if (t->missing) {
		AGG_OUT_KEY(o, depth, first, "error");
		agg_out__text(o, depth, t->reason ? t->reason : "counters not opened");
		if (t->err && strerrorname_np(t->err)) {
			AGG_OUT_KEY(o, depth, first, "errno");
			agg_out__text(o, depth, strerrorname_np(t->err));
		}
	}
	AGG_JSON_COUNTS(o, depth, first, "totals", p, &tv->totals);
	agg_kernel__add_before(before, p, &t->before);
	agg_out__members(o, depth, first, before);
}

/* One thread object at depth: its head, then its regions one by one
 * (those whose name is folded only counted), then the rest. */
static int write_thread(struct agg_out *o, int depth, struct agg_view *v,
			const struct agg_thread *t)
{
	const struct agg_process *p = v->p;
	json_object *tail;
	struct agg_thread_view tv;
	uint64_t folded = 0, folded_calls = 0;
	bool first = true, rfirst = true;

	if (agg_view__thread(v, t, &tv) < 0)
		return -1;
	agg_out__str(o, "{");
	doc__thread_head(o, depth + 1, &first, p, t, &tv);
	/* The sections read the thread view (series): built before the
	 * regions release it. */
	tail = json_object_new_object();
	agg_sections__thread(&p->sections, tail, p, &tv);
	agg_trace__section(tail, "trace", p, &tv);
	agg_view__release(v);

	AGG_OUT_KEY(o, depth + 1, &first, "regions");
	agg_out__str(o, "[");
	for (const struct agg_region *r = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
	     r; r = __atomic_load_n(&r->next, __ATOMIC_ACQUIRE)) {
		struct agg_region_view rv;
		int rc = agg_view__region(v, t, r, &rv);

		if (rc < 0) {
			json_object_put(tail);
			return -1;
		}
		if (rc == 0) {
			folded++;
			folded_calls += __atomic_load_n(&r->calls, __ATOMIC_RELAXED);
			continue;
		}
		if (p->tap && p->tap->region(p->tap->ctx, v, t, &rv) < 0) {
			json_object_put(tail);
			return -1;
		}
		if (!p->tap || p->tap->keep(p->tap->ctx, rv.name)) {
			agg_out__next(o, depth + 2, &rfirst);
			agg_json__region(o, p, &rv);
		}
		agg_view__release(v);
	}
	agg_out__close(o, depth + 2, rfirst, "]");
	if (folded) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "count", agg_json__u64(folded));
		json_object_object_add(f, "calls", agg_json__u64(folded_calls));
		agg_out__key(o, depth + 1, &first, "regions_folded");
		agg_out__value(o, depth + 1, f);
	}
	doc__thread_warnings(o, depth + 1, &first, &t->warn);
	agg_out__members(o, depth + 1, &first, tail);
	agg_out__close(o, depth + 1, first, "}");
	return 0;
}

/* Distribution of the folded records' keys (sorted): min, median, max. */
static json_object *json_keydist(const struct agg_folded *f)
{
	json_object *o = json_object_new_object();
	const double *k = f->key;
	size_t n = f->count;
	double med = n % 2 ? k[n / 2] : (k[n / 2 - 1] + k[n / 2]) / 2;

	json_object_object_add(o, "min", k[0] >= 0 ? agg_json__dbl(k[0]) : NULL);
	json_object_object_add(o, "median", med >= 0 ? agg_json__dbl(med) : NULL);
	json_object_object_add(o, "max", k[n - 1] >= 0 ? agg_json__dbl(k[n - 1]) : NULL);
	return o;
}

/* The records a limit folded (docs/schema.md "folded"), or null. */
static json_object *json_folded(const struct agg_view *v, const struct agg_folded *f,
				bool regions)
{
	const struct agg_process *p = v->p;
	json_object *o;
	char key[160];

	if (!f->count)
		return NULL;
	o = json_object_new_object();
	if (p->main_ev < 0)
		snprintf(key, sizeof(key), regions ? "calls" : "none");
	else
		snprintf(key, sizeof(key), "%s %.120s", regions ? "inclusive" : "totals",
			 p->ev[p->main_ev].name);
	json_object_object_add(o, "limit", json_object_new_int(f->limit));
	json_object_object_add(o, "key", agg_json__text(key));
	json_object_object_add(o, "kept", agg_json__u64(f->kept));
	json_object_object_add(o, "count", agg_json__u64(f->count));
	json_object_object_add(o, "key_folded", json_keydist(f));
	json_object_object_add(o, "key_smallest_kept",
			       f->kept_min >= 0 && isfinite(f->kept_min) ?
				       agg_json__dbl(f->kept_min) :
				       NULL);
	if (regions) {
		json_object_object_add(o, "largest", agg_json__text(f->largest));
		json_object_object_add(o, "calls", agg_json__u64(f->calls));
		json_object_object_add(o, "inclusive", json_stats(p, f->incl.ev));
		json_object_object_add(o, "exclusive", json_stats(p, f->excl.ev));
		json_wall(o, &f->wall);
	} else {
		json_object *tot = json_object_new_object();

		json_object_object_add(o, "largest", json_object_new_int(f->largest_tid));
		for (int i = 0; i < p->nev; i++)
			if (p->ev[i].ok)
				json_object_object_add(
					tot, p->ev[i].name,
					f->incl.ev[i].st.n ?
						agg_json__u64(f->incl.ev[i].shown) :
						NULL);
		json_object_object_add(o, "totals", tot);
		json_object_object_add(o, "wall_ns", agg_json__u64(f->wall.incl));
	}
	return o;
}

/* From "totals" to "folded": after the features' head sections. */
static json_object *json_head_rest(const struct agg_view *v)
{
	const struct agg_process *p = v->p;
	json_object *doc = json_object_new_object(), *f = json_object_new_object();

	json_totals(doc, p, &v->totals);
	agg_kernel__add_process_before(doc, p);
	json_object_object_add(doc, "thread_count", json_object_new_int(v->nthreads));
	json_object_object_add(doc, "uncovered_region_calls",
			       agg_json__u64(p->uncovered_calls));
	json_object_object_add(doc, "uncovered_threads", agg_kernel__uncovered(p));
	json_object_object_add(f, "threads", json_folded(v, &v->threads_folded, false));
	json_object_object_add(f, "regions", json_folded(v, &v->regions_folded, true));
	json_object_object_add(doc, "folded", f);
	return doc;
}

int agg_json__document(struct agg_out *o, struct agg_view *v)
{
	const struct agg_process *p = v->p;
	const struct agg_thread *t;
	bool first = true, afirst = true;
	size_t i = 0;

	if (p->tap && p->tap->totals(p->tap->ctx, v) < 0)
		return -1;
	agg_out__str(o, "{");
	doc__head(o, 1, &first, p);
	agg_sections__head(&p->sections, o, 1, &first, p);
	agg_out__members(o, 1, &first, json_head_rest(v));
	agg_out__key(o, 1, &first, "threads");
	agg_out__str(o, "[");
	for (t = p->threads; t; t = t->next, i++) {
		if (!v->thread_kept[i])
			continue;
		agg_out__next(o, 2, &afirst);
		if (write_thread(o, 2, v, t) < 0)
			return -1;
	}
	agg_out__close(o, 2, afirst, "]");
	agg_view__sums(v);
	if (p->tap && p->tap->sums(p->tap->ctx, v) < 0)
		return -1;
	agg_out__key(o, 1, &first, "regions");
	agg_out__str(o, "[");
	afirst = true;
	for (size_t k = 0; k < v->nsums; k++) {
		if (p->tap && !p->tap->keep(p->tap->ctx, v->sum[k].name))
			continue;
		agg_out__next(o, 2, &afirst);
		agg_json__region_sum(o, v, &v->sum[k]);
	}
	agg_out__close(o, 2, afirst, "]");
	agg_sections__tail(&p->sections, o, 1, &first, p);
	agg_out__close(o, 1, first, "}\n");
	return 0;
}
