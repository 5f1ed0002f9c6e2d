/* view_value.c - the values of one interval and the sums across threads
 * (view.h): each thread interval's raw counts go through agg_mux__view
 * once; the estimate, the number printed, the standard error and the
 * metrics all come from that one result, and the process sums are sums of
 * it.  Before this pass the metrics re-read the raw counts and scaled them
 * with the kernel's times, which under rotation are not the reported ones.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fmath.h"
#include "common/seqlock.h"
#include "aggregate/metric.h"
#include "aggregate/mux.h"
#include "aggregate/view_internal.h"


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

/* ---- metrics ---------------------------------------------------------- */

static const char *view__why(const struct agg_view *v, enum why_kind k, int e)
{
	return v->why[(size_t)k * (size_t)v->p->nev + (size_t)e];
}

int agg_view__init_metrics(struct agg_view *v)
{
	const struct agg_process *p = v->p;

	/* No metrics object at all over more events than a mask can hold. */
	if (!p->metrics || p->metrics->nmetrics == 0 || p->nev > MAX_INPUTS)
		return 0;
	v->why = agg_view__alloc(v, (size_t)AGG_WHY_KINDS * (size_t)p->nev, WHY_MAX);
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
int agg_view__init_ok(struct agg_view *v)
{
	const struct agg_process *p = v->p;

	size_t nev = (size_t)(p->nev ? p->nev : 1);

	v->ok = agg_view__alloc(v, nev, sizeof(*v->ok));
	v->read = agg_view__alloc(v, 2 * nev, sizeof(*v->read));
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

/* agg_view__interval without the shim's rotation and without metrics, the
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
	out->ev = agg_view__scratch(v, (size_t)(p->nev ? p->nev : 1), sizeof(*out->ev));
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
int agg_view__interval(struct agg_view *v, const struct agg_thread *t,
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
	out->ev = agg_view__scratch(v, (size_t)nev, sizeof(*out->ev));
	out->m = v->nmetrics ?
			 agg_view__scratch(v, (size_t)v->nmetrics, sizeof(*out->m)) :
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

int agg_sum_view__init(struct agg_view *v, struct agg_sum_view *s)
{
	s->ev = agg_view__alloc(v, (size_t)(v->p->nev ? v->p->nev : 1), sizeof(*s->ev));
	s->m = v->nmetrics ? agg_view__alloc(v, (size_t)v->nmetrics, sizeof(*s->m)) : NULL;
	return !s->ev || (v->nmetrics && !s->m) ? -1 : 0;
}

void agg_sum_view__add(struct agg_sum_view *s, const struct agg_view *v,
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
void agg_sum_view__finish(const struct agg_view *v, struct agg_sum_view *s)
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
void agg_percall__merge(struct agg_percall *acc, const struct agg_percall *pc)
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

int agg_view__series(struct agg_view *v, const struct agg_thread *t,
			struct agg_thread_view *tv)
{
	const struct agg_series *s = t->series;
	const struct agg_process *p = v->p;
	size_t nev = (size_t)(p->nev ? p->nev : 1);
	struct count prev[nev], cur[nev];
	struct agg_series_view *sv;

	if (!s)
		return 0;
	sv = agg_view__scratch(v, 1, sizeof(*sv));
	if (!sv)
		return -1;
	sv->n = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
	sv->interval_ns = s->period_ns * s->stride;
	sv->t = agg_view__scratch(v, sv->n, sizeof(*sv->t));
	sv->shown = agg_view__scratch(v, sv->n * nev, sizeof(*sv->shown));
	sv->known = agg_view__scratch(v, sv->n * nev, sizeof(*sv->known));
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

const struct agg_region *agg_region__first(const struct agg_thread *t)
{
	return __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
}

const struct agg_region *agg_region__next(const struct agg_region *r)
{
	return __atomic_load_n(&r->next, __ATOMIC_ACQUIRE);
}

/* Sums the inclusive and exclusive times, merges the per-call ones. */
void agg_wall__merge(struct agg_wall *acc, const struct agg_wall *w)
{
	acc->incl += w->incl;
	acc->excl += w->excl;
	agg_percall__merge(&acc->call, &w->call);
}

/* ---- threads and regions, one record at a time ------------------------ */

uint64_t agg_thread__wall_ns(const struct agg_thread *t)
{
	return t->end_mono > t->start_mono ? t->end_mono - t->start_mono : 0;
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

uint64_t agg_region_view__cost(const struct agg_region_view *rv,
			       const struct agg_process *p)
{
	uint64_t m = rv->sample.every > 1 ? rv->sample.measured : rv->calls;
	uint64_t timed = rv->calls > m ? rv->calls - m : 0;

	return (uint64_t)hs_llround((double)m * p->call_cost_ns +
				    (double)timed * p->timed_cost_ns);
}

static uint64_t sample__scale(uint64_t x, double f)
{
	return (uint64_t)hs_llround((double)x * f);
}

/* One count of a sampled region: the measured calls' sums c scaled by
 * f; with a first stratum (base b, all its calls measured) that part as
 * it is and the rest scaled (f: the second stratum's calls over its
 * measured ones, or over the first stratum's calls when none of the
 * second is measured yet: the first's mean stands for them). */
static uint64_t sample__est(uint64_t c, const uint64_t *b, double f, bool none2)
{
	uint64_t base = b ? *b : 0;

	return base + sample__scale(none2 ? base : c - base, f);
}

/* A sampled region (sampling.md): its counts scaled by calls / measured,
 * with their sampling errors; its wall times are every call's (each call
 * is timed, measured or not), exact.  An automatic point's region whose
 * first calls were all measured (agg_region__base) is a stratified sample: the
 * first stratum exact, the second's measured calls scaled to its calls
 * (none measured yet: the first stratum's mean stands for them, with no
 * error known).  No measured call at all: the counts are unknown
 * (running 0), never 0. */
static int view__sampled(struct agg_view *v, const struct agg_thread *t,
			 const struct agg_region *r, struct agg_region_view *rv)
{
	int nev = r->nev;
	const struct count *base = agg_region__base(r);
	const double *sq = r->sq && !(r->strata & AGG_STRATA_NOSQ) ? r->sq : NULL;
	uint64_t bc = base ? base[2 * nev].value : 0;
	uint64_t m = rv->calls, C = m + hs_atomic__get(&r->unmeasured);
	uint64_t m2 = m - bc, C2 = C - bc;
	double f = m2 ? (double)C2 / (double)m2 : bc ? (double)C2 / (double)bc : 0;
	struct count c[2 * (nev ? nev : 1)];
	double *se = agg_view__scratch(v, 2 * (size_t)nev + 2, sizeof(double));

	if (!se)
		return -1;
	rv->sample = (struct agg_sample_view){ r->every, m, bc, se };
	rv->calls = C;
	for (int i = 0; i < 2 * nev; i++) {
		const struct count *b = base ? &base[i] : NULL;

		c[i] = m ? (struct count){ sample__est(r->c[i].value, b ? &b->value : NULL, f, !m2),
					   sample__est(r->c[i].enabled, b ? &b->enabled : NULL, f, !m2),
					   sample__est(r->c[i].running, b ? &b->running : NULL, f, !m2) } :
			   (struct count){ 0, 1, 0 };
		se[i] = m2 ? sample__se(C2, m2, (double)(r->c[i].value - (b ? b->value : 0)),
					sq ? &sq[i] : NULL) :
			     C2 ? NAN : 0;
	}
	se[2 * nev] = 0;
	se[2 * nev + 1] = 0;
	if (agg_view__interval(v, t, c, &rv->incl) < 0 ||
	    agg_view__interval(v, t, c + nev, &rv->excl) < 0)
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

const struct agg_region *agg_view__copy(struct agg_view *v,
					   const struct agg_thread *t,
					   const struct agg_region *r)
{
	const uint32_t *seq = t->records_seq ? t->records_seq : &t->seq;
	struct agg_region *d;
	size_t nc = 2 * (size_t)r->nev;
	/* Plain intervals (view__plain) read only the counts a value is made
	 * of (agg_view__init_ok): a dropped event's stay zero here, and of a
	 * record with many dropped events most lines are never touched. */
	bool some = v->plain && r->nev == v->p->nev;
	int nread = some ? v->nread : (int)nc;

	d = agg_view__scratch(v, 1, sizeof(*d) + nc * sizeof(struct count));
	if (!d)
		return NULL;
	d->name = r->name; /* both never change once published */
	d->parent = r->parent;
	d->nev = r->nev;
	d->every = __atomic_load_n(&r->every, __ATOMIC_RELAXED);
	d->exact_left = 0;
	/* A sampled region's sums of squares are not under the count: no
	 * sampling error in a flush (NAN, docs/sampling.md); the first
	 * stratum's sums after them are set once, before TAKEN. */
	d->sq = r->sq;
	d->strata = __atomic_load_n(&r->strata, __ATOMIC_ACQUIRE) |
		    (t->records_seq ? AGG_STRATA_NOSQ : 0);
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
int agg_view__region_values(struct agg_view *v, const struct agg_thread *t,
			       const struct agg_region *r, struct agg_region_view *rv)
{
	r = agg_view__copy(v, t, r);
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
	if (agg_view__interval(v, t, r->c, &rv->incl) < 0 ||
	    agg_view__interval(v, t, r->c + r->nev, &rv->excl) < 0)
		return -1;
	return 0;
}
/* The folding key of an interval: the main event's estimate (the first
 * counted event, task-clock by default); -1 when unknown. */
double agg_view__key(const struct agg_view *v, const struct agg_interval_view *iv)
{
	int e = v->p->main_ev;

	if (e < 0 || e >= v->p->nev || iv->ev[e].state != AGG_VALUE_KNOWN)
		return -1;
	return iv->ev[e].est;
}
