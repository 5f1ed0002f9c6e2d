/* convert_pprof.c - hpcshim convert --to pprof: a gzipped profile.proto
 * (tools/profile.proto, pprof's own), for go tool pprof, speedscope and
 * Grafana Pyroscope.
 *
 * The region tree as call stacks: a function and a location per region
 * name, one sample per (rank, thread, region) whose stack is the region's
 * nesting path on that thread (threads[].regions[].parent, leaf first)
 * and whose values are the region's exclusive values there, one per
 * counted event (status "ok" in any result) and the exclusive wall time
 * last, so that a region's flat value is its exclusive value summed over
 * the threads and its cumulative value its inclusive one (a region that
 * is also its own ancestor is counted once by pprof's cum).  Labels
 * "rank" and "thread" (the tid), and "thread_name" when named, let
 * pprof -tagfocus=rank=1 pick one.  A job document that keeps no threads gives its
 * summary regions, unlabelled.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "aggregate/result.h"
#include "tools/convert.h"
#include "tools/profile.pb-c.h"
#include "tools/results.h"
#include "tools/xalloc.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Line Line;

#define PPROF_MAX_DEPTH 4096 /* the shim's own nesting limit */

struct pprof {
	Profile p;
	struct hs_strtab str;
	struct hs_strtab funcs;  /* region names: function and location id = number + 1 */
	struct hs_strtab events; /* counted events (status "ok") as the files name them */
	int64_t *wall;        /* each sample's wall time, the last value once all */
	size_t cap;           /* the events are known (pprof__values) */
	double t0, tend;
	const char *prog;
};

static int64_t pprof__str(struct pprof *w, const char *s)
{
	return (int64_t)xintern(&w->str, s, NULL);
}

static uint64_t pprof__func(struct pprof *w, const char *name)
{
	bool added;
	size_t id = xintern(&w->funcs, name, &added) + 1;

	if (added) {
		Function *f = xrealloc(NULL, sizeof(*f));
		Location *l = xrealloc(NULL, sizeof(*l));
		Line *ln = xrealloc(NULL, sizeof(*ln));

		perftools__profiles__function__init(f);
		perftools__profiles__location__init(l);
		perftools__profiles__line__init(ln);
		f->id = id;
		f->name = f->system_name = pprof__str(w, name);
		ln->function_id = id;
		l->id = id;
		l->n_line = 1;
		l->line = xrealloc(NULL, sizeof(*l->line));
		l->line[0] = ln;
		w->p.function = xrealloc(w->p.function, id * sizeof(*w->p.function));
		w->p.location = xrealloc(w->p.location, id * sizeof(*w->p.location));
		w->p.function[id - 1] = f;
		w->p.location[id - 1] = l;
		w->p.n_function = w->p.n_location = id;
	}
	return id;
}

/* A string label: pprof drops a numeric one of value 0 (rank 0), and
 * Pyroscope keeps only strings. */
static Label *pprof__label(struct pprof *w, const char *key, const char *str, long long num)
{
	Label *l = xrealloc(NULL, sizeof(*l));
	char text[32];

	perftools__profiles__label__init(l);
	l->key = pprof__str(w, key);
	if (!str) {
		snprintf(text, sizeof(text), "%lld", num);
		str = text;
	}
	l->str = pprof__str(w, str);
	return l;
}

static int64_t pprof__round(double v)
{
	return isfinite(v) && fabs(v) < 9e18 ? (int64_t)llround(v) : 0;
}

/* Region i of tree t as a sample; rank < 0: no labels (a job's summary). */
static void pprof__sample(struct pprof *w, const struct convert_tree *t, size_t i, int rank,
			  const struct dr_thread *th)
{
	static size_t path[PPROF_MAX_DEPTH];
	size_t n = convert_tree__path(t, i, path, PPROF_MAX_DEPTH);
	Sample *s = xrealloc(NULL, sizeof(*s));
	double wall = dr_region__wall(t->r[i], DR_EXCLUSIVE);

	perftools__profiles__sample__init(s);
	s->n_location_id = n;
	s->location_id = xrealloc(NULL, n * sizeof(*s->location_id));
	for (size_t k = 0; k < n; k++)
		s->location_id[k] = pprof__func(w, dr_region__name(t->r[path[k]]));
	/* the events known so far; pprof__values pads and adds the wall */
	s->n_value = w->events.n;
	s->value = xrealloc(NULL, (s->n_value + 1) * sizeof(*s->value));
	for (size_t e = 0; e < w->events.n; e++) {
		struct dr_value v;

		s->value[e] = dr_region__value(t->r[i], DR_EXCLUSIVE, w->events.name[e], &v) && v.has
				      ? pprof__round(v.v)
				      : 0;
	}
	if (rank >= 0) {
		s->label = xrealloc(NULL, 3 * sizeof(*s->label));
		s->label[s->n_label++] = pprof__label(w, "rank", NULL, rank);
		s->label[s->n_label++] = pprof__label(w, "thread", NULL, dr_thread__tid(th));
		if (dr_thread__name(th))
			s->label[s->n_label++] = pprof__label(w, "thread_name",
							      dr_thread__name(th), 0);
	}
	if (w->p.n_sample == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->p.sample = xrealloc(w->p.sample, w->cap * sizeof(*w->p.sample));
		w->wall = xrealloc(w->wall, w->cap * sizeof(*w->wall));
	}
	w->wall[w->p.n_sample] = wall >= 0 ? pprof__round(wall) : 0;
	w->p.sample[w->p.n_sample++] = s;
}

static void pprof__owner(struct pprof *w, const struct dr_thread *th, const struct dr_doc *d,
			 int rank)
{
	struct convert_tree t;

	convert_tree__init(&t, th, d);
	for (size_t i = 0; i < t.n; i++)
		pprof__sample(w, &t, i, rank, th);
	convert_tree__exit(&t);
}

static const char *pprof__unit(const char *ev)
{
	/* the software clocks count nanoseconds; pprof then prints times */
	return !strcmp(ev, "task-clock") || !strcmp(ev, "cpu-clock") ? "nanoseconds" : "count";
}

/* The sample types, every sample's values padded to them (0: an event its
 * file did not count) and its wall time last. */
static void pprof__values(struct pprof *w)
{
	size_t n = w->events.n;

	w->p.n_sample_type = n + 1;
	w->p.sample_type = xrealloc(NULL, w->p.n_sample_type * sizeof(*w->p.sample_type));
	for (size_t e = 0; e <= n; e++) {
		ValueType *v = xrealloc(NULL, sizeof(*v));

		perftools__profiles__value_type__init(v);
		v->type = pprof__str(w, e < n ? w->events.name[e] : "wall");
		v->unit = pprof__str(w, e < n ? pprof__unit(w->events.name[e]) : "nanoseconds");
		w->p.sample_type[e] = v;
	}
	w->p.default_sample_type = w->p.sample_type[0]->type;
	for (size_t i = 0; i < w->p.n_sample; i++) {
		Sample *s = w->p.sample[i];

		s->value = xrealloc(s->value, (n + 1) * sizeof(*s->value));
		for (size_t e = s->n_value; e < n; e++)
			s->value[e] = 0;
		s->value[n] = w->wall[i];
		s->n_value = n + 1;
	}
}

static void pprof__free(struct pprof *w)
{
	Profile *p = &w->p;

	for (size_t i = 0; i < p->n_sample; i++) {
		for (size_t k = 0; k < p->sample[i]->n_label; k++)
			free(p->sample[i]->label[k]);
		free(p->sample[i]->label);
		free(p->sample[i]->location_id);
		free(p->sample[i]->value);
		free(p->sample[i]);
	}
	for (size_t i = 0; i < p->n_location; i++) {
		free(p->location[i]->line[0]);
		free(p->location[i]->line);
		free(p->location[i]);
		free(p->function[i]);
	}
	for (size_t i = 0; i < p->n_sample_type; i++)
		free(p->sample_type[i]);
	free(p->sample_type);
	free(p->sample);
	free(p->location);
	free(p->function);
	free(p->comment);
	free(w->wall);
	hs_strtab__free(&w->events);
	hs_strtab__free(&w->str);
	hs_strtab__free(&w->funcs);
}

/* buf as a gzip member (pprof reads both, writes gzip). */
static unsigned char *pprof__gzip(const unsigned char *buf, size_t n, size_t *out)
{
	z_stream z = { 0 };
	unsigned char *o;
	size_t cap;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&z, (uLong)n) + 32;
	o = xrealloc(NULL, cap);
	z.next_in = (unsigned char *)buf;
	z.avail_in = (uInt)n;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(o);
		return NULL;
	}
	*out = z.total_out;
	deflateEnd(&z);
	return o;
}

/* One result file: its threads' regions (a job document keeping no
 * threads: its summary regions). */
static int pprof__file(struct results *one, void *arg)
{
	struct pprof *w = arg;
	const struct dr_doc *d = one->r[0].doc;
	struct dr_rank rk;
	const char **evs;
	size_t n = results__events(one, &evs);

	for (size_t e = 0; e < n; e++)
		xintern(&w->events, evs[e], NULL);
	free(evs);
	dr_doc__rank(d, 0, &rk);
	if (w->t0 < 0 || dr_doc__start_ns(d) < w->t0)
		w->t0 = dr_doc__start_ns(d);
	if (rk.wall > 0 && dr_doc__start_ns(d) + rk.wall > w->tend)
		w->tend = dr_doc__start_ns(d) + rk.wall;
	if (dr_doc__kind(d) == DR_JOB && !dr_doc__nthreads(d))
		pprof__owner(w, NULL, d, -1);
	for (size_t k = 0; k < dr_doc__nthreads(d); k++)
		pprof__owner(w, dr_doc__thread(d, k), d, rk.rank >= 0 ? rk.rank : 0);
	return 0;
}

int convert_pprof(int argc, char **argv, const char *out, const char *prog)
{
	struct pprof w = { .p = PERFTOOLS__PROFILES__PROFILE__INIT, .t0 = -1, .prog = prog };
	unsigned char *buf, *gz;
	size_t n, ngz, used, nbad;
	char err[512];
	int rc = 0;

	w.str = (struct hs_strtab){ 0 };
	w.funcs = (struct hs_strtab){ 0 };
	w.events = (struct hs_strtab){ 0 };
	pprof__str(&w, ""); /* string 0 is "" */
	used = results__each(prog, argc, argv, pprof__file, &w, &nbad);
	if (!used) {
		fprintf(stderr, "%s: no result could be read\n", prog);
		pprof__free(&w);
		return -2;
	}
	pprof__values(&w);
	if (!w.p.n_sample)
		fprintf(stderr, "%s: no regions in the results: the profile has no samples\n", prog);
	w.p.time_nanos = (int64_t)w.t0;
	w.p.duration_nanos = w.tend > w.t0 ? (int64_t)(w.tend - w.t0) : 0;
	w.p.n_comment = 1;
	w.p.comment = xrealloc(NULL, sizeof(*w.p.comment));
	w.p.comment[0] = pprof__str(&w, "hpcshim: regions as stacks, exclusive values per thread");
	w.p.n_string_table = w.str.n;
	w.p.string_table = w.str.name;
	n = perftools__profiles__profile__get_packed_size(&w.p);
	buf = xrealloc(NULL, n);
	perftools__profiles__profile__pack(&w.p, buf);
	gz = pprof__gzip(buf, n, &ngz);
	if (!gz) {
		fprintf(stderr, "%s: %s: zlib failed\n", prog, out);
		rc = -1;
	} else if (agg_result__write_bytes(out, gz, ngz, true, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", prog, err);
		rc = -1;
	}
	free(gz);
	free(buf);
	pprof__free(&w);
	return rc ? rc : nbad ? -2 : 0;
}
