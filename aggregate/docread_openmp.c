/* docread_openmp.c - the reader's OpenMP part: the top-level "openmp",
 * its constructs and each thread's share of them (docread.h,
 * docs/schema.md). */
#include "aggregate/docread_internal.h"

static json_object *omp__root(const struct dr_doc *d)
{
	json_object *o = get(d->root, "openmp");

	return json_object_is_type(o, json_type_object) ? o : NULL;
}

bool dr_doc__omp_runtime(const struct dr_doc *d, struct dr_omp_runtime *out)
{
	json_object *o = omp__root(d), *r;

	*out = (struct dr_omp_runtime){ 0 };
	if (!o)
		return false;
	out->runtime = get_str(o, "runtime", NULL);
	out->library = get_str(o, "library", NULL);
	out->source = get_str(o, "source", NULL);
	out->reason = get_str(o, "reason", NULL);
	r = get(o, "recorded");
	out->recorded = json_object_is_type(r, json_type_boolean) && json_object_get_boolean(r);
	return true;
}

size_t dr_doc__nomp(const struct dr_doc *d)
{
	return arr_len(get(omp__root(d), "constructs"));
}

const struct dr_omp *dr_doc__omp(const struct dr_doc *d, size_t i)
{
	json_object *c = arr_at(get(omp__root(d), "constructs"), i);

	return json_object_is_type(c, json_type_object) ? (const struct dr_omp *)c : NULL;
}

void dr_omp__get(const struct dr_omp *c, struct dr_omp_construct *out)
{
	json_object *o = J(c);

	out->region = get_str(o, "region", NULL);
	out->wait_region = get_str(o, "wait_region", NULL);
	out->kind = get_str(o, "kind", NULL);
	out->function = get_str(o, "function", NULL);
	out->file = get_str(o, "file", NULL);
	out->line = get_int(o, "line", -1);
	out->teams = get_int(o, "teams", -1);
	out->team_max = get_int(o, "team_max", -1);
	out->threads = get_int(o, "threads", -1);
	out->work_ns = get_int(o, "work_ns", -1);
	out->wait_ns = get_int(o, "wait_ns", -1);
	out->slowest_omp_thread = get_int(o, "slowest_omp_thread", -1);
	out->slowest_tid = get_int(o, "slowest_tid", -1);
	out->has_imbalance = num(get(o, "imbalance"), &out->imbalance);
	out->has_wait_share = num(get(o, "wait_share"), &out->wait_share);
}

size_t dr_omp__nshares(const struct dr_omp *c)
{
	return arr_len(get(J(c), "per_thread"));
}

/* A figure of a share: a number, or in a job document the sum over the
 * ranks of its statistic. */
static long long share__num(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return json_object_is_type(v, json_type_object) ? get_int(v, "sum", 0) :
							   get_int(o, key, 0);
}

bool dr_omp__share_stat(const struct dr_omp *c, size_t k, const char *key, struct dr_stat *out)
{
	return dr__stat(get(arr_at(get(J(c), "per_thread"), k), key), out);
}

void dr_omp__share(const struct dr_omp *c, size_t k, struct dr_omp_share *out)
{
	json_object *o = arr_at(get(J(c), "per_thread"), k);

#define F(name) out->name = share__num(o, #name);
	F(calls) F(work_ns) F(wait_ns) F(last) F(barriers) F(barrier_ns) F(criticals)
	F(critical_wait_ns) F(critical_held_ns) F(taskwaits) F(taskwait_ns)
	F(tasks_created) F(tasks_run) F(task_ns) F(singles) F(chunks) F(iterations)
	F(ordered) F(ordered_wait_ns) F(atomics) F(atomic_wait_ns) F(taskloops) F(taskloop_ns)
#undef F
	out->tid = get_int(o, "tid", -1);
	out->omp_thread = get_int(o, "omp_thread", -1);
}
