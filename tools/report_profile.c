/* report_profile.c - hpcshim report --view profile: where the job's time
 * went (aggregate/profile.h computes it, through aggregate/docread.h):
 * the parts per job, rank and thread, the MPI and I/O functions over the
 * ranks, memory per rank, findings in words.  Text, or JSON
 * (docs/schema.md, "The profile view"). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

#include "aggregate/profile.h"
#include "tools/cmd.h"
#include "tools/escape.h"
#include "tools/results.h"

#define MAXF 16

static struct json_object *times__json(const struct pf_times *x, bool share)
{
	struct json_object *o = json_object_new_object();

	for (int k = 0; k < PF_NCAT; k++)
		json_object_object_add(o, pf_cat_name[k],
				       share ? json_object_new_double(x->wall > 0 ? x->t[k] / x->wall : 0)
					     : json_object_new_int64((long long)(x->t[k] + 0.5)));
	if (!share) {
		struct json_object *m = json_object_new_object();

		for (int k = 0; k < PF_NMPI; k++)
			json_object_object_add(m, pf_kind_name[PF_MPI_COLLECTIVE + k],
					       json_object_new_int64((long long)(x->mpi[k] + 0.5)));
		json_object_object_add(o, "mpi_by_kind", m);
	}
	return o;
}

static struct json_object *stat__json(const struct pf_stat *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "sum", json_object_new_double(s->sum));
	json_object_object_add(o, "min", json_object_new_double(s->min));
	json_object_object_add(o, "max", json_object_new_double(s->max));
	json_object_object_add(o, "mean", json_object_new_double(s->mean));
	json_object_object_add(o, "cov", json_object_new_double(s->cov));
	json_object_object_add(o, "min_at", json_object_new_int(s->min_at));
	json_object_object_add(o, "max_at", json_object_new_int(s->max_at));
	return o;
}

static struct json_object *funcs__json(const struct pf_profile *p, bool io)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct pf_func *f = &p->funcs[i];
		struct json_object *o;
		double part = io ? p->threads.t[PF_IO] : p->threads.t[PF_MPI];

		if ((f->kind == PF_IO_CALL) != io)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "function", json_object_new_string(f->name));
		json_object_object_add(o, "kind", json_object_new_string(pf_kind_name[f->kind]));
		json_object_object_add(o, "calls", stat__json(&f->calls));
		json_object_object_add(o, "time_ns", stat__json(&f->time));
		/* null: not recorded (a function without a bytes rule). */
		json_object_object_add(o, "bytes", f->has_bytes ? stat__json(&f->bytes) : NULL);
		json_object_object_add(o, io ? "share_of_io" : "share_of_mpi",
				       json_object_new_double(part > 0 ? f->time.sum / part : 0));
		json_object_object_add(o, "share_of_job",
				       json_object_new_double(p->job.wall > 0 ?
								      f->time.sum / p->job.wall : 0));
		json_object_array_add(a, o);
	}
	return a;
}

static void print_json(const struct pf_profile *p, char (*fs)[PF_LINE], size_t nf)
{
	struct json_object *root = json_object_new_object(), *pr = json_object_new_object();
	struct json_object *ranks = json_object_new_array(), *job = json_object_new_object();
	struct json_object *find = json_object_new_array();

	for (size_t r = 0; r < p->nranks; r++) {
		const struct pf_rank *k = &p->ranks[r];
		struct json_object *o = json_object_new_object(), *th = json_object_new_array();

		json_object_object_add(o, "rank", json_object_new_int(k->rank));
		json_object_object_add(o, "host", json_object_new_string(k->host));
		json_object_object_add(o, "pid", json_object_new_int64(k->pid));
		json_object_object_add(o, "wall_ns", json_object_new_int64((long long)k->main.wall));
		json_object_object_add(o, "time_ns", p->from_job && !p->job_parts ?
							     NULL :
							     times__json(&k->main, false));
		json_object_object_add(o, "process_wall_ns",
				       k->wall >= 0 ? json_object_new_int64((long long)k->wall) : NULL);
		json_object_object_add(o, "threads_time_ns",
				       p->from_job && !p->job_parts ? NULL :
								      times__json(&k->all, false));
		json_object_object_add(o, "peak_rss_bytes",
				       k->peak_rss >= 0 ? json_object_new_int64((long long)k->peak_rss) :
							  NULL);
		for (size_t i = 0; i < k->nthreads; i++) {
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "tid", json_object_new_int64(k->threads[i].tid));
			json_object_object_add(t, "omp_thread",
					       k->threads[i].omp >= 0 ?
						       json_object_new_int64(k->threads[i].omp) : NULL);
			json_object_object_add(t, "wall_ns",
					       json_object_new_int64((long long)k->threads[i].x.wall));
			json_object_object_add(t, "time_ns", times__json(&k->threads[i].x, false));
			json_object_array_add(th, t);
		}
		json_object_object_add(o, "threads", th);
		json_object_array_add(ranks, o);
	}
	json_object_object_add(job, "wall_ns", json_object_new_int64((long long)p->job.wall));
	json_object_object_add(job, "longest_rank_wall_ns",
			       json_object_new_int64((long long)p->job_wall));
	json_object_object_add(job, "time_ns", times__json(&p->job, false));
	json_object_object_add(job, "share", times__json(&p->job, true));
	if (p->from_job && !p->job_parts) { /* an older job document: no openmp part */
		json_object_object_add(json_object_object_get(job, "time_ns"), "openmp_wait", NULL);
		json_object_object_add(json_object_object_get(job, "share"), "openmp_wait", NULL);
	}
	json_object_object_add(job, "threads_time_ns", times__json(&p->threads, false));
	json_object_object_add(job, "cpu_known", json_object_new_boolean(p->cpu_known));
	json_object_object_add(job, "source",
			       json_object_new_string(p->from_job ? "job document" : "rank files"));
	for (size_t i = 0; i < nf; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "text", json_object_new_string(fs[i]));
		json_object_array_add(find, o);
	}
	json_object_object_add(pr, "ranks", ranks);
	json_object_object_add(pr, "job", job);
	json_object_object_add(pr, "mpi", funcs__json(p, false));
	json_object_object_add(pr, "io", funcs__json(p, true));
	json_object_object_add(pr, "findings", find);
	json_object_object_add(root, "profile", pr);
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

static void times__row(const char *label, const struct pf_times *x)
{
	printf("  %-22s %12.3f", label, x->wall / 1e6);
	for (int k = 0; k < PF_NCAT; k++)
		printf(" %10.3f %5.1f%%", x->t[k] / 1e6, x->wall > 0 ? 100 * x->t[k] / x->wall : 0);
	putchar('\n');
}

static void times__head(void)
{
	printf("  %-22s %12s", "", "wall ms");
	for (int k = 0; k < PF_NCAT; k++)
		printf(" %17s", pf_cat_name[k]);
	putchar('\n');
}

static void funcs__text(const struct pf_profile *p, bool io)
{
	double part = io ? p->threads.t[PF_IO] : p->threads.t[PF_MPI];
	bool any = false;

	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct pf_func *f = &p->funcs[i];

		if ((f->kind == PF_IO_CALL) != io)
			continue;
		if (!any)
			printf("\n%s functions (over the ranks)\n"
			       "  %-24s %-14s %10s %8s %8s %12s %12s %5s %12s %5s %8s %7s %7s %14s\n",
			       io ? "I/O" : "MPI", "function", "kind", "calls", "min", "max",
			       "time ms", "min ms", "@", "max ms", "@", "cov", io ? "%io" : "%mpi",
			       "%job", io ? "bytes" : "bytes sent");
		any = true;
		printf("  %-24s %-14s %10.0f %8.0f %8.0f %12.3f %12.3f %5d %12.3f %5d %8.3f %6.1f%% "
		       "%6.1f%% ",
		       esc__t(f->name), pf_kind_name[f->kind], f->calls.sum, f->calls.min, f->calls.max,
		       f->time.sum / 1e6, f->time.min / 1e6, f->time.min_at, f->time.max / 1e6,
		       f->time.max_at, f->time.cov, part > 0 ? 100 * f->time.sum / part : 0,
		       p->job.wall > 0 ? 100 * f->time.sum / p->job.wall : 0);
		if (f->has_bytes)
			printf("%14.0f\n", f->bytes.sum);
		else
			printf("%14s\n", "-");
	}
	if (!any)
		printf("\nno %s call recorded\n", io ? "I/O" : "MPI");
}

static void print_text(const struct pf_profile *p, char (*fs)[PF_LINE], size_t nf)
{
	char label[200];

	printf("profile: %zu rank%s, the longest %.3f ms\n", p->nranks, p->nranks == 1 ? "" : "s",
	       p->job_wall / 1e6);
	printf("\nwhere the time went (ms and share of wall; ranks: their main thread)\n");
	times__head();
	times__row("job (ranks summed)", &p->job);
	if (p->from_job && p->job_parts)
		printf("  (from a job document: the ranks' summaries; no rank's threads: give the "
		       "ranks' files for those)\n");
	else if (p->from_job)
		printf("  (from a job document: every thread's MPI and I/O time against the "
		       "ranks' process wall time;\n   no rank's parts, no OpenMP waits, no bytes: "
		       "give the ranks' files for those)\n");
	for (size_t r = 0; r < p->nranks && (!p->from_job || p->job_parts); r++) {
		const struct pf_rank *k = &p->ranks[r];

		snprintf(label, sizeof(label), "rank %d (%s)", k->rank, esc__t(k->host));
		times__row(label, &k->main);
		if (k->nthreads > 1)
			for (size_t i = 0; i < k->nthreads; i++) {
				if (k->threads[i].omp >= 0)
					snprintf(label, sizeof(label), "  tid %lld omp %lld",
						 k->threads[i].tid, k->threads[i].omp);
				else
					snprintf(label, sizeof(label), "  tid %lld", k->threads[i].tid);
				times__row(label, &k->threads[i].x);
			}
	}
	funcs__text(p, false);
	funcs__text(p, true);
	printf("\nmemory (peak resident set per rank)\n");
	for (size_t r = 0; r < p->nranks; r++) {
		if (p->ranks[r].peak_rss >= 0)
			printf("  rank %-6d %10.1f MiB\n", p->ranks[r].rank,
			       p->ranks[r].peak_rss / 1048576.0);
		else
			printf("  rank %-6d %10s\n", p->ranks[r].rank, "-");
	}
	printf("\nfindings\n");
	if (!nf)
		printf("  nothing over the thresholds\n");
	for (size_t i = 0; i < nf; i++)
		printf("  - %s\n", fs[i]);
}

/* The profile of the results s: 0, or -1 when out of memory (said). */
static int profile__of(const struct results *s, struct pf_profile *p)
{
	const struct dr_doc **docs = calloc(s->n ? s->n : 1, sizeof(*docs));
	int *ranks = calloc(s->n ? s->n : 1, sizeof(*ranks));
	int rc = -1;

	if (docs && ranks) {
		for (size_t i = 0; i < s->n; i++) {
			docs[i] = s->r[i].doc;
			ranks[i] = s->r[i].rank;
		}
		rc = pf_profile__build(p, docs, ranks, s->n);
	}
	free(docs);
	free(ranks);
	if (rc)
		fputs("hpcshim report: out of memory\n", stderr);
	return rc;
}

int report__profile(const struct results *s, bool json)
{
	char fs[MAXF][PF_LINE];
	struct pf_profile p;
	size_t nf;

	if (profile__of(s, &p))
		return 2;
	if (p.job_docs)
		fprintf(stderr,
			"hpcshim report: --view profile: %zu job document%s left out beside the "
			"ranks' files (they have each thread); give either alone\n",
			p.job_docs, p.job_docs == 1 ? "" : "s");
	if (!p.nranks) {
		pf_profile__free(&p);
		return 2;
	}
	nf = pf_profile__findings(&p, fs, MAXF);
	if (json)
		print_json(&p, fs, nf);
	else
		print_text(&p, fs, nf);
	pf_profile__free(&p);
	return 0;
}

void report__profile_head(const struct results *s)
{
	char fs[MAXF][PF_LINE];
	struct pf_profile p;
	size_t nf;

	if (profile__of(s, &p))
		return;
	if (p.nranks && p.profiled && p.job.wall > 0) {
		nf = pf_profile__findings(&p, fs, MAXF);
		printf("where the time went (%zu rank%s, the longest %.3f ms):", p.nranks,
		       p.nranks == 1 ? "" : "s", p.job_wall / 1e6);
		for (int k = 0; k < PF_NCAT; k++)
			printf(" %s %.1f%%", pf_cat_name[k], 100 * p.job.t[k] / p.job.wall);
		putchar('\n');
		for (size_t i = 0; i < nf; i++)
			printf("  - %s\n", fs[i]);
		printf("(hpcshim report --view profile: each rank and thread, the MPI and I/O "
		       "tables, memory)\n\n");
	}
	pf_profile__free(&p);
}
