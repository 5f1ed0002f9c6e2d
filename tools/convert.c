/* convert.c - what the formats of hpcshim convert share (tools/convert.h):
 * time 0, the rank of a result, a thread's region tree as paths, its trace
 * records as nested open/close events.  The subcommand and its table of
 * formats are tools/cmd_convert.c; each format is tools/convert_<name>.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/result.h"
#include "tools/convert.h"
#include "tools/results.h"
#include "tools/xalloc.h"

double convert__t0(const struct results *s)
{
	double t0 = -1;

	for (size_t i = 0; i < s->n; i++) {
		double st = dr_doc__start_ns(s->r[i].doc);

		if (t0 < 0 || st < t0)
			t0 = st;
	}
	return t0 < 0 ? 0 : t0;
}

int convert__rank(const struct results *s, size_t i)
{
	return s->r[i].rank;
}

void convert_tree__init(struct convert_tree *t, const struct dr_thread *th,
			const struct dr_doc *d)
{
	struct hs_strtab names;

	t->n = th ? dr_thread__nregions(th) : dr_doc__nregions(d);
	t->r = xrealloc(NULL, t->n * sizeof(*t->r));
	t->parent = xrealloc(NULL, t->n * sizeof(*t->parent));
	names = (struct hs_strtab){ 0 };
	/* one record per name in an owner: the name's number is its index */
	for (size_t i = 0; i < t->n; i++) {
		t->r[i] = th ? dr_thread__region(th, i) : dr_doc__region(d, i);
		xintern(&names, dr_region__name(t->r[i]), NULL);
	}
	for (size_t i = 0; i < t->n; i++) {
		const char *p = dr_region__parent(t->r[i]);
		size_t k = p ? (size_t)hs_strtab__lookup(&names, p) : (size_t)-1;

		t->parent[i] = k < t->n && names.n == t->n ? (long)k : -1;
	}
	hs_strtab__free(&names);
}

void convert_tree__exit(struct convert_tree *t)
{
	free(t->r);
	free(t->parent);
}

size_t convert_tree__path(const struct convert_tree *t, size_t i, size_t *out, size_t max)
{
	size_t n = 0;

	for (long k = (long)i; k >= 0 && n < max && n <= t->n; k = t->parent[k])
		out[n++] = (size_t)k;
	return n;
}

struct nest_rec {
	long long b, e, depth;
	size_t span;
};

static int nest_cmp(const void *a, const void *b)
{
	const struct nest_rec *x = a, *y = b;

	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->e != y->e)
		return x->e > y->e ? -1 : 1;
	return x->span < y->span ? -1 : 1;
}

void convert__span_times(const struct dr_span *sp, long long floor, long long *b,
			 long long *e)
{
	*b = dr_span__begin(sp) < floor ? floor : dr_span__begin(sp);
	*e = dr_span__end(sp) < *b ? *b : dr_span__end(sp);
}

/* The records are ordered by begin, then depth (open regions below it),
 * then the longer first; a stack of open records closes those that ended
 * by the next one's begin. */
size_t convert__nest(const struct dr_thread *th, long long floor, struct convert_ev **out)
{
	size_t n = dr_thread__nspans(th), top = 0, k = 0;
	struct nest_rec *v = xrealloc(NULL, n * sizeof(*v));
	struct nest_rec *stack = xrealloc(NULL, (n ? n : 1) * sizeof(*stack));
	struct convert_ev *ev = xrealloc(NULL, 2 * n * sizeof(*ev));

	for (size_t i = 0; i < n; i++) {
		const struct dr_span *sp = dr_thread__span(th, i);
		struct json_object *d = dr_span__depth(sp);

		convert__span_times(sp, floor, &v[i].b, &v[i].e);
		v[i].depth = d ? json_object_get_int64(d) : 0;
		v[i].span = i;
	}
	qsort(v, n, sizeof(*v), nest_cmp);
	for (size_t i = 0; i < n; i++) {
		while (top && stack[top - 1].e <= v[i].b) {
			top--;
			ev[k++] = (struct convert_ev){ stack[top].e, stack[top].span, 0 };
		}
		if (top && v[i].e > stack[top - 1].e)
			v[i].e = stack[top - 1].e;
		ev[k++] = (struct convert_ev){ v[i].b, v[i].span, 1 };
		stack[top++] = v[i];
	}
	while (top) {
		top--;
		ev[k++] = (struct convert_ev){ stack[top].e, stack[top].span, 0 };
	}
	free(v);
	free(stack);
	*out = ev;
	return k;
}

int convert__write_text(const char *text, const char *out, const char *prog)
{
	char err[512];

	if (out && agg_result__write_text(out, text, true, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return -1;
	}
	if (!out && puts(text) < 0) {
		fprintf(stderr, "%s: stdout: cannot write\n", prog);
		return -1;
	}
	return 0;
}

int convert__write_json(struct json_object *doc, const char *out, const char *prog)
{
	return convert__write_text(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								       JSON_C_TO_STRING_NOSLASHESCAPE),
				   out, prog);
}
