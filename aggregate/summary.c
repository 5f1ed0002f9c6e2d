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

/* One level up: adjacent buckets joined (both signs; s's array). */
static void sk__collapse(struct agg_sketch *s)
{
	struct agg_sk_buckets *b = s->b;

	for (int g = 0; g < 2; g++) {
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

/* ---- where the counts live ------------------------------------------------- */

/* A bucket sketch's counts are in its array (b) or, while they fit, in
 * the sketch itself (in: the 128 bytes of the exact values), which keeps
 * a cell of narrowly spread values (most cells of a job) at one size
 * from 17 values on.  The array's code below (collapse, put, merge) runs
 * on an array: an inline sketch is opened into one on the stack and
 * closed back, in place again if it fits.  Only adds that land in the
 * slots held skip that (sk__add_held, sk__add_inside).  Either way the
 * window (lo) and counts are what the array alone would hold: the
 * packed bytes and every answer are those of the array. */

bool agg_sketch__arrays_only;

/* The slots held of sign g: buckets *first .. *first + return - 1 (an
 * array holds its whole window). */
static int sk__stored(const struct agg_sketch *s, int g, int32_t *first)
{
	if (s->b) {
		*first = s->b->lo[g];
		return s->b->used[g] ? AGG_SK_SPAN : 0;
	}
	*first = s->in.lo[g] + s->in.off[g];
	return s->in.used[g] ? s->in.w[g] : 0;
}

/* Slot k of sign g's held ones. */
static uint32_t sk__slot(const struct agg_sketch *s, int g, int k)
{
	if (s->b)
		return s->b->cnt[g][k];
	k += g ? s->in.w[0] : 0;
	return s->in.wide ? s->in.c32[k] : s->in.c16[k];
}

/* Whether slot k of sign g can take c more without widening (only the
 * 16-bit inline counts cannot; an array's wrap as they always did). */
static bool sk__takes(const struct agg_sketch *s, int g, int k, uint64_t c)
{
	return s->b || s->in.wide || sk__slot(s, g, k) + c <= UINT16_MAX;
}

static void sk__slot_add(struct agg_sketch *s, int g, int k, uint64_t c)
{
	if (s->b) {
		s->b->cnt[g][k] += (uint32_t)c;
		return;
	}
	k += g ? s->in.w[0] : 0;
	if (s->in.wide)
		s->in.c32[k] += (uint32_t)c;
	else
		s->in.c16[k] += (uint16_t)c;
}

/* An inline sketch's counts as the array would hold them. */
static void sk__expand(const struct agg_sketch *s, struct agg_sk_buckets *t)
{
	const struct agg_sk_inline *in = &s->in;
	int j = 0;

	memset(t, 0, sizeof(*t));
	for (int g = 0; g < 2; g++) {
		t->lo[g] = in->lo[g];
		t->used[g] = in->used[g];
		for (int k = 0; k < in->w[g]; k++, j++)
			t->cnt[g][in->off[g] + k] = in->wide ? in->c32[j] : in->c16[j];
	}
}

/* Which of sign g's buckets hold a count: bit k for slot k (none when
 * the sign is unused).  Without a branch per slot: closes and merges
 * scan windows whose occupied slots no predictor guesses. */
static uint64_t sk__mask(const struct agg_sk_buckets *b, int g)
{
	uint64_t m = 0;

	_Static_assert(AGG_SK_SPAN == 64, "a window's slots are the bits of a uint64_t");
	for (int k = 0; b->used[g] && k < AGG_SK_SPAN; k++)
		m |= (uint64_t)(b->cnt[g][k] != 0) << k;
	return m;
}

/* The occupied slots of sign g of t: k0 .. k0 + return - 1 (0: none),
 * their largest count raised into *top. */
static int sk__occupied(const struct agg_sk_buckets *t, int g, int *k0, uint32_t *top)
{
	uint64_t m = sk__mask(t, g);
	uint32_t hi = *top;

	for (int k = 0; m && k < AGG_SK_SPAN; k++)
		hi = t->cnt[g][k] > hi ? t->cnt[g][k] : hi;
	*top = hi;
	*k0 = m ? __builtin_ctzll(m) : 0;
	return m ? AGG_SK_SPAN - __builtin_clzll(m) - *k0 : 0;
}

/* t's counts into s->in when they fit.  Each sign holds its occupied
 * buckets and the slots left over around them (halved when both signs
 * have counts), within its window: a value landing beside the others
 * is then added in place.  false: they do not fit (s->in unchanged). */
static bool sk__window(struct agg_sketch *s, const struct agg_sk_buckets *t)
{
	struct agg_sk_inline *in = &s->in;
	int k0[2], len[2], slots, room, j = 0;
	uint32_t top = 0;

	len[0] = sk__occupied(t, 0, &k0[0], &top);
	len[1] = sk__occupied(t, 1, &k0[1], &top);
	slots = top > UINT16_MAX ? AGG_SK_SLOTS32 : AGG_SK_SLOTS16;
	room = slots - len[0] - len[1];
	if (room < 0 || (agg_sketch__arrays_only && (t->used[0] || t->used[1])))
		return false;
	in->wide = slots == AGG_SK_SLOTS32;
	for (int g = 0; g < 2; g++) {
		int w = !len[g] ? 0 : len[g] + (!len[!g] ? room : g ? room - room / 2 : room / 2);
		int off = k0[g] - (w - len[g]) / 2;

		w = w < AGG_SK_SPAN ? w : AGG_SK_SPAN;
		off = off < 0 ? 0 : off > AGG_SK_SPAN - w ? AGG_SK_SPAN - w : off;
		in->lo[g] = t->lo[g];
		in->used[g] = t->used[g];
		in->off[g] = (uint8_t)off;
		in->w[g] = (uint8_t)w;
		for (int k = 0; k < w; k++, j++)
			if (in->wide)
				in->c32[j] = t->cnt[g][off + k];
			else
				in->c16[j] = (uint16_t)t->cnt[g][off + k];
	}
	return true;
}

/* w: s with its counts in an array, s's own or its inline ones expanded
 * into *t, for the array's code to work on. */
static void sk__open(const struct agg_sketch *s, struct agg_sketch *w, struct agg_sk_buckets *t)
{
	*w = *s;
	if (!s->b) {
		sk__expand(s, t);
		w->b = t;
	}
}

/* w (opened from s, then changed) made s: inline if its counts fit, else
 * in an array, s's own or one made now.  -1 on ENOMEM (s unchanged). */
static int sk__close(struct agg_sketch *s, struct agg_sketch *w, const struct agg_sk_buckets *t)
{
	if (w->b == t && sk__window(w, t)) {
		w->b = NULL;
	} else if (w->b == t) {
		w->b = malloc(sizeof(*w->b));
		if (!w->b)
			return -1;
		*w->b = *t;
	}
	*s = *w;
	return 0;
}

/* ---- adding and merging --------------------------------------------------- */

/* c values in bucket i of sign g (at s's level) of s's array,
 * collapsing until the bucket fits. */
static void sk__put_index(struct agg_sketch *s, int g, int32_t i, uint64_t c)
{
	/* a collapse takes the index one level up as it takes the buckets
	 * (agg_sketch__index's halving): one log per value */
	while (!sk__fits(s->b, g, i)) {
		sk__collapse(s);
		i = half_up(i);
	}
	sk__put(s->b, g, i, c);
}

/* The same for bucket i of sign g when s holds its slot and it takes c
 * more: what sk__put_index does then, without opening s.  false: not
 * so, nothing done. */
static bool sk__add_held(struct agg_sketch *s, int g, int32_t i, uint64_t c)
{
	int32_t first;
	int n = sk__stored(s, g, &first);
	int64_t k = (int64_t)i - first;

	if (k < 0 || k >= n || !sk__takes(s, g, (int)k, c))
		return false;
	sk__slot_add(s, g, (int)k, c);
	return true;
}

/* Whether v counts as a zero (NaN does, never seen). */
static bool sk__zero(double v)
{
	return v == 0 || v != v;
}

/* nx values into s (bucket mode), in their order: in place while their
 * slots are held, the rest in s opened once.  -1 on ENOMEM. */
static int sk__values(struct agg_sketch *s, const double *x, uint32_t nx)
{
	struct agg_sketch w;
	struct agg_sk_buckets t;
	uint32_t k = 0;

	for (; k < nx; k++)
		if (sk__zero(x[k]))
			s->zero++;
		else if (!sk__add_held(s, x[k] < 0, agg_sketch__index(x[k], s->level), 1))
			break;
	if (k == nx)
		return 0;
	sk__open(s, &w, &t);
	for (; k < nx; k++)
		if (sk__zero(x[k]))
			w.zero++;
		else
			sk__put_index(&w, x[k] < 0, agg_sketch__index(x[k], w.level), 1);
	return sk__close(s, &w, &t);
}

/* Exact mode to bucket mode, with nm more values after s's own.  -1 on
 * ENOMEM (s unchanged). */
static int sk__to_buckets(struct agg_sketch *s, const double *more, uint32_t nm)
{
	struct agg_sketch w = *s;

	w.level = 0;
	w.zero = 0;
	w.nx = 0;
	/* no window yet, no slot held: the first value opens w */
	w.in = (struct agg_sk_inline){ .wide = 0 };
	w.b = NULL;
	if (sk__values(&w, s->x, s->nx) || sk__values(&w, more, nm)) {
		free(w.b);
		return -1;
	}
	*s = w;
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
	if (s->n == AGG_SK_EXACT ? sk__to_buckets(s, &v, 1) : sk__values(s, &v, 1))
		return -1;
	s->n++;
	return 0;
}

/* The lowest and highest non-empty bucket of sign g; false: none. */
static bool sk__range(const struct agg_sk_buckets *b, int g, int32_t *lo, int32_t *hi)
{
	uint64_t m = sk__mask(b, g);

	if (!m)
		return false;
	*lo = b->lo[g] + __builtin_ctzll(m);
	*hi = b->lo[g] + AGG_SK_SPAN - 1 - __builtin_clzll(m);
	return true;
}

/* Whether t's buckets fit a's windows (the same level; both arrays). */
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

/* b's counts added in place when that is all the general merge below
 * would do: the same level, and each of b's counts in a slot a holds
 * (inside a's window: no collapse, no shift) and can take.  false: not
 * so, nothing done. */
static bool sk__add_inside(struct agg_sketch *a, const struct agg_sketch *b)
{
	int32_t af[2], bf[2];
	int an[2], bn[2];

	if (a->level != b->level)
		return false;
	for (int g = 0; g < 2; g++) {
		an[g] = sk__stored(a, g, &af[g]);
		bn[g] = sk__stored(b, g, &bf[g]);
		for (int k = 0; k < bn[g]; k++) {
			uint32_t c = sk__slot(b, g, k);
			int64_t j = (int64_t)bf[g] + k - af[g];

			if (c && (j < 0 || j >= an[g] || !sk__takes(a, g, (int)j, c)))
				return false;
		}
	}
	for (int g = 0; g < 2; g++)
		for (int k = 0; k < bn[g]; k++)
			if (sk__slot(b, g, k))
				sk__slot_add(a, g, (int)(bf[g] + k - af[g]), sk__slot(b, g, k));
	a->zero += b->zero;
	return true;
}

/* b's buckets (bucket mode) into a's (bucket mode): both brought to the
 * lowest level at which the union fits.  -1 on ENOMEM (a unchanged). */
static int sk__merge_buckets(struct agg_sketch *a, const struct agg_sketch *b)
{
	struct agg_sketch w, t = *b;
	struct agg_sk_buckets wb, tb;

	if (sk__add_inside(a, b))
		return 0;
	sk__open(a, &w, &wb);
	/* b's copy to collapse (b's zeros only: its level still counts, a
	 * goes up to it) */
	if (b->b)
		tb = *b->b;
	else
		sk__expand(b, &tb);
	t.b = &tb;
	for (;;) {
		while (t.level < w.level)
			sk__collapse(&t);
		while (w.level < t.level)
			sk__collapse(&w);
		if (sk__fits_all(&w, &t))
			break;
		sk__collapse(&w);
	}
	for (int g = 0; g < 2; g++)
		for (int k = 0; tb.used[g] && k < AGG_SK_SPAN; k++)
			if (tb.cnt[g][k])
				sk__put(w.b, g, tb.lo[g] + k, tb.cnt[g][k]);
	w.zero += b->zero;
	return sk__close(a, &w, &wb);
}

int agg_sketch__merge(struct agg_sketch *a, const struct agg_sketch *b)
{
	if (a->n + b->n <= AGG_SK_EXACT) {
		for (uint32_t i = 0; i < b->nx; i++)
			sk__insert(a, b->x[i]);
		a->n += b->n;
		return 0;
	}
	if (agg_sketch__exact(a)) {
		/* b's values after a's, as adding them one by one */
		if (sk__to_buckets(a, b->x, agg_sketch__exact(b) ? b->nx : 0))
			return -1;
	} else if (agg_sketch__exact(b) && sk__values(a, b->x, b->nx)) {
		return -1;
	}
	if (!agg_sketch__exact(b) && sk__merge_buckets(a, b))
		return -1;
	a->n += b->n;
	return 0;
}

uint32_t agg_sketch__count(const struct agg_sketch *s, int g, int32_t i)
{
	int32_t first;
	int n = agg_sketch__exact(s) ? 0 : sk__stored(s, g, &first);
	int64_t k = n ? (int64_t)i - first : -1;

	return k >= 0 && k < n ? sk__slot(s, g, (int)k) : 0;
}

bool agg_sketch__window(const struct agg_sketch *s, int g, int32_t *lo)
{
	if (agg_sketch__exact(s))
		return false;
	*lo = s->b ? s->b->lo[g] : s->in.lo[g];
	return s->b ? s->b->used[g] : s->in.used[g];
}

double agg_sketch__order(const struct agg_sketch *s, uint64_t k)
{
	uint64_t seen = 0;
	int32_t first;
	int n;

	if (!s->n)
		return NAN;
	if (k >= s->n)
		k = s->n - 1;
	if (agg_sketch__exact(s))
		return s->x[k];
	/* the negatives, most negative first */
	n = sk__stored(s, 1, &first);
	for (int i = n - 1; i >= 0; i--) {
		seen += sk__slot(s, 1, i);
		if (k < seen)
			return -agg_sketch__value(first + i, s->level);
	}
	seen += s->zero;
	if (k < seen)
		return 0;
	n = sk__stored(s, 0, &first);
	for (int i = 0; i < n; i++) {
		seen += sk__slot(s, 0, i);
		if (k < seen)
			return agg_sketch__value(first + i, s->level);
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
		uint32_t c[AGG_SK_SPAN] = { 0 };
		int32_t lo, first;
		uint8_t used = agg_sketch__window(&s->q, g, &lo);
		int n;

		agg_buf__put(b, &used, 1);
		if (!used)
			continue;
		agg_buf__put(b, &lo, sizeof(lo));
		if (s->q.b) {
			agg_buf__put(b, s->q.b->cnt[g], sizeof(s->q.b->cnt[g]));
			continue;
		}
		/* inline: the window as the array holds it */
		n = sk__stored(&s->q, g, &first);
		for (int k = 0; k < n; k++)
			c[first - lo + k] = sk__slot(&s->q, g, k);
		agg_buf__put(b, c, sizeof(c));
	}
}

/* A packed bucket sketch into q (its n read): checked as a whole (the
 * counts add up to n), then inline if it fits.  false: damaged, or out
 * of memory. */
static bool sk__unpack(struct agg_buf *b, struct agg_sketch *q)
{
	struct agg_sk_buckets t;
	struct agg_sketch w;
	uint64_t c;
	bool ok;

	memset(&t, 0, sizeof(t));
	ok = agg_buf__get(b, &q->level, 1) && agg_buf__get(b, &q->zero, sizeof(q->zero)) &&
	     q->level < 31;
	for (int g = 0; ok && g < 2; g++) {
		ok = agg_buf__get(b, &t.used[g], 1) && t.used[g] <= 1;
		if (ok && t.used[g])
			ok = agg_buf__get(b, &t.lo[g], sizeof(int32_t)) &&
			     agg_buf__get(b, t.cnt[g], sizeof(t.cnt[g])) && t.lo[g] > -1000000000 &&
			     t.lo[g] < 1000000000;
	}
	c = q->zero;
	for (int g = 0; ok && g < 2; g++)
		for (int k = 0; k < AGG_SK_SPAN; k++)
			c += t.cnt[g][k];
	if (!ok || c != q->n)
		return false;
	/* inline when the counts fit, as the adds would have them (zeros
	 * only always) */
	w = *q;
	w.b = &t;
	return !sk__close(q, &w, &t);
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
	} else {
		ok = sk__unpack(b, &s->q);
	}
	if (!ok) {
		agg_rstat__free(s);
		b->bad = true;
	}
	return ok;
}
