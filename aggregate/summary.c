/* summary.c - mergeable summaries of one value over ranks (summary.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/summary.h"

/* ---- the byte buffer ------------------------------------------------------ */

/* Room for n more bytes (doubling); false: out of memory (b bad). */
static bool buf__room(struct agg_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	unsigned char *q;

	if (b->bad)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	q = realloc(b->p, cap);
	if (!q) {
		b->bad = true;
		return false;
	}
	b->p = q;
	b->cap = cap;
	return true;
}

void agg_buf__put(struct agg_buf *b, const void *p, size_t n)
{
	if (!buf__room(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void agg_buf__reserve(struct agg_buf *b, size_t n)
{
	buf__room(b, n);
}

bool agg_buf__get(struct agg_buf *b, void *p, size_t n)
{
	if (b->bad || n > b->len - b->off) {
		b->bad = true;
		memset(p, 0, n);
		return false;
	}
	memcpy(p, b->p + b->off, n);
	b->off += n;
	return true;
}

void agg_buf__free(struct agg_buf *b)
{
	free(b->p);
	*b = (struct agg_buf){ .p = NULL };
}

/* ---- the buckets ---------------------------------------------------------- */

static double sk__lg0(void)
{
	static double lg; /* log(g0), g0 = (1 + a) / (1 - a) */

	if (lg == 0)
		lg = log((1 + AGG_SK_ALPHA) / (1 - AGG_SK_ALPHA));
	return lg;
}

/* ceil(i / 2): the bucket of the next level that holds bucket i. */
static int32_t half_up(int32_t i)
{
	return i >= 0 ? (i + 1) / 2 : -((-i) / 2);
}

/* The level-0 index, then halved up per level in integers: a value added
 * at level L lands where it lands added at 0 and collapsed L times. */
int32_t agg_sketch__index(double v, int level)
{
	double x = ceil(log(fabs(v)) / sk__lg0());
	int32_t i = (int32_t)(x < -1e9 ? -1e9 : x > 1e9 ? 1e9 : x);

	while (level-- > 0)
		i = half_up(i);
	return i;
}

double agg_sketch__value(int32_t i, int level)
{
	double lg = sk__lg0() * (double)(1u << level), g = exp(lg);

	return 2 * exp((double)i * lg) / (g + 1);
}

double agg_sketch__error(const struct agg_sketch *s)
{
	double g;

	if (agg_sketch__exact(s))
		return 0;
	g = exp(sk__lg0() * (double)(1u << s->level));
	return (g - 1) / (g + 1);
}

/* One level up: adjacent buckets joined (both signs). */
static void sk__collapse(struct agg_sketch *s)
{
	struct agg_sk_buckets *b = s->b;

	for (int g = 0; b && g < 2; g++) {
		uint32_t c[AGG_SK_SPAN] = { 0 };
		int32_t lo = half_up(b->lo[g]);

		if (!b->used[g])
			continue;
		for (int k = 0; k < AGG_SK_SPAN; k++)
			if (b->cnt[g][k])
				c[half_up(b->lo[g] + k) - lo] += b->cnt[g][k];
		memcpy(b->cnt[g], c, sizeof(c));
		b->lo[g] = lo;
	}
	s->level++;
}

/* The span of sign g if bucket i (at the sketch's level) were added. */
static bool sk__fits(const struct agg_sk_buckets *b, int g, int32_t i)
{
	int32_t lo = b->lo[g], hi = lo;

	/* inside the window the span cannot grow past it: no scan */
	if (!b->used[g] || (i >= lo && (int64_t)i - lo < AGG_SK_SPAN))
		return true;
	for (int k = AGG_SK_SPAN - 1; k >= 0; k--)
		if (b->cnt[g][k]) {
			hi = lo + k;
			break;
		}
	for (int k = 0; k < AGG_SK_SPAN; k++)
		if (b->cnt[g][k]) {
			lo = b->lo[g] + k;
			break;
		}
	if (i < lo)
		lo = i;
	if (i > hi)
		hi = i;
	return (int64_t)hi - lo < AGG_SK_SPAN;
}

/* c values in bucket i of sign g at the current level (it fits). */
static void sk__put(struct agg_sk_buckets *b, int g, int32_t i, uint64_t c)
{
	if (!b->used[g]) {
		b->used[g] = 1;
		b->lo[g] = i;
	} else if (i < b->lo[g]) {
		/* shift the window down so that i is its first bucket */
		int32_t d = b->lo[g] - i;

		memmove(b->cnt[g] + d, b->cnt[g], (AGG_SK_SPAN - (size_t)d) * sizeof(uint32_t));
		memset(b->cnt[g], 0, (size_t)d * sizeof(uint32_t));
		b->lo[g] = i;
	} else if (i >= b->lo[g] + AGG_SK_SPAN) {
		/* shift up: the low end is empty (it fits) */
		int32_t d = i - (b->lo[g] + AGG_SK_SPAN - 1);

		memmove(b->cnt[g], b->cnt[g] + d, (AGG_SK_SPAN - (size_t)d) * sizeof(uint32_t));
		memset(b->cnt[g] + AGG_SK_SPAN - d, 0, (size_t)d * sizeof(uint32_t));
		b->lo[g] += d;
	}
	b->cnt[g][i - b->lo[g]] += (uint32_t)c;
}

/* Bucket mode's counts, made at its first value other than zero: a
 * statistic of zeros only (an event a region never saw: most of a job's
 * cells) holds no bucket array.  -1 on ENOMEM. */
static int sk__room(struct agg_sketch *s)
{
	if (!s->b)
		s->b = calloc(1, sizeof(*s->b));
	return s->b ? 0 : -1;
}

/* c copies of a value into the buckets (bucket mode), collapsing as
 * needed.  -1 on ENOMEM. */
static int sk__bucket(struct agg_sketch *s, double v, uint64_t c)
{
	int32_t i;
	int g;

	if (v == 0 || v != v) { /* NaN: counted with the zeros, never seen */
		s->zero += c;
		return 0;
	}
	if (sk__room(s))
		return -1;
	g = v < 0;
	/* one log per value: a collapse takes the index one level up as it
	 * takes the buckets (agg_sketch__index's halving) */
	i = agg_sketch__index(v, s->level);
	while (!sk__fits(s->b, g, i)) {
		sk__collapse(s);
		i = half_up(i);
	}
	sk__put(s->b, g, i, c);
	return 0;
}

/* Exact mode to bucket mode. */
static int sk__to_buckets(struct agg_sketch *s)
{
	s->level = 0;
	s->zero = 0;
	for (uint32_t i = 0; i < s->nx; i++)
		if (sk__bucket(s, s->x[i], 1))
			return -1;
	s->nx = 0;
	return 0;
}

static void sk__insert(struct agg_sketch *s, double v)
{
	uint32_t i = s->nx;

	while (i > 0 && s->x[i - 1] > v) {
		s->x[i] = s->x[i - 1];
		i--;
	}
	s->x[i] = v;
	s->nx++;
}

int agg_sketch__add(struct agg_sketch *s, double v)
{
	if (s->n < AGG_SK_EXACT) {
		sk__insert(s, v);
		s->n++;
		return 0;
	}
	if (s->n == AGG_SK_EXACT && sk__to_buckets(s))
		return -1;
	if (sk__bucket(s, v, 1))
		return -1;
	s->n++;
	return 0;
}

/* The lowest and highest non-empty bucket of sign g; false: none. */
static bool sk__range(const struct agg_sk_buckets *b, int g, int32_t *lo, int32_t *hi)
{
	int k0 = -1, k1 = -1;

	for (int k = 0; b && b->used[g] && k < AGG_SK_SPAN; k++)
		if (b->cnt[g][k]) {
			if (k0 < 0)
				k0 = k;
			k1 = k;
		}
	if (k0 < 0)
		return false;
	*lo = b->lo[g] + k0;
	*hi = b->lo[g] + k1;
	return true;
}

/* Whether t's buckets fit a's windows (the same level). */
static bool sk__fits_all(const struct agg_sketch *a, const struct agg_sketch *t)
{
	for (int g = 0; g < 2; g++) {
		int32_t alo, ahi, tlo, thi;

		if (!sk__range(t->b, g, &tlo, &thi) || !sk__range(a->b, g, &alo, &ahi))
			continue;
		if ((int64_t)(thi > ahi ? thi : ahi) - (tlo < alo ? tlo : alo) >= AGG_SK_SPAN)
			return false;
	}
	return true;
}

/* b's buckets added in place when that is all the general merge below
 * would do: the same level, and each sign's buckets of b inside a's
 * window (no collapse, no shift).  false: not so, nothing done. */
static bool sk__add_inside(struct agg_sketch *a, const struct agg_sketch *b)
{
	int32_t lo[2], hi[2];
	bool has[2];

	if (a->level != b->level)
		return false;
	for (int g = 0; g < 2; g++) {
		has[g] = sk__range(b->b, g, &lo[g], &hi[g]);
		if (has[g] && (!a->b || !a->b->used[g] || lo[g] < a->b->lo[g] ||
			       (int64_t)hi[g] - a->b->lo[g] >= AGG_SK_SPAN))
			return false;
	}
	for (int g = 0; g < 2; g++)
		for (int32_t i = lo[g]; has[g] && i <= hi[g]; i++)
			a->b->cnt[g][i - a->b->lo[g]] += b->b->cnt[g][i - b->b->lo[g]];
	a->zero += b->zero;
	return true;
}

/* b's buckets (bucket mode) into a's (bucket mode): both brought to the
 * lowest level at which the union fits.  -1 on ENOMEM. */
static int sk__merge_buckets(struct agg_sketch *a, const struct agg_sketch *b)
{
	struct agg_sketch t = *b;
	struct agg_sk_buckets tb;

	if (sk__add_inside(a, b))
		return 0;
	if (b->b && sk__room(a))
		return -1;
	/* b's zeros only: its level still counts (a goes up to it) */
	if (b->b) {
		tb = *b->b;
		t.b = &tb;
	}
	for (;;) {
		while (t.level < a->level)
			sk__collapse(&t);
		while (a->level < t.level)
			sk__collapse(a);
		if (sk__fits_all(a, &t))
			break;
		sk__collapse(a);
	}
	for (int g = 0; t.b && g < 2; g++)
		for (int k = 0; tb.used[g] && k < AGG_SK_SPAN; k++)
			if (tb.cnt[g][k])
				sk__put(a->b, g, tb.lo[g] + k, tb.cnt[g][k]);
	a->zero += b->zero;
	return 0;
}

int agg_sketch__merge(struct agg_sketch *a, const struct agg_sketch *b)
{
	if (a->n + b->n <= AGG_SK_EXACT) {
		for (uint32_t i = 0; i < b->nx; i++)
			sk__insert(a, b->x[i]);
		a->n += b->n;
		return 0;
	}
	if (agg_sketch__exact(a) && sk__to_buckets(a))
		return -1;
	if (agg_sketch__exact(b)) {
		for (uint32_t i = 0; i < b->nx; i++)
			if (sk__bucket(a, b->x[i], 1))
				return -1;
	} else if (sk__merge_buckets(a, b)) {
		return -1;
	}
	a->n += b->n;
	return 0;
}

double agg_sketch__order(const struct agg_sketch *s, uint64_t k)
{
	const struct agg_sk_buckets *b = s->b;
	uint64_t seen = 0;

	if (!s->n)
		return NAN;
	if (k >= s->n)
		k = s->n - 1;
	if (agg_sketch__exact(s))
		return s->x[k];
	/* the negatives, most negative first */
	for (int i = AGG_SK_SPAN - 1; b && b->used[1] && i >= 0; i--) {
		seen += b->cnt[1][i];
		if (k < seen)
			return -agg_sketch__value(b->lo[1] + i, s->level);
	}
	seen += s->zero;
	if (k < seen)
		return 0;
	for (int i = 0; b && b->used[0] && i < AGG_SK_SPAN; i++) {
		seen += b->cnt[0][i];
		if (k < seen)
			return agg_sketch__value(b->lo[0] + i, s->level);
	}
	return NAN; /* counts short of n: a damaged sketch */
}

double agg_sketch__median(const struct agg_sketch *s)
{
	if (s->n % 2)
		return agg_sketch__order(s, s->n / 2);
	if (!s->n)
		return NAN;
	return (agg_sketch__order(s, s->n / 2 - 1) + agg_sketch__order(s, s->n / 2)) / 2;
}

double agg_sketch__quantile(const struct agg_sketch *s, double q)
{
	if (!s->n)
		return NAN;
	q = q < 0 ? 0 : q > 1 ? 1 : q;
	return agg_sketch__order(s, (uint64_t)floor(q * (double)(s->n - 1)));
}

void agg_sketch__free(struct agg_sketch *s)
{
	free(s->b);
	memset(s, 0, sizeof(*s));
}

/* ---- one statistic -------------------------------------------------------- */

/* The first of equal values is the lowest rank's (then the lowest tid). */
static bool who__before(const struct agg_who *a, const struct agg_who *b)
{
	return a->rank != b->rank ? a->rank < b->rank : a->tid < b->tid;
}

/* b's count, sums and extremes into a (a->n > 0): the part of a merge
 * past the sketches, shared with adding one value so that both round
 * alike. */
static void rstat__fold(struct agg_rstat *a, const struct agg_rstat *b)
{
	uint64_t n = a->n + b->n;
	double ma = a->sum / (double)a->n, mb = b->sum / (double)b->n, d = mb - ma;

	/* Chan, Golub, LeVeque: exact in exact arithmetic, stable in ours */
	a->m2 = a->m2 + b->m2 + d * d * ((double)a->n * (double)b->n / (double)n);
	a->sum += b->sum;
	a->err2 += b->err2;
	a->has_error |= b->has_error;
	if (b->min < a->min || (b->min == a->min && who__before(&b->min_at, &a->min_at))) {
		a->min = b->min;
		a->min_at = b->min_at;
	}
	if (b->max > a->max || (b->max == a->max && who__before(&b->max_at, &a->max_at))) {
		a->max = b->max;
		a->max_at = b->max_at;
	}
	a->n = n;
}

/* One value: what merging the statistic of that value alone gives (the
 * sketch's add is its merge with one value), without building that
 * statistic and its sketch (some 260 bytes cleared and copied) per value:
 * one carries only what a fold reads. */
static int sum__add(struct agg_rstat *s, double v, double err, struct agg_who who, bool noq)
{
	struct agg_rstat one;

	s->noq = (s->n ? s->noq : noq) | noq;
	if (s->noq)
		agg_sketch__free(&s->q);
	else if (agg_sketch__add(&s->q, v))
		return -1;
	one.n = 1;
	one.sum = v;
	one.m2 = 0;
	one.err2 = err * err;
	one.has_error = err > 0;
	one.min = one.max = v;
	one.min_at = one.max_at = who;
	if (!s->n) {
		one.noq = s->noq;
		one.q = s->q;
		*s = one;
		return 0;
	}
	rstat__fold(s, &one);
	return 0;
}

/* *w into *to with its padding zero: packed as it lies in memory, a
 * holder must not carry what the cell's memory held before. */
static void who__put(struct agg_who *to, const struct agg_who *w)
{
	memset(to, 0, sizeof(*to));
	to->rank = w->rank;
	to->pid = w->pid;
	to->host = w->host;
	to->tid = w->tid;
}

void agg_rstat__first(struct agg_rstat *s, double v, double err, struct agg_who who, bool noq)
{
	s->n = 1;
	s->sum = v;
	s->m2 = 0;
	s->err2 = err * err;
	s->has_error = err > 0;
	s->noq = noq;
	s->min = s->max = v;
	who__put(&s->min_at, &who);
	who__put(&s->max_at, &who);
	/* the sketch's x past the first value stays unwritten: nothing
	 * reads x beyond nx */
	s->q.n = s->q.nx = !noq;
	s->q.zero = 0;
	s->q.level = 0;
	s->q.b = NULL;
	if (!noq)
		s->q.x[0] = v;
}

int agg_rstat__add(struct agg_rstat *s, double v, double err, struct agg_who who)
{
	return sum__add(s, v, err, who, false);
}

int agg_rstat__add_noq(struct agg_rstat *s, double v, double err, struct agg_who who)
{
	return sum__add(s, v, err, who, true);
}

int agg_rstat__merge(struct agg_rstat *a, const struct agg_rstat *b)
{
	if (!b->n)
		return 0;
	if (!a->n)
		a->noq = b->noq;
	a->noq |= b->noq;
	if (a->noq)
		agg_sketch__free(&a->q);
	else if (agg_sketch__merge(&a->q, &b->q))
		return -1;
	if (!a->n) {
		struct agg_sketch q = a->q;

		*a = *b;
		a->q = q;
		return 0;
	}
	rstat__fold(a, b);
	return 0;
}

double agg_rstat__mean(const struct agg_rstat *s)
{
	return s->n ? s->sum / (double)s->n : 0;
}

double agg_rstat__sd(const struct agg_rstat *s)
{
	return s->n ? sqrt(s->m2 > 0 ? s->m2 / (double)s->n : 0) : 0;
}

void agg_rstat__free(struct agg_rstat *s)
{
	agg_sketch__free(&s->q);
	memset(s, 0, sizeof(*s));
}

/* ---- serialisation -------------------------------------------------------- */

/* The fixed head of a packed statistic (the holders as they lie in
 * memory). */
#define RSTAT_HEAD AGG_RSTAT_PACKED_MIN

static unsigned char *bytes__put(unsigned char *p, const void *x, size_t n)
{
	memcpy(p, x, n);
	return p + n;
}

static const unsigned char *bytes__get(const unsigned char *p, void *x, size_t n)
{
	memcpy(x, p, n);
	return p + n;
}

void agg_rstat__pack(struct agg_buf *b, const struct agg_rstat *s)
{
	uint8_t e = (uint8_t)(s->has_error | s->noq << 1);
	unsigned char head[RSTAT_HEAD], *p = head;

	/* one put of the head, not nine: a summary packs thousands */
	p = bytes__put(p, &s->n, sizeof(s->n));
	p = bytes__put(p, &s->sum, sizeof(s->sum));
	p = bytes__put(p, &s->m2, sizeof(s->m2));
	p = bytes__put(p, &s->err2, sizeof(s->err2));
	p = bytes__put(p, &e, 1);
	p = bytes__put(p, &s->min, sizeof(s->min));
	p = bytes__put(p, &s->max, sizeof(s->max));
	p = bytes__put(p, &s->min_at, sizeof(s->min_at));
	bytes__put(p, &s->max_at, sizeof(s->max_at));
	agg_buf__put(b, head, sizeof(head));
	if (s->noq)
		return;
	if (agg_sketch__exact(&s->q)) {
		agg_buf__put(b, s->q.x, s->q.nx * sizeof(double));
		return;
	}
	/* one size, whatever the values: the level, the zeros, per sign
	 * the window's first bucket (or none) and its counts */
	agg_buf__put(b, &s->q.level, 1);
	agg_buf__put(b, &s->q.zero, sizeof(s->q.zero));
	for (int g = 0; g < 2; g++) {
		/* no array: zeros only, written as an empty one would be */
		uint8_t used = s->q.b ? s->q.b->used[g] : 0;

		agg_buf__put(b, &used, 1);
		if (!used)
			continue;
		agg_buf__put(b, &s->q.b->lo[g], sizeof(int32_t));
		agg_buf__put(b, s->q.b->cnt[g], sizeof(s->q.b->cnt[g]));
	}
}

bool agg_rstat__unpack(struct agg_buf *b, struct agg_rstat *s)
{
	unsigned char head[RSTAT_HEAD];
	const unsigned char *p = head;
	uint8_t e = 0;
	bool ok;

	memset(s, 0, sizeof(*s));
	/* a short head reads as zeros, as field by field did */
	ok = agg_buf__get(b, head, sizeof(head));
	if (ok) {
		p = bytes__get(p, &s->n, sizeof(s->n));
		p = bytes__get(p, &s->sum, sizeof(s->sum));
		p = bytes__get(p, &s->m2, sizeof(s->m2));
		p = bytes__get(p, &s->err2, sizeof(s->err2));
		p = bytes__get(p, &e, 1);
		p = bytes__get(p, &s->min, sizeof(s->min));
		p = bytes__get(p, &s->max, sizeof(s->max));
		p = bytes__get(p, &s->min_at, sizeof(s->min_at));
		bytes__get(p, &s->max_at, sizeof(s->max_at));
	}
	s->has_error = e & 1;
	s->noq = e >> 1 & 1;
	if (ok && !s->noq)
		s->q.n = s->n;
	if (!ok || s->noq) {
		/* nothing more */
	} else if (s->n <= AGG_SK_EXACT) {
		s->q.nx = (uint32_t)s->n;
		ok = agg_buf__get(b, s->q.x, s->q.nx * sizeof(double));
	} else if ((s->q.b = calloc(1, sizeof(*s->q.b)))) {
		uint64_t c;

		ok = agg_buf__get(b, &s->q.level, 1) &&
		     agg_buf__get(b, &s->q.zero, sizeof(s->q.zero)) && s->q.level < 31;
		for (int g = 0; ok && g < 2; g++) {
			ok = agg_buf__get(b, &s->q.b->used[g], 1) && s->q.b->used[g] <= 1;
			if (ok && s->q.b->used[g])
				ok = agg_buf__get(b, &s->q.b->lo[g], sizeof(int32_t)) &&
				     agg_buf__get(b, s->q.b->cnt[g], sizeof(s->q.b->cnt[g])) &&
				     s->q.b->lo[g] > -1000000000 && s->q.b->lo[g] < 1000000000;
		}
		c = s->q.zero;
		for (int g = 0; ok && g < 2; g++)
			for (int k = 0; k < AGG_SK_SPAN; k++)
				c += s->q.b->cnt[g][k];
		ok = ok && c == s->n;
		/* zeros only: no array, as the adds would have it */
		if (ok && !s->q.b->used[0] && !s->q.b->used[1]) {
			free(s->q.b);
			s->q.b = NULL;
		}
	} else {
		ok = false;
	}
	if (!ok) {
		agg_rstat__free(s);
		b->bad = true;
	}
	return ok;
}
