/* summary.c - mergeable summaries of one value over ranks (summary.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/summary.h"

/* ---- the byte buffer ------------------------------------------------------ */

void agg_buf__put(struct agg_buf *b, const void *p, size_t n)
{
	if (b->bad)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		unsigned char *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->bad = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
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

static double sk__lg(void)
{
	static double lg; /* log(g), g = (1 + a) / (1 - a) */

	if (lg == 0)
		lg = log((1 + AGG_SK_ALPHA) / (1 - AGG_SK_ALPHA));
	return lg;
}

int32_t agg_sketch__index(double v)
{
	double i = ceil(log(fabs(v)) / sk__lg());

	/* subnormals to the largest doubles: within +-36000 at 1% */
	return (int32_t)(i < -1e9 ? -1e9 : i > 1e9 ? 1e9 : i);
}

double agg_sketch__value(int32_t i)
{
	double g = (1 + AGG_SK_ALPHA) / (1 - AGG_SK_ALPHA);

	return 2 * exp((double)i * sk__lg()) / (g + 1);
}

static int store__reserve(struct agg_sk_store *s, uint32_t n)
{
	int32_t *idx;
	uint64_t *cnt;
	uint32_t cap = s->cap ? s->cap : 8;

	if (n <= s->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	idx = realloc(s->idx, cap * sizeof(*idx));
	if (!idx)
		return -1;
	s->idx = idx;
	cnt = realloc(s->cnt, cap * sizeof(*cnt));
	if (!cnt)
		return -1;
	s->cnt = cnt;
	s->cap = cap;
	return 0;
}

/* Folds the buckets below the AGG_SK_BUCKETS highest into the lowest kept. */
static void store__collapse(struct agg_sk_store *s)
{
	uint32_t drop;
	uint64_t c = 0;

	if (s->n <= AGG_SK_BUCKETS)
		return;
	drop = s->n - AGG_SK_BUCKETS;
	for (uint32_t i = 0; i < drop; i++)
		c += s->cnt[i];
	memmove(s->idx, s->idx + drop, AGG_SK_BUCKETS * sizeof(*s->idx));
	memmove(s->cnt, s->cnt + drop, AGG_SK_BUCKETS * sizeof(*s->cnt));
	s->cnt[0] += c;
	s->n = AGG_SK_BUCKETS;
}

static int store__add(struct agg_sk_store *s, int32_t i, uint64_t c)
{
	uint32_t lo = 0, hi = s->n;

	while (lo < hi) {
		uint32_t m = (lo + hi) / 2;

		if (s->idx[m] < i)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo < s->n && s->idx[lo] == i) {
		s->cnt[lo] += c;
		return 0;
	}
	/* below the folded range of a full store: into its lowest bucket */
	if (s->n >= AGG_SK_BUCKETS && lo == 0) {
		s->cnt[0] += c;
		return 0;
	}
	if (store__reserve(s, s->n + 1))
		return -1;
	memmove(s->idx + lo + 1, s->idx + lo, (s->n - lo) * sizeof(*s->idx));
	memmove(s->cnt + lo + 1, s->cnt + lo, (s->n - lo) * sizeof(*s->cnt));
	s->idx[lo] = i;
	s->cnt[lo] = c;
	s->n++;
	store__collapse(s);
	return 0;
}

static int store__merge(struct agg_sk_store *a, const struct agg_sk_store *b)
{
	struct agg_sk_store m = { 0 };
	uint32_t i = 0, k = 0;

	if (!b->n)
		return 0;
	if (store__reserve(&m, a->n + b->n)) {
		free(m.idx);
		free(m.cnt);
		return -1;
	}
	while (i < a->n || k < b->n) {
		if (k == b->n || (i < a->n && a->idx[i] < b->idx[k])) {
			m.idx[m.n] = a->idx[i];
			m.cnt[m.n++] = a->cnt[i++];
		} else if (i == a->n || b->idx[k] < a->idx[i]) {
			m.idx[m.n] = b->idx[k];
			m.cnt[m.n++] = b->cnt[k++];
		} else {
			m.idx[m.n] = a->idx[i];
			m.cnt[m.n++] = a->cnt[i++] + b->cnt[k++];
		}
	}
	store__collapse(&m);
	free(a->idx);
	free(a->cnt);
	*a = m;
	return 0;
}

/* A value into the buckets (bucket mode). */
static int sk__bucket(struct agg_sketch *s, double v, uint64_t c)
{
	if (v == 0 || v != v) { /* NaN: counted with the zeros, never seen */
		s->zero += c;
		return 0;
	}
	return store__add(v > 0 ? &s->pos : &s->neg, agg_sketch__index(v), c);
}

/* Exact mode to bucket mode. */
static int sk__to_buckets(struct agg_sketch *s)
{
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
	} else {
		if (store__merge(&a->pos, &b->pos) || store__merge(&a->neg, &b->neg))
			return -1;
		a->zero += b->zero;
	}
	a->n += b->n;
	return 0;
}

double agg_sketch__order(const struct agg_sketch *s, uint64_t k)
{
	uint64_t seen = 0;

	if (!s->n)
		return NAN;
	if (k >= s->n)
		k = s->n - 1;
	if (agg_sketch__exact(s))
		return s->x[k];
	/* the negatives, most negative first */
	for (uint32_t i = s->neg.n; i-- > 0;) {
		seen += s->neg.cnt[i];
		if (k < seen)
			return -agg_sketch__value(s->neg.idx[i]);
	}
	seen += s->zero;
	if (k < seen)
		return 0;
	for (uint32_t i = 0; i < s->pos.n; i++) {
		seen += s->pos.cnt[i];
		if (k < seen)
			return agg_sketch__value(s->pos.idx[i]);
	}
	return agg_sketch__value(s->pos.idx[s->pos.n - 1]);
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
	free(s->pos.idx);
	free(s->pos.cnt);
	free(s->neg.idx);
	free(s->neg.cnt);
	memset(s, 0, sizeof(*s));
}

/* ---- one statistic -------------------------------------------------------- */

/* The first of equal values is the lowest rank's (then the lowest tid). */
static bool who__before(const struct agg_who *a, const struct agg_who *b)
{
	return a->rank != b->rank ? a->rank < b->rank : a->tid < b->tid;
}

int agg_sum__add(struct agg_sum *s, double v, double err, struct agg_who who)
{
	struct agg_sum one = { .n = 1, .sum = v, .err2 = err * err, .has_error = err > 0,
				.min = v, .max = v, .min_at = who, .max_at = who };

	if (agg_sketch__add(&one.q, v))
		return -1;
	return agg_sum__merge(s, &one);
}

int agg_sum__merge(struct agg_sum *a, const struct agg_sum *b)
{
	double ma, mb, d;
	uint64_t n;

	if (!b->n)
		return 0;
	if (agg_sketch__merge(&a->q, &b->q))
		return -1;
	if (!a->n) {
		struct agg_sketch q = a->q;

		*a = *b;
		a->q = q;
		return 0;
	}
	n = a->n + b->n;
	ma = a->sum / (double)a->n;
	mb = b->sum / (double)b->n;
	d = mb - ma;
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
	return 0;
}

double agg_sum__mean(const struct agg_sum *s)
{
	return s->n ? s->sum / (double)s->n : 0;
}

double agg_sum__sd(const struct agg_sum *s)
{
	return s->n ? sqrt(s->m2 > 0 ? s->m2 / (double)s->n : 0) : 0;
}

void agg_sum__free(struct agg_sum *s)
{
	agg_sketch__free(&s->q);
	memset(s, 0, sizeof(*s));
}

/* ---- serialisation -------------------------------------------------------- */

static void store__pack(struct agg_buf *b, const struct agg_sk_store *s)
{
	agg_buf__put(b, &s->n, sizeof(s->n));
	agg_buf__put(b, s->idx, s->n * sizeof(*s->idx));
	agg_buf__put(b, s->cnt, s->n * sizeof(*s->cnt));
}

static bool store__unpack(struct agg_buf *b, struct agg_sk_store *s)
{
	uint32_t n;

	if (!agg_buf__get(b, &n, sizeof(n)) || n > AGG_SK_BUCKETS ||
	    (size_t)n * 12 > b->len - b->off || store__reserve(s, n))
		return false;
	s->n = n;
	return agg_buf__get(b, s->idx, n * sizeof(*s->idx)) &&
	       agg_buf__get(b, s->cnt, n * sizeof(*s->cnt));
}

void agg_sum__pack(struct agg_buf *b, const struct agg_sum *s)
{
	uint8_t e = s->has_error;

	agg_buf__put(b, &s->n, sizeof(s->n));
	agg_buf__put(b, &s->sum, sizeof(s->sum));
	agg_buf__put(b, &s->m2, sizeof(s->m2));
	agg_buf__put(b, &s->err2, sizeof(s->err2));
	agg_buf__put(b, &e, 1);
	agg_buf__put(b, &s->min, sizeof(s->min));
	agg_buf__put(b, &s->max, sizeof(s->max));
	agg_buf__put(b, &s->min_at, sizeof(s->min_at));
	agg_buf__put(b, &s->max_at, sizeof(s->max_at));
	if (agg_sketch__exact(&s->q)) {
		agg_buf__put(b, s->q.x, s->q.nx * sizeof(double));
		return;
	}
	agg_buf__put(b, &s->q.zero, sizeof(s->q.zero));
	store__pack(b, &s->q.pos);
	store__pack(b, &s->q.neg);
}

bool agg_sum__unpack(struct agg_buf *b, struct agg_sum *s)
{
	uint8_t e = 0;
	bool ok;

	memset(s, 0, sizeof(*s));
	agg_buf__get(b, &s->n, sizeof(s->n));
	agg_buf__get(b, &s->sum, sizeof(s->sum));
	agg_buf__get(b, &s->m2, sizeof(s->m2));
	agg_buf__get(b, &s->err2, sizeof(s->err2));
	agg_buf__get(b, &e, 1);
	agg_buf__get(b, &s->min, sizeof(s->min));
	agg_buf__get(b, &s->max, sizeof(s->max));
	agg_buf__get(b, &s->min_at, sizeof(s->min_at));
	ok = agg_buf__get(b, &s->max_at, sizeof(s->max_at));
	s->has_error = e;
	s->q.n = s->n;
	if (ok && s->n <= AGG_SK_EXACT) {
		s->q.nx = (uint32_t)s->n;
		ok = agg_buf__get(b, s->q.x, s->q.nx * sizeof(double));
	} else if (ok) {
		uint64_t c;

		ok = agg_buf__get(b, &s->q.zero, sizeof(s->q.zero)) &&
		     store__unpack(b, &s->q.pos) && store__unpack(b, &s->q.neg);
		c = s->q.zero;
		for (uint32_t i = 0; ok && i < s->q.pos.n; i++)
			c += s->q.pos.cnt[i];
		for (uint32_t i = 0; ok && i < s->q.neg.n; i++)
			c += s->q.neg.cnt[i];
		ok = ok && c == s->n;
	}
	if (!ok) {
		agg_sum__free(s);
		b->bad = true;
	}
	return ok;
}
