/* html_profile.c - the answer first in hpcshim html (issues 31 and 29):
 * where the job's time went, when the results carry profile data
 * (`hpcshim run --profile`): the job's five parts as one stacked bar, one
 * bar per rank (sorted, the rank the others wait for marked), the
 * findings, the MPI and I/O tables; and the OpenMP constructs (per
 * thread work against wait, the imbalance, the slowest thread).
 *
 * The figures are aggregate/profile.c's (`report --view profile`) and the
 * "openmp" part's as `report --view openmp` reads it (aggregate/docread.h):
 * each drawn or shown number carries the exact value in data-value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/profile.h"
#include "tools/escape.h"
#include "tools/html.h"
#include "tools/results.h"
#include "tools/xalloc.h"

#define MAXF 16
#define BARW 560.0 /* the longest bar, px */

static const char *const cat_color[PF_NCAT] = { "#2e86c1", "#c0392b", "#d68910", "#8e44ad",
						"#95a5a6", "#f1c40f" };
static const char *const cat_label[PF_NCAT] = { "compute", "MPI", "I/O", "OpenMP wait",
						"off CPU", "measuring" };

static void ms(FILE *f, double ns)
{
	fprintf(f, "%.3f&nbsp;ms", ns / 1e6);
}

/* x's parts as one stacked bar at row y, scaled so that scale ns is BARW
 * px; each segment a rect of class seg with its part and exact ns. */
static void stack(FILE *f, const struct pf_times *x, double scale, double x0, int y, int h,
		  bool job_doc)
{
	double at = x0;

	for (int k = 0; k < PF_NCAT; k++) {
		double w = scale > 0 ? BARW * x->t[k] / scale : 0;

		if (job_doc && k == PF_OMP_WAIT)
			continue; /* a job document has no openmp part */
		fprintf(f, "<rect class=seg data-cat=%s x=%.1f y=%d width=%.1f height=%d fill=\"%s\" "
			   "data-value=\"%.17g\"><title>%s %.3f ms (%.1f%%)</title></rect>",
			pf_cat_name[k], at, y, w, h, cat_color[k], x->t[k], cat_label[k],
			x->t[k] / 1e6, x->wall > 0 ? 100 * x->t[k] / x->wall : 0);
		at += w;
	}
}

static void legend(FILE *f, const struct pf_times *x, bool job_doc)
{
	fputs("<p class=legend id=jobshares>", f);
	for (int k = 0; k < PF_NCAT; k++) {
		if (job_doc && k == PF_OMP_WAIT)
			continue;
		fprintf(f, "<span class=lab data-cat=%s data-value=\"%.17g\" data-share=\"%.17g\">"
			   "<span class=sw style=\"background:%s\"></span>%s <b>%.1f%%</b> (",
			pf_cat_name[k], x->t[k], x->wall > 0 ? x->t[k] / x->wall : 0, cat_color[k],
			cat_label[k], x->wall > 0 ? 100 * x->t[k] / x->wall : 0);
		ms(f, x->t[k]);
		fputs(")</span> ", f);
	}
	fputs("</p>\n", f);
}

/* A rank's time in MPI calls but MPI_Init and MPI_Finalize: mostly
 * waiting for the others, so the rank with the least is the last to
 * arrive, the one the others wait for. */
static double in_mpi(const struct pf_rank *k)
{
	return k->main.t[PF_MPI] - k->main.mpi[PF_MPI_START - PF_MPI_COLLECTIVE];
}

static const struct pf_rank *sort_base;

static int rank_cmp(const void *a, const void *b)
{
	const struct pf_rank *x = &sort_base[*(const size_t *)a];
	const struct pf_rank *y = &sort_base[*(const size_t *)b];
	double dx = in_mpi(x), dy = in_mpi(y);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return x->rank - y->rank;
}

/* One bar per rank (its main thread's parts), the rank with the least
 * time in MPI calls first, marked when the ranks made any. */
static void rank_bars(FILE *f, const struct pf_profile *p)
{
	size_t *order = xrealloc(NULL, p->nranks * sizeof(*order));
	double longest = 0, any = 0;
	bool mark;
	const int h = 16;

	for (size_t r = 0; r < p->nranks; r++) {
		order[r] = r;
		if (p->ranks[r].main.wall > longest)
			longest = p->ranks[r].main.wall;
		any += in_mpi(&p->ranks[r]);
	}
	sort_base = p->ranks;
	qsort(order, p->nranks, sizeof(*order), rank_cmp);
	mark = p->nranks > 1 && any > 0;
	fputs("<h3>Per rank (its main thread), the least time in MPI calls first</h3>\n", f);
	if (mark)
		fprintf(f, "<p id=culprit data-rank=%d>Marked: rank %d, the least time in MPI calls "
			   "but MPI_Init and MPI_Finalize (<span data-value=\"%.17g\">%.3f&nbsp;ms"
			   "</span>): the last to arrive, the rank the others wait for.</p>\n",
			p->ranks[order[0]].rank, p->ranks[order[0]].rank, in_mpi(&p->ranks[order[0]]),
			in_mpi(&p->ranks[order[0]]) / 1e6);
	fprintf(f, "<svg id=rankparts width=%d height=%zu role=img>\n", 140 + (int)BARW + 110,
		p->nranks * (size_t)(h + 4) + 4);
	for (size_t j = 0; j < p->nranks; j++) {
		const struct pf_rank *k = &p->ranks[order[j]];
		bool culprit = j == 0 && mark;
		int y = (int)j * (h + 4) + 2;

		fprintf(f, "<g class=\"rank%s\" data-rank=%d data-wall=\"%.17g\">", culprit ? " culprit" : "",
			k->rank, k->main.wall);
		fprintf(f, "<text x=0 y=%d%s>%srank %d</text>", y + 12,
			culprit ? " font-weight=\"bold\" fill=\"#c0392b\"" : "",
			culprit ? "&#x25B6; " : "", k->rank);
		stack(f, &k->main, longest, 140, y, h, false);
		fprintf(f, "<text x=%.1f y=%d>%.3f ms</text></g>\n", 145 + BARW * k->main.wall / longest,
			y + 12, k->main.wall / 1e6);
	}
	fputs("</svg>\n", f);
	free(order);
}

static void stat_cell(FILE *f, const struct pf_stat *s, bool time, bool at)
{
	fprintf(f, "<td data-value=\"%.17g\">", s->sum);
	if (time)
		ms(f, s->sum);
	else
		fprintf(f, "%.0f", s->sum);
	fputs("</td>", f);
	if (!at)
		return;
	fprintf(f, "<td data-value=\"%.17g\">", s->min);
	time ? ms(f, s->min) : (void)fprintf(f, "%.0f", s->min);
	fprintf(f, " <small>@%d</small></td><td data-value=\"%.17g\">", s->min_at, s->max);
	time ? ms(f, s->max) : (void)fprintf(f, "%.0f", s->max);
	fprintf(f, " <small>@%d</small></td><td data-value=\"%.17g\">%.2f</td>", s->max_at, s->cov,
		s->cov);
}

/* mpiP's table of the MPI (I/O) functions over the ranks. */
static void funcs(FILE *f, const struct pf_profile *p, bool io)
{
	double part = io ? p->threads.t[PF_IO] : p->threads.t[PF_MPI];
	bool any = false;

	fprintf(f, "<h3>%s functions, over the ranks</h3>\n", io ? "I/O" : "MPI");
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct pf_func *fn = &p->funcs[i];

		if ((fn->kind == PF_IO_CALL) != io)
			continue;
		if (!any)
			fprintf(f, "<div class=wide><table id=%s><tr><th>function</th><th>kind</th>"
				   "<th>calls</th><th>time</th><th>time min @rank</th>"
				   "<th>time max @rank</th><th>cov</th><th>%% of %s</th>"
				   "<th>%% of job</th><th>%s</th></tr>\n",
				io ? "iofuncs" : "mpifuncs", io ? "I/O" : "MPI",
				io ? "bytes" : "bytes sent");
		any = true;
		fputs("<tr><td>", f);
		esc__html(f, fn->name);
		fprintf(f, "</td><td>%s</td>", pf_kind_name[fn->kind]);
		stat_cell(f, &fn->calls, false, false);
		stat_cell(f, &fn->time, true, true);
		fprintf(f, "<td data-value=\"%.17g\">%.1f%%</td>", part > 0 ? fn->time.sum / part : 0,
			part > 0 ? 100 * fn->time.sum / part : 0);
		fprintf(f, "<td data-value=\"%.17g\">%.1f%%</td>",
			p->job.wall > 0 ? fn->time.sum / p->job.wall : 0,
			p->job.wall > 0 ? 100 * fn->time.sum / p->job.wall : 0);
		if (fn->has_bytes)
			fprintf(f, "<td data-value=\"%.17g\">%.0f</td>", fn->bytes.sum, fn->bytes.sum);
		else
			fputs("<td class=na>-</td>", f);
		fputs("</tr>\n", f);
	}
	if (any)
		fputs("</table></div>\n", f);
	else
		fprintf(f, "<p class=na id=%s>no %s call recorded</p>\n", io ? "iofuncs" : "mpifuncs",
			io ? "I/O" : "MPI");
}

bool html__profile(FILE *f, const struct results *s)
{
	const struct dr_doc **docs = xrealloc(NULL, (s->n ? s->n : 1) * sizeof(*docs));
	int *ranks = xrealloc(NULL, (s->n ? s->n : 1) * sizeof(*ranks));
	char fs[MAXF][PF_LINE];
	struct pf_profile p;
	size_t nf;

	for (size_t i = 0; i < s->n; i++) {
		docs[i] = s->r[i].doc;
		ranks[i] = s->r[i].rank;
	}
	if (pf_profile__build(&p, docs, ranks, s->n)) {
		fputs("hpcshim: out of memory\n", stderr);
		exit(XALLOC_STATUS);
	}
	free(docs);
	free(ranks);
	if (!p.nranks || !(p.wrapped || p.profiled) || p.job.wall <= 0) {
		pf_profile__free(&p);
		return false;
	}
	nf = pf_profile__findings(&p, fs, MAXF);
	fprintf(f, "<h2 id=profile>Where the time went</h2>\n<p>Each thread's wall time in five "
		   "parts that add up to it (<code>hpcshim report --view profile</code>); the "
		   "job: its %zu %s summed, <span id=jobwall data-value=\"%.17g\">",
		p.nranks, p.nranks == 1 ? "rank's main thread" : "ranks' main threads", p.job.wall);
	ms(f, p.job.wall);
	fputs("</span>.</p>\n", f);
	legend(f, &p.job, p.from_job);
	fprintf(f, "<svg id=jobbar width=%d height=24 role=img>", 140 + (int)BARW + 10);
	fputs("<text x=0 y=16>job</text>", f);
	stack(f, &p.job, p.job.wall, 140, 2, 20, p.from_job);
	fputs("</svg>\n", f);
	if (!p.from_job)
		rank_bars(f, &p);
	fputs("<h3>Findings</h3>\n<ul id=findings>", f);
	for (size_t i = 0; i < nf; i++) {
		fputs("<li>", f);
		esc__html(f, fs[i]);
		fputs("</li>", f);
	}
	if (!nf)
		fputs("<li class=na>nothing over the thresholds</li>", f);
	fputs("</ul>\n", f);
	funcs(f, &p, false);
	funcs(f, &p, true);
	pf_profile__free(&p);
	return true;
}

/* ---- OpenMP ---------------------------------------------------------------- */

static void construct(FILE *f, const struct dr_omp *c, int rank, size_t nfiles, size_t id)
{
	struct dr_omp_construct k;
	long long top = 0;
	const int h = 14;
	size_t n = dr_omp__nshares(c);

	dr_omp__get(c, &k);
	for (size_t i = 0; i < n; i++) {
		struct dr_omp_share sh;

		dr_omp__share(c, i, &sh);
		if (sh.work_ns + sh.wait_ns > top)
			top = sh.work_ns + sh.wait_ns;
	}
	fprintf(f, "<div class=construct id=omp%zu data-rank=%d><h3>", id, rank);
	esc__html(f, k.region ? k.region : "?");
	if (nfiles > 1)
		fprintf(f, " <small>(rank %d)</small>", rank);
	fprintf(f, "</h3>\n<p>teams <span class=teams data-value=%lld>%lld</span>, threads "
		   "<span class=threads data-value=%lld>%lld</span>",
		k.teams, k.teams, k.threads, k.threads);
	if (k.has_imbalance)
		fprintf(f, "; imbalance of the work (max - mean)/mean <b class=imbalance "
			   "data-value=\"%.17g\">%.1f%%</b>",
			k.imbalance, 100 * k.imbalance);
	if (k.has_wait_share)
		fprintf(f, "; waiting <span class=waitshare data-value=\"%.17g\">%.1f%%</span> of "
			   "the team's time",
			k.wait_share, 100 * k.wait_share);
	if (k.slowest_omp_thread >= 0)
		fprintf(f, "; slowest: <span class=\"slowest culprit\" data-omp=%lld data-tid=%lld>omp "
			   "thread %lld (tid %lld)</span>",
			k.slowest_omp_thread, k.slowest_tid, k.slowest_omp_thread, k.slowest_tid);
	fputs("</p>\n", f);
	fprintf(f, "<svg class=ompbars width=%d height=%zu role=img>\n", 140 + (int)BARW + 130,
		n * (size_t)(h + 4) + 4);
	for (size_t i = 0; i < n; i++) {
		struct dr_omp_share sh;
		int y = (int)i * (h + 4) + 2;
		double ww, wt;
		bool slow;

		dr_omp__share(c, i, &sh);
		slow = sh.omp_thread == k.slowest_omp_thread;
		ww = top > 0 ? BARW * (double)sh.work_ns / (double)top : 0;
		wt = top > 0 ? BARW * (double)sh.wait_ns / (double)top : 0;
		fprintf(f, "<g class=share data-omp=%lld data-tid=%lld data-calls=%lld>"
			   "<text x=0 y=%d%s>%somp %lld tid %lld</text>",
			sh.omp_thread, sh.tid, sh.calls, y + 11,
			slow ? " font-weight=\"bold\" fill=\"#c0392b\"" : "", slow ? "&#x25B6; " : "",
			sh.omp_thread, sh.tid);
		fprintf(f, "<rect class=work x=140 y=%d width=%.1f height=%d fill=\"#2e86c1\" "
			   "data-value=%lld><title>work %.3f ms</title></rect>",
			y, ww, h, sh.work_ns, sh.work_ns / 1e6);
		fprintf(f, "<rect class=wait x=%.1f y=%d width=%.1f height=%d fill=\"#8e44ad\" "
			   "data-value=%lld><title>wait %.3f ms</title></rect>",
			140 + ww, y, wt, h, sh.wait_ns, sh.wait_ns / 1e6);
		fprintf(f, "<text x=%.1f y=%d>%.3f + %.3f ms</text></g>\n", 145 + ww + wt, y + 11,
			sh.work_ns / 1e6, sh.wait_ns / 1e6);
	}
	fputs("</svg></div>\n", f);
}

bool html__openmp(FILE *f, const struct results *s)
{
	size_t id = 0;

	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < dr_doc__nomp(s->r[i].doc); k++) {
			const struct dr_omp *c = dr_doc__omp(s->r[i].doc, k);

			if (!c)
				continue;
			if (!id)
				fputs("<h2 id=openmp>OpenMP constructs</h2>\n<p>Per construct "
				      "(<code>hpcshim report --view openmp</code>), each thread's work "
				      "<span class=sw style=\"background:#2e86c1\"></span> and its wait at "
				      "the implicit barrier <span class=sw style=\"background:#8e44ad\">"
				      "</span>; the thread that held the others up marked.</p>\n",
				      f);
			construct(f, c, s->r[i].rank, s->n, id++);
		}
	return id > 0;
}
