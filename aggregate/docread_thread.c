/* docread_thread.c - the reader's threads: an entry of a process's
 * threads[], its totals, its region records, its series and its trace
 * (docread.h). */
#include <limits.h>
#include <string.h>

#include "aggregate/docread_internal.h"

size_t dr_doc__nthreads(const struct dr_doc *d)
{
	return arr_len(get(d->root, "threads"));
}

const struct dr_thread *dr_doc__thread(const struct dr_doc *d, size_t i)
{
	return (const struct dr_thread *)arr_at(get(d->root, "threads"), i);
}

long long dr_thread__tid(const struct dr_thread *t)
{
	return get_int(J(t), "tid", -1);
}

long long dr_thread__omp(const struct dr_thread *t)
{
	return get_int(J(t), "omp_thread", -1);
}

long long dr_thread__start_ns(const struct dr_thread *t)
{
	return get_int(J(t), "start_ns", 0);
}

const char *dr_thread__name(const struct dr_thread *t)
{
	return get_str(J(t), "name", NULL);
}

const char *dr_thread__error(const struct dr_thread *t)
{
	return get_str(J(t), "error", NULL);
}

double dr_thread__wall(const struct dr_thread *t)
{
	return dr__wall_of(J(t));
}

bool dr_thread__total(const struct dr_thread *t, const char *ev, struct dr_value *out)
{
	return dr__value(J(t), "totals", ev, out);
}

const char *dr_thread__total_event(const struct dr_thread *t, size_t i)
{
	return dr__key_at(J(t), "totals", i);
}

long long dr_thread__warnings(const struct dr_thread *t)
{
	json_object *w = obj(get(J(t), "warnings"));
	long long n = 0;

	if (!w)
		return 0;
	/* Counts: a negative one (a hostile file) is none, and the sum stops
	 * at the largest (the fuzzer's 1.8e18 + INT64_MAX overflowed). */
	json_object_object_foreach(w, k, v)
	{
		long long x = json_object_get_int64(v);

		(void)k;
		if (x > 0)
			n = x > LLONG_MAX - n ? LLONG_MAX : n + x;
	}
	return n;
}

size_t dr_thread__nregions(const struct dr_thread *t)
{
	return arr_len(get(J(t), "regions"));
}

const struct dr_region *dr_thread__region(const struct dr_thread *t, size_t i)
{
	return (const struct dr_region *)arr_at(get(J(t), "regions"), i);
}

const struct dr_series *dr_thread__series(const struct dr_thread *t)
{
	return (const struct dr_series *)obj(get(J(t), "series"));
}

bool dr_thread__has_trace(const struct dr_thread *t)
{
	return get(J(t), "trace") != NULL;
}

const char *dr_thread__trace_event(const struct dr_thread *t)
{
	return get_str(get(J(t), "trace"), "event", NULL);
}

size_t dr_thread__nspans(const struct dr_thread *t)
{
	return arr_len(get(get(J(t), "trace"), "records"));
}

const struct dr_span *dr_thread__span(const struct dr_thread *t, size_t i)
{
	return (const struct dr_span *)arr_at(get(get(J(t), "trace"), "records"), i);
}

const char *dr_span__region(const struct dr_span *s)
{
	return get_str(J(s), "region", "?");
}

long long dr_span__begin(const struct dr_span *s)
{
	return get_int(J(s), "begin_ns", 0);
}

long long dr_span__end(const struct dr_span *s)
{
	return get_int(J(s), "end_ns", 0);
}

json_object *dr_span__delta(const struct dr_span *s)
{
	return get(J(s), "delta");
}

json_object *dr_span__depth(const struct dr_span *s)
{
	return get(J(s), "depth");
}

/* A series' events: its arrays other than "t". */
const char *dr_series__event(const struct dr_series *s, size_t i)
{
	json_object *v;
	const char *name;

	for (size_t k = 0; (name = dr__member_at(J(s), k, &v)); k++)
		if (json_object_is_type(v, json_type_array) && strcmp(name, "t") && i-- == 0)
			return name;
	return NULL;
}

size_t dr_series__npoints(const struct dr_series *s, const char *ev)
{
	return arr_len(get(J(s), ev));
}

size_t dr_series__len(const struct dr_series *s, const char *ev)
{
	size_t a = arr_len(get(J(s), ev)), b = arr_len(get(J(s), "t"));

	return a < b ? a : b;
}

bool dr_series__t(const struct dr_series *s, size_t j, double *t)
{
	return num(arr_at(get(J(s), "t"), j), t);
}

bool dr_series__point(const struct dr_series *s, const char *ev, size_t j, double *v)
{
	return num(arr_at(get(J(s), ev), j), v);
}

json_object *dr_series__json(const struct dr_series *s, const char *ev, size_t j)
{
	return arr_at(get(J(s), ev), j);
}
