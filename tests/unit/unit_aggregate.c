/* unit_aggregate.c - count scaling, statistics, region tables, JSON writer.
 *
 * TAP through tests/unit/tap.h.  The JSON part builds an agg_process by hand,
 * writes it with agg_process__write into a fresh directory and reads it back
 * with json-c, so every number checked is what a reader of the file sees.
 * The streamed writer's formatters are checked against the text json-c
 * itself prints for the same values (the file must not change).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "aggregate/aggregate.h"
#include "aggregate/docread.h"
#include "aggregate/out.h"
#include "aggregate/result.h"
#include "aggregate/section.h"
#include "aggregate/jsonutil.h"
#include "common/strtab.h"
#include "aggregate/view.h"
#include "tests/unit/tap.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) > fabs(b) ? fabs(a) : fabs(b)) + 1e-12;
}

/* ---- hs_count__estimate / hs_count__coverage --------------------------------- */

static void test_count(void)
{
	static const struct {
		int line;
		struct count c;
		bool known;
		double est, cov;
	} rows[] = {
		{ __LINE__, { 123, 50, 50 }, true, 123.0, 1.0 },       /* exact */
		{ __LINE__, { 7, 0, 0 }, true, 7.0, 1.0 },             /* nothing enabled yet */
		{ __LINE__, { 0, 0, 0 }, true, 0.0, 1.0 },
		{ __LINE__, { 100, 1000, 250 }, true, 400.0, 0.25 },   /* multiplexed */
		{ __LINE__, { 3, 3, 1 }, true, 9.0, 1.0 / 3.0 },
		{ __LINE__, { 1000000000000ull, 4000000, 1000000 }, true, 4e12, 0.25 },
		{ __LINE__, { 0, 1000, 500 }, true, 0.0, 0.5 },        /* ran, counted nothing */
		{ __LINE__, { 0, 1000, 0 }, false, 0.0, 0.0 },         /* never ran */
		{ __LINE__, { 55, 1000, 0 }, false, 0.0, 0.0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double v = -12345.0;
		bool known = hs_count__estimate(&rows[i].c, &v);

		TAP_OK(known == rows[i].known,
		       "row %d: estimate of {%llu, %llu, %llu} %s", rows[i].line,
		       (unsigned long long)rows[i].c.value,
		       (unsigned long long)rows[i].c.enabled,
		       (unsigned long long)rows[i].c.running,
		       rows[i].known ? "is known" : "is unknown (never ran)");
		if (rows[i].known)
			TAP_OK(near(v, rows[i].est), "row %d: estimate %.6g == %.6g",
			       rows[i].line, v, rows[i].est);
		TAP_OK(near(hs_count__coverage(&rows[i].c), rows[i].cov),
		       "row %d: coverage %.6g == %.6g", rows[i].line,
		       hs_count__coverage(&rows[i].c), rows[i].cov);
	}
	{
		/* Equal but odd times: any scaling would still give the value,
		 * so use times whose ratio is not representable exactly. */
		struct count c = { 123456789, 3, 3 };
		double v = 0;

		TAP_OK(hs_count__estimate(&c, &v) && v == 123456789.0,
		       "running == enabled returns the raw value unscaled (%.1f)", v);
	}
	{
		struct count a = { 10, 100, 50 }, b = { 4, 40, 20 }, d;

		count__sub(&d, &a, &b);
		TAP_OK(d.value == 6 && d.enabled == 60 && d.running == 30,
		       "count__sub field by field");
		count__add(&d, &b);
		TAP_OK(d.value == 10 && d.enabled == 100 && d.running == 50,
		       "count__add field by field");
	}
}

/* ---- agg_stat ----------------------------------------------------------- */

static void test_stat(void)
{
	struct agg_stat s;

	memset(&s, 0, sizeof(s));
	TAP_OK(agg_stat__mean(&s) == 0.0 && s.n == 0, "empty stat: mean 0, n 0");

	agg_stat__add(&s, -5.0);
	agg_stat__add(&s, 0.0);
	agg_stat__add(&s, 10.0);
	TAP_OK(s.n == 3 && near(s.sum, 5.0) && s.min == -5.0 && s.max == 10.0,
	       "{-5, 0, 10}: n 3 sum 5 min -5 max 10 (n %llu sum %g min %g max %g)",
	       (unsigned long long)s.n, s.sum, s.min, s.max);
	TAP_OK(near(agg_stat__mean(&s), 5.0 / 3.0), "{-5, 0, 10}: mean 5/3 (%g)",
	       agg_stat__mean(&s));

	memset(&s, 0, sizeof(s));
	agg_stat__add(&s, -3.0);
	agg_stat__add(&s, -7.0);
	TAP_OK(s.min == -7.0 && s.max == -3.0 && near(agg_stat__mean(&s), -5.0),
	       "all negative: max -3 not 0, min -7, mean -5 (min %g max %g)",
	       s.min, s.max);

	memset(&s, 0, sizeof(s));
	agg_stat__add(&s, 4.0);
	agg_stat__add(&s, 9.0);
	TAP_OK(s.min == 4.0 && s.max == 9.0, "all positive: min 4 not 0 (min %g)",
	       s.min);

	memset(&s, 0, sizeof(s));
	agg_stat__add(&s, 0.0);
	TAP_OK(s.n == 1 && s.sum == 0.0 && s.min == 0.0 && s.max == 0.0 &&
	       agg_stat__mean(&s) == 0.0, "single zero");
}

/* ---- agg_thread region table -------------------------------------------- */

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

#define NMANY 10000

static void test_thread(void)
{
	struct agg_thread *t = agg_thread__new(77, 2);
	struct agg_region *a, *b, *r[100], **many;
	char buf[32], other[32];
	int bad;

	TAP_OK(t && t->tid == 77 && t->nev == 2 && t->head == NULL &&
	       t->nregions == 0 && t->totals && t->totals[0].value == 0 &&
	       t->totals[1].enabled == 0,
	       "agg_thread__new: tid, nev, empty table, zeroed totals");
	if (!t)
		return;

	a = agg_thread__region(t, "alpha");
	b = agg_thread__region(t, "beta");
	TAP_OK(a && b && a != b, "different names -> different records");
	TAP_OK(agg_thread__region(t, "alpha") == a &&
	       agg_thread__region(t, "beta") == b && t->nregions == 2,
	       "same name -> same record (nregions %zu)", t->nregions);
	TAP_OK(a && strcmp(a->name, "alpha") == 0 && a->calls == 0 && a->nev == 2 &&
	       a->c[0].value == 0 && a->c[3].running == 0,
	       "fresh record: name copied, no calls, zero counts");

	/* Names built at run time in one reused buffer. */
	for (int i = 0; i < 100; i++) {
		snprintf(buf, sizeof(buf), "loop/%d", i);
		r[i] = agg_thread__region(t, buf);
	}
	bad = 0;
	for (int i = 0; i < 100; i++) {
		snprintf(other, sizeof(other), "loop/%d", i);
		if (!r[i] || r[i]->name == buf || strcmp(r[i]->name, other) != 0 ||
		    agg_thread__region(t, other) != r[i])
			bad++;
		for (int j = 0; j < i; j++)
			bad += r[i] == r[j];
	}
	TAP_OK(bad == 0, "100 names snprintf'd into a reused buffer keep their "
	       "own records and copies (%d bad)", bad);
	TAP_OK(t->nregions == 102, "102 records (%zu)", t->nregions);

	/* Insertion order: alpha, beta, loop/0 .. loop/99. */
	{
		const struct agg_region *x = t->head;
		int k = 0;

		bad = 0;
		for (; x; x = x->next, k++) {
			if (k == 0) bad += strcmp(x->name, "alpha") != 0;
			else if (k == 1) bad += strcmp(x->name, "beta") != 0;
			else {
				snprintf(other, sizeof(other), "loop/%d", k - 2);
				bad += strcmp(x->name, other) != 0;
			}
		}
		TAP_OK(bad == 0 && k == 102 && t->tail == r[99],
		       "head/next list keeps first-use order (%d records, %d out "
		       "of order)", k, bad);
	}
	{ /* the region tree: a new record notes its parent, an old one keeps it */
		struct agg_region *c = agg_thread__add(t, "gamma", a);

		TAP_OK(c && c->parent == a && a->parent == NULL &&
		       agg_thread__find(t, "gamma") == c &&
		       agg_thread__region(t, "gamma") == c && t->tail == c &&
		       c->parent == a,
		       "agg_thread__add: the parent noted, the record found and linked");
	}
	agg_thread__set_totals(t, (const struct count[2]){ { 1, 2, 3 }, { 4, 5, 6 } });
	TAP_OK(t->totals[0].value == 1 && t->totals[0].running == 3 &&
	       t->totals[1].value == 4 && t->totals[1].enabled == 5,
	       "agg_thread__set_totals copies nev counts");
	agg_thread__delete(t);

	/* 10,000 distinct names in a fresh thread: table growth. */
	t = agg_thread__new(78, 1);
	many = calloc(NMANY, sizeof(*many));
	if (!t || !many) {
		TAP_OK(0, "allocation for the 10,000-name test");
		free(many);
		agg_thread__delete(t);
		return;
	}
	for (int i = 0; i < NMANY; i++) {
		snprintf(buf, sizeof(buf), "region-%d", i);
		many[i] = agg_thread__region(t, buf);
	}
	bad = 0;
	for (int i = 0; i < NMANY; i++) {
		snprintf(other, sizeof(other), "region-%d", i);
		if (!many[i] || strcmp(many[i]->name, other) != 0 ||
		    agg_thread__region(t, other) != many[i])
			bad++;
	}
	TAP_OK(bad == 0 && t->nregions == NMANY,
	       "10,000 names all retrievable after growth (%d bad, %zu records)",
	       bad, t->nregions);
	{
		const struct agg_region *x = t->head;
		int k = 0;

		bad = 0;
		for (; x; x = x->next, k++)
			bad += k >= NMANY || x != many[k];
		TAP_OK(bad == 0 && k == NMANY,
		       "10,000-record list in insertion order (%d walked, %d bad)",
		       k, bad);
	}
	qsort(many, NMANY, sizeof(*many), cmp_ptr);
	bad = 0;
	for (int i = 1; i < NMANY; i++)
		bad += many[i] == many[i - 1];
	TAP_OK(bad == 0, "10,000 records are distinct (%d shared)", bad);
	free(many);
	agg_thread__delete(t);

	/* agg_region__add: calls, inclusive (optional), exclusive. */
	t = agg_thread__new(79, 2);
	a = t ? agg_thread__region(t, "acc") : NULL;
	if (!a) {
		TAP_OK(0, "allocation for the accumulation test");
		agg_thread__delete(t);
		return;
	}
	{
		const struct count incl[2] = { { 10, 1, 1 }, { 20, 2, 2 } };
		const struct count excl[2] = { { 5, 1, 1 }, { 7, 2, 1 } };
		const struct count excl2[2] = { { 1, 1, 1 }, { 1, 1, 1 } };

		agg_region__add(a, incl, excl, 2);
		agg_region__add(a, incl, excl, 2);
		agg_region__add(a, NULL, excl2, 2); /* inner recursion level */
	}
	TAP_OK(a->calls == 3, "calls accumulate (3, got %llu)",
	       (unsigned long long)a->calls);
	TAP_OK(a->c[0].value == 20 && a->c[0].enabled == 2 && a->c[0].running == 2 &&
	       a->c[1].value == 40 && a->c[1].enabled == 4 && a->c[1].running == 4,
	       "inclusive sums only the calls that passed incl (ev0 %llu ev1 %llu)",
	       (unsigned long long)a->c[0].value, (unsigned long long)a->c[1].value);
	TAP_OK(a->c[2].value == 11 && a->c[2].enabled == 3 && a->c[2].running == 3 &&
	       a->c[3].value == 15 && a->c[3].enabled == 5 && a->c[3].running == 3,
	       "exclusive sums every call (ev0 %llu ev1 %llu/%llu/%llu)",
	       (unsigned long long)a->c[2].value, (unsigned long long)a->c[3].value,
	       (unsigned long long)a->c[3].enabled, (unsigned long long)a->c[3].running);
	agg_thread__delete(t);
}

/* ---- JSON round trip ------------------------------------------------------ */

/* Walks "a.b[2].c".  True when the path exists; *out is then the value,
 * which is NULL for a JSON null. */
static bool jget(json_object *root, const char *path, json_object **out)
{
	json_object *o = root;
	const char *p = path;
	char key[128];

	while (*p) {
		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			char *end;
			long idx = strtol(p + 1, &end, 10);

			if (*end != ']' || !json_object_is_type(o, json_type_array) ||
			    idx < 0 || (size_t)idx >= json_object_array_length(o))
				return false;
			o = json_object_array_get_idx(o, (size_t)idx);
			p = end + 1;
			continue;
		}
		{
			size_t n = strcspn(p, ".[");

			if (n >= sizeof(key) || !json_object_is_type(o, json_type_object))
				return false;
			memcpy(key, p, n);
			key[n] = '\0';
			if (!json_object_object_get_ex(o, key, &o))
				return false;
			p += n;
		}
	}
	*out = o;
	return true;
}

static bool jint(json_object *root, const char *path, int64_t want)
{
	json_object *o;

	return jget(root, path, &o) && json_object_is_type(o, json_type_int) &&
	       json_object_get_int64(o) == want;
}

static bool jnum(json_object *root, const char *path, double want)
{
	json_object *o;

	return jget(root, path, &o) &&
	       (json_object_is_type(o, json_type_int) ||
		json_object_is_type(o, json_type_double)) &&
	       near(json_object_get_double(o), want);
}

static bool jstr(json_object *root, const char *path, const char *want)
{
	json_object *o;

	return jget(root, path, &o) && json_object_is_type(o, json_type_string) &&
	       strcmp(json_object_get_string(o), want) == 0;
}

static bool jbool(json_object *root, const char *path, bool want)
{
	json_object *o;

	return jget(root, path, &o) && json_object_is_type(o, json_type_boolean) &&
	       (bool)json_object_get_boolean(o) == want;
}

static bool jnull(json_object *root, const char *path)
{
	json_object *o = (json_object *)1;

	return jget(root, path, &o) && o == NULL;
}

static bool jabsent(json_object *root, const char *path)
{
	json_object *o;

	return !jget(root, path, &o);
}

/* Index of the regions[] entry with that name, or -1. */
static int region_index(json_object *doc, const char *name)
{
	json_object *a;

	if (!jget(doc, "regions", &a) || !json_object_is_type(a, json_type_array))
		return -1;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *n;
		if (json_object_object_get_ex(json_object_array_get_idx(a, i), "name", &n) &&
		    strcmp(json_object_get_string(n), name) == 0)
			return (int)i;
	}
	return -1;
}

#define NEV 3
enum { TC, PF, BOGUS };

static const char BOGUS_REASON[] = "unknown event: not a perf generic or "
	"software name, not raw rNNNN, and libpfm4 says: event not found";

/* Two threads: t1 has page-faults multiplexed (running < enabled), t2 has
 * it never running (running == 0).  Both have region "r"; t1 also "only1". */
static void build_process(struct agg_process *p, struct agg_event *ev,
			  struct agg_thread **t1p, struct agg_thread **t2p)
{
	static char a0[] = "prog", a1[] = "--flag";
	static char *argv[] = { a0, a1, NULL };
	struct agg_thread *t1 = agg_thread__new(1001, NEV);
	struct agg_thread *t2 = agg_thread__new(1002, NEV);
	struct agg_region *r;

	memset(ev, 0, NEV * sizeof(*ev));
	ev[TC] = (struct agg_event){ .name = "task-clock", .ok = true,
		.source = "software", .encoding = "", .privilege = "user+kernel",
		.group = 0 };
	ev[PF] = (struct agg_event){ .name = "page-faults", .ok = true,
		.source = "software", .encoding = "", .privilege = "user",
		.downgraded = true, .group = 1 };
	ev[BOGUS] = (struct agg_event){ .name = "bogus", .ok = false,
		.source = "unknown", .encoding = "", .group = -1, .err = ENOENT,
		.errname = "ENOENT", .reason = BOGUS_REASON };

	memset(p, 0, sizeof(*p));
	p->pid = 4242;
	p->ppid = 4241;
	p->host = "testhost";
	p->rank = -1;
	p->argv = argv;
	p->argc = 2;
	p->start_ns = 1000;
	p->end_ns = 5000;
	p->complete = true;
	p->end = "exit";
	p->version = "0.0-test";
	p->nev = NEV;
	p->ev = ev;
	p->pmu = (struct agg_pmu_info){ .cpu_pmu = "", .hardware = false,
		.fallback = "no hardware PMU", .privilege = "mixed", .paranoid = 2 };

	*t1p = t1;
	*t2p = t2;
	if (!t1 || !t2)
		return;
	t1->next = t2;
	p->threads = t1;

	agg_thread__set_totals(t1, (const struct count[NEV]){
		{ 1000000, 5000, 5000 }, { 300, 4000, 1000 }, { 0, 0, 0 } });
	agg_thread__set_totals(t2, (const struct count[NEV]){
		{ 2000000, 8000, 8000 }, { 0, 4000, 0 }, { 0, 0, 0 } });

	r = agg_thread__region(t1, "r");
	for (int i = 0; i < 3 && r; i++)
		agg_region__add(r,
			(const struct count[NEV]){ { 200, 10, 10 }, { 5, 20, 10 }, { 0, 0, 0 } },
			(const struct count[NEV]){ { 100, 10, 10 }, { 2, 20, 10 }, { 0, 0, 0 } },
			NEV);
	r = agg_thread__region(t1, "only1");
	if (r)
		agg_region__add(r, NULL,
			(const struct count[NEV]){ { 50, 5, 5 }, { 1, 1, 1 }, { 0, 0, 0 } },
			NEV);
	r = agg_thread__region(t2, "r");
	for (int i = 0; i < 2 && r; i++)
		agg_region__add(r,
			(const struct count[NEV]){ { 450, 7, 7 }, { 0, 20, 0 }, { 0, 0, 0 } },
			(const struct count[NEV]){ { 400, 7, 7 }, { 0, 20, 0 }, { 0, 0, 0 } },
			NEV);
}

/* Process totals read back equal the sum of the threads' known totals. */
static void check_totals_sum(json_object *doc)
{
	static const char *const names[] = { "task-clock", "page-faults" };

	for (size_t e = 0; e < 2; e++) {
		char path[128];
		double sum = 0;
		int known = 0;
		json_object *o;

		for (int t = 0; t < 2; t++) {
			snprintf(path, sizeof(path), "threads[%d].totals.%s", t, names[e]);
			if (jget(doc, path, &o) && o) {
				sum += json_object_get_double(o);
				known++;
			}
		}
		snprintf(path, sizeof(path), "totals.%s", names[e]);
		TAP_OK(known > 0 && jnum(doc, path, sum),
		       "totals.%s == sum of the %d known thread totals (%.0f)",
		       names[e], known, sum);
	}
}

static void check_document(json_object *doc)
{
	int ri, oi;
	char path[128];

	TAP_OK(jstr(doc, "schema", AGG_SCHEMA), "schema is %s", AGG_SCHEMA);
	TAP_OK(jstr(doc, "tool.name", "hpcshim") && jstr(doc, "tool.version", "0.0-test"),
	       "tool name and version");
	TAP_OK(jint(doc, "process.pid", 4242) && jint(doc, "process.ppid", 4241) &&
	       jstr(doc, "process.host", "testhost") && jnull(doc, "process.rank") &&
	       jnull(doc, "process.size") && jnull(doc, "process.job"),
	       "process pid, ppid, host; rank null when not an MPI rank");
	TAP_OK(jstr(doc, "process.command[0]", "prog") &&
	       jstr(doc, "process.command[1]", "--flag") &&
	       jabsent(doc, "process.command[2]"), "process.command is argv");
	TAP_OK(jint(doc, "process.start_ns", 1000) && jint(doc, "process.end_ns", 5000),
	       "process start/end ns");
	TAP_OK(jnull(doc, "pmu.cpu_pmu") && jstr(doc, "pmu.fallback", "no hardware PMU") &&
	       jstr(doc, "pmu.privilege", "mixed") && jint(doc, "pmu.perf_event_paranoid", 2),
	       "pmu block: no cpu_pmu, fallback, privilege, paranoid");

	/* events */
	TAP_OK(jstr(doc, "events[0].name", "task-clock") &&
	       jstr(doc, "events[0].status", "ok") &&
	       jstr(doc, "events[0].privilege", "user+kernel") &&
	       jint(doc, "events[0].group", 0) && jabsent(doc, "events[0].reason") &&
	       jabsent(doc, "events[0].downgraded"),
	       "events[0]: ok, user+kernel, group 0, no reason");
	TAP_OK(jstr(doc, "events[1].privilege", "user") &&
	       jbool(doc, "events[1].downgraded", true),
	       "events[1]: user-only and marked downgraded");
	TAP_OK(jstr(doc, "events[2].name", "bogus") &&
	       jstr(doc, "events[2].status", "dropped") &&
	       jstr(doc, "events[2].reason", BOGUS_REASON) &&
	       jint(doc, "events[2].errno", ENOENT) &&
	       jstr(doc, "events[2].error", "ENOENT") &&
	       jabsent(doc, "events[2].group"),
	       "events[2]: dropped with errno, error name and reason");
	TAP_OK(jabsent(doc, "events[3]"), "exactly 3 events");

	/* thread totals */
	TAP_OK(jint(doc, "thread_count", 2) && jint(doc, "threads[0].tid", 1001) &&
	       jint(doc, "threads[1].tid", 1002), "two threads in list order");
	TAP_OK(jint(doc, "threads[0].totals.task-clock", 1000000) &&
	       jint(doc, "threads[1].totals.task-clock", 2000000),
	       "exact thread totals are the raw counts");
	TAP_OK(jint(doc, "threads[0].totals.page-faults", 1200),
	       "multiplexed total is the scaled estimate 300*4000/1000 = 1200");
	TAP_OK(jint(doc, "threads[0].totals_multiplexed.page-faults.raw", 300) &&
	       jint(doc, "threads[0].totals_multiplexed.page-faults.enabled", 4000) &&
	       jint(doc, "threads[0].totals_multiplexed.page-faults.running", 1000) &&
	       jnum(doc, "threads[0].totals_multiplexed.page-faults.coverage", 0.25),
	       "totals_multiplexed carries raw, enabled, running, coverage 0.25");
	TAP_OK(jabsent(doc, "threads[0].totals_multiplexed.task-clock"),
	       "no multiplexed entry for an exact event");
	TAP_OK(jnull(doc, "threads[1].totals.page-faults"),
	       "running == 0 total is null, not 0");
	TAP_OK(jnum(doc, "threads[1].totals_multiplexed.page-faults.coverage", 0.0),
	       "running == 0 total reported with coverage 0");
	TAP_OK(jabsent(doc, "threads[0].totals.bogus") && jabsent(doc, "totals.bogus"),
	       "dropped event has no counts");
	TAP_OK(jint(doc, "totals.task-clock", 3000000) &&
	       jint(doc, "totals.page-faults", 1200),
	       "process totals: task-clock 3000000, page-faults 1200 (only "
	       "the thread that ran)");
	check_totals_sum(doc);
	{
		/* Keyed objects hold exactly the ok events, in events order. */
		json_object *o;
		int k = 0, bad = 0;

		if (jget(doc, "totals", &o) && json_object_is_type(o, json_type_object)) {
			json_object_object_foreach(o, key, val) {
				(void)val;
				bad += k > 1 || strcmp(key, k == 0 ? "task-clock" : "page-faults") != 0;
				k++;
			}
		}
		TAP_OK(k == 2 && bad == 0, "totals keys: task-clock, page-faults in "
		       "events order (%d keys, %d wrong)", k, bad);
	}

	/* per-thread regions, insertion order */
	TAP_OK(jstr(doc, "threads[0].regions[0].name", "r") &&
	       jstr(doc, "threads[0].regions[1].name", "only1") &&
	       jabsent(doc, "threads[0].regions[2]") &&
	       jstr(doc, "threads[1].regions[0].name", "r"),
	       "thread regions listed in first-use order");
	TAP_OK(jint(doc, "threads[0].regions[0].calls", 3) &&
	       jint(doc, "threads[0].regions[0].inclusive.task-clock", 600) &&
	       jint(doc, "threads[0].regions[0].exclusive.task-clock", 300) &&
	       jint(doc, "threads[0].regions[0].inclusive.page-faults", 30) &&
	       jint(doc, "threads[0].regions[0].exclusive.page-faults", 12),
	       "t1 region r: calls 3, incl/excl exact and scaled");
	TAP_OK(jnum(doc, "threads[0].regions[0].inclusive_multiplexed.page-faults.coverage", 0.5),
	       "t1 region r: inclusive_multiplexed coverage 0.5");
	TAP_OK(jnull(doc, "threads[1].regions[0].inclusive.page-faults") &&
	       jint(doc, "threads[1].regions[0].inclusive.task-clock", 900),
	       "t2 region r: never-running event null, exact one 900");
	TAP_OK(jint(doc, "threads[0].regions[1].calls", 1) &&
	       jint(doc, "threads[0].regions[1].inclusive.task-clock", 0) &&
	       jint(doc, "threads[0].regions[1].exclusive.task-clock", 50),
	       "t1 region only1: inclusive skipped (0), exclusive 50");

	/* regions across threads */
	ri = region_index(doc, "r");
	oi = region_index(doc, "only1");
	TAP_OK(ri == 0 && oi == 1 && region_index(doc, "nope") < 0 &&
	       jabsent(doc, "regions[2]"),
	       "regions[]: r then only1 (first appearance along threads[]), "
	       "nothing else (r %d only1 %d)", ri, oi);
	if (ri < 0 || oi < 0)
		return;
#define RP(fmt) (snprintf(path, sizeof(path), "regions[%d]." fmt, ri), path)
	TAP_OK(jint(doc, RP("calls"), 5), "region r calls = 3 + 2");
	TAP_OK(jint(doc, RP("threads"), 2), "region r threads = 2");
	TAP_OK(jnum(doc, RP("inclusive.task-clock.sum"), 1500) &&
	       jnum(doc, RP("inclusive.task-clock.min"), 600) &&
	       jnum(doc, RP("inclusive.task-clock.max"), 900) &&
	       jnum(doc, RP("inclusive.task-clock.mean"), 750) &&
	       jint(doc, RP("inclusive.task-clock.threads"), 2),
	       "region r inclusive task-clock sum 1500 min 600 max 900 mean 750");
	TAP_OK(jnum(doc, RP("exclusive.task-clock.sum"), 1100) &&
	       jnum(doc, RP("exclusive.task-clock.min"), 300) &&
	       jnum(doc, RP("exclusive.task-clock.max"), 800) &&
	       jnum(doc, RP("exclusive.task-clock.mean"), 550),
	       "region r exclusive task-clock sum 1100 min 300 max 800 mean 550");
	TAP_OK(jnum(doc, RP("inclusive.page-faults.sum"), 30) &&
	       jint(doc, RP("inclusive.page-faults.threads"), 1) &&
	       jnum(doc, RP("inclusive.page-faults.mean"), 30),
	       "region r page-faults: the never-running thread is left out, "
	       "not counted as 0");
	TAP_OK(jabsent(doc, RP("inclusive.bogus")), "region r: no dropped event");
#undef RP
	snprintf(path, sizeof(path), "regions[%d].calls", oi);
	TAP_OK(jint(doc, path, 1), "region only1 calls 1");
	snprintf(path, sizeof(path), "regions[%d].threads", oi);
	TAP_OK(jint(doc, path, 1), "region only1 threads 1");
}

/* Names in dir: *json regular files, *hidden entries (besides . and ..). */
static void scan_dir(const char *dir, int *json, int *hidden, int *tmp)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*json = *hidden = *tmp = 0;
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_name[0] == '.')
			(*hidden)++;
		if (n > 4 && strcmp(de->d_name + n - 4, ".tmp") == 0)
			(*tmp)++;
		if (n > 5 && strcmp(de->d_name + n - 5, ".json") == 0)
			(*json)++;
	}
	closedir(d);
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static void test_json(void)
{
	char tmpl[] = "/tmp/hpcshim-unit-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char path[4096], path2[4096], path3[4096], want[4096], err[512];
	struct agg_event ev[NEV];
	struct agg_process p;
	struct agg_thread *t1, *t2;
	json_object *doc;
	int rc, njson, nhidden, ntmp;

	if (!dir) {
		TAP_OK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	build_process(&p, ev, &t1, &t2);
	if (!t1 || !t2) {
		TAP_OK(0, "agg_thread__new for the JSON test");
		agg_thread__delete(t1);
		agg_thread__delete(t2);
		remove_dir(dir);
		return;
	}

	err[0] = '\0';
	rc = agg_process__write(&p, dir, path, sizeof(path), err, sizeof(err));
	snprintf(want, sizeof(want), "%s/hpcshim-testhost-4242.json", dir);
	TAP_OK(rc == 0 && strcmp(path, want) == 0,
	       "write: rc %d, path %s (err '%s')", rc, rc == 0 ? path : "-", err);
	doc = rc == 0 ? json_object_from_file(path) : NULL;
	TAP_OK(doc != NULL, "result file parses as JSON");
	if (doc) {
		check_document(doc);
		json_object_put(doc);
	}

	/* Same pid again: a second file, the first one untouched. */
	p.uncovered_calls = 7;
	rc = agg_process__write(&p, dir, path2, sizeof(path2), err, sizeof(err));
	snprintf(want, sizeof(want), "%s/hpcshim-testhost-4242-1.json", dir);
	TAP_OK(rc == 0 && strcmp(path2, want) == 0,
	       "second write with the same pid -> %s (rc %d, err '%s')",
	       rc == 0 ? path2 : "-", rc, rc == 0 ? "" : err);
	doc = json_object_from_file(path);
	TAP_OK(doc && jint(doc, "uncovered_region_calls", 0),
	       "first file not overwritten (uncovered_region_calls still 0)");
	json_object_put(doc);
	doc = rc == 0 ? json_object_from_file(path2) : NULL;
	TAP_OK(doc && jint(doc, "uncovered_region_calls", 7) &&
	       jint(doc, "process.pid", 4242),
	       "second file holds the second result");
	json_object_put(doc);

	/* An MPI rank gets its own name. */
	p.rank = 3;
	rc = agg_process__write(&p, dir, path3, sizeof(path3), err, sizeof(err));
	snprintf(want, sizeof(want), "%s/hpcshim-testhost-4242-r3.json", dir);
	doc = rc == 0 ? json_object_from_file(path3) : NULL;
	TAP_OK(rc == 0 && strcmp(path3, want) == 0 && doc &&
	       jint(doc, "process.rank", 3),
	       "rank 3 -> %s with process.rank 3", rc == 0 ? path3 : "-");
	json_object_put(doc);

	/* A job id in the name, its '-' and '@' made '_'; size and job kept. */
	p.size = 4;
	p.job = "prterun-vm-7@1";
	rc = agg_process__write(&p, dir, path3, sizeof(path3), err, sizeof(err));
	snprintf(want, sizeof(want), "%s/hpcshim-testhost-4242-jprterun_vm_7_1-r3.json",
		 dir);
	doc = rc == 0 ? json_object_from_file(path3) : NULL;
	TAP_OK(rc == 0 && strcmp(path3, want) == 0 && doc &&
	       jint(doc, "process.size", 4) &&
	       strcmp(json_object_get_string(json_object_object_get(
			      json_object_object_get(doc, "process"), "job")),
		      "prterun-vm-7@1") == 0,
	       "job prterun-vm-7@1, rank 3 of 4 -> %s", rc == 0 ? path3 : "-");
	json_object_put(doc);
	p.rank = -1;
	p.size = -1;
	p.job = "";

	scan_dir(dir, &njson, &nhidden, &ntmp);
	TAP_OK(njson == 4 && nhidden == 0 && ntmp == 0,
	       "directory holds the 4 results and no temporary file (json %d, "
	       "hidden %d, .tmp %d)", njson, nhidden, ntmp);

	/* No thread has a page-faults value: the process total is null. */
	t1->totals[PF] = (struct count){ 0, 4000, 0 };
	rc = agg_process__write(&p, dir, path3, sizeof(path3), err, sizeof(err));
	doc = rc == 0 ? json_object_from_file(path3) : NULL;
	TAP_OK(doc && jnull(doc, "totals.page-faults") &&
	       jint(doc, "totals.task-clock", 3000000),
	       "process total is null when no thread has a value (%s)",
	       rc == 0 ? path3 : err);
	json_object_put(doc);
	scan_dir(dir, &njson, &nhidden, &ntmp);
	TAP_OK(njson == 5 && nhidden == 0 && ntmp == 0,
	       "fifth write: 5 results, no temporary file (json %d hidden %d)",
	       njson, nhidden);

	/* A nonexistent directory is made, parents too (common/mkdirs.h). */
	snprintf(want, sizeof(want), "%s/no/such/dir", dir);
	err[0] = '\0';
	rc = agg_process__write(&p, want, path, sizeof(path), err, sizeof(err));
	TAP_OK(rc == 0 && strncmp(path, want, strlen(want)) == 0 && access(path, R_OK) == 0,
	       "write into a nonexistent directory makes it: rc %d, %s", rc,
	       rc == 0 ? path : err);
	unlink(path);
	rmdir(want);
	snprintf(want, sizeof(want), "%s/no/such", dir);
	rmdir(want);
	snprintf(want, sizeof(want), "%s/no", dir);
	rmdir(want);

	/* A file where a directory should be: -1 and a message. */
	snprintf(want, sizeof(want), "%.4000s/sub", path3);
	err[0] = '\0';
	rc = agg_process__write(&p, want, path, sizeof(path), err, sizeof(err));
	TAP_OK(rc == -1 && strstr(err, want) && strstr(err, strerror(ENOTDIR)),
	       "write under a regular file: rc %d, err '%s'", rc, err);
	scan_dir(dir, &njson, &nhidden, &ntmp);
	TAP_OK(njson == 5 && nhidden == 0, "failed write left nothing behind");

	agg_thread__delete(t1);
	agg_thread__delete(t2);
	remove_dir(dir);
	{
		struct stat st;
		TAP_OK(stat(dir, &st) < 0 && errno == ENOENT,
		       "test directory removed");
	}
}

/* ---- a feature's sections (section.h) ---------------------------------- */

static void sec__head(struct agg_out *o, int depth, bool *first,
		      const struct agg_process *p, const void *arg)
{
	(void)p;
	AGG_OUT_KEY(o, depth, first, "test_head");
	agg_out__text(o, depth, arg);
}

static void sec__head2(struct agg_out *o, int depth, bool *first,
		       const struct agg_process *p, const void *arg)
{
	(void)p;
	(void)arg;
	agg_out__member(o, depth, first, "test_head2", json_object_new_int(2));
}

static void sec__tail(struct agg_out *o, int depth, bool *first,
		      const struct agg_process *p, const void *arg)
{
	(void)p;
	(void)arg;
	AGG_OUT_KEY(o, depth, first, "test_tail");
	agg_out__u64(o, 7);
}

static void sec__thread(json_object *o, const struct agg_process *p,
			const struct agg_thread_view *tv, const void *arg)
{
	(void)p;
	(void)arg;
	json_object_object_add(o, "test_thread", json_object_new_int(tv->t->tid));
}

static void sec__counts(json_object *x, const char *key, const struct agg_process *p,
			const struct agg_interval_view *iv, const void *arg)
{
	(void)p;
	(void)iv;
	(void)arg;
	agg_json__add_sibling(x, key, "_test", json_object_new_boolean(1));
}

static void sec__sums(json_object *x, const char *const *key,
		      const struct agg_sum_view *const *sv, int n,
		      const struct agg_process *p, const void *arg)
{
	(void)sv;
	(void)p;
	(void)arg;
	for (int i = 0; i < n; i++)
		agg_json__add_sibling(x, key[i], "_testsum", json_object_new_int(n));
}

/* The index of key among o's keys, or -1. */
static int key_at(json_object *o, const char *key)
{
	int i = 0;

	json_object_object_foreach(o, k, v)
	{
		(void)v;
		if (strcmp(k, key) == 0)
			return i;
		i++;
	}
	return -1;
}

/* A section added to the process shows up where section.h says, in
 * increasing order, and json.c knows nothing of it. */
static void test_sections(void)
{
	static const struct agg_section a = { .name = "a", .order = 20,
		.head = sec__head, .tail = sec__tail, .thread = sec__thread };
	static const struct agg_section b = { .name = "b", .order = 10,
		.head = sec__head2, .counts = sec__counts, .sums = sec__sums };
	char tmpl[] = "/tmp/hpcshim-unit-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char path[4096], err[512] = "";
	struct agg_event ev[NEV];
	struct agg_process p;
	struct agg_thread *t1, *t2;
	struct agg_sections full = { 0 };
	json_object *doc = NULL, *th, *t, *r, *rs;
	int n = 0;

	if (!dir) {
		TAP_OK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	build_process(&p, ev, &t1, &t2);
	if (t1 && t2 && agg_sections__add(&p.sections, &a, "from a") == 0 &&
	    agg_sections__add(&p.sections, &b, NULL) == 0 &&
	    agg_process__write(&p, dir, path, sizeof(path), err, sizeof(err)) == 0)
		doc = json_object_from_file(path);
	TAP_OK(doc != NULL, "sections: a document written (err '%s')", err);
	if (doc) {
		int ev_at = key_at(doc, "events");

		TAP_OK(key_at(doc, "test_head2") == ev_at + 1 &&
			       key_at(doc, "test_head") == ev_at + 2 &&
			       key_at(doc, "totals") == ev_at + 3,
		       "sections: head parts after \"events\", by order (%d %d %d)",
		       key_at(doc, "test_head2"), key_at(doc, "test_head"),
		       key_at(doc, "totals"));
		TAP_OK(strcmp(json_object_get_string(
				      json_object_object_get(doc, "test_head")),
			      "from a") == 0,
		       "sections: a head part writes from its data");
		TAP_OK(key_at(doc, "test_tail") == key_at(doc, "regions") + 1 &&
			       key_at(doc, "test_tail") ==
				       json_object_object_length(doc) - 1,
		       "sections: the tail part last, after \"regions\"");
		TAP_OK(key_at(doc, "totals_testsum") == key_at(doc, "totals") + 1,
		       "sections: sums of the process totals right after them");
		th = json_object_object_get(doc, "threads");
		t = json_object_array_get_idx(th, 0);
		TAP_OK(t && key_at(t, "test_thread") == key_at(t, "warnings") + 1 &&
			       json_object_get_int(json_object_object_get(
				       t, "test_thread")) == 1001,
		       "sections: a thread part after the thread's \"warnings\"");
		TAP_OK(t && key_at(t, "totals_test") > key_at(t, "totals") &&
			       key_at(t, "totals_test") < key_at(t, "regions"),
		       "sections: counts beside a thread's totals");
		r = t ? json_object_array_get_idx(json_object_object_get(t, "regions"), 0) :
			NULL;
		TAP_OK(r && key_at(r, "inclusive_test") > key_at(r, "inclusive") &&
			       key_at(r, "exclusive_test") > key_at(r, "exclusive") &&
			       key_at(r, "inclusive_test") < key_at(r, "exclusive"),
		       "sections: counts beside a region record's intervals");
		rs = json_object_array_get_idx(json_object_object_get(doc, "regions"), 0);
		TAP_OK(rs && key_at(rs, "inclusive_testsum") ==
				      key_at(rs, "per_call_wall_ns") + 1 &&
			       key_at(rs, "exclusive_testsum") ==
				       key_at(rs, "inclusive_testsum") + 1 &&
			       json_object_get_int(json_object_object_get(
				       rs, "inclusive_testsum")) == 2,
		       "sections: a region summary's sums, both keys in one call");
		json_object_put(doc);
	}
	while (agg_sections__add(&full, &a, NULL) == 0)
		n++;
	TAP_OK(n == AGG_SECTIONS_MAX, "sections: %d fit, the next is refused", n);
	agg_thread__delete(t1);
	agg_thread__delete(t2);
	remove_dir(dir);
}

/* ---- agg_json__fmt_*, agg_json__plain against json-c ------------------- */

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Whether our text for v is json-c's (a double when dbl, else an int64). */
static bool fmt__same(double d, int64_t i, bool dbl, char *first, size_t len)
{
	json_object *o = dbl ? json_object_new_double(d) : json_object_new_int64(i);
	const char *want = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	char got[AGG_JSON_NUM_MAX];
	size_t n = dbl ? agg_json__fmt_dbl(got, d) : agg_json__fmt_i64(got, i);
	bool same = n == strlen(want) && memcmp(got, want, n) == 0;

	if (!same && !first[0])
		snprintf(first, len, "json-c '%s', ours '%.*s'", want, (int)n, got);
	json_object_put(o);
	return same;
}

static void test_json_text(void)
{
	static const double fixed[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 2018.0, 4421.5, 1136.5, 0.1, 1.0 / 3,
		1e-5, 9.765625e-4, 0x1p50, 0x1p50 - 0.5, 0x1p53, 1e15, 1e16, 1e17,
		123456789012345.0625, 1e300, 5e-324, -2.5e-8,
	};
	static const int64_t ints[] = { INT64_MIN, INT64_MAX, 0, -1, 9, 10, 99, 100 };
	uint64_t seed = 88172645463325252ull, bad = 0, n = 0;
	char first[160] = "";

	for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++, n++)
		bad += !fmt__same(fixed[k], 0, true, first, sizeof(first));
	for (long k = 0; k < 200000; k++, n += 2) {
		uint64_t r = xorshift(&seed), b = xorshift(&seed);
		double d;

		switch (k % 5) {
		case 0: /* sums and means of counts: multiples of 2^-b */
			d = (double)(r % 1000000000000ull) / (double)(1 + b % 64);
			break;
		case 1:
			d = (double)(r % (1ull << 53)) / (double)(1ull << (b % 12));
			break;
		case 2: /* any finite bit pattern */
			memcpy(&d, &r, sizeof(d));
			if (!isfinite(d))
				d = 1.5;
			break;
		case 3:
			d = -ldexp((double)(r % 1000000), (int)(b % 80) - 40);
			break;
		default:
			d = (double)(r >> (b % 64));
		}
		bad += !fmt__same(d, 0, true, first, sizeof(first));
		bad += !fmt__same(0, (int64_t)r >> (b % 64), false, first, sizeof(first));
	}
	for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++, n++)
		bad += !fmt__same(0, ints[k], false, first, sizeof(first));
	for (int64_t p = 1, k = 0; k < 18; k++, p *= 10, n += 3)
		for (int64_t d = -1; d <= 1; d++)
			bad += !fmt__same(0, p + d, false, first, sizeof(first));
	TAP_OK(bad == 0, "%llu doubles and integers printed as json-c prints them%s%s",
	       (unsigned long long)n, bad ? ": first difference " : "", first);

	{
		char s[2] = { 0 }, c;
		size_t len = 99, wrong = 0;

		for (int b = 1; b < 256; b++) {
			c = (char)b;
			s[0] = c;
			bool want = b >= 0x20 && b < 0x7f && c != '"' && c != '\\';
			if (agg_json__plain(s, &len) != want || (want && len != 1))
				wrong++;
		}
		TAP_OK(wrong == 0 && agg_json__plain("region.7 a/b", &len) && len == 12 &&
			       !agg_json__plain("caf\xc3\xa9", &len),
		       "plain strings: printable ASCII but quote and backslash (%zu bytes wrong)",
		       wrong);
	}
}

/* ---- the end's writer thread (json.c) ---------------------------------- */

static int spawns;

static int spawn_thread(pthread_t *th, void *(*fn)(void *), void *arg)
{
	spawns++;
	return pthread_create(th, NULL, fn, arg);
}

static int spawn_fail(pthread_t *th, void *(*fn)(void *), void *arg)
{
	(void)th, (void)fn, (void)arg;
	spawns++;
	return EAGAIN;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n + 1)) &&
	    fread(b, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* A process whose file takes several buffers (and passes the size where
 * blocks are reserved ahead), written by the calling thread, through the
 * writer thread, and with a spawn that fails: three identical files, and
 * no block reserved past the end. */
static void test_writer_thread(void)
{
	char tmpl[] = "/tmp/hpcshim-unit-XXXXXX";
	char *dir = mkdtemp(tmpl);
	char path[3][4096], err[512], name[32];
	agg_spawn_fn *how[3] = { NULL, spawn_thread, spawn_fail };
	struct agg_event ev[NEV];
	struct agg_process p;
	struct agg_thread *t1, *t2, *t[40];
	char *text[3] = { NULL, NULL, NULL };
	size_t len[3] = { 0, 0, 0 };
	struct stat st;
	int ok = 0;

	if (!dir) {
		TAP_OK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	build_process(&p, ev, &t1, &t2);
	/* A document that fits in one buffer: written by the caller, no
	 * thread started. */
	spawns = 0;
	p.spawn = spawn_thread;
	err[0] = '\0';
	if (agg_process__write(&p, dir, path[0], sizeof(path[0]), err, sizeof(err)) == 0)
		text[0] = slurp(path[0], &len[0]);
	TAP_OK(text[0] && len[0] > 0 && len[0] < 1024 * 1024 && spawns == 0,
	       "a small file (%zu bytes) is written with no writer thread "
	       "(%d started; %s)",
	       len[0], spawns, err);
	free(text[0]);
	text[0] = NULL;
	len[0] = 0;
	for (int i = 0; i < 40; i++) { /* 40 x 300 records: about 8 MB */
		t[i] = agg_thread__new(2000 + i, NEV);
		if (!t[i])
			break;
		t[i]->next = p.threads;
		p.threads = t[i];
		for (int k = 0; k < 300; k++) {
			struct agg_region *r;

			snprintf(name, sizeof(name), "region.%d", (k * 7 + i) % 300);
			r = agg_thread__region(t[i], name);
			if (r)
				agg_region__add(
					r, NULL,
					(const struct count[NEV]){
						{ 1000u * (unsigned)k + (unsigned)i,
						  9, 9 },
						{ (unsigned)k % 3, 9, 9 },
						{ 0, 0, 0 } },
					NEV);
		}
	}
	for (int w = 0; w < 3; w++) {
		spawns = 0;
		p.spawn = how[w];
		err[0] = '\0';
		if (agg_process__write(&p, dir, path[w], sizeof(path[w]), err,
				       sizeof(err)) == 0)
			text[w] = slurp(path[w], &len[w]);
		TAP_OK(text[w] && len[w] > 4 * 1024 * 1024 && spawns == (w > 0),
		       "writer %s: %zu bytes written (%s)",
		       w == 0 ? "none" :
		       w == 1 ? "thread" :
				"that cannot start",
		       len[w], err);
	}
	ok = text[0] && text[1] && text[2] && len[0] == len[1] &&
	     len[0] == len[2] && memcmp(text[0], text[1], len[0]) == 0 &&
	     memcmp(text[0], text[2], len[0]) == 0;
	TAP_OK(ok, "the same bytes written by the thread, by the caller, and "
		   "after a spawn that failed");
	TAP_OK(stat(path[1], &st) == 0 && (long long)st.st_blocks * 512 <
						  (long long)st.st_size + (1 << 20),
	       "no block reserved past the end (%lld bytes allocated for %lld)",
	       (long long)st.st_blocks * 512, (long long)st.st_size);
	for (int w = 0; w < 3; w++)
		free(text[w]);
	for (struct agg_thread *x = p.threads, *n; x; x = n) {
		n = x->next;
		agg_thread__delete(x);
	}
	remove_dir(dir);
}

/* ---- a record copied while its owner is inside an update (view.c) ---- */

struct late_writer {
	struct agg_thread *t;
	struct agg_region *r;
};

/* The owner, preempted in the middle of an update for 20 ms (well under
 * the copy's give-up bound, far over any fixed number of tries), then
 * finishing it. */
static void *late_writer__main(void *arg)
{
	struct late_writer *w = arg;
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	__atomic_store_n(&w->r->c[TC].value, 800, __ATOMIC_RELAXED);
	__atomic_store_n(&w->t->seq, 2, __ATOMIC_RELEASE);
	return NULL;
}

/* The value of region "r" of thread t as the view copies it. */
static int view_region_r(const struct agg_process *p, struct agg_thread *t,
			 uint64_t *calls, uint64_t *tc)
{
	struct agg_view *v = agg_view__new(p);
	struct agg_region_view rv;
	int got = -1;

	if (!v)
		return -1;
	for (const struct agg_region *r = t->head; r; r = r->next)
		if (strcmp(r->name, "r") == 0 && agg_view__region(v, t, r, &rv) == 1) {
			*calls = rv.calls;
			*tc = rv.incl.ev[TC].shown;
			got = 0;
		}
	agg_view__delete(v);
	return got;
}

/* Another thread's update always finishes: the copy waits for it, however
 * long the writer is preempted (a copy that gave up after a fixed number
 * of tries flushed torn records on a loaded machine).  The caller's own
 * update, interrupted by its own signal handler, never finishes while the
 * handler runs: that copy is given up at once. */
static void test_copy_waits(void)
{
	struct agg_event ev[NEV];
	struct agg_process p;
	struct agg_thread *t1, *t2;
	struct agg_region *r = NULL;
	struct late_writer w;
	pthread_t th;
	uint64_t calls = 0, tc = 0;
	int rc;

	build_process(&p, ev, &t1, &t2);
	for (struct agg_region *x = t1 ? t1->head : NULL; x; x = x->next)
		if (strcmp(x->name, "r") == 0)
			r = x;
	if (!r) {
		TAP_OK(0, "copy: no record");
		return;
	}
	/* Inside an update: calls already 4, its counts not yet added. */
	__atomic_store_n(&t1->seq, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r->calls, 4, __ATOMIC_RELAXED);
	w = (struct late_writer){ t1, r };
	if (pthread_create(&th, NULL, late_writer__main, &w) != 0) {
		TAP_OK(0, "copy: pthread_create");
		return;
	}
	rc = view_region_r(&p, t1, &calls, &tc);
	pthread_join(th, NULL);
	TAP_OK(rc == 0 && calls == 4 && tc == 800,
	       "a record whose writer is preempted inside an update is copied "
	       "once the update is done (calls %llu, task-clock %llu; want 4, 800)",
	       (unsigned long long)calls, (unsigned long long)tc);

	/* The caller's own thread inside an update: given up, not waited for. */
	t1->tid = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&t1->seq, 3, __ATOMIC_RELEASE);
	__atomic_store_n(&r->calls, 5, __ATOMIC_RELAXED);
	rc = view_region_r(&p, t1, &calls, &tc);
	TAP_OK(rc == 0 && calls == 5, "the caller's own record inside an update "
				      "is copied as it is (calls %llu)",
	       (unsigned long long)calls);
	for (struct agg_thread *x = p.threads, *n; x; x = n) {
		n = x->next;
		agg_thread__delete(x);
	}
}

/* common/strtab: every name once, in order first seen, found again after
 * the table grew. */
static void test_strtab(void)
{
	struct hs_strtab t = { 0 };
	char name[32];
	bool added, ok = true;

	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 5000; i++) {
			snprintf(name, sizeof(name), "region-%d", i);
			ok &= hs_strtab__intern(&t, name, &added) == i && added == !round;
		}
	TAP_OK(ok && t.n == 5000, "strtab: 5000 names, each index its order, added once");
	ok = true;
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "region-%d", i);
		ok &= hs_strtab__lookup(&t, name) == i && !strcmp(t.name[i], name);
	}
	TAP_OK(ok && hs_strtab__lookup(&t, "region-5000") == -1 &&
		       hs_strtab__lookup(&t, "") == -1,
	       "strtab: lookups after growth; an absent name is -1");
	hs_strtab__free(&t);
	TAP_OK(t.n == 0 && hs_strtab__lookup(&t, "region-1") == -1, "strtab: freed, empty");
}

static struct dr_doc *doc_of(const char *text)
{
	return dr_doc__wrap(json_tokener_parse(text));
}

/* aggregate/docread: kinds, the layout checked once, typed values that
 * treat damage as absence. */
static void test_docread(void)
{
	static const char proc[] =
		"{\"schema\":\"hpcshim/1\",\"process\":{\"pid\":7,\"host\":\"h\",\"rank\":2},"
		"\"events\":[{\"name\":\"page-faults\",\"status\":\"ok\"}],"
		"\"totals\":{\"page-faults\":30},\"threads\":[{\"tid\":8,\"series\":5,"
		"\"totals\":{\"page-faults\":30},\"totals_multiplexed\":{\"page-faults\":"
		"{\"enabled\":4,\"running\":1,\"stderr\":2.5}}}],"
		"\"regions\":[{\"name\":\"r\",\"calls\":3,\"inclusive\":{\"page-faults\":"
		"{\"sum\":10}},\"wall_ns\":{\"inclusive\":5,\"exclusive\":4}}]}";
	static const char job[] =
		"{\"schema\":\"hpcshim-job/1\",\"job\":{\"id\":\"j\",\"size\":2},"
		"\"ranks\":[{\"rank\":0,\"host\":\"a\",\"pid\":1,\"totals\":{\"x\":1}},"
		"{\"rank\":1,\"host\":\"b\",\"pid\":2,\"totals\":{\"x\":3}}],"
		"\"events\":[\"x\"],\"totals\":{\"x\":{\"sum\":4,\"sum_stderr\":0.5}},"
		"\"regions\":[{\"name\":\"r\",\"ranks\":2,\"calls\":{\"sum\":6},"
		"\"inclusive\":{\"x\":{\"sum\":4}},\"threads\":{\"x\":{\"n\":3}}}]}";
	struct dr_doc *d = doc_of(proc);
	struct dr_value v;
	struct dr_rank rk;
	char why[256];

	TAP_OK(d && dr_doc__check(d, why, sizeof(why)) == DR_LAYOUT &&
		       strstr(why, "\"threads[0].series\" is a number, not an object") &&
		       dr_doc__kind(d) == DR_PROCESS,
	       "docread: a process result whose thread's series is a number: %s", why);
	dr_doc__rank(d, 0, &rk);
	TAP_OK(dr_doc__nranks(d) == 1 && rk.rank == 2 && rk.pid == 7 && !strcmp(rk.host, "h"),
	       "docread: a process is one rank, its own");
	TAP_OK(dr_thread__total(dr_doc__thread(d, 0), "page-faults", &v) && v.v == 30 && v.mux &&
		       v.se == 2.5 && v.en == 4 && v.run == 1,
	       "docread: a thread's total with its _multiplexed entry");
	TAP_OK(dr_region__value(dr_doc__region(d, 0), DR_INCLUSIVE, "page-faults", &v) &&
		       v.v == 10 && !v.mux && dr_region__wall(dr_doc__region(d, 0), DR_EXCLUSIVE) == 4,
	       "docread: a summary region's sum and wall time");
	TAP_OK(!dr_thread__series(dr_doc__thread(d, 0)) &&
		       dr_doc__region_named(d, "r") == dr_doc__region(d, 0) &&
		       !dr_doc__region_named(d, "nope"),
	       "docread: a series that is not an object is none; regions by name");
	dr_doc__free(d);

	d = doc_of(job);
	TAP_OK(d && dr_doc__check(d, why, sizeof(why)) == DR_OK && dr_doc__kind(d) == DR_JOB &&
		       dr_doc__nranks(d) == 2,
	       "docread: a job document checks, two ranks");
	dr_doc__rank(d, 1, &rk);
	TAP_OK(rk.rank == 1 && !strcmp(rk.host, "b") && dr_doc__rank_value(d, 1, "x", &v) &&
		       v.v == 3,
	       "docread: a job's rank and its totals");
	TAP_OK(dr_doc__total(d, "x", &v) && v.v == 4 && v.se == 0.5 &&
		       dr_region__calls(dr_doc__region(d, 0)) == 6 &&
		       dr_region__ranks(dr_doc__region(d, 0)) == 2 &&
		       dr_region__threads(dr_doc__region(d, 0)) == 3,
	       "docread: a job's sums, errors, calls, ranks and threads");
	dr_doc__free(d);

	d = doc_of("{\"schema\":\"hpcshim/1\",\"process\":{},\"events\":[],\"totals\":\"x\","
		   "\"threads\":[],\"regions\":[]}");
	TAP_OK(dr_doc__check(d, why, sizeof(why)) == DR_LAYOUT && strstr(why, "\"totals\""),
	       "docread: totals not an object: %s", why);
	dr_doc__free(d);
	d = doc_of("{\"schema\":\"hpcshim/1\",\"process\":{\"size\":2147483647},\"events\":[],"
		   "\"totals\":{},\"threads\":[],\"regions\":[]}");
	TAP_OK(dr_doc__check(d, why, sizeof(why)) == DR_LAYOUT && strstr(why, "process.size"),
	       "docread: an absurd size: %s", why);
	dr_doc__free(d);
	d = doc_of("{\"schema\":\"hpcshim/1\",\"process\":{\"rank\":NaN},\"events\":[],"
		   "\"totals\":{\"x\":NaN,\"y\":Infinity},\"threads\":[],\"regions\":[]}");
	dr_doc__rank(d, 0, &rk);
	TAP_OK(d && dr_doc__check(d, why, sizeof(why)) == DR_OK && rk.rank == -1,
	       "docread: a NaN rank reads as none (NaN and Infinity are null once loaded)");
	TAP_OK(!dr_doc__total(d, "x", &v) && v.present && !dr_doc__total(d, "y", &v),
	       "docread: NaN and Infinity counts read as absent");
	dr_doc__free(d);
	d = doc_of("{\"schema\":\"hpcshim/1\",\"process\":{},\"events\":[],\"totals\":{},"
		   "\"threads\":[{\"regions\":[{\"name\":\"a\",\"exclusive\":{\"x\":\"1\"}}]}],"
		   "\"regions\":[]}");
	TAP_OK(dr_doc__check(d, why, sizeof(why)) == DR_LAYOUT &&
		       !strcmp(why, "malformed result: \"threads[0].regions[0].exclusive.x\" is a "
				    "string, not a number or an object"),
	       "docread: a thread record's value of the wrong type: %s", why);
	dr_doc__free(d);
	{
		static const struct {
			const char *text;
			bool finite;
		} ft[] = {
			{ "{\"a\":[1,-2.5,1.5e+20,3E-7,true,false,null],\"NaN\":\"Infinity \\\" nan\"}", true },
			{ "{\"a\":NaN}", false },
			{ "{\"a\":-Infinity}", false },
			{ "{\"a\":nan}", false },
			{ "{\"a\":-inf}", false },
			{ "{\"a\":1e999}", false },
			{ "{\"a\":1e+308}", false }, /* finite, but three digits: no */
			{ "{\"a\":nullx}", false },
			{ "{\"a\":\"x\\\\\",\"b\":NaN}", false }, /* "x\\" ends there */
			{ "{\"a\":\"x\\\\\",\"b\":1e5}", true },
		};

		for (size_t i = 0; i < sizeof(ft) / sizeof(ft[0]); i++) {
			json_object *o = json_tokener_parse(ft[i].text);
			bool has_nonfinite = false;

			if (o && json_object_is_type(o, json_type_object)) {
				json_object_object_foreach(o, k, v)
				{
					(void)k;
					if (json_object_is_type(v, json_type_double) &&
					    !isfinite(json_object_get_double(v)))
						has_nonfinite = true;
				}
			}
			TAP_OK(dr_text__finite(ft[i].text, strlen(ft[i].text)) == ft[i].finite &&
				       (!ft[i].finite || !has_nonfinite),
			       "docread: %s %s finite by its text", ft[i].text,
			       ft[i].finite ? "is" : "is not known");
			json_object_put(o);
		}
	}
	d = doc_of("{\"schema\":\"other/1\"}");
	TAP_OK(dr_doc__check(d, why, sizeof(why)) == DR_SCHEMA, "docread: another schema");
	dr_doc__free(d);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_strtab();
	test_docread();
	test_json_text();
	test_count();
	test_stat();
	test_thread();
	test_json();
	test_sections();
	test_writer_thread();
	test_copy_waits();
	return tap_done();
}
