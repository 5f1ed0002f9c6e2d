/* result.c - the top-level "openmp" of the results (docs/schema.md):
 * the runtime, and per construct its team figures and each thread's.
 *
 * Per construct, from the threads' figures (construct.c): the work's
 * imbalance (max - mean) / mean over the threads that ran shares, the
 * thread that held the others up (the one that arrived last at the
 * implicit barrier most often; the most work on a tie) and the waiting
 * share of the team's time (implicit barrier waits / (work + waits)).
 * The counts of the work and of the waits are the threads' region
 * records named "region" and "wait_region".
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/jsonutil.h"
#include "aggregate/out.h"
#include "preload/openmp/internal.h"
#include "preload/openmp/result.h"

static const char *const kind_key[OMP_KINDS] = {
	[OMP_PARALLEL] = "parallel",
	[OMP_PARALLEL_LOOP] = "parallel loop",
	[OMP_PARALLEL_SECTIONS] = "parallel sections",
	[OMP_TEAMS] = "teams",
};

static inline uint64_t ld(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

#define U64(o, k, v) json_object_object_add(o, k, agg_json__u64(v))

static struct json_object *thread__json(const struct omp_thr *th, const struct omp_figs *f)
{
	struct json_object *o = json_object_new_object();

	U64(o, "tid", (uint64_t)th->tid);
	json_object_object_add(o, "omp_thread",
			       json_object_new_int(__atomic_load_n(&f->omp_thread,
								   __ATOMIC_RELAXED)));
	U64(o, "calls", ld(&f->calls));
	U64(o, "work_ns", ld(&f->work_ns));
	U64(o, "wait_ns", ld(&f->wait_ns));
	U64(o, "last", ld(&f->last));
	U64(o, "barriers", ld(&f->barriers));
	U64(o, "barrier_ns", ld(&f->barrier_ns));
	U64(o, "criticals", ld(&f->criticals));
	U64(o, "critical_wait_ns", ld(&f->critical_wait_ns));
	U64(o, "critical_held_ns", ld(&f->critical_held_ns));
	U64(o, "taskwaits", ld(&f->taskwaits));
	U64(o, "taskwait_ns", ld(&f->taskwait_ns));
	U64(o, "tasks_created", ld(&f->tasks_created));
	U64(o, "tasks_run", ld(&f->tasks_run));
	U64(o, "task_ns", ld(&f->task_ns));
	U64(o, "singles", ld(&f->singles));
	U64(o, "chunks", ld(&f->chunks));
	U64(o, "iterations", ld(&f->iterations));
	U64(o, "ordered", ld(&f->ordered));
	U64(o, "ordered_wait_ns", ld(&f->ordered_wait_ns));
	U64(o, "atomics", ld(&f->atomics));
	U64(o, "atomic_wait_ns", ld(&f->atomic_wait_ns));
	U64(o, "taskloops", ld(&f->taskloops));
	U64(o, "taskloop_ns", ld(&f->taskloop_ns));
	return o;
}

static int by_omp_thread(const void *a, const void *b)
{
	const struct json_object *x = *(const struct json_object *const *)a;
	const struct json_object *y = *(const struct json_object *const *)b;
	struct json_object *vx, *vy;
	int64_t ix, iy;

	json_object_object_get_ex(x, "omp_thread", &vx);
	json_object_object_get_ex(y, "omp_thread", &vy);
	ix = json_object_get_int64(vx);
	iy = json_object_get_int64(vy);
	if (ix != iy)
		return ix < iy ? -1 : 1;
	json_object_object_get_ex(x, "tid", &vx);
	json_object_object_get_ex(y, "tid", &vy);
	ix = json_object_get_int64(vx);
	iy = json_object_get_int64(vy);
	return (ix > iy) - (ix < iy);
}

static struct json_object *construct__json(const struct omp_construct *c)
{
	struct json_object *o = json_object_new_object(), *ths = json_object_new_array();
	uint64_t work_sum = 0, work_max = 0, wait_sum = 0, best_last = 0, best_work = 0;
	const struct omp_thr *slow = NULL;
	const struct omp_figs *slow_f = NULL;
	int n = 0;

	for (const struct omp_thr *th = hs_omp_thr__all(); th; th = th->next) {
		const struct omp_figs *f = hs_omp_thr__figs((struct omp_thr *)th, c->id, false);
		uint64_t w, last;

		if (!f || !ld(&f->calls))
			continue;
		n++;
		w = ld(&f->work_ns);
		last = ld(&f->last);
		work_sum += w;
		wait_sum += ld(&f->wait_ns);
		if (w > work_max)
			work_max = w;
		if (!slow || last > best_last || (last == best_last && w > best_work)) {
			slow = th;
			slow_f = f;
			best_last = last;
			best_work = w;
		}
		json_object_array_add(ths, thread__json(th, f));
	}
	json_object_array_sort(ths, by_omp_thread);
	json_object_object_add(o, "region", agg_json__text(c->name));
	json_object_object_add(o, "wait_region",
			       c->wait_region ? agg_json__text(c->wait_name) : NULL);
	json_object_object_add(o, "kind", json_object_new_string(kind_key[c->kind]));
	json_object_object_add(o, "source",
			       json_object_new_string(c->source == OMP_SRC_OMPT ? "OMPT" : "GOMP"));
	json_object_object_add(o, "function",
			       c->function[0] ? agg_json__text(c->function) : NULL);
	json_object_object_add(o, "file", c->file[0] ? agg_json__text(c->file) : NULL);
	json_object_object_add(o, "line", c->line > 0 ? json_object_new_int(c->line) : NULL);
	U64(o, "teams", ld(&c->teams));
	U64(o, "team_max", __atomic_load_n(&c->team_max, __ATOMIC_RELAXED));
	json_object_object_add(o, "threads", json_object_new_int(n));
	U64(o, "work_ns", work_sum);
	U64(o, "wait_ns", wait_sum);
	if (n && work_sum) {
		double mean = (double)work_sum / n;

		json_object_object_add(o, "imbalance",
				       agg_json__dbl(((double)work_max - mean) / mean));
	} else {
		json_object_object_add(o, "imbalance", NULL);
	}
	json_object_object_add(o, "wait_share",
			       work_sum + wait_sum ?
				       agg_json__dbl((double)wait_sum /
						     (double)(work_sum + wait_sum)) :
				       NULL);
	json_object_object_add(o, "slowest_omp_thread",
			       slow_f ? json_object_new_int(__atomic_load_n(
						&slow_f->omp_thread, __ATOMIC_RELAXED)) :
					NULL);
	json_object_object_add(o, "slowest_tid",
			       slow ? agg_json__u64((uint64_t)slow->tid) : NULL);
	json_object_object_add(o, "per_thread", ths);
	return o;
}

void hs_omp_result__tail(struct agg_out *o, int depth, bool *first,
			 const struct agg_process *p, const void *arg)
{
	const struct omp_result *r = arg;
	struct json_object *v = json_object_new_object(), *cs = json_object_new_array();
	const char *kind = __atomic_load_n(&r->kind, __ATOMIC_ACQUIRE);
	int n = hs_omp_construct__count();

	(void)p;
	json_object_object_add(v, "runtime", kind ? json_object_new_string(kind) : NULL);
	json_object_object_add(v, "library", r->path[0] ? agg_json__text(r->path) : NULL);
	json_object_object_add(v, "source", json_object_new_string(r->ompt ? "OMPT" : "GOMP"));
	json_object_object_add(v, "recorded", json_object_new_boolean(!r->refused));
	json_object_object_add(v, "reason", r->refused ? agg_json__text(r->reason) : NULL);
	for (int i = 0; i < n; i++)
		json_object_array_add(cs, construct__json(hs_omp_construct__at(i)));
	json_object_object_add(v, "constructs", cs);
	agg_out__member(o, depth, first, "openmp", v);
}
