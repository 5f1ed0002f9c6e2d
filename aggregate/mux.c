/* mux.c - estimates under the shim's rotation and their standard errors.
 *
 * The math is in mux.h and docs/schema.md ("Rotation").  The per-thread
 * statistics are accumulated by the thread's own signal handler while the
 * process-exit path may read them from another thread: every field is
 * stored and loaded with relaxed atomics (plain moves on x86-64 and arm64).
 */
#include <math.h>
#include <stdlib.h>

#include "common/fmath.h"
#include "aggregate/mux.h"

struct agg_rotation *agg_rotation__new(int nev, int ngroups)
{
	struct agg_rotation *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->nev = nev;
	r->ngroups = ngroups;
	r->grp = calloc((size_t)(ngroups ? ngroups : 1), sizeof(*r->grp));
	r->ev = calloc((size_t)(nev ? nev : 1), sizeof(*r->ev));
	if (!r->grp || !r->ev) {
		agg_rotation__free(r);
		return NULL;
	}
	return r;
}

void agg_rotation__free(struct agg_rotation *r)
{
	if (!r)
		return;
	free(r->grp);
	free(r->ev);
	free(r);
}

static double load_d(const double *p)
{
	double v;

	__atomic_load(p, &v, __ATOMIC_RELAXED);
	return v;
}

static void acc_d(double *p, double d)
{
	double v = load_d(p) + d;

	__atomic_store(p, &v, __ATOMIC_RELAXED);
}

void agg_rotation__slice(struct agg_rotation *r, int g, const int *idx, int n,
			 const struct count *c, uint64_t t)
{
	struct agg_rot_group *gr = &r->grp[g];
	double td = (double)t, dt = td - (double)hs_atomic__get(&gr->last_t);
	bool first = hs_atomic__get(&gr->slices) == 0;

	hs_atomic__add(&gr->slices, 1);
	hs_atomic__add(&gr->sum_t, t);
	if (!first)
		acc_d(&gr->sum_dt2, dt * dt);
	__atomic_store_n(&gr->last_t, t, __ATOMIC_RELAXED);
	for (int m = 0; m < n; m++) {
		struct agg_rot_event *ev = &r->ev[idx[m]];
		double v = (double)c[idx[m]].value;
		double dc = v - (double)hs_atomic__get(&ev->last_c);

		hs_atomic__add(&ev->sum_c, c[idx[m]].value);
		if (!first) {
			acc_d(&ev->sum_dc2, dc * dc);
			acc_d(&ev->sum_dcdt, dc * dt);
		}
		__atomic_store_n(&ev->last_c, c[idx[m]].value, __ATOMIC_RELAXED);
	}
}

/* A sum of deltas is modular: it can only "wrap" below zero when readings
 * disagreed (e.g. a time extrapolated in user space against the kernel's).
 * No negative value is ever reported: a wrapped time is 0, a wrapped value
 * is unknown (null), running never exceeds enabled. */
void agg_mux__guard(struct count *c)
{
	if ((int64_t)c->enabled < 0)
		c->enabled = 0;
	if ((int64_t)c->running < 0)
		c->running = 0;
	if (c->running > c->enabled)
		c->running = c->enabled;
	if ((int64_t)c->value < 0) {
		c->value = 0;
		c->running = 0;
		if (c->enabled == 0)
			c->enabled = 1;
	}
}

static bool view__rotating(const struct agg_process *p, const struct agg_rotation *rot)
{
	return p->mux && p->mux->mode == HS_MUX_ROTATE && rot &&
	       __atomic_load_n(&rot->active, __ATOMIC_RELAXED);
}

/* The thread's switch gaps (no rotated group enabled, measured exactly by
 * the handler against the task clock) as a fraction of its rotated time. */
static double view__gap_fraction(const struct agg_rotation *rot)
{
	uint64_t t = hs_atomic__get(&rot->rotated_ns);

	return t ? (double)hs_atomic__get(&rot->gap_ns) / (double)t : 0.0;
}

void agg_mux__view(const struct agg_process *p, const struct agg_rotation *rot,
		   const struct count *raw, struct count *out)
{
	uint64_t base = 0, ref = 0;
	int ran = 0;

	for (int e = 0; e < p->nev; e++) {
		out[e].value = hs_atomic__get(&raw[e].value);
		out[e].enabled = hs_atomic__get(&raw[e].enabled);
		out[e].running = hs_atomic__get(&raw[e].running);
		agg_mux__guard(&out[e]);
	}
	if (!view__rotating(p, rot))
		return;
	for (int g = 0; g < p->mux->ngroups; g++) {
		uint64_t en = out[p->mux->grp[g].idx[0]].enabled;

		if (!p->mux->grp[g].rotated) {
			if (en > ref)
				ref = en;
		} else if (en) {
			base += en;
			ran++;
		}
	}
	/* The time base extends over the switch gaps, so that events
	 * extrapolate over the thread's whole time.  A group that is never
	 * rotated was enabled through them: its time enabled is the interval's
	 * own, gaps included, exactly (one long gap, a handler delayed by
	 * steal time, lands in the region that holds it).  Without one, the
	 * gaps are spread in proportion (the thread's gap fraction).  One
	 * group ran all along: no switch inside the interval, no gap. */
	if (ran > 1)
		base = ref > base ? ref :
				    base + (uint64_t)hs_llround((double)base *
							     view__gap_fraction(rot));
	for (int g = 0; g < p->mux->ngroups; g++) {
		const struct agg_group *grp = &p->mux->grp[g];

		if (!grp->rotated)
			continue;
		for (int m = 0; m < grp->n; m++) {
			struct count *c = &out[grp->idx[m]];
			c->enabled = base;
			if (c->running > base)
				c->running = base;
		}
	}
}

/* Ratio estimation over the slices of event e's group g (n slices with
 * counts c_i in times t_i, in rotation order): rate r = sum c / sum t,
 * residuals e_i = c_i - r t_i.  The rotation samples each group once per
 * round, in a random position: a stratified (systematic-like) sample, for
 * which the variance per slice is estimated from successive differences,
 *   s2 = sum (e_i - e_{i-1})^2 / (2 (n - 1)),
 * so that slow changes (phases) do not count as sampling noise; only the
 * change from one slice of the group to its next does.  An interval with
 * time base T of which its group ran R is N = T / tbar slices (tbar the
 * mean slice time) of which n' = R / tbar were sampled, f = R / T, and
 *   SE = N * sqrt((1 - f) * s2 / n').
 * For the thread totals n' is about n; for a region the thread's s2 stands
 * for the region's (an approximation).
 *
 * A systematic term is added in quadrature: what happens during the
 * switches (no group enabled, gap fraction g of the rotated time) is
 * extrapolated at the average rate, and the slices' edges are where
 * events and clocks are attributed least exactly (a cpu-clock loses about
 * 0.5 us per enable against its running time); together they are bounded
 * by est * g.  It is what keeps the interval honest for events whose rate
 * never varies (a rotated task-clock has no sampling error at all).
 *
 * A floor of one count is added to the sampling variance: see below. */
bool agg_mux__stderr(const struct agg_process *p, const struct agg_rotation *rot,
		     int e, const struct count *v, double *se)
{
	int g = p->ev[e].group;
	double n, st, sc, r, sd, tbar, s2, f, samp, sys;

	if (!view__rotating(p, rot) || g < 0 || g >= p->mux->ngroups ||
	    !p->mux->grp[g].rotated || v->running == 0)
		return false;
	if (v->running >= v->enabled) { /* counted all the time: exact */
		*se = 0.0;
		return true;
	}
	n = (double)hs_atomic__get(&rot->grp[g].slices);
	st = (double)hs_atomic__get(&rot->grp[g].sum_t);
	sc = (double)hs_atomic__get(&rot->ev[e].sum_c);
	if (n < 2 || st <= 0)
		return false;
	r = sc / st;
	sd = load_d(&rot->ev[e].sum_dc2) - 2 * r * load_d(&rot->ev[e].sum_dcdt) +
	     r * r * load_d(&rot->grp[g].sum_dt2);
	if (sd < 0) /* rounding of a (near) constant rate */
		sd = 0;
	s2 = sd / (2 * (n - 1));
	tbar = st / n;
	f = (double)v->running / (double)v->enabled;
	samp = ((double)v->enabled / tbar) *
	       sqrt((1 - f) * s2 / ((double)v->running / tbar));
	/* Counts are whole numbers, and s2 sees only the events that the
	 * sampled slices caught: a rare event caught once or never gives
	 * s2 ~ 0, yet each event seen stands for 1 / f of them.  One count's
	 * extrapolation error, (1 - f) / f^2, is the floor of the sampling
	 * variance (negligible next to s2 for frequent events). */
	samp = sqrt(samp * samp + (1 - f) / (f * f));
	sys = (double)v->value * ((double)v->enabled / (double)v->running) *
	      view__gap_fraction(rot);
	*se = sqrt(samp * samp + sys * sys);
	return isfinite(*se);
}
