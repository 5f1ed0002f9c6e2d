/* fuzz_docread.c - libFuzzer target over the reader of result documents
 * (aggregate/docread*.c) and the tools' escaping (tools/escape.c): the
 * input is parsed as JSON the way dr_doc__load does, wrapped, checked (as
 * every tool does, and as hpcshim drilldown's partial check), and, when
 * the check passes, every accessor is called over the whole document:
 * ranks, events, totals, presets, metrics, threads with their records,
 * series and traces, regions with their values, statistics and
 * drill-downs, the offline drill-down's scopes.  Every string read is
 * escaped for each medium.  Nothing may crash, leak or trip a sanitizer.
 * Built and run by tools/fuzz.sh beside fuzz_config.c; its corpus is
 * tests/fuzz/docread (the hostile files of tests/command/test_hostile.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "aggregate/docread.h"
#include "tools/escape.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	return 0;
}

static void str(const char *s)
{
	char *a, *b;

	if (!s)
		return;
	esc__html(sink, s);
	esc__term(sink, s);
	esc__csv(sink, s, ",");
	esc__csv(sink, s, ";;");
	esc__md(sink, s);
	a = esc__term_dup(s);
	b = esc__md_dup(s);
	fputs(esc__t(s), sink);
	free(a);
	free(b);
}

static void value(const struct dr_value *v)
{
	fprintf(sink, "%d%d%g%g%g%g%g%d%d", v->present, v->has, v->v, v->se, v->cov, v->en,
		v->run, v->mux, v->out);
}

static void drill(const struct dr_drill *x)
{
	double v;

	if (!x)
		return;
	for (int w = DR_DRILL_TREE; w <= DR_DRILL_SCOPE; w++)
		str(dr_drill__get(x, (enum dr_drill_str)w));
	for (size_t i = 0; i < dr_drill__nnodes(x); i++) {
		const struct dr_node *n = dr_drill__node(x, i);

		for (int w = DR_NODE_ID; w <= DR_NODE_REASON; w++)
			str(dr_node__get(n, (enum dr_node_str)w));
		dr_node__value(n, &v);
		dr_node__error(n, &v);
		fprintf(sink, "%d", dr_node__over(n));
	}
}

static void region(const struct dr_region *g)
{
	struct dr_percall pc;
	struct dr_value x;
	const char *ev;
	double v;

	str(dr_region__name(g));
	str(dr_region__id(g));
	str(dr_region__parent(g));
	dr_region__calls_num(g, &v);
	fprintf(sink, "%lld%lld%lld%g%g", dr_region__calls(g), dr_region__threads(g),
		dr_region__ranks(g), dr_region__wall(g, DR_INCLUSIVE),
		dr_region__wall(g, DR_EXCLUSIVE));
	for (int k = DR_INCLUSIVE; k <= DR_EXCLUSIVE; k++)
		for (size_t i = 0; (ev = dr_region__event(g, (enum dr_key)k, i)); i++) {
			str(ev);
			dr_region__value(g, (enum dr_key)k, ev, &x);
			value(&x);
			dr_region__metric(g, ev, &v);
		}
	dr_region__percall(g, &pc);
	str(pc.event);
	dr_region__percall_wall(g, &pc);
	drill(dr_region__drill(g, DR_INCLUSIVE));
	drill(dr_region__drill(g, DR_EXCLUSIVE));
}

static void thread(const struct dr_thread *t)
{
	const struct dr_series *se = dr_thread__series(t);
	struct dr_value x;
	const char *ev;
	double v;

	fprintf(sink, "%lld%lld%lld%g%lld", dr_thread__tid(t), dr_thread__omp(t),
		dr_thread__start_ns(t), dr_thread__wall(t), dr_thread__warnings(t));
	str(dr_thread__name(t));
	str(dr_thread__error(t));
	for (size_t i = 0; (ev = dr_thread__total_event(t, i)); i++) {
		dr_thread__total(t, ev, &x);
		value(&x);
	}
	for (size_t i = 0; i < dr_thread__nregions(t); i++)
		region(dr_thread__region(t, i));
	for (size_t i = 0; se && (ev = dr_series__event(se, i)); i++) {
		str(ev);
		for (size_t j = 0; j < dr_series__len(se, ev); j++) {
			dr_series__t(se, j, &v);
			dr_series__point(se, ev, j, &v);
			(void)dr_series__json(se, ev, j);
		}
		(void)dr_series__npoints(se, ev);
	}
	if (dr_thread__has_trace(t)) {
		str(dr_thread__trace_event(t));
		for (size_t i = 0; i < dr_thread__nspans(t); i++) {
			const struct dr_span *s = dr_thread__span(t, i);

			str(dr_span__region(s));
			fprintf(sink, "%lld%lld", dr_span__begin(s), dr_span__end(s));
			(void)dr_span__delta(s);
			(void)dr_span__depth(s);
		}
	}
}

static void document(const struct dr_doc *d)
{
	const char *ev, *reason, *models;
	struct dr_value x;
	struct dr_rank rk;
	struct dr_event e;
	double v;
	bool has, known;

	str(dr_doc__schema(d, &known));
	for (size_t k = 0; k < dr_doc__nranks(d); k++) {
		dr_doc__rank(d, k, &rk);
		str(rk.host);
		str(rk.end);
		for (size_t i = 0; (ev = dr_doc__total_event(d, i)); i++) {
			dr_doc__rank_value(d, k, ev, &x);
			value(&x);
		}
	}
	fprintf(sink, "%g%d%d%lld%lld", dr_doc__start_ns(d), dr_doc__size(d),
		dr_doc__generation(d), dr_doc__thread_count(d), dr_doc__uncovered_calls(d));
	str(dr_doc__job(d));
	for (size_t i = 0; i < dr_doc__nargs(d); i++)
		str(dr_doc__arg(d, i));
	for (size_t i = 0; i < dr_doc__nevents(d); i++) {
		dr_doc__event(d, i, &e);
		str(e.name);
		str(e.status);
		str(e.error);
		str(e.reason);
	}
	for (size_t i = 0; (ev = dr_doc__total_event(d, i)); i++) {
		dr_doc__total(d, ev, &x);
		value(&x);
	}
	for (int w = DR_PMU_PRIVILEGE; w <= DR_PMU_FALLBACK; w++)
		str(dr_doc__pmu(d, (enum dr_pmu)w));
	str(dr_doc__before_start(d));
	str(dr_doc__model(d));
	for (size_t i = 0; i < dr_doc__nsets(d); i++) {
		for (int w = DR_SET_KIND; w <= DR_SET_REASON; w++)
			str(dr_doc__set(d, i, (enum dr_set)w));
		for (size_t k = 0; k < dr_doc__set_nmetrics(d, i); k++) {
			const char *fo, *name = dr_doc__set_metric(d, i, k, &fo);

			str(name);
			str(fo);
			str(dr_doc__set_alias(d, i, "x"));
		}
	}
	for (size_t k = 0; k < dr_doc__nmetrics(d); k++)
		str(dr_doc__metric(d, k, &v, &has, &reason));
	for (size_t i = 0; i < dr_doc__nthreads(d); i++)
		thread(dr_doc__thread(d, i));
	for (size_t i = 0; i < dr_doc__nregions(d); i++) {
		const struct dr_region *g = dr_doc__region(d, i);

		region(g);
		if (dr_region__id(g))
			(void)dr_doc__region_named(d, dr_region__id(g));
	}
	(void)dr_doc__as_written(d, DR_WRITTEN_TOTALS);
	(void)dr_doc__as_written(d, DR_WRITTEN_WALL);
	drill(dr_doc__drill(d));
	if (dr_doc__is_offline(d)) {
		str(dr_doc__offline_tree(d, &models));
		for (size_t i = 0; i < dr_doc__nscopes(d); i++)
			drill(dr_doc__scope(d, i));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_tokener *tok = json_tokener_new();
	json_object *root;
	struct dr_doc *d;
	char why[512];

	if (!tok)
		return 0;
	root = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	if (!root)
		return 0;
	d = dr_doc__wrap(root);
	if (!d)
		return 0;
	if (dr_doc__check(d, why, sizeof(why)) == DR_OK ||
	    dr_doc__check_partial(d, why, sizeof(why)) == DR_OK)
		document(d);
	str(why);
	(void)dr_doc__is_result(d);
	dr_doc__free(d);
	return 0;
}
