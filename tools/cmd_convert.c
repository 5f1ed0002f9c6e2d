/* cmd_convert.c - hpcshim convert: results in the formats of the viewers
 * HPC users already have (perf's `perf data convert --to-*`), one file
 * per format (tools/convert_<name>.c, the table below).
 *
 * Usage: hpcshim convert --to FORMAT [-o OUTPUT] FILE|DIR ...
 *
 * The inputs are read as every subcommand reads them (tools/results.c):
 * result files, directories of them, job documents; the ranks of a job
 * go into one output.  A format whose library this build lacks is listed
 * as unavailable, with the library (configure.ac).  Also here, what the
 * formats share (tools/convert.h): time 0, a thread's region tree as
 * paths, its trace records as nested open/close events.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "tools/cmd.h"
#include "tools/convert.h"
#include "tools/results.h"
#include "tools/strtab.h"
#include "tools/xalloc.h"

#ifdef HPCSHIM_HAVE_PPROF
#define PPROF_FN NULL, convert_pprof, NULL
#else
#define PPROF_FN NULL, NULL, "this build has no libprotobuf-c, protoc-c or zlib (configure)"
#endif
#ifdef HPCSHIM_HAVE_OTF2
#define OTF2_FN NULL, convert_otf2, NULL
#else
#define OTF2_FN NULL, NULL, "this build has no OTF2 library, 3.x (configure)"
#endif

const struct convert_format convert_formats[] = {
	{ "chrome", "Chrome trace event JSON (Perfetto, chrome://tracing): hpcshim trace's",
	  convert_chrome, NULL, NULL },
	{ "pprof", "gzipped profile.proto (go tool pprof, speedscope, Pyroscope)", PPROF_FN },
	{ "speedscope", "speedscope's JSON: a profile per thread", convert_speedscope, NULL, NULL },
	{ "otf2", "OTF2 archive, -o DIR: DIR/traces.otf2 (Vampir, Scalasca)", OTF2_FN },
};
const size_t convert_nformats = sizeof(convert_formats) / sizeof(convert_formats[0]);

static const char usage_line[] =
	"usage: hpcshim convert --to FORMAT [-o OUTPUT] FILE|DIR ...\n";

static void convert__list(FILE *f)
{
	fputs("formats:\n", f);
	for (size_t i = 0; i < convert_nformats; i++) {
		const struct convert_format *c = &convert_formats[i];

		fprintf(f, "  %-11s %s%s%s%s\n", c->name, c->what, c->unavailable ? " [unavailable: " : "",
			c->unavailable ? c->unavailable : "", c->unavailable ? "]" : "");
	}
}

static void convert__help(void)
{
	fputs(usage_line, stdout);
	fputs("\nWrites the results (files, directories, job documents; a job's ranks\n"
	      "in one output) in another tool's format.  Region spans need\n"
	      "HPCSHIM_TRACE (hpcshim run --trace N); pprof reads the region tree\n"
	      "(speedscope too, for a thread without trace records).  -o: the output\n"
	      "file; otf2: a new directory DIR, the archive DIR/traces.otf2.  chrome\n"
	      "and speedscope write to stdout without -o.  docs/formats.md.\n\n",
	      stdout);
	convert__list(stdout);
	fputs("\nExit status: 0; 2 for a usage error, an unknown or unavailable format,\n"
	      "unreadable input or an output that could not be written.\n",
	      stdout);
}

static const struct convert_format *convert__find(const char *name)
{
	for (size_t i = 0; i < convert_nformats; i++)
		if (!strcmp(convert_formats[i].name, name))
			return &convert_formats[i];
	return NULL;
}

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
	struct strtab names;

	t->n = th ? dr_thread__nregions(th) : dr_doc__nregions(d);
	t->r = xrealloc(NULL, t->n * sizeof(*t->r));
	t->parent = xrealloc(NULL, t->n * sizeof(*t->parent));
	strtab__init(&names);
	/* one record per name in an owner: the name's number is its index */
	for (size_t i = 0; i < t->n; i++) {
		t->r[i] = th ? dr_thread__region(th, i) : dr_doc__region(d, i);
		strtab__id(&names, dr_region__name(t->r[i]), NULL);
	}
	for (size_t i = 0; i < t->n; i++) {
		const char *p = dr_region__parent(t->r[i]);
		size_t k = p ? strtab__find(&names, p) : (size_t)-1;

		t->parent[i] = k < t->n && names.n == t->n ? (long)k : -1;
	}
	strtab__exit(&names);
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

/* The records are ordered by begin, then depth (open regions below it),
 * then the longer first; a stack of open records closes those that ended
 * by the next one's begin. */
size_t convert__nest(const struct dr_thread *th, struct convert_ev **out)
{
	size_t n = dr_thread__nspans(th), top = 0, k = 0;
	struct nest_rec *v = xrealloc(NULL, n * sizeof(*v));
	struct nest_rec *stack = xrealloc(NULL, (n ? n : 1) * sizeof(*stack));
	struct convert_ev *ev = xrealloc(NULL, 2 * n * sizeof(*ev));

	for (size_t i = 0; i < n; i++) {
		const struct dr_span *sp = dr_thread__span(th, i);
		struct json_object *d = dr_span__depth(sp);

		v[i].b = dr_span__begin(sp);
		v[i].e = dr_span__end(sp) < v[i].b ? v[i].b : dr_span__end(sp);
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

int convert_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const struct convert_format *fmt;
	const char *out = NULL, *to = NULL;
	struct results s;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "t:o:h", opts, NULL)) != -1) {
		if (opt == 't')
			to = optarg;
		else if (opt == 'o')
			out = optarg;
		else if (opt == 'h') {
			convert__help();
			return 0;
		} else {
			fputs(usage_line, stderr);
			return 2;
		}
	}
	if (!to) {
		fputs(usage_line, stderr);
		convert__list(stderr);
		return 2;
	}
	fmt = convert__find(to);
	if (!fmt) {
		fprintf(stderr, "hpcshim convert: unknown format '%s'\n", to);
		convert__list(stderr);
		return 2;
	}
	if (fmt->unavailable) {
		fprintf(stderr, "hpcshim convert: %s is unavailable: %s\n", fmt->name,
			fmt->unavailable);
		return 2;
	}
	if (optind == argc) {
		fputs(usage_line, stderr);
		return 2;
	}
	if (!out && strcmp(fmt->name, "chrome") && strcmp(fmt->name, "speedscope")) {
		fprintf(stderr, "hpcshim convert: --to %s needs -o OUTPUT\n", fmt->name);
		return 2;
	}
	if (fmt->stream)
		return fmt->stream(argc - optind, argv + optind, out, "hpcshim convert") < 0 ? 2 : 0;
	if (results__open(&s, "hpcshim convert", argc - optind, argv + optind) < 0)
		return 2;
	rc = fmt->write(&s, out, "hpcshim convert") < 0 || s.nbad ? 2 : 0;
	results__free(&s);
	return rc;
}
