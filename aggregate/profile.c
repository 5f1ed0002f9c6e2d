/* profile.c - where a job's time went (profile.h), from the results alone.
 *
 * A thread's wall time is split so that the parts add up to it:
 *   mpi          the exclusive wall time of its MPI regions (wrapped calls)
 *   io           the exclusive wall time of its I/O regions
 *   openmp_wait  from the "openmp" section: its implicit-barrier waits,
 *                explicit barriers, critical-section and taskwait waits
 *   compute      its task-clock outside those (the regions' exclusive
 *                task-clock, the wait regions' task-clock taken out)
 *   off_cpu      the rest: wall time outside the above not on a CPU
 * Exclusive times make the MPI and I/O parts a partition: a wrapped call
 * made inside another (an MPI library's own write) counts once, as its own
 * kind.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/docread.h"
#include "aggregate/profile.h"

#define OMP_BARRIER_PREFIX "omp implicit barrier @ "

bool pf__reads_region(const char *name)
{
	return pf__classify(name) != PF_NONE ||
	       !strncmp(name, OMP_BARRIER_PREFIX, strlen(OMP_BARRIER_PREFIX));
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The OpenMP waits of thread tid in d (ns), from its shares of every
 * construct. */
static double omp_wait_of(const struct dr_doc *d, long long tid)
{
	double w = 0;

	for (size_t i = 0; i < dr_doc__nomp(d); i++) {
		const struct dr_omp *c = dr_doc__omp(d, i);

		for (size_t k = 0; c && k < dr_omp__nshares(c); k++) {
			struct dr_omp_share s;

			dr_omp__share(c, k, &s);
			if (s.tid == tid)
				w += (double)(s.wait_ns + s.barrier_ns + s.critical_wait_ns +
					      s.taskwait_ns);
		}
	}
	return w;
}

/* What measuring cost inside region r's part: its measurement_ns, at
 * most the time it is taken from (0 in files without it). */
static double region__measure(const struct dr_region *r, double part)
{
	double m = dr_region__measurement(r);

	return m > 0 ? clamp(m, 0, part > 0 ? part : 0) : 0;
}

static void thread__times(const struct dr_doc *d, const struct dr_thread *t,
			  struct pf_times *x, bool *wrapped)
{
	double cat_cpu = 0, wait_cpu = 0, rest, out, m;
	struct dr_value v;

	memset(x, 0, sizeof(*x));
	x->wall = dr_thread__wall(t) > 0 ? dr_thread__wall(t) : 0;
	x->cpu = dr_thread__total(t, "task-clock", &v) && v.has ? v.v : -1;
	for (size_t i = 0; i < dr_thread__nregions(t); i++) {
		const struct dr_region *r = dr_thread__region(t, i);
		const char *name = dr_region__name(r);
		enum pf_kind k = pf__classify(name);
		double ex = dr_region__wall(r, DR_EXCLUSIVE), c = 0;

		if (dr_region__value(r, DR_EXCLUSIVE, "task-clock", &v) && v.has)
			c = v.v;
		if (k == PF_NONE) {
			if (!strncmp(name, OMP_BARRIER_PREFIX, strlen(OMP_BARRIER_PREFIX)))
				wait_cpu += c;
			continue;
		}
		*wrapped = true;
		if (ex < 0)
			continue;
		cat_cpu += c;
		/* The call's readings fall inside its wall time: the shim's. */
		m = region__measure(r, ex);
		ex -= m;
		x->t[PF_MEASURE] += m;
		if (k == PF_IO_CALL) {
			x->t[PF_IO] += ex;
		} else {
			x->t[PF_MPI] += ex;
			x->mpi[k - PF_MPI_COLLECTIVE] += ex;
		}
	}
	/* The parts never exceed the wall (a record read at a flush may). */
	double taken = x->t[PF_MPI] + x->t[PF_IO] + x->t[PF_MEASURE];

	if (taken > x->wall && taken > 0) {
		double f = x->wall / taken;

		x->t[PF_MPI] *= f;
		x->t[PF_IO] *= f;
		x->t[PF_MEASURE] *= f;
		for (int k = 0; k < PF_NMPI; k++)
			x->mpi[k] *= f;
		taken = x->wall;
	}
	x->t[PF_OMP_WAIT] = clamp(omp_wait_of(d, dr_thread__tid(t)), 0, x->wall - taken);
	cat_cpu += clamp(wait_cpu, 0, x->t[PF_OMP_WAIT]);
	rest = x->wall - taken - x->t[PF_OMP_WAIT];
	if (rest < 0)
		rest = 0;
	if (x->cpu < 0) {
		x->t[PF_COMPUTE] = rest;
		return;
	}
	out = x->cpu - cat_cpu;
	x->t[PF_COMPUTE] = clamp(out, 0, rest);
	x->t[PF_OFF_CPU] = rest - x->t[PF_COMPUTE];
}

static void times__add(struct pf_times *a, const struct pf_times *b)
{
	a->wall += b->wall;
	if (a->cpu >= 0)
		a->cpu = b->cpu >= 0 ? a->cpu + b->cpu : -1;
	for (int k = 0; k < PF_NCAT; k++)
		a->t[k] += b->t[k];
	for (int k = 0; k < PF_NMPI; k++)
		a->mpi[k] += b->mpi[k];
}

static int rank__build(struct pf_profile *p, struct pf_rank *r, const struct dr_doc *d,
		       int rank)
{
	struct dr_rank dr;
	size_t main_i = 0;

	dr_doc__rank(d, 0, &dr);
	r->rank = dr.rank >= 0 ? dr.rank : rank;
	r->host = dr.host;
	r->pid = dr.pid;
	r->wall = dr.wall;
	r->peak_rss = dr.peak_rss;
	r->nthreads = dr_doc__nthreads(d);
	r->threads = calloc(r->nthreads ? r->nthreads : 1, sizeof(*r->threads));
	if (!r->threads)
		return -1;
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct dr_thread *t = dr_doc__thread(d, i);
		struct pf_thread *pt = &r->threads[i];

		pt->tid = dr_thread__tid(t);
		pt->omp = dr_thread__omp(t);
		thread__times(d, t, &pt->x, &p->wrapped);
		if (pt->x.cpu < 0)
			p->cpu_known = false;
		if (pt->tid == dr.pid)
			main_i = i;
		times__add(&r->all, &pt->x);
	}
	if (r->nthreads)
		r->main = r->threads[main_i].x;
	return 0;
}

/* The function named name, made when new (per-rank values in vals). */
static struct pf_func *func__get(struct pf_profile *p, double **vals, size_t *cap,
				 const char *name, enum pf_kind k)
{
	struct pf_func *f;

	for (size_t i = 0; i < p->nfuncs; i++)
		if (!strcmp(p->funcs[i].name, name))
			return &p->funcs[i];
	if (p->nfuncs == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct pf_func *nf = realloc(p->funcs, c * sizeof(*nf));
		double *nv;

		if (!nf)
			return NULL;
		p->funcs = nf;
		nv = realloc(*vals, c * 3 * (p->nranks ? p->nranks : 1) * sizeof(*nv));
		if (!nv)
			return NULL;
		*vals = nv;
		*cap = c;
	}
	f = &p->funcs[p->nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	if (!f->name)
		return NULL;
	f->kind = k;
	memset(*vals + p->nfuncs * 3 * p->nranks, 0, 3 * p->nranks * sizeof(double));
	p->nfuncs++;
	return f;
}

static void stat__of(struct pf_stat *s, const double *v, const struct pf_rank *ranks, size_t n)
{
	double sq = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	s->min = s->max = v[0];
	s->min_at = s->max_at = ranks[0].rank;
	for (size_t i = 0; i < n; i++) {
		s->sum += v[i];
		if (v[i] < s->min) {
			s->min = v[i];
			s->min_at = ranks[i].rank;
		}
		if (v[i] > s->max) {
			s->max = v[i];
			s->max_at = ranks[i].rank;
		}
	}
	s->mean = s->sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	s->cov = s->mean > 0 ? sqrt(sq / (double)n) / s->mean : 0;
}

static int func__cmp(const void *a, const void *b)
{
	const struct pf_func *x = a, *y = b;
	int ka = x->kind == PF_IO_CALL, kb = y->kind == PF_IO_CALL;

	if (ka != kb)
		return ka - kb;
	if (x->time.sum != y->time.sum)
		return x->time.sum < y->time.sum ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int funcs__build(struct pf_profile *p, const struct dr_doc *const *docs,
			const size_t *which)
{
	double *vals = NULL, *col;
	size_t cap = 0;

	for (size_t r = 0; r < p->nranks; r++) {
		const struct dr_doc *d = docs[which[r]];

		for (size_t i = 0; i < dr_doc__nregions(d); i++) {
			const struct dr_region *g = dr_doc__region(d, i);
			enum pf_kind k = pf__classify(dr_region__name(g));
			struct pf_func *f;
			size_t fi;
			double w;

			if (k == PF_NONE)
				continue;
			f = func__get(p, &vals, &cap, dr_region__name(g), k);
			if (!f) {
				free(vals);
				return -1;
			}
			fi = (size_t)(f - p->funcs);
			vals[fi * 3 * p->nranks + r] += (double)dr_region__calls(g);
			w = dr_region__wall(g, DR_INCLUSIVE);
			vals[fi * 3 * p->nranks + p->nranks + r] += w > 0 ? w : 0;
			w = dr_doc__wrap_bytes(d, dr_region__name(g));
			if (w >= 0) {
				vals[fi * 3 * p->nranks + 2 * p->nranks + r] = w;
				f->has_bytes = true;
			}
		}
	}
	for (size_t i = 0; i < p->nfuncs; i++) {
		col = vals + i * 3 * p->nranks;
		stat__of(&p->funcs[i].calls, col, p->ranks, p->nranks);
		stat__of(&p->funcs[i].time, col + p->nranks, p->ranks, p->nranks);
		stat__of(&p->funcs[i].bytes, col + 2 * p->nranks, p->ranks, p->nranks);
	}
	free(vals);
	if (p->nfuncs) /* funcs is NULL without any: qsort's pointer must not be */
		qsort(p->funcs, p->nfuncs, sizeof(*p->funcs), func__cmp);
	for (size_t i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].kind != PF_IO_CALL)
			p->nmpi++;
	return 0;
}

static void omp__worst(struct pf_profile *p, const struct dr_doc *d, int rank)
{
	for (size_t i = 0; i < dr_doc__nomp(d); i++) {
		const struct dr_omp *c = dr_doc__omp(d, i);
		struct dr_omp_construct k;

		if (!c)
			continue;
		dr_omp__get(c, &k);
		for (size_t j = 0; j < dr_omp__nshares(c); j++) {
			struct dr_omp_share s;
			double all, share;

			dr_omp__share(c, j, &s);
			all = (double)(s.work_ns + s.wait_ns);
			/* Shares of less than 1 ms say nothing. */
			if (all < 1e6)
				continue;
			share = (double)s.wait_ns / all;
			if (p->omp.has && share <= p->omp.share)
				continue;
			free(p->omp.region);
			p->omp = (struct pf_omp_worst){
				.has = true,
				.region = strdup(k.region ? k.region : "?"),
				.rank = rank,
				.tid = s.tid,
				.omp = s.omp_thread,
				.wait_ns = (double)s.wait_ns,
				.work_ns = (double)s.work_ns,
				.share = share,
			};
		}
	}
}

static void stat__from(struct pf_stat *s, const struct dr_stat *x)
{
	s->sum = x->sum;
	s->min = x->min;
	s->max = x->max;
	s->mean = x->mean;
	s->cov = x->mean > 0 ? x->sd / x->mean : 0;
	s->min_at = x->min_at;
	s->max_at = x->max_at;
}

/* A statistic over the ranks that have it, as over nranks (those without
 * counting 0, as over rank files): the mean, spread and minimum. */
static void stat__over(struct pf_stat *s, const struct dr_stat *x, size_t nranks)
{
	double n = x->n, m2, mean;

	stat__from(s, x);
	if (!nranks || n >= (double)nranks || n <= 0)
		return;
	mean = x->sum / (double)nranks;
	m2 = x->sd * x->sd * n + n * (x->mean - mean) * (x->mean - mean) +
	     ((double)nranks - n) * mean * mean;
	s->mean = mean;
	s->cov = mean > 0 ? sqrt(m2 / (double)nranks) / mean : 0;
	if (s->min > 0) {
		s->min = 0;
		s->min_at = -1; /* some rank without it: which, the document does not say */
	}
}

/* A job's parts of time (main threads' or all threads'), from the sums
 * of its statistics; false when the document has none. */
static bool job__parts(const struct dr_doc *d, bool threads, struct pf_times *x)
{
	struct dr_stat st, cpu;

	memset(x, 0, sizeof(*x));
	if (!dr_doc__job_part(d, threads, "wall", NULL, &st))
		return false;
	x->wall = st.sum;
	for (int c = 0; c < PF_NCAT; c++)
		if (dr_doc__job_part(d, threads, pf_cat_name[c], NULL, &cpu))
			x->t[c] = cpu.sum;
	for (int m = 0; m < PF_NMPI; m++)
		if (dr_doc__job_part(d, threads, NULL, pf_kind_name[PF_MPI_COLLECTIVE + m], &cpu))
			x->mpi[m] = cpu.sum;
	/* every rank's task-clock, or none known */
	x->cpu = dr_doc__job_part(d, threads, "cpu", NULL, &cpu) && cpu.n == st.n ? cpu.sum : -1;
	return true;
}

/* A rank's main thread's parts (threads false) or its threads' summed,
 * from its entry of a job document. */
static void rank__parts(const struct dr_doc *d, size_t k, bool th, struct pf_times *x)
{
	double v;

	memset(x, 0, sizeof(*x));
	x->wall = (v = dr_doc__rank_part(d, k, th, "wall", NULL)) > 0 ? v : 0;
	x->cpu = dr_doc__rank_part(d, k, th, "cpu", NULL);
	for (int c = 0; c < PF_NCAT; c++)
		x->t[c] = (v = dr_doc__rank_part(d, k, th, pf_cat_name[c], NULL)) > 0 ? v : 0;
	for (int m = 0; m < PF_NMPI; m++) {
		v = dr_doc__rank_part(d, k, th, NULL, pf_kind_name[PF_MPI_COLLECTIVE + m]);
		x->mpi[m] = v > 0 ? v : 0;
	}
}

/* The thread that waited the largest share of a construct, from a job
 * document's OpenMP summaries: per construct and OpenMP thread the
 * largest waiting share over the ranks (shares of 1 ms and more, as
 * omp__worst weighs them) and its (rank, tid). */
static void job__omp_worst(struct pf_profile *p, const struct dr_doc *d)
{
	for (size_t i = 0; i < dr_doc__nomp(d); i++) {
		const struct dr_omp *c = dr_doc__omp(d, i);
		struct dr_omp_construct k;

		if (!c)
			continue;
		dr_omp__get(c, &k);
		for (size_t j = 0; j < dr_omp__nshares(c); j++) {
			struct dr_omp_share s;
			struct dr_stat w;

			if (!dr_omp__share_stat(c, j, "wait_share", &w) || w.n <= 0)
				continue;
			if (p->omp.has && w.max <= p->omp.share)
				continue;
			dr_omp__share(c, j, &s);
			free(p->omp.region);
			p->omp = (struct pf_omp_worst){
				.has = true,
				.region = strdup(k.region ? k.region : "?"),
				.rank = w.max_at,
				.tid = w.max_tid,
				.omp = s.omp_thread,
				.share = w.max,
			};
		}
	}
}

/* From a job document carrying the ranks' parts: the rank files' figures
 * for the job, every listed rank's main thread and the functions. */
static int job__build_parts(struct pf_profile *p, const struct dr_doc *d)
{
	struct dr_stat st;
	double *vals = NULL;
	size_t cap = 0, nr;

	p->job_parts = true;
	job__parts(d, false, &p->job);
	job__parts(d, true, &p->threads);
	p->cpu_known = p->job.cpu >= 0 && p->threads.cpu >= 0;
	nr = dr_doc__job_part(d, false, "wall", NULL, &st) ? (size_t)st.n : p->nranks;
	for (size_t k = 0; k < p->nranks; k++) {
		rank__parts(d, k, false, &p->ranks[k].main);
		rank__parts(d, k, true, &p->ranks[k].all);
	}
	for (size_t i = 0; i < dr_doc__nregions(d); i++) {
		const struct dr_region *g = dr_doc__region(d, i);
		enum pf_kind k = pf__classify(dr_region__name(g));
		struct dr_stat calls, wall, bytes;
		struct pf_func *f;

		if (k == PF_NONE)
			continue;
		p->wrapped = true;
		if (dr_region__stat(g, DR_STAT_CALLS, DR_TOTALS, NULL, &calls) && calls.sum <= 0)
			continue;
		f = func__get(p, &vals, &cap, dr_region__name(g), k);
		if (!f) {
			free(vals);
			return -1;
		}
		if (dr_region__stat(g, DR_STAT_CALLS, DR_TOTALS, NULL, &calls))
			stat__over(&f->calls, &calls, nr);
		if (dr_region__stat(g, DR_STAT_WALL, DR_INCLUSIVE, NULL, &wall))
			stat__over(&f->time, &wall, nr);
		if (dr_region__stat(g, DR_STAT_BYTES, DR_TOTALS, NULL, &bytes)) {
			stat__over(&f->bytes, &bytes, nr);
			f->has_bytes = true;
			if (!strcmp(dr_region__name(g), "write"))
				p->profiled = true;
		}
	}
	free(vals);
	if (p->nfuncs) /* funcs is NULL without any: qsort's pointer must not be */
		qsort(p->funcs, p->nfuncs, sizeof(*p->funcs), func__cmp);
	for (size_t i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].kind != PF_IO_CALL)
			p->nmpi++;
	job__omp_worst(p, d);
	return 0;
}

/* From a job document: what its regions' statistics and ranks give. */
static int job__build(struct pf_profile *p, const struct dr_doc *d)
{
	struct dr_stat parts;
	double cat_cpu = 0, rest, *vals = NULL;
	size_t cap = 0;

	p->from_job = true;
	p->nranks = dr_doc__nranks(d);
	p->ranks = calloc(p->nranks ? p->nranks : 1, sizeof(*p->ranks));
	if (!p->ranks)
		return -1;
	for (size_t k = 0; k < p->nranks; k++) {
		struct pf_rank *r = &p->ranks[k];
		struct dr_rank dr;
		struct dr_value v;

		dr_doc__rank(d, k, &dr);
		r->rank = dr.rank >= 0 ? dr.rank : (int)k;
		r->host = dr.host;
		r->pid = dr.pid;
		r->wall = dr.wall;
		r->peak_rss = dr.peak_rss;
		r->main.wall = r->all.wall = dr.wall > 0 ? dr.wall : 0;
		r->main.cpu = r->all.cpu = -1;
		p->job.wall += r->main.wall;
		if (dr.wall > p->job_wall)
			p->job_wall = dr.wall;
		if (dr_doc__rank_value(d, k, "task-clock", &v) && v.has && p->job.cpu >= 0)
			p->job.cpu += v.v;
		else
			p->job.cpu = -1;
	}
	if (dr_doc__job_part(d, false, "wall", NULL, &parts)) {
		struct dr_stat w;

		if (dr_doc__job_stat(d, "wall_ns", &w))
			p->job_wall = w.max;
		return job__build_parts(p, d);
	}
	for (size_t i = 0; i < dr_doc__nregions(d); i++) {
		const struct dr_region *g = dr_doc__region(d, i);
		enum pf_kind k = pf__classify(dr_region__name(g));
		struct dr_stat calls, wall, ex, c;
		struct pf_func *f;

		if (k == PF_NONE)
			continue;
		p->wrapped = true;
		/* The in-job document is a snapshot in MPI_Finalize: its call
		 * is open, none completed. */
		if (dr_region__stat(g, DR_STAT_CALLS, DR_TOTALS, NULL, &calls) && calls.sum <= 0)
			continue;
		if (dr_region__stat(g, DR_STAT_WALL, DR_EXCLUSIVE, NULL, &ex)) {
			if (k == PF_IO_CALL) {
				p->job.t[PF_IO] += ex.sum;
			} else {
				p->job.t[PF_MPI] += ex.sum;
				p->job.mpi[k - PF_MPI_COLLECTIVE] += ex.sum;
			}
		}
		if (dr_region__stat(g, DR_STAT_VALUE, DR_EXCLUSIVE, "task-clock", &c))
			cat_cpu += c.sum;
		f = func__get(p, &vals, &cap, dr_region__name(g), k);
		if (!f) {
			free(vals);
			return -1;
		}
		if (dr_region__stat(g, DR_STAT_CALLS, DR_TOTALS, NULL, &calls))
			stat__from(&f->calls, &calls);
		if (dr_region__stat(g, DR_STAT_WALL, DR_INCLUSIVE, NULL, &wall))
			stat__from(&f->time, &wall);
	}
	free(vals);
	if (p->nfuncs) /* funcs is NULL without any: qsort's pointer must not be */
		qsort(p->funcs, p->nfuncs, sizeof(*p->funcs), func__cmp);
	for (size_t i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].kind != PF_IO_CALL)
			p->nmpi++;
	if (p->job.t[PF_MPI] + p->job.t[PF_IO] > p->job.wall)
		p->job.wall = p->job.t[PF_MPI] + p->job.t[PF_IO];
	rest = p->job.wall - p->job.t[PF_MPI] - p->job.t[PF_IO];
	if (p->job.cpu < 0) {
		p->cpu_known = false;
		p->job.t[PF_COMPUTE] = rest;
	} else {
		p->job.t[PF_COMPUTE] = clamp(p->job.cpu - cat_cpu, 0, rest);
		p->job.t[PF_OFF_CPU] = rest - p->job.t[PF_COMPUTE];
	}
	p->threads = p->job;
	return 0;
}

int pf_profile__build(struct pf_profile *p, const struct dr_doc *const *docs,
		      const int *ranks, size_t n)
{
	size_t *which = calloc(n ? n : 1, sizeof(*which));

	memset(p, 0, sizeof(*p));
	p->cpu_known = true;
	if (!which)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (dr_doc__kind(docs[i]) == DR_JOB)
			p->job_docs++;
		else
			which[p->nranks++] = i;
	}
	if (!p->nranks && p->job_docs) {
		for (size_t i = 0; i < n; i++)
			if (dr_doc__kind(docs[i]) == DR_JOB) {
				free(which);
				p->job_docs--;
				return job__build(p, docs[i]);
			}
	}
	p->ranks = calloc(p->nranks ? p->nranks : 1, sizeof(*p->ranks));
	if (!p->ranks) {
		free(which);
		return -1;
	}
	for (size_t r = 0; r < p->nranks; r++) {
		if (rank__build(p, &p->ranks[r], docs[which[r]], ranks ? ranks[which[r]] : (int)r)) {
			free(which);
			return -1;
		}
		times__add(&p->job, &p->ranks[r].main);
		times__add(&p->threads, &p->ranks[r].all);
		if (p->ranks[r].wall > p->job_wall)
			p->job_wall = p->ranks[r].wall;
		omp__worst(p, docs[which[r]], p->ranks[r].rank);
		/* bytes are recorded under the profile only: its I/O set's write */
		if (dr_doc__wrap_bytes(docs[which[r]], "write") >= 0)
			p->profiled = true;
	}
	if (funcs__build(p, docs, which)) {
		free(which);
		return -1;
	}
	free(which);
	return 0;
}

void pf_profile__free(struct pf_profile *p)
{
	for (size_t r = 0; r < p->nranks; r++)
		free(p->ranks[r].threads);
	free(p->ranks);
	for (size_t i = 0; i < p->nfuncs; i++)
		free(p->funcs[i].name);
	free(p->funcs);
	free(p->omp.region);
	memset(p, 0, sizeof(*p));
}

/* ---- findings ---------------------------------------------------------- */

/* The thresholds (docs/command.md, "report --view profile"). */
#define F_PART 0.10      /* a part worth a sentence: 10% of the job's time */
#define F_COMPUTE 0.80   /* compute-bound above this                    */
#define F_COV 0.25       /* a function's time uneven across ranks        */
#define F_OMP_WAIT 0.20  /* a thread waiting this share of a construct   */
#define F_MEM 1.5        /* a rank's peak memory this many times the mean */
#define F_SPREAD 0.05    /* a wait's max - min over the ranks, of a rank's mean time */

#define PCT(a, b) ((b) > 0 ? 100.0 * (a) / (b) : 0.0)

/* The function of the most time: an I/O call, or an MPI call but MPI's
 * start and end (their own finding). */
static const struct pf_func *top_func(const struct pf_profile *p, bool io)
{
	for (size_t i = 0; i < p->nfuncs; i++)
		if ((p->funcs[i].kind == PF_IO_CALL) == io && p->funcs[i].kind != PF_MPI_START)
			return &p->funcs[i];
	return NULL;
}

/* The collective or wait whose time differs most between two ranks. */
static const struct pf_func *widest_wait(const struct pf_profile *p)
{
	const struct pf_func *w = NULL;

	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct pf_func *f = &p->funcs[i];

		if (f->kind != PF_MPI_COLLECTIVE && f->kind != PF_MPI_WAIT)
			continue;
		if (!w || f->time.max - f->time.min > w->time.max - w->time.min)
			w = f;
	}
	return w;
}

static double rank_main_wall(const struct pf_profile *p, int rank)
{
	for (size_t r = 0; r < p->nranks; r++)
		if (p->ranks[r].rank == rank)
			return p->ranks[r].main.wall;
	return 0;
}

size_t pf_profile__findings(const struct pf_profile *p, char (*out)[PF_LINE], size_t max)
{
	const double W = p->job.wall;
	const struct pf_func *f;
	size_t n = 0;

#define SAY(...) (n < max ? (void)snprintf(out[n++], PF_LINE, __VA_ARGS__) : (void)0)
	if (!p->nranks || W <= 0)
		return 0;
	if (!p->wrapped && p->profiled)
		SAY("The program made no MPI or I/O call (outside MPI) that the profile "
		    "wraps.");
	else if (!p->wrapped)
		SAY("No MPI or I/O call was recorded: run with hpcshim run --profile "
		    "(HPCSHIM_PROFILE=1) to see their time.");
	f = top_func(p, false);
	if (p->job.t[PF_MPI] - p->job.mpi[PF_MPI_START - PF_MPI_COLLECTIVE] >= F_PART * W && f) {
		double mpi = p->job.t[PF_MPI];

		SAY("MPI is %.0f%% of the job's time; %.0f%% of it is %s (%s), most on rank "
		    "%d: %.3f ms, %.0f%% of that rank's time (least: rank %d, %.3f ms).",
		    PCT(mpi, W), PCT(f->time.sum, p->threads.t[PF_MPI]), f->name, pf_kind_name[f->kind],
		    f->time.max_at, f->time.max / 1e6,
		    PCT(f->time.max, rank_main_wall(p, f->time.max_at)), f->time.min_at,
		    f->time.min / 1e6);
	}
	f = widest_wait(p);
	if (f && f->time.cov >= F_COV && f->time.max - f->time.min >= F_SPREAD * W / (double)p->nranks)
		SAY("Rank %d waits longest in %s: %.3f ms, against %.3f ms on rank %d "
		    "(coefficient of variation %.2f over the ranks): the ranks arrive at it "
		    "unevenly, so the imbalance is in the work before it.",
		    f->time.max_at, f->name, f->time.max / 1e6, f->time.min / 1e6, f->time.min_at,
		    f->time.cov);
	if (p->job.mpi[PF_MPI_START - PF_MPI_COLLECTIVE] >= F_PART * W)
		SAY("MPI's start and end (MPI_Init, MPI_Finalize) take %.0f%% of the job's "
		    "time: the launch and wire-up, a fixed cost that a longer run "
		    "amortises.", PCT(p->job.mpi[PF_MPI_START - PF_MPI_COLLECTIVE], W));
	f = top_func(p, true);
	if (p->job.t[PF_IO] >= F_PART * W && f)
		SAY("I/O is %.0f%% of the job's time; %.0f%% of it in %s (%.0f calls over "
		    "the ranks).",
		    PCT(p->job.t[PF_IO], W), PCT(f->time.sum, p->threads.t[PF_IO]), f->name,
		    f->calls.sum);
	if (p->job.t[PF_OMP_WAIT] >= F_PART * W)
		SAY("OpenMP threads wait %.0f%% of the job's time (barriers, critical "
		    "sections, taskwaits).", PCT(p->job.t[PF_OMP_WAIT], W));
	if (p->omp.has && p->omp.share >= F_OMP_WAIT)
		SAY("Thread %lld (omp thread %lld) of rank %d waits %.0f%% of parallel region "
		    "`%s` at its barrier: the team's work is uneven.",
		    p->omp.tid, p->omp.omp, p->omp.rank, 100 * p->omp.share, p->omp.region);
	if (p->cpu_known && p->job.t[PF_OFF_CPU] >= F_PART * W)
		SAY("The threads are off the CPU %.0f%% of the time outside MPI, I/O and "
		    "OpenMP waits (sleeping, blocked, or sharing a CPU with other work).",
		    PCT(p->job.t[PF_OFF_CPU], W));
	if (p->job.t[PF_COMPUTE] >= F_COMPUTE * W)
		SAY("The job computes %.0f%% of its time: look at the counters next "
		    "(hpcshim run --preset topdown).", PCT(p->job.t[PF_COMPUTE], W));
	if (!p->cpu_known)
		SAY("Some thread has no task-clock: its time off the CPU counts as compute.");
	{
		double sum = 0, top = -1;
		int at = -1;
		size_t k = 0;

		for (size_t r = 0; r < p->nranks; r++)
			if (p->ranks[r].peak_rss > 0) {
				sum += p->ranks[r].peak_rss;
				k++;
				if (p->ranks[r].peak_rss > top) {
					top = p->ranks[r].peak_rss;
					at = p->ranks[r].rank;
				}
			}
		if (k > 1 && top >= F_MEM * sum / (double)k)
			SAY("Rank %d peaks at %.1f MiB of memory, %.1f times the ranks' mean.",
			    at, top / 1048576.0, top / (sum / (double)k));
	}
#undef SAY
	return n;
}
