/* cmd_diff.c - hpcshim diff: two sets of results compared, with whether
 * each change is larger than the noise.
 *
 * Usage: hpcshim diff [-r] [--view region|thread|rank] [-e EVENTS]
 *                     [--format text|csv|json] [--all] A B
 *
 * A and B are a result file or a directory.  Without -r the files of a
 * side are the ranks of one job (their values add up); with -r each file
 * of a side is one run of the same program, and the spread of the runs
 * is the noise.
 *
 * The noise model: the change d = mean(B) - mean(A) has the standard error
 *   se(d) = sqrt(sd_A^2/n_A + sd_B^2/n_B + mux_A^2 + mux_B^2)
 * where sd is the runs' sample standard deviation (-r, n >= 2) and mux the
 * standard error of a multiplexed estimate as the files give it (of the
 * mean of the runs: sqrt(sum mux^2)/n).  The change is significant when
 * |d| > t * se(d), t the two-sided 99% quantile of Student's t with
 * Welch's degrees of freedom (1.96 -> 2.58 for large samples; with one
 * error source from the files alone, the normal 2.58).  Exact counts of
 * one run per side have no error estimate: a difference there is shown
 * as "exact" (it is real for that pair of runs, but nothing says how
 * much it varies from run to run: use -r).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/jsonutil.h"
#include "common/strtab.h"
#include "tools/cmd.h"
#include "tools/rows.h"

#include "tools/escape.h"
#include "tools/xalloc.h"

static const char usage_line[] =
	"usage: hpcshim diff [-r] [--view region|thread|rank] [-e EVENTS] [--all]\n"
	"                    [--format text|csv|json] A B\n";

static void diff__help(void)
{
	fputs(usage_line, stdout);
	fputs("\nCompares results A and B (each a file or a directory) per region and\n"
	      "event: both values, the change, and whether it is significant, i.e.\n"
	      "larger than the errors of both sides combined (99%, Student's t).\n\n"
	      "  -r, --runs     each file of a side is a repeated run: their spread\n"
	      "                 is the noise (else the files of a side are the ranks\n"
	      "                 of one job, summed)\n"
	      "  --view V       region (default), thread (rank, tid) or rank\n"
	      "  -e EVENTS      only these events\n"
	      "  --all          also the rows without a change\n"
	      "  --format F     text, csv or json\n\n"
	      "Verdicts: significant, noise (within the errors), same (no change),\n"
	      "exact (one run of exact counts per side: no noise estimate; use -r),\n"
	      "only-A / only-B.  Exit status: 0; 2 for unreadable input.\n",
	      stdout);
}

/* One side's value of a (row, event): over its runs. */
struct side {
	int n;          /* runs with a value */
	double sum, sq; /* of the values */
	double mux2;    /* sum of the multiplexed standard errors squared */
};

struct key {
	char *name; /* region name, or "rank/tid", or "rank" */
	struct side *s[2];
};

struct table {
	struct key *k;
	size_t n, cap;
	size_t nev;
	struct hs_strtab names; /* the keys' names: index = the key's */
};

static struct key *table__key(struct table *t, const char *name)
{
	bool added;
	size_t i = xintern(&t->names, name, &added);

	if (!added)
		return &t->k[i];
	if (t->n == t->cap) { /* doubling: a copy per key is quadratic */
		t->cap = t->cap ? 2 * t->cap : 64;
		t->k = xrealloc(t->k, t->cap * sizeof(*t->k));
	}
	t->k[t->n].name = xstrdup(name);
	for (int j = 0; j < 2; j++) {
		t->k[t->n].s[j] = xrealloc(NULL, t->nev * sizeof(struct side) + 1);
		memset(t->k[t->n].s[j], 0, t->nev * sizeof(struct side));
	}
	return &t->k[t->n++];
}

static void row_key(char *b, size_t len, const struct rowset *rs, const struct row *r)
{
	if (rs->view == VIEW_REGION)
		snprintf(b, len, "%s", r->name);
	else if (rs->view == VIEW_THREAD)
		snprintf(b, len, "%d/%lld", r->rank, r->tid);
	else
		snprintf(b, len, "%d", r->rank);
}

/* One run (or job) of side j into the table. */
static void table__add(struct table *t, int j, const struct results *s, enum view v,
		       const char **ev, size_t nev)
{
	struct rowset rs;
	char name[4096];

	rows__build(&rs, s, v, ev, nev, 0);
	for (size_t i = 0; i < rs.n; i++) {
		struct key *k;

		row_key(name, sizeof(name), &rs, &rs.r[i]);
		k = table__key(t, name);
		for (size_t e = 0; e < nev; e++) {
			const struct cell *c = &rs.r[i].c[e];
			struct side *sd = &k->s[j][e];

			if (!c->has)
				continue;
			sd->n++;
			sd->sum += c->v;
			sd->sq += c->v * c->v;
			if (c->se > 0)
				sd->mux2 += c->se * c->se;
		}
	}
	rows__free(&rs);
}

/* Two-sided 99% quantiles of Student's t, df 1..30; beyond, the normal. */
static double t99(double df)
{
	static const double q[] = { 63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355,
				    3.250,  3.169, 3.106, 3.055, 3.012, 2.977, 2.947, 2.921,
				    2.898,  2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797,
				    2.787,  2.779, 2.771, 2.763, 2.756, 2.750 };
	int i = (int)floor(df);

	if (i < 1)
		i = 1;
	return i <= 30 ? q[i - 1] : 2.576;
}

struct verdict {
	double a, b, d, rel, se, t;
	const char *what;
	int sig; /* 1, 0, or -1 unknown */
};

static void side_stats(const struct side *s, double *mean, double *var_of_mean, double *df_part)
{
	double sd2;

	*mean = s->n ? s->sum / s->n : 0;
	sd2 = s->n >= 2 ? (s->sq - s->n * *mean * *mean) / (s->n - 1) : 0;
	if (sd2 < 0)
		sd2 = 0;
	*var_of_mean = (s->n >= 2 ? sd2 / s->n : 0) + (s->n ? s->mux2 / ((double)s->n * s->n) : 0);
	*df_part = s->n >= 2 ? sd2 / s->n : 0;
}

static void judge(const struct side *A, const struct side *B, int runs, struct verdict *v)
{
	double va, vb, pa, pb, df;

	memset(v, 0, sizeof(*v));
	v->sig = -1;
	if (!A->n || !B->n) {
		v->what = A->n ? "only-A" : B->n ? "only-B" : "n/a";
		v->a = A->n ? A->sum / A->n : NAN;
		v->b = B->n ? B->sum / B->n : NAN;
		return;
	}
	side_stats(A, &v->a, &va, &pa);
	side_stats(B, &v->b, &vb, &pb);
	v->d = v->b - v->a;
	v->rel = v->a != 0 ? v->d / fabs(v->a) : NAN;
	v->se = sqrt(va + vb);
	if (v->d == 0) {
		v->what = "same";
		v->sig = 0;
		return;
	}
	if (v->se == 0) {
		/* with runs that all agree, any change is real; one exact run
		 * per side says nothing about the noise */
		int spread = runs && A->n >= 2 && B->n >= 2;

		v->what = spread ? "significant" : "exact";
		v->sig = spread ? 1 : -1;
		v->t = INFINITY;
		return;
	}
	v->t = v->d / v->se;
	/* Welch-Satterthwaite; the files' own errors count as many degrees
	 * of freedom (the normal quantile). */
	if ((A->n >= 2 || B->n >= 2) && pa + pb > 0)
		df = (pa + pb) * (pa + pb) /
		     ((A->n >= 2 ? pa * pa / (A->n - 1) : 0) +
		      (B->n >= 2 ? pb * pb / (B->n - 1) : 0));
	else
		df = 1e9;
	v->sig = fabs(v->t) > t99(df);
	v->what = v->sig ? "significant" : "noise";
}

static void fmt(char *b, size_t len, const char *ev, double v)
{
	if (isnan(v))
		snprintf(b, len, "n/a");
	else if (rows__is_time(ev))
		snprintf(b, len, "%.3f", v / 1e6);
	else if (v == floor(v))
		snprintf(b, len, "%.0f", v);
	else
		snprintf(b, len, "%.1f", v);
}

static json_object *jnum(double v)
{
	if (isnan(v) || isinf(v))
		return NULL;
	return agg_json__dbl(v);
}

static int load_side(const char *path, struct results **runs, size_t *nruns, int by_run)
{
	struct results all;
	char *one[1];
	size_t n;

	n = results__load(&all, "hpcshim diff", 1, (char **)&path);
	if (!by_run) {
		*runs = xrealloc(NULL, sizeof(**runs));
		(*runs)[0] = all;
		*nruns = 1;
		return all.nbad ? -1 : n ? 0 : -1;
	}
	*runs = xrealloc(NULL, (n ? n : 1) * sizeof(**runs));
	for (size_t i = 0; i < n; i++) {
		one[0] = all.r[i].path;
		results__load(&(*runs)[i], "hpcshim diff", 1, one);
	}
	*nruns = n;
	n = all.nbad || !n ? (size_t)-1 : 0;
	results__free(&all);
	return n ? -1 : 0;
}

int diff_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "runs", no_argument, NULL, 'r' },
		{ "view", required_argument, NULL, 'V' },
		{ "events", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *view = "region", *evlist = NULL, *format = "text";
	struct results *side[2];
	size_t nside[2], nev = 0;
	const char **ev = NULL;
	struct table t = { 0 };
	int opt, runs = 0, all = 0, bad = 0;
	enum view v;
	json_object *out = NULL;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "re:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r': runs = 1; break;
		case 'V': view = optarg; break;
		case 'e': evlist = optarg; break;
		case 'f': format = optarg; break;
		case 'a': all = 1; break;
		case 'h': diff__help(); return 0;
		default: fputs(usage_line, stderr); return 2;
		}
	}
	if (argc - optind != 2 || (strcmp(format, "text") && strcmp(format, "csv") &&
				   strcmp(format, "json"))) {
		fputs(usage_line, stderr);
		return 2;
	}
	if (!strcmp(view, "region"))
		v = VIEW_REGION;
	else if (!strcmp(view, "thread"))
		v = VIEW_THREAD;
	else if (!strcmp(view, "rank"))
		v = VIEW_RANK;
	else {
		fputs(usage_line, stderr);
		return 2;
	}
	for (int j = 0; j < 2; j++)
		bad |= load_side(argv[optind + j], &side[j], &nside[j], runs) < 0;
	/* the events of both sides, in A's order first */
	for (int j = 0; j < 2; j++)
		for (size_t r = 0; r < nside[j]; r++) {
			const char **e;
			size_t n = results__events(&side[j][r], &e);

			for (size_t i = 0; i < n; i++) {
				size_t k;
				int want = !evlist;

				for (k = 0; k < nev && strcmp(ev[k], e[i]); k++)
					;
				if (evlist) {
					char *c = xstrdup(evlist), *s, *tok;

					for (tok = strtok_r(c, ",", &s); tok; tok = strtok_r(NULL, ",", &s))
						want |= !strcmp(tok, e[i]);
					free(c);
				}
				if (k == nev && want) {
					ev = xrealloc(ev, (nev + 1) * sizeof(*ev));
					ev[nev++] = e[i];
				}
			}
			free(e);
		}
	t.nev = nev;
	for (int j = 0; j < 2; j++)
		for (size_t r = 0; r < nside[j]; r++)
			table__add(&t, j, &side[j][r], v, ev, nev);

	if (!strcmp(format, "json"))
		out = json_object_new_array();
	else if (!strcmp(format, "csv"))
		puts("# key,event,a,b,change,rel_change,stderr,t,verdict,a_runs,b_runs");
	else
		printf("A: %s (%zu %s)   B: %s (%zu %s)\n\n", esc__t(argv[optind]), nside[0],
		       runs ? "runs" : "job", esc__t(argv[optind + 1]), nside[1],
		       runs ? "runs" : "job");
	if (!strcmp(format, "text"))
		printf("  %-24s %-18s %14s %14s %14s %8s %12s  %s\n", view, "event", "A", "B",
		       "change", "%", "+-", "verdict");
	for (size_t i = 0; i < t.n; i++)
		for (size_t e = 0; e < nev; e++) {
			const struct side *A = &t.k[i].s[0][e], *B = &t.k[i].s[1][e];
			struct verdict vd;
			char a[32], b[32], d[32], se[32], name[80];

			if (!A->n && !B->n)
				continue;
			judge(A, B, runs, &vd);
			if (!all && !strcmp(vd.what, "same"))
				continue;
			if (out) {
				json_object *o = json_object_new_object();

				json_object_object_add(o, "key", json_object_new_string(t.k[i].name));
				json_object_object_add(o, "event", json_object_new_string(ev[e]));
				json_object_object_add(o, "a", jnum(vd.a));
				json_object_object_add(o, "b", jnum(vd.b));
				json_object_object_add(o, "a_runs", json_object_new_int(A->n));
				json_object_object_add(o, "b_runs", json_object_new_int(B->n));
				json_object_object_add(o, "change", A->n && B->n ? jnum(vd.d) : NULL);
				json_object_object_add(o, "rel_change", jnum(vd.rel));
				json_object_object_add(o, "stderr", A->n && B->n ? jnum(vd.se) : NULL);
				json_object_object_add(o, "t", jnum(vd.t));
				json_object_object_add(o, "significant",
						       vd.sig < 0 ? NULL : json_object_new_boolean(vd.sig));
				json_object_object_add(o, "verdict", json_object_new_string(vd.what));
				json_object_array_add(out, o);
				continue;
			}
			fmt(a, sizeof(a), ev[e], vd.a);
			fmt(b, sizeof(b), ev[e], vd.b);
			fmt(d, sizeof(d), ev[e], A->n && B->n ? vd.d : NAN);
			fmt(se, sizeof(se), ev[e], A->n && B->n ? vd.se : NAN);
			if (!strcmp(format, "csv")) {
				esc__csv(stdout, t.k[i].name, ",");
				putchar(',');
				esc__csv(stdout, ev[e], ",");
				printf(",%.17g,%.17g,%.17g,%.6g,%.17g,%.6g,%s,%d,%d\n", vd.a, vd.b,
				       vd.d, vd.rel, vd.se, vd.t, vd.what, A->n, B->n);
				continue;
			}
			snprintf(name, sizeof(name), rows__is_time(ev[e]) ? "%s[ms]" : "%s", ev[e]);
			printf("  %-24s %-18s %14s %14s %14s %7.1f%% %12s  %s\n",
			       esc__t(t.k[i].name), esc__t(name), a, b, d,
			       isnan(vd.rel) ? 0.0 : vd.rel * 100, se, vd.what);
		}
	if (out) {
		json_object *doc = json_object_new_object();

		json_object_object_add(doc, "schema", json_object_new_string("hpcshim-diff/1"));
		json_object_object_add(doc, "view", json_object_new_string(view));
		json_object_object_add(doc, "runs", json_object_new_boolean(runs));
		json_object_object_add(doc, "rows", out);
		puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(doc);
	}
	for (int j = 0; j < 2; j++) {
		for (size_t r = 0; r < nside[j]; r++)
			results__free(&side[j][r]);
		free(side[j]);
	}
	for (size_t i = 0; i < t.n; i++) {
		free(t.k[i].name);
		free(t.k[i].s[0]);
		free(t.k[i].s[1]);
	}
	free(t.k);
	hs_strtab__free(&t.names);
	free(ev);
	return bad ? 2 : 0;
}
