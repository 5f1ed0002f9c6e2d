/* report_openmp.c - hpcshim report --view openmp: per OpenMP construct,
 * each thread's work against its wait at the implicit barrier, the
 * imbalance and the thread that held the others up (docs/openmp.md).
 *
 * Everything is read through aggregate/docread.h: the "openmp" part for
 * the figures, and each thread's record of the construct's wait region
 * for the task-clock it burnt waiting.
 */
#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tools/cmd.h"
#include "tools/results.h"

/* The task-clock of thread tid's record of region name (ns), or -1. */
static double wait_clock(const struct dr_doc *d, long long tid, const char *name)
{
	struct dr_value v;

	if (!name)
		return -1;
	for (size_t i = 0; i < dr_doc__nthreads(d); i++) {
		const struct dr_thread *t = dr_doc__thread(d, i);

		if (dr_thread__tid(t) != tid)
			continue;
		for (size_t k = 0; k < dr_thread__nregions(t); k++) {
			const struct dr_region *r = dr_thread__region(t, k);

			if (strcmp(dr_region__name(r), name) == 0 &&
			    dr_region__value(r, DR_INCLUSIVE, "task-clock", &v) && v.has)
				return v.v;
		}
	}
	return -1;
}

/* A thread's figures, in the order every form shows them: text, JSON
 * and CSV (whose first columns scripts read by position: keep them).  An
 * optional one is a text column only when some thread of the construct
 * has it. */
static const struct share_col {
	const char *key;  /* JSON and CSV */
	const char *head; /* text */
	size_t off;       /* in struct dr_omp_share */
	bool ns;          /* shown in ms in text */
	bool opt;
} cols[] = {
#define COL(k, h, ns, opt) { #k, h, offsetof(struct dr_omp_share, k), ns, opt }
	COL(calls, "calls", false, false),
	COL(work_ns, "work ms", true, false),
	COL(wait_ns, "wait ms", true, false),
	COL(last, "last", false, false),
	COL(barrier_ns, "barrier ms", true, false),
	COL(critical_wait_ns, "crit wait ms", true, false),
	COL(taskwait_ns, "taskwait ms", true, false),
	COL(task_ns, "task ms", true, false),
	COL(chunks, "chunks", false, false),
	COL(iterations, "iterations", false, false),
	COL(ordered, "ordered", false, true),
	COL(ordered_wait_ns, "ord wait ms", true, true),
	COL(atomics, "atomics", false, true),
	COL(atomic_wait_ns, "atom wait ms", true, true),
	COL(taskloops, "taskloops", false, true),
	COL(taskloop_ns, "taskloop ms", true, true),
#undef COL
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static long long col__get(const struct dr_omp_share *s, size_t i)
{
	return *(const long long *)((const char *)s + cols[i].off);
}

static double share_of(long long part, long long whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

static void text__construct(const struct dr_doc *d, const struct dr_omp *c)
{
	struct dr_omp_construct k;

	dr_omp__get(c, &k);
	printf("\n%s\n", k.region ? k.region : "?");
	printf("  teams %lld, threads %lld", k.teams, k.threads);
	if (k.has_imbalance)
		printf(", imbalance %.3f", k.imbalance);
	if (k.has_wait_share)
		printf(", waiting %.1f%% of the team's time", 100 * k.wait_share);
	if (k.slowest_omp_thread >= 0)
		printf(", slowest: omp thread %lld (tid %lld)", k.slowest_omp_thread,
		       k.slowest_tid);
	bool show[NCOLS];

	for (size_t j = 0; j < NCOLS; j++) {
		show[j] = !cols[j].opt;
		for (size_t i = 0; i < dr_omp__nshares(c) && !show[j]; i++) {
			struct dr_omp_share s;

			dr_omp__share(c, i, &s);
			show[j] = col__get(&s, j) != 0;
		}
	}
	printf("\n  %10s %8s", "omp_thread", "tid");
	for (size_t j = 0; j < NCOLS; j++) {
		if (show[j])
			printf(" %*s", (int)strlen(cols[j].head) > 10 ? (int)strlen(cols[j].head) : 10,
			       cols[j].head);
		if (cols[j].off == offsetof(struct dr_omp_share, wait_ns))
			printf(" %7s", "wait %");
	}
	printf(" %11s\n", "wait clk ms");
	for (size_t i = 0; i < dr_omp__nshares(c); i++) {
		struct dr_omp_share s;
		double clk;

		dr_omp__share(c, i, &s);
		clk = wait_clock(d, s.tid, k.wait_region);
		printf("  %10lld %8lld", s.omp_thread, s.tid);
		for (size_t j = 0; j < NCOLS; j++) {
			int w = (int)strlen(cols[j].head) > 10 ? (int)strlen(cols[j].head) : 10;

			if (show[j] && cols[j].ns)
				printf(" %*.3f", w, col__get(&s, j) / 1e6);
			else if (show[j])
				printf(" %*lld", w, col__get(&s, j));
			if (cols[j].off == offsetof(struct dr_omp_share, wait_ns))
				printf(" %7.1f", share_of(s.wait_ns, s.work_ns + s.wait_ns));
		}
		if (clk >= 0)
			printf(" %11.3f\n", clk / 1e6);
		else
			printf(" %11s\n", "-");
	}
}

#define I64(o, k, v) json_object_object_add(o, k, json_object_new_int64(v))

static struct json_object *json__construct(const struct dr_doc *d, const char *path,
					   const struct dr_omp *c)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct dr_omp_construct k;

	dr_omp__get(c, &k);
	json_object_object_add(o, "file", json_object_new_string(path));
	json_object_object_add(o, "region", k.region ? json_object_new_string(k.region) : NULL);
	I64(o, "teams", k.teams);
	I64(o, "threads", k.threads);
	json_object_object_add(o, "imbalance",
			       k.has_imbalance ? json_object_new_double(k.imbalance) : NULL);
	json_object_object_add(o, "wait_share",
			       k.has_wait_share ? json_object_new_double(k.wait_share) : NULL);
	I64(o, "slowest_omp_thread", k.slowest_omp_thread);
	for (size_t i = 0; i < dr_omp__nshares(c); i++) {
		struct json_object *t = json_object_new_object();
		struct dr_omp_share s;
		double clk;

		dr_omp__share(c, i, &s);
		clk = wait_clock(d, s.tid, k.wait_region);
		I64(t, "omp_thread", s.omp_thread);
		I64(t, "tid", s.tid);
		for (size_t j = 0; j < NCOLS; j++)
			I64(t, cols[j].key, col__get(&s, j));
		json_object_object_add(t, "wait_task_clock_ns",
				       clk >= 0 ? json_object_new_int64((long long)clk) : NULL);
		json_object_array_add(a, t);
	}
	json_object_object_add(o, "per_thread", a);
	return o;
}

/* s between double quotes, a quote in it doubled (RFC 4180). */
static void csv__quoted(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* One line per construct and thread: the file, the construct, then the
 * thread's figures (the header line first). */
static void csv__construct(const struct dr_doc *d, const char *path, const struct dr_omp *c,
			   const char *sep)
{
	struct dr_omp_construct k;

	dr_omp__get(c, &k);
	for (size_t i = 0; i < dr_omp__nshares(c); i++) {
		struct dr_omp_share s;
		double clk;

		dr_omp__share(c, i, &s);
		clk = wait_clock(d, s.tid, k.wait_region);
		csv__quoted(path);
		fputs(sep, stdout);
		csv__quoted(k.region);
		printf("%s%lld%s%lld", sep, s.omp_thread, sep, s.tid);
		for (size_t j = 0; j < NCOLS; j++)
			printf("%s%lld", sep, col__get(&s, j));
		fputs(sep, stdout);
		if (clk >= 0)
			printf("%.0f", clk);
		putchar('\n');
	}
}

void report__openmp(const struct results *s, bool json, const char *csv)
{
	struct json_object *all = json ? json_object_new_array() : NULL;

	if (csv) {
		printf("file%sregion%somp_thread%stid", csv, csv, csv);
		for (size_t j = 0; j < NCOLS; j++)
			printf("%s%s", csv, cols[j].key);
		printf("%swait_task_clock_ns\n", csv);
		for (size_t i = 0; i < s->n; i++)
			for (size_t k = 0; k < dr_doc__nomp(s->r[i].doc); k++)
				if (dr_doc__omp(s->r[i].doc, k))
					csv__construct(s->r[i].doc, s->r[i].path,
						       dr_doc__omp(s->r[i].doc, k), csv);
		return;
	}

	for (size_t i = 0; i < s->n; i++) {
		const struct dr_doc *d = s->r[i].doc;
		struct dr_omp_runtime rt;

		if (!json && s->n > 1)
			printf("%s==> %s <==\n", i ? "\n" : "", s->r[i].path);
		if (!dr_doc__omp_runtime(d, &rt)) {
			if (!json)
				printf("no OpenMP runtime in %s\n", s->r[i].path);
			continue;
		}
		if (!json) {
			printf("openmp: %s (%s), %s", rt.runtime ? rt.runtime : "unknown runtime",
			       rt.library ? rt.library : "?",
			       rt.recorded ? "recorded" : "not recorded");
			if (!rt.recorded && rt.reason)
				printf(": %s", rt.reason);
			printf(", %zu constructs\n", dr_doc__nomp(d));
		}
		for (size_t k = 0; k < dr_doc__nomp(d); k++) {
			const struct dr_omp *c = dr_doc__omp(d, k);

			if (!c)
				continue;
			if (json)
				json_object_array_add(all, json__construct(d, s->r[i].path, c));
			else
				text__construct(d, c);
		}
	}
	if (json) {
		puts(json_object_to_json_string_ext(all, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(all);
	}
}
