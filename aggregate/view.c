/* view.c - every reported value, computed once before serialising (view.h).
 *
 * Each thread interval's raw counts go through agg_mux__view once; the
 * estimate, the number printed, the standard error and the metrics all
 * come from that one result, and the process sums are sums of it.  Before
 * this pass the metrics re-read the raw counts and scaled them with the
 * kernel's times, which under rotation are not the reported ones.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fmath.h"
#include "common/hash.h"
#include "common/seqlock.h"
#include "aggregate/metric.h"
#include "aggregate/mux.h"
#include "aggregate/view.h"

#define WHY_MAX 240
#define MAX_INPUTS 64 /* events a metric can name: the missing-bit width */

/* Why an event is no metric input: one text per kind and event, built once
 * per view, so that a metric's reason can point at it. */
enum why_kind {
	WHY_DROPPED,
	WHY_MISSING,
	WHY_UNKNOWN,
	WHY_NO_THREAD,
	AGG_WHY_KINDS
};

static const char *const why_text[AGG_WHY_KINDS] = {
	[WHY_DROPPED] = "dropped: ",
	[WHY_MISSING] = "not counted in this thread",
	[WHY_UNKNOWN] = "never ran on a counter (multiplexed out)",
	[WHY_NO_THREAD] = "has no value in any thread",
};

/* ---- memory: one list of zeroed blocks, freed at once ---------------- */

struct agg_view_chunk {
	struct agg_view_chunk *next;
	size_t cap, used; /* bytes of data[]: the scratch's bump allocator */
	max_align_t data[];
};

static void *chunk__alloc(struct agg_view_chunk **list, size_t n, size_t size)
{
	struct agg_view_chunk *c;

	if (n && size > (SIZE_MAX - sizeof(*c)) / n)
		return NULL;
	c = calloc(1, sizeof(*c) + (n ? n * size : 1));
	if (!c)
		return NULL;
	c->next = *list;
	*list = c;
	return c->data;
}

static void chunk__free(struct agg_view_chunk **list)
{
	while (*list) {
		struct agg_view_chunk *c = *list;

		*list = c->next;
		free(c);
	}
}

/* Tables that grow with the number of region names (10^5 and more):
 * mapped apart from the heap, so that their memory goes back to the
 * system as soon as they are freed.  From malloc, a flush's tables would
 * stay in the flusher thread's arena while the end builds its own, and
 * the process would peak at both. */
#define BIG_POPULATE (256 * 1024)

static void *big__alloc(size_t n, size_t size)
{
	size_t len = n * size;
	void *p;

	if (n && size > SIZE_MAX / n)
		return NULL;
	/* A large table's pages in place at once: one system call, not one
	 * fault per page as it fills (MAP_POPULATE).  A small one's come as
	 * they are touched: most of a small process's tables are never
	 * filled. */
	p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (len >= BIG_POPULATE ? MAP_POPULATE : 0),
		 -1, 0);
	return p == MAP_FAILED ? NULL : p; /* zeroed */
}

static void big__free(void *p, size_t n, size_t size)
{
	size_t len = n * size;

	if (p)
		munmap(p, len ? len : 1);
}

/* What lives as long as the view. */
static void *view__alloc(struct agg_view *v, size_t n, size_t size)
{
	return chunk__alloc(&v->mem, n, size);
}

/* One record's values: zeroed memory from a block kept from record to
 * record (agg_view__release), so that the 2-3 passes over every region
 * record allocate nothing once the first record is done. */
#define SCRATCH_BLOCK (64 * 1024)

static void *scratch__take(struct agg_view *v, size_t n, size_t size)
{
	struct agg_view_chunk *c = v->scratch;
	size_t al = sizeof(max_align_t), len;
	void *r;

	if (n && size > (SIZE_MAX - 2 * al - sizeof(*c)) / n)
		return NULL;
	len = n * size;
	len = len ? (len + al - 1) / al * al : al;
	if (!c || c->cap - c->used < len) {
		size_t cap = len > SCRATCH_BLOCK ? len : SCRATCH_BLOCK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = v->scratch;
		v->scratch = c;
	}
	r = (char *)c->data + c->used;
	c->used += len;
	return r;
}

static void *scratch__alloc(struct agg_view *v, size_t n, size_t size)
{
	void *r = scratch__take(v, n, size);

	if (r)
		memset(r, 0, n * size);
	return r;
}

/* Frees a record's scratch but one standard block, kept for the next. */
void agg_view__release(struct agg_view *v)
{
	struct agg_view_chunk *keep = NULL;

	while (v->scratch) {
		struct agg_view_chunk *c = v->scratch;

		v->scratch = c->next;
		if (!keep && c->cap == SCRATCH_BLOCK) {
			keep = c;
			continue;
		}
		free(c);
	}
	if (keep) {
		keep->used = 0;
		keep->next = NULL;
		v->scratch = keep;
	}
}

static void names__free(struct agg_view *v);
static void recs__free(struct agg_view *v);

void agg_view__delete(struct agg_view *v)
{
	if (!v)
		return;
	chunk__free(&v->mem);
	chunk__free(&v->scratch);
	names__free(v);
	recs__free(v);
	free(v);
}

/* ---- metrics ---------------------------------------------------------- */

static const char *view__why(const struct agg_view *v, enum why_kind k, int e)
{
	return v->why[(size_t)k * (size_t)v->p->nev + (size_t)e];
}

static int view__init_metrics(struct agg_view *v)
{
	const struct agg_process *p = v->p;

	/* No metrics object at all over more events than a mask can hold. */
	if (!p->metrics || p->metrics->nmetrics == 0 || p->nev > MAX_INPUTS)
		return 0;
	v->why = view__alloc(v, (size_t)AGG_WHY_KINDS * (size_t)p->nev, WHY_MAX);
	if (!v->why)
		return -1;
	for (int e = 0; e < p->nev; e++)
		for (int k = 0; k < AGG_WHY_KINDS; k++)
			snprintf(v->why[k * p->nev + e], WHY_MAX,
				 "event '%.60s' %s%s", p->ev[e].name, why_text[k],
				 k == WHY_DROPPED && p->ev[e].reason ? p->ev[e].reason :
								       "");
	v->nmetrics = p->metrics->nmetrics;
	return 0;
}

/* The events not dropped; and whether intervals are plain (view__plain):
 * with metrics or multiplexing configured they take the full path. */
static int view__init_ok(struct agg_view *v)
{
	const struct agg_process *p = v->p;

	size_t nev = (size_t)(p->nev ? p->nev : 1);

	v->ok = view__alloc(v, nev, sizeof(*v->ok));
	v->read = view__alloc(v, 2 * nev, sizeof(*v->read));
	if (!v->ok || !v->read)
		return -1;
	for (int e = 0; e < p->nev; e++)
		if (p->ev[e].ok)
			v->ok[v->nok++] = e;
	/* A record's counts read: an event not dropped, or the leader whose
	 * times it takes (agg_event.times_of), inclusive then exclusive. */
	for (int half = 0; half < 2; half++) {
		for (int e = 0; e < p->nev; e++) {
			bool lead = false;

			for (int k = 0; k < v->nok && !lead; k++)
				lead = p->ev[v->ok[k]].times_of == e + 1;
			if (p->ev[e].ok || lead)
				v->read[v->nread++] = half * p->nev + e;
		}
	}
	/* Only the shim's own rotation changes the kernel's counts (mux.c):
	 * without it agg_mux__view copies and guards, agg_mux__stderr has
	 * nothing to say. */
	v->plain = (!p->mux || p->mux->mode != HS_MUX_ROTATE) && !p->metrics;
	return 0;
}

/* Every metric over inputs in[] (by event index; why[e] set: unknown). */
static void view__metrics(const struct agg_view *v, const double *in,
			  const char *const *why, struct agg_mvalue *out)
{
	const struct agg_metrics *ms = v->p->metrics;
	int nev = v->p->nev;

	for (int j = 0; j < v->nmetrics; j++) {
		const struct agg_metric *m = &ms->m[j];
		double vals[FORMULA_MAX_VARS];
		const char *w[FORMULA_MAX_VARS];

		for (int k = 0; k < m->f->nvars; k++) {
			int e = m->evidx[k];
			bool in_list = e >= 0 && e < nev;

			vals[k] = in_list ? in[e] : 0;
			w[k] = in_list   ? why[e] :
			       m->why[k] ? m->why[k] :
					   "event not in the event list";
		}
		if (hs_formula__eval(m->f, vals, w, &out[j].value, &out[j].reason))
			out[j].reason = NULL;
	}
}

/* ---- one thread interval ---------------------------------------------- */

/* The state, estimate and printed number of event e's reported counts c
 * in thread t: what an interval and a series step both need. */
static inline __attribute__((always_inline)) void
value__estimate(struct agg_value *x, const struct agg_process *p,
		const struct agg_thread *t, int e, const struct count *c)
{
	x->c = *c;
	if (!p->ev[e].ok) {
		x->state = AGG_VALUE_ABSENT;
		return;
	}
	if (t->missing & (1ull << e)) {
		x->state = AGG_VALUE_MISSING;
		return;
	}
	x->partial = c->running != c->enabled;
	if (!x->partial) { /* hs_count__estimate's exact case, inline */
		x->est = (double)c->value;
		x->state = AGG_VALUE_KNOWN;
		x->shown = c->value;
		return;
	}
	if (!hs_count__estimate(c, &x->est)) {
		x->state = AGG_VALUE_UNKNOWN;
		return;
	}
	x->state = AGG_VALUE_KNOWN;
	/* A count that needed no scaling is printed exactly, even above 2^53. */
	x->shown = x->partial ? (uint64_t)hs_llround(x->est) : c->value;
}

/* value__estimate, then the standard error and the 95% interval. */
static void value__set(struct agg_value *x, const struct agg_process *p,
		       const struct agg_thread *t, int e, const struct count *c)
{
	value__estimate(x, p, t, e, c);
	if (x->state != AGG_VALUE_KNOWN || !agg_mux__stderr(p, t->rot, e, c, &x->se))
		return;
	x->has_se = true;
	/* The events seen happened: the truth is at least raw. */
	x->lo = hs_fmax(x->est - 1.96 * x->se, (double)c->value);
	x->hi = x->est + 1.96 * x->se;
}

static const enum why_kind state_why[] = {
	[AGG_VALUE_ABSENT] = WHY_DROPPED,
	[AGG_VALUE_MISSING] = WHY_MISSING,
	[AGG_VALUE_UNKNOWN] = WHY_UNKNOWN,
};

/* view__interval without the shim's rotation and without metrics, the
 * common case and 128,000 intervals for 64 threads x 1000 regions:
 * nothing rotates (agg_mux__view would only copy and guard), no standard
 * error, no metric inputs; only the events not dropped are visited (the
 * dropped stay zeroed: AGG_VALUE_ABSENT). */
static int view__plain(struct agg_view *v, const struct agg_thread *t,
		       const struct count *raw, struct agg_interval_view *out)
{
	const struct agg_process *p = v->p;
	bool partial = false;

	/* Zeroed: a dropped event is AGG_VALUE_ABSENT, its counts never read. */
	out->ev = scratch__alloc(v, (size_t)(p->nev ? p->nev : 1), sizeof(*out->ev));
	out->m = NULL;
	if (!out->ev)
		return -1;
	for (int k = 0; k < v->nok; k++) {
		int e = v->ok[k], of = p->ev[e].times_of;
		struct agg_value *x = &out->ev[e];
		const struct count *l = &raw[of ? of - 1 : e];
		struct count c = { hs_atomic__get(&raw[e].value),
				   hs_atomic__get(&l->enabled),
				   hs_atomic__get(&l->running) };

		agg_mux__guard(&c);
		value__estimate(x, p, t, e, &c);
		partial |= x->partial;
	}
	out->partial = partial;
	return 0;
}

/* One interval's values, in the record scratch (agg_view__release). */
static int view__interval(struct agg_view *v, const struct agg_thread *t,
			  const struct count *raw, struct agg_interval_view *out)
{
	const struct agg_process *p = v->p;
	int nev = p->nev ? p->nev : 1;
	struct count c[nev], in_raw[nev];
	double in[nev];
	const char *why[nev];

	if (v->plain)
		return view__plain(v, t, raw, out);
	out->partial = false;
	out->ev = scratch__alloc(v, (size_t)nev, sizeof(*out->ev));
	out->m = v->nmetrics ?
			 scratch__alloc(v, (size_t)v->nmetrics, sizeof(*out->m)) :
			 NULL;
	if (!out->ev || (v->nmetrics && !out->m))
		return -1;
	/* A group member's times are its leader's (agg_event.times_of):
	 * region records accumulate them once per group. */
	for (int e = 0; e < p->nev; e++) {
		int of = p->ev[e].times_of;
		const struct count *l = &raw[of ? of - 1 : e];

		in_raw[e] = (struct count){ raw[e].value, l->enabled, l->running };
	}
	agg_mux__view(p, t->rot, in_raw, c);
	for (int e = 0; e < p->nev; e++) {
		const struct agg_value *x = &out->ev[e];

		value__set(&out->ev[e], p, t, e, &c[e]);
		out->partial |= x->partial;
		in[e] = x->est;
		why[e] = x->state == AGG_VALUE_KNOWN ? NULL :
			 v->why ? view__why(v, state_why[x->state], e) :
				  "";
	}
	if (out->m)
		view__metrics(v, in, why, out->m);
	return 0;
}

/* ---- sums across threads ---------------------------------------------- */

static int sum__init(struct agg_view *v, struct agg_sum_view *s)
{
	s->ev = view__alloc(v, (size_t)(v->p->nev ? v->p->nev : 1), sizeof(*s->ev));
	s->m = v->nmetrics ? view__alloc(v, (size_t)v->nmetrics, sizeof(*s->m)) : NULL;
	return !s->ev || (v->nmetrics && !s->m) ? -1 : 0;
}

static void sum__add(struct agg_sum_view *s, const struct agg_view *v,
		     const struct agg_interval_view *iv)
{
	for (int k = 0; k < v->nok; k++) { /* a dropped event is ABSENT */
		int e = v->ok[k];
		const struct agg_value *x = &iv->ev[e];
		struct agg_sum *a = &s->ev[e];

		if (x->state == AGG_VALUE_ABSENT || x->state == AGG_VALUE_MISSING)
			continue;
		count__add(&a->c, &x->c);
		if (x->partial)
			a->partial = true;
		if (x->has_se) {
			/* Threads are independent samples: variances add. */
			a->se2 += x->se * x->se;
			a->se_known++;
		} else if (x->partial) {
			a->se_unknown++;
		}
		if (x->state == AGG_VALUE_KNOWN)
			agg_stat__add(&a->st, x->est);
	}
}

/* The printed sums and the metrics over them, once every thread is in. */
static void sum__finish(const struct agg_view *v, struct agg_sum_view *s)
{
	const struct agg_process *p = v->p;
	int nev = p->nev ? p->nev : 1;
	double in[nev];
	const char *why[nev];

	for (int e = 0; e < p->nev; e++) {
		const struct agg_sum *a = &s->ev[e];

		s->ev[e].shown = (uint64_t)hs_llround(a->st.sum);
		in[e] = a->st.sum;
		why[e] = NULL;
		if (!v->why)
			continue;
		if (!p->ev[e].ok)
			why[e] = view__why(v, WHY_DROPPED, e);
		else if (a->st.n == 0)
			why[e] = view__why(v, WHY_NO_THREAD, e);
	}
	if (s->m)
		view__metrics(v, in, why, s->m);
}

/* ---- threads and regions ------------------------------------------------ */

static struct agg_percall percall__load(const struct agg_percall *pc)
{
	struct agg_percall s = {
		__atomic_load_n(&pc->n, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->min, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->max, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->sum, __ATOMIC_RELAXED),
	};
	return s;
}

/* Combines per-call statistics across threads. */
static void percall__merge(struct agg_percall *acc, const struct agg_percall *pc)
{
	if (pc->n == 0)
		return;
	if (acc->n == 0 || pc->min < acc->min)
		acc->min = pc->min;
	if (pc->max > acc->max)
		acc->max = pc->max;
	acc->sum += pc->sum;
	acc->n += pc->n;
}

/* Point k of s as a reading by event index (groups' times on members). */
static void series__point(const struct agg_process *p, const struct agg_series *s,
			  uint32_t k, struct count *c)
{
	size_t ne = (size_t)s->nev, ng = (size_t)s->ngroups;

	for (int e = 0; e < p->nev; e++) {
		int g = p->ev[e].group;

		c[e].value = hs_atomic__get(&s->val[k * ne + (size_t)e]);
		c[e].enabled = c[e].running = 0;
		if (p->ev[e].ok && g >= 0 && (size_t)g < ng) {
			c[e].enabled = hs_atomic__get(&s->en[k * ng + (size_t)g]);
			c[e].running = hs_atomic__get(&s->run[k * ng + (size_t)g]);
		}
	}
}

/* One step of the series: the view of the difference of two readings. */
static void series__step(const struct agg_process *p, const struct agg_thread *t,
			 const struct count *prev, const struct count *cur,
			 uint64_t *shown, bool *known)
{
	int nev = p->nev ? p->nev : 1;
	struct count d[nev], c[nev];

	for (int e = 0; e < p->nev; e++)
		count__sub(&d[e], &cur[e], &prev[e]);
	agg_mux__view(p, t->rot, d, c);
	for (int e = 0; e < p->nev; e++) {
		struct agg_value x = { 0 };

		value__estimate(&x, p, t, e, &c[e]);
		known[e] = x.state == AGG_VALUE_KNOWN;
		shown[e] = x.shown;
	}
}

static int view__series(struct agg_view *v, const struct agg_thread *t,
			struct agg_thread_view *tv)
{
	const struct agg_series *s = t->series;
	const struct agg_process *p = v->p;
	size_t nev = (size_t)(p->nev ? p->nev : 1);
	struct count prev[nev], cur[nev];
	struct agg_series_view *sv;

	if (!s)
		return 0;
	sv = scratch__alloc(v, 1, sizeof(*sv));
	if (!sv)
		return -1;
	sv->n = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
	sv->interval_ns = s->period_ns * s->stride;
	sv->t = scratch__alloc(v, sv->n, sizeof(*sv->t));
	sv->shown = scratch__alloc(v, sv->n * nev, sizeof(*sv->shown));
	sv->known = scratch__alloc(v, sv->n * nev, sizeof(*sv->known));
	if (!sv->t || !sv->shown || !sv->known)
		return -1;
	memset(prev, 0, sizeof(prev));
	for (uint32_t k = 0; k < sv->n; k++) {
		series__point(p, s, k, cur);
		sv->t[k] = hs_atomic__get(&s->t[k]);
		series__step(p, t, prev, cur, sv->shown + k * nev, sv->known + k * nev);
		memcpy(prev, cur, sizeof(prev));
	}
	tv->series = sv;
	return 0;
}

static const struct agg_region *region__first(const struct agg_thread *t)
{
	return __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
}

static const struct agg_region *region__next(const struct agg_region *r)
{
	return __atomic_load_n(&r->next, __ATOMIC_ACQUIRE);
}

/* Sums the inclusive and exclusive times, merges the per-call ones. */
static void wall__merge(struct agg_wall *acc, const struct agg_wall *w)
{
	acc->incl += w->incl;
	acc->excl += w->excl;
	percall__merge(&acc->call, &w->call);
}

/* ---- threads and regions, one record at a time ------------------------ */

uint64_t agg_thread__wall_ns(const struct agg_thread *t)
{
	return t->end_mono > t->start_mono ? t->end_mono - t->start_mono : 0;
}

static void recs__thread(struct agg_view *v, const struct agg_thread *t);

int agg_view__thread(struct agg_view *v, const struct agg_thread *t,
		     struct agg_thread_view *tv)
{
	recs__thread(v, t);
	memset(tv, 0, sizeof(*tv));
	tv->t = t;
	if (view__interval(v, t, t->totals, &tv->totals) < 0 ||
	    view__series(v, t, tv) < 0)
		return -1;
	return 0;
}

/* The standard error of C x the mean of m measured values out of C
 * (sum s, sum of squares q), sampled without replacement; NAN when m < 2
 * or the squares are not known (a flush). */
static double sample__se(uint64_t C, uint64_t m, double s, const double *q)
{
	double var;

	if (m < 2 || !q)
		return NAN;
	if (m >= C)
		return 0;
	double sq;

	/* A thread alive at exit may still be adding to it. */
	__atomic_load(q, &sq, __ATOMIC_RELAXED);
	var = (sq - s * s / (double)m) / (double)(m - 1);
	if (var < 0) /* rounding of a constant */
		var = 0;
	return (double)C * sqrt((1 - (double)m / (double)C) * var / (double)m);
}

static uint64_t sample__scale(uint64_t x, double f)
{
	return (uint64_t)hs_llround((double)x * f);
}

/* A sampled region (sampling.md): its counts and wall times scaled by
 * calls / measured, with their sampling errors.  No measured call: the
 * counts are unknown (running 0), never 0. */
static int view__sampled(struct agg_view *v, const struct agg_thread *t,
			 const struct agg_region *r, struct agg_region_view *rv)
{
	int nev = r->nev;
	uint64_t m = rv->calls, C = m + hs_atomic__get(&r->unmeasured);
	double f = m ? (double)C / (double)m : 0;
	struct count c[2 * (nev ? nev : 1)];
	double *se = scratch__alloc(v, 2 * (size_t)nev + 2, sizeof(double));

	if (!se)
		return -1;
	rv->sample = (struct agg_sample_view){ r->every, m, se };
	rv->calls = C;
	for (int i = 0; i < 2 * nev; i++) {
		c[i] = m ? (struct count){ sample__scale(r->c[i].value, f),
					   sample__scale(r->c[i].enabled, f),
					   sample__scale(r->c[i].running, f) } :
			   (struct count){ 0, 1, 0 };
		se[i] = sample__se(C, m, (double)r->c[i].value, r->sq ? &r->sq[i] : NULL);
	}
	se[2 * nev] = sample__se(C, m, (double)rv->wall.incl,
				 r->sq ? &r->sq[2 * nev] : NULL);
	se[2 * nev + 1] = sample__se(C, m, (double)rv->wall.excl,
				     r->sq ? &r->sq[2 * nev + 1] : NULL);
	rv->wall.incl = sample__scale(rv->wall.incl, f);
	rv->wall.excl = sample__scale(rv->wall.excl, f);
	if (view__interval(v, t, c, &rv->incl) < 0 ||
	    view__interval(v, t, c + nev, &rv->excl) < 0)
		return -1;
	return 0;
}

/* A copy of region r, made under its thread's sequence count
 * (common/seqlock.h): the owner may close a call of it meanwhile, and the
 * copy has calls, counts, per-call and wall figures of the same completed
 * calls.  The exit path and the periodic flush read live threads' records
 * this way, one record at a time, into the record scratch.  Only the
 * calling thread's own count can stay odd: a signal handler (a fatal
 * signal, an exit() from a handler) interrupted its own update, which
 * cannot finish while the handler runs; that copy is given up at once and
 * the thread's other records are copied once each.  Any other thread's
 * update finishes (it is a few stores, no call that blocks), however long
 * the writer is preempted on a loaded machine: its record is copied until
 * a copy is consistent, with a yield every COPY_TRIES tries, and given up
 * only after COPY_GIVE_UP_NS (a writer that can never finish: a thread
 * cancelled asynchronously inside an update). */
#define COPY_TRIES 1000
#define COPY_GIVE_UP_NS (200ull * 1000 * 1000)

static const struct agg_region *view__copy(struct agg_view *v,
					   const struct agg_thread *t,
					   const struct agg_region *r)
{
	const uint32_t *seq = t->records_seq ? t->records_seq : &t->seq;
	struct agg_region *d;
	size_t nc = 2 * (size_t)r->nev;
	/* Plain intervals (view__plain) read only the counts a value is made
	 * of (view__init_ok): a dropped event's stay zero here, and of a
	 * record with many dropped events most lines are never touched. */
	bool some = v->plain && r->nev == v->p->nev;
	int nread = some ? v->nread : (int)nc;

	d = scratch__alloc(v, 1, sizeof(*d) + nc * sizeof(struct count));
	if (!d)
		return NULL;
	d->name = r->name; /* both never change once published */
	d->parent = r->parent;
	d->nev = r->nev;
	d->every = __atomic_load_n(&r->every, __ATOMIC_RELAXED);
	/* A sampled region's sums of squares are not under the count: no
	 * sampling error in a flush (NAN, docs/sampling.md). */
	d->sq = t->records_seq ? NULL : r->sq;
	bool own = t->tid == v->self;
	uint64_t deadline = 0;

	for (int tries = 0;; tries++) {
		uint32_t s = hs_seq__read_begin(seq);

		d->calls = hs_atomic__get(&r->calls);
		d->unmeasured = hs_atomic__get(&r->unmeasured);
		for (int k = 0; k < nread; k++) {
			size_t i = some ? (size_t)v->read[k] : (size_t)k;

			d->c[i].value = hs_atomic__get(&r->c[i].value);
			d->c[i].enabled = hs_atomic__get(&r->c[i].enabled);
			d->c[i].running = hs_atomic__get(&r->c[i].running);
		}
		d->percall = percall__load(&r->percall);
		d->wall.incl = hs_atomic__get(&r->wall.incl);
		d->wall.excl = hs_atomic__get(&r->wall.excl);
		d->wall.call = percall__load(&r->wall.call);
		if (hs_seq__read_ok(seq, s))
			return d;
		if (seq == v->stuck_seq || own) {
			v->stuck_seq = seq;
			return d;
		}
		if (tries % COPY_TRIES == COPY_TRIES - 1) {
			uint64_t now = hs_clock__monotonic();

			if (!deadline) {
				deadline = now + COPY_GIVE_UP_NS;
			} else if (now > deadline) {
				v->stuck_seq = seq;
				return d;
			}
			sched_yield();
		}
	}
}

/* The values of region r, written or not, from one copy of it. */
static int view__region_values(struct agg_view *v, const struct agg_thread *t,
			       const struct agg_region *r, struct agg_region_view *rv)
{
	r = view__copy(v, t, r);
	if (!r)
		return -1;
	rv->name = r->name;
	rv->parent = r->parent ? r->parent->name : NULL;
	rv->calls = r->calls;
	rv->percall = r->percall;
	rv->wall = r->wall;
	rv->sample = (struct agg_sample_view){ 0 };
	if (r->every > 1)
		return view__sampled(v, t, r, rv);
	if (view__interval(v, t, r->c, &rv->incl) < 0 ||
	    view__interval(v, t, r->c + r->nev, &rv->excl) < 0)
		return -1;
	return 0;
}

/* ---- region names: one entry per name, open addressing ---------------- */

struct agg_view_name {
	const char *name; /* the first thread record's; NULL: free slot */
	uint64_t hash;
	double key;      /* the folding key, summed over threads          */
	uint64_t calls;
	size_t order;    /* first appearance along the thread list        */
	long sum;        /* index in v->sum, or -1 when folded            */
};

static struct agg_view_name *name__find(struct agg_view *v, const char *name,
					uint64_t h)
{
	size_t mask = v->names_cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct agg_view_name *e = &v->names[i];

		if (!e->name || (e->hash == h && strcmp(e->name, name) == 0))
			return e;
	}
}

static void names__free(struct agg_view *v)
{
	big__free(v->names, v->names_cap, sizeof(*v->names));
}

static int names__grow(struct agg_view *v)
{
	size_t cap = v->names_cap ? 2 * v->names_cap : 1024, old = v->names_cap;
	struct agg_view_name *o = v->names;

	v->names = big__alloc(cap, sizeof(*v->names));
	if (!v->names) {
		v->names = o;
		return -1;
	}
	v->names_cap = cap;
	for (size_t i = 0; i < old; i++)
		if (o[i].name)
			*name__find(v, o[i].name, o[i].hash) = o[i];
	big__free(o, old, sizeof(*o));
	return 0;
}

/* ---- pass 1's answer per record --------------------------------------
 *
 * Pass 1 finds each record's name in the table (a hash of the name, a
 * comparison with the first record's copy: two cache misses per record).
 * It keeps the answer, record by record in list order, so that writing
 * the records, in that same order, finds each one's summary without
 * touching its name again.  A record the cursor does not expect (published
 * after pass 1, or no memory for the list) is looked up by name. */
struct agg_view_rec {
	const struct agg_region *r;
	size_t order; /* its name's first appearance (agg_view_name.order) */
};

struct agg_view_mark {
	const struct agg_thread *t;
	size_t start, end; /* its records in recs[] */
};

static void recs__free(struct agg_view *v)
{
	big__free(v->recs, v->recs_cap, sizeof(*v->recs));
	big__free(v->marks, v->marks_cap, sizeof(*v->marks));
	big__free(v->order_sum, v->norder, sizeof(*v->order_sum));
	v->recs = NULL;
	v->marks = NULL;
	v->order_sum = NULL;
	v->nrecs = v->recs_cap = v->nmarks = v->marks_cap = v->norder = 0;
	v->recs_off = true;
}

/* Doubles a table of n entries of size bytes (cap: its capacity). */
static void *recs__grow(void *old, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? 2 * *cap : 4096;
	void *t = big__alloc(c, size);

	if (!t)
		return NULL;
	if (old)
		memcpy(t, old, n * size);
	big__free(old, *cap, size);
	*cap = c;
	return t;
}

static void recs__mark(struct agg_view *v, const struct agg_thread *t)
{
	struct agg_view_mark *m;

	if (v->recs_off)
		return;
	if (v->nmarks == v->marks_cap) {
		m = recs__grow(v->marks, v->nmarks, &v->marks_cap, sizeof(*m));
		if (!m) {
			recs__free(v);
			return;
		}
		v->marks = m;
	}
	v->marks[v->nmarks++] = (struct agg_view_mark){ t, v->nrecs, v->nrecs };
}

static void recs__add(struct agg_view *v, const struct agg_region *r, size_t order)
{
	struct agg_view_rec *n;

	if (v->recs_off)
		return;
	if (!v->recs) { /* sized once, the threads' counts as a hint */
		size_t hint = 64;

		for (const struct agg_thread *t = v->p->threads; t; t = t->next)
			hint += __atomic_load_n(&t->nregions, __ATOMIC_RELAXED);
		v->recs = big__alloc(hint, sizeof(*v->recs));
		if (!v->recs) {
			recs__free(v);
			return;
		}
		v->recs_cap = hint;
	} else if (v->nrecs == v->recs_cap) {
		n = recs__grow(v->recs, v->nrecs, &v->recs_cap, sizeof(*n));
		if (!n) {
			recs__free(v);
			return;
		}
		v->recs = n;
	}
	v->recs[v->nrecs++] = (struct agg_view_rec){ r, order };
}

/* After the names are chosen: each name's summary by its order. */
static void recs__sums(struct agg_view *v, size_t n)
{
	if (v->recs_off)
		return;
	v->order_sum = big__alloc(n, sizeof(*v->order_sum));
	if (!v->order_sum) {
		recs__free(v);
		return;
	}
	v->norder = n;
	for (size_t i = 0; i < v->names_cap; i++)
		if (v->names[i].name && v->names[i].order < n)
			v->order_sum[v->names[i].order] = v->names[i].sum;
}

/* Thread t's records come next: the cursor on its part of recs[].  Marks
 * of threads not written (folded) are passed over. */
static void recs__thread(struct agg_view *v, const struct agg_thread *t)
{
	v->rthread = NULL;
	if (v->recs_off || !v->order_sum)
		return;
	while (v->mcur < v->nmarks && v->marks[v->mcur].t != t)
		v->mcur++;
	if (v->mcur == v->nmarks)
		return;
	v->rthread = t;
	v->rcur = v->marks[v->mcur].start;
	v->rend = v->marks[v->mcur].end;
}

static struct agg_view_name *view__name(struct agg_view *v, const char *name)
{
	return v->names_cap ? name__find(v, name, hs_hash__str(HS_HASH_INIT, name)) :
			      NULL;
}

/* The folding key of an interval: the main event's estimate (the first
 * counted event, task-clock by default); -1 when unknown. */
static double view__key(const struct agg_view *v, const struct agg_interval_view *iv)
{
	int e = v->p->main_ev;

	if (e < 0 || e >= v->p->nev || iv->ev[e].state != AGG_VALUE_KNOWN)
		return -1;
	return iv->ev[e].est;
}

static int region_sum__add(struct agg_view *v, struct agg_region_sum *rs,
			   const struct agg_region_view *rv);

int agg_view__region(struct agg_view *v, const struct agg_thread *t,
		     const struct agg_region *r, struct agg_region_view *rv)
{
	long sum;

	if (v->rthread == t && v->rcur < v->rend && v->recs[v->rcur].r == r) {
		sum = v->order_sum[v->recs[v->rcur++].order];
	} else {
		const struct agg_view_name *e = view__name(v, r->name);

		/* A record published after the view was built waits for
		 * the next result, like a folded one. */
		if (!e || !e->name)
			return 0;
		sum = e->sum;
	}
	if (sum < 0)
		return 0;
	if (view__region_values(v, t, r, rv) < 0)
		return -1;
	if (v->sums_pending && region_sum__add(v, &v->sum[sum], rv) < 0)
		return -1;
	return 1;
}

/* ---- folding: the records beyond a limit, smallest key first ---------- */

struct rank {
	double key;
	size_t order;
};

/* Largest key first; among equals the earlier record. */
static int rank__cmp(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order);
}

static int dbl__cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The key below which a record is folded: the limit-th largest of key[n]
 * (ties broken by order); *cut_order the order of that record.  Returns
 * false when nothing is folded. */
static bool fold__cut(const struct rank *rk, size_t n, int limit, struct rank *cut)
{
	struct rank *s;

	if (limit <= 0 || n <= (size_t)limit)
		return false;
	s = malloc(n * sizeof(*s));
	if (!s) /* keep everything rather than lose the file */
		return false;
	memcpy(s, rk, n * sizeof(*s));
	qsort(s, n, sizeof(*s), rank__cmp);
	*cut = s[limit - 1];
	free(s);
	return true;
}

static bool fold__kept(const struct rank *r, bool folding, const struct rank *cut)
{
	return !folding || rank__cmp(r, cut) <= 0;
}

static int folded__init(struct agg_view *v, struct agg_folded *f, int limit,
			size_t count)
{
	f->limit = limit;
	f->kept_min = -1;
	if (sum__init(v, &f->incl) < 0 || sum__init(v, &f->excl) < 0)
		return -1;
	f->key = view__alloc(v, count, sizeof(*f->key));
	return f->key ? 0 : -1;
}

static void folded__finish(struct agg_view *v, struct agg_folded *f)
{
	qsort(f->key, f->count, sizeof(*f->key), dbl__cmp);
	sum__finish(v, &f->incl);
	sum__finish(v, &f->excl);
}

/* Every thread's totals into the process totals; the threads beyond
 * HPCSHIM_MAX_THREADS, smallest first, into threads_folded.  The thread
 * that started the process is always written. */
static int view__threads(struct agg_view *v, size_t n)
{
	const struct agg_process *p = v->p;
	struct agg_folded *f = &v->threads_folded;
	struct rank *rk = calloc(n ? n : 1, sizeof(*rk)), cut;
	const struct agg_thread *t;
	bool folding;
	size_t i;
	int rc = -1;

	v->thread_kept = view__alloc(v, n, sizeof(*v->thread_kept));
	if (!rk || !v->thread_kept || folded__init(v, f, p->max_threads, n) < 0)
		goto out;
	for (t = p->threads, i = 0; t && i < n; t = t->next, i++) {
		struct agg_interval_view iv;

		if (view__interval(v, t, t->totals, &iv) < 0)
			goto out;
		rk[i].key = t->tid == p->pid ? INFINITY : view__key(v, &iv);
		rk[i].order = i;
		agg_view__release(v);
	}
	folding = fold__cut(rk, n, p->max_threads, &cut);
	double largest = -INFINITY;

	for (t = p->threads, i = 0; t && i < n; t = t->next, i++) {
		struct agg_interval_view iv;

		if (view__interval(v, t, t->totals, &iv) < 0)
			goto out;
		sum__add(&v->totals, v, &iv);
		v->thread_kept[i] = fold__kept(&rk[i], folding, &cut);
		if (v->thread_kept[i]) {
			v->nthreads++;
			if (f->kept_min < 0 || rk[i].key < f->kept_min)
				f->kept_min = rk[i].key;
		} else {
			sum__add(&f->incl, v, &iv);
			f->wall.incl += agg_thread__wall_ns(t);
			f->key[f->count++] = rk[i].key;
			if (rk[i].key > largest) {
				largest = rk[i].key;
				f->largest_tid = t->tid;
			}
		}
		agg_view__release(v);
	}
	f->kept = (uint64_t)v->nthreads;
	sum__finish(v, &v->totals);
	folded__finish(v, f);
	rc = 0;
out:
	free(rk);
	return rc;
}

/* Pass 1 over the region records: one entry per name with its calls. */
static int view__names(struct agg_view *v, size_t *nnames)
{
	const struct agg_process *p = v->p;
	size_t order = 0;

	for (const struct agg_thread *t = p->threads; t; t = t->next) {
		recs__mark(v, t);
		for (const struct agg_region *r = region__first(t); r;
		     r = region__next(r)) {
			struct agg_view_name *e;
			uint64_t h = hs_hash__str(HS_HASH_INIT, r->name);

			if (2 * (order + 1) > v->names_cap && names__grow(v) < 0)
				return -1;
			e = name__find(v, r->name, h);
			if (!e->name) {
				e->name = r->name;
				e->hash = h;
				e->order = order++;
				e->sum = -1;
			}
			e->calls += __atomic_load_n(&r->calls, __ATOMIC_RELAXED);
			recs__add(v, r, e->order);
		}
		if (v->marks)
			v->marks[v->nmarks - 1].end = v->nrecs;
	}
	*nnames = order;
	return 0;
}

/* The folding keys, only when there are more names than the limit: per
 * name the inclusive main event summed over threads.  A record published
 * after pass 1 waits for the next result. */
static int view__keys(struct agg_view *v)
{
	const struct agg_process *p = v->p;

	for (const struct agg_thread *t = p->threads; t; t = t->next) {
		for (const struct agg_region *r = region__first(t); r;
		     r = region__next(r)) {
			struct agg_view_name *e = view__name(v, r->name);
			const struct agg_region *c;
			struct agg_interval_view iv;
			double key;

			if (!e || !e->name)
				continue;
			c = view__copy(v, t, r);
			if (!c || view__interval(v, t, c->c, &iv) < 0)
				return -1;
			key = view__key(v, &iv);
			agg_view__release(v);
			if (key > 0)
				e->key += key;
		}
	}
	return 0;
}

/* Which names are written: all, or the HPCSHIM_MAX_REGIONS largest by key
 * (calls when no event has a value), in order of first appearance. */
static int view__select_names(struct agg_view *v, size_t n)
{
	struct agg_folded *f = &v->regions_folded;
	struct rank *rk = big__alloc(n, sizeof(*rk)), cut;
	struct agg_view_name **by = big__alloc(n, sizeof(*by));
	bool folding, by_calls = v->p->main_ev < 0;
	double largest = -INFINITY;
	int rc = -1;

	if (!rk || !by || folded__init(v, f, v->p->max_regions, n) < 0)
		goto out;
	/* Without folding no key is printed: no pass over the values. */
	if (v->p->max_regions > 0 && n > (size_t)v->p->max_regions && !by_calls &&
	    view__keys(v) < 0)
		goto out;
	for (size_t i = 0; i < v->names_cap; i++) {
		struct agg_view_name *e = &v->names[i];

		if (!e->name)
			continue;
		by[e->order] = e;
		rk[e->order].key = by_calls ? (double)e->calls : e->key;
		rk[e->order].order = e->order;
	}
	folding = fold__cut(rk, n, v->p->max_regions, &cut);
	v->sum = view__alloc(v, folding ? (size_t)v->p->max_regions : n,
			     sizeof(*v->sum));
	if (!v->sum)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct agg_region_sum *rs;

		if (!fold__kept(&rk[i], folding, &cut)) {
			f->key[f->count++] = rk[i].key;
			if (rk[i].key > largest) {
				largest = rk[i].key;
				f->largest = by[i]->name;
			}
			continue;
		}
		if (f->kept_min < 0 || rk[i].key < f->kept_min)
			f->kept_min = rk[i].key;
		rs = &v->sum[v->nsums];
		if (sum__init(v, &rs->incl) < 0 || sum__init(v, &rs->excl) < 0)
			goto out;
		rs->name = by[i]->name;
		by[i]->sum = (long)v->nsums++;
	}
	f->kept = v->nsums;
	rc = 0;
out:
	big__free(rk, n, sizeof(*rk));
	big__free(by, n, sizeof(*by));
	return rc;
}

/* Notes one thread's parent of a summary's name, once per distinct name. */
static int sum__parent(struct agg_view *v, struct agg_region_sum *rs, const char *parent)
{
	struct agg_parent **pp = &rs->parents;

	for (; *pp; pp = &(*pp)->next)
		if ((*pp)->name == parent ||
		    ((*pp)->name && parent && strcmp((*pp)->name, parent) == 0))
			return 0;
	*pp = view__alloc(v, 1, sizeof(**pp));
	if (!*pp)
		return -1;
	(*pp)->name = parent;
	return 0;
}

/* One thread's record of a name written into its summary. */
static int region_sum__add(struct agg_view *v, struct agg_region_sum *rs,
			   const struct agg_region_view *rv)
{
	if (sum__parent(v, rs, rv->parent) < 0)
		return -1;
	rs->calls += rv->calls;
	rs->threads++;
	percall__merge(&rs->percall, &rv->percall);
	wall__merge(&rs->wall, &rv->wall);
	sum__add(&rs->incl, v, &rv->incl);
	sum__add(&rs->excl, v, &rv->excl);
	return 0;
}

static void view__sums_finish(struct agg_view *v)
{
	for (size_t k = 0; k < v->nsums; k++) {
		sum__finish(v, &v->sum[k].incl);
		sum__finish(v, &v->sum[k].excl);
	}
}

/* Pass 2: per name written, calls, threads and sums across threads; the
 * folded names' values into regions_folded.  When nothing is folded, no
 * thread and no name, the summaries are instead added up while the
 * records are written (agg_view__region, agg_view__sums), in the same
 * order: every record's values are then computed once for the summary
 * and the file together, not twice. */
static int view__regions(struct agg_view *v)
{
	const struct agg_process *p = v->p;
	struct agg_folded *f = &v->regions_folded;
	size_t n;

	if (view__names(v, &n) < 0 || view__select_names(v, n) < 0)
		return -1;
	recs__sums(v, n);
	if (f->count == 0 && v->threads_folded.count == 0) {
		v->sums_pending = true;
		folded__finish(v, f);
		return 0;
	}
	for (const struct agg_thread *t = p->threads; t; t = t->next) {
		for (const struct agg_region *r = region__first(t); r;
		     r = region__next(r)) {
			const struct agg_view_name *e = view__name(v, r->name);
			struct agg_region_view rv;

			if (!e || !e->name) /* published after pass 1 */
				continue;
			if (view__region_values(v, t, r, &rv) < 0)
				return -1;
			if (e->sum >= 0) {
				if (region_sum__add(v, &v->sum[e->sum], &rv) < 0)
					return -1;
			} else {
				f->calls += rv.calls;
				wall__merge(&f->wall, &rv.wall);
				sum__add(&f->incl, v, &rv.incl);
				sum__add(&f->excl, v, &rv.excl);
			}
			agg_view__release(v);
		}
	}
	view__sums_finish(v);
	folded__finish(v, f);
	return 0;
}

void agg_view__sums(struct agg_view *v)
{
	if (!v->sums_pending)
		return;
	view__sums_finish(v);
	v->sums_pending = false;
}

struct agg_view *agg_view__new(const struct agg_process *p)
{
	struct agg_view *v = calloc(1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	v->p = p;
	v->self = (pid_t)syscall(SYS_gettid); /* view__copy: our own records */
	for (const struct agg_thread *t = p->threads; t; t = t->next)
		n++;
	if (view__init_ok(v) < 0 || view__init_metrics(v) < 0 ||
	    sum__init(v, &v->totals) < 0 || view__threads(v, n) < 0 ||
	    view__regions(v) < 0) {
		agg_view__delete(v);
		return NULL;
	}
	return v;
}
