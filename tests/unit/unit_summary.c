/* unit_summary.c - the in-job reduction's summaries (aggregate/summary.h,
 * aggregate/jobsum.h): the sketch exact up to AGG_SK_EXACT values and
 * within AGG_SK_ALPHA (relative) of every order statistic beyond, on
 * several distributions; merges exact and independent of the tree (the
 * same buckets and counts as one sketch of all the values); count, sum,
 * min, max and their holders as a direct computation; a packed summary
 * unpacked equal; the binomial stack in the plugin's order.  TAP.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/jobsum.h"
#include "aggregate/summary.h"
#include "tests/unit/tap.h"

static uint64_t rng = 88172645463325252ull;

static double uni(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The same values, or the same level, zeros and counts per bucket
 * (wherever either holds them: array or inline). */
static bool same_sketch(const struct agg_sketch *a, const struct agg_sketch *b)
{
	if (a->n != b->n || a->nx != b->nx)
		return false;
	if (agg_sketch__exact(a))
		return !memcmp(a->x, b->x, a->nx * sizeof(double));
	if (a->level != b->level || a->zero != b->zero)
		return false;
	for (int g = 0; g < 2; g++) {
		const struct agg_sketch *s[2] = { a, b };

		for (int w = 0; w < 2; w++) {
			int32_t lo;

			if (!agg_sketch__window(s[w], g, &lo))
				continue;
			for (int k = 0; k < AGG_SK_SPAN; k++)
				if (agg_sketch__count(a, g, lo + k) != agg_sketch__count(b, g, lo + k))
					return false;
		}
	}
	return true;
}

/* The largest relative error of the sketch's order statistics. */
static double worst(const struct agg_sketch *s, const double *sorted, size_t n)
{
	double w = 0;

	for (size_t k = 0; k < n; k += 1 + n / 997) {
		double e = agg_sketch__order(s, k), x = sorted[k];
		double r = x == 0 ? fabs(e) : fabs(e - x) / fabs(x);

		if (r > w)
			w = r;
	}
	return w;
}

/* Sketches of parts merged in a random tree equal the sketch of all. */
static struct agg_sketch *tree_merge(const double *v, size_t n, size_t parts)
{
	struct agg_sketch *p = calloc(parts, sizeof(*p));
	size_t live = parts;

	for (size_t i = 0; i < n; i++)
		agg_sketch__add(&p[(size_t)(uni() * (double)parts)], v[i]);
	while (live > 1) {
		size_t a = (size_t)(uni() * (double)live), b = (size_t)(uni() * (double)live);

		if (a == b)
			continue;
		agg_sketch__merge(&p[a], &p[b]);
		agg_sketch__free(&p[b]);
		p[b] = p[--live];
		memset(&p[live], 0, sizeof(p[live]));
	}
	for (size_t i = 1; i < parts; i++)
		agg_sketch__free(&p[i]);
	return p;
}

static void distribution(const char *what, double (*gen)(size_t), size_t n, int want_level)
{
	double *v = malloc(n * sizeof(*v));
	struct agg_sketch all = { 0 }, *m;
	double w, med, exact, bound;

	for (size_t i = 0; i < n; i++) {
		v[i] = gen(i);
		agg_sketch__add(&all, v[i]);
	}
	m = tree_merge(v, n, 37);
	TAP_OK(same_sketch(&all, m), "%s: 37 parts merged in a random tree = one sketch", what);
	qsort(v, n, sizeof(*v), dcmp);
	w = worst(&all, v, n);
	bound = agg_sketch__error(&all);
	TAP_OK(w <= bound * (1 + 1e-12) && (want_level < 0 || all.level == want_level),
	       "%s, n=%zu: level %d, order statistics within its stated %.4f (worst %.5f)",
	       what, n, all.level, bound, w);
	exact = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	med = agg_sketch__median(&all);
	TAP_OK(fabs(med - exact) <= bound * fabs(exact) * (1 + 1e-12),
	       "%s: median %.6g within %.4f of %.6g", what, med, bound, exact);
	agg_sketch__free(&all);
	agg_sketch__free(m);
	free(m);
	free(v);
}

static double g_lognormal(size_t i)
{
	(void)i;
	return exp(10 + 0.25 * sqrt(-2 * log(uni() + 1e-300)) * cos(6.283185307179586 * uni()));
}

static double g_counts(size_t i)
{
	(void)i;
	return floor(1e6 + uni() * 9e6); /* a spread of 10: level 1, 2% */
}

static double g_twopoint(size_t i)
{
	return i % 3 ? 4000 : 1000;
}

static double g_signed(size_t i)
{
	return i % 5 == 0 ? 0 : (uni() - 0.5) * 1e6;
}

/* zeros, with a value other than zero one in 4000 */
static double g_sparse(size_t i)
{
	return i % 4000 == 17 ? 1000 + (double)i : 0;
}

static double g_wide(size_t i)
{
	(void)i;
	return pow(10, uni() * 300 - 150); /* 300 decades: level 10 */
}

/* ---- inline windows against arrays ---------------------------------------- */

/* A sketch made twice: as the library keeps it (its counts inline while
 * they fit) and with every count in an array (agg_sketch__arrays_only:
 * the reference, the representation before the inline windows). */
struct twin {
	struct agg_sketch s, r;
};

static void twin__add(struct twin *t, double v)
{
	agg_sketch__add(&t->s, v);
	agg_sketch__arrays_only = true;
	agg_sketch__add(&t->r, v);
	agg_sketch__arrays_only = false;
}

/* b into a; b freed. */
static void twin__merge(struct twin *a, struct twin *b)
{
	agg_sketch__merge(&a->s, &b->s);
	agg_sketch__arrays_only = true;
	agg_sketch__merge(&a->r, &b->r);
	agg_sketch__arrays_only = false;
	agg_sketch__free(&b->s);
	agg_sketch__free(&b->r);
}

/* A sketch packed as its statistic's (the bytes past the head are the
 * sketch's). */
static void sk_pack(const struct agg_sketch *q, struct agg_buf *b)
{
	struct agg_rstat r = { .n = q->n, .q = *q };

	agg_rstat__pack(b, &r);
}

/* q packed and unpacked in its place (arrays: as the reference). */
static void sk_roundtrip(struct agg_sketch *q, bool arrays)
{
	struct agg_buf b = { 0 };
	struct agg_rstat u;

	sk_pack(q, &b);
	agg_sketch__arrays_only = arrays;
	if (!agg_rstat__unpack(&b, &u))
		memset(&u, 0, sizeof(u));
	agg_sketch__arrays_only = false;
	agg_sketch__free(q);
	*q = u.q;
	agg_buf__free(&b);
}

static void twin__roundtrip(struct twin *t)
{
	sk_roundtrip(&t->s, false);
	sk_roundtrip(&t->r, true);
}

/* Both pack to the same bytes and answer every quantile alike; the
 * reference holds an array whenever it has a value other than zero. */
static bool twin__same(const struct twin *t)
{
	struct agg_buf a = { 0 }, b = { 0 };
	int32_t lo;
	bool same;

	sk_pack(&t->s, &a);
	sk_pack(&t->r, &b);
	same = a.len == b.len && !memcmp(a.p, b.p, a.len) && t->s.n == t->r.n;
	if (!agg_sketch__exact(&t->r))
		same = same && !t->r.b == !(agg_sketch__window(&t->r, 0, &lo) ||
					    agg_sketch__window(&t->r, 1, &lo));
	for (int i = 0; same && i <= 200; i++) {
		double x = agg_sketch__quantile(&t->s, i / 200.0), y = agg_sketch__quantile(&t->r, i / 200.0);

		same = !memcmp(&x, &y, sizeof(x));
	}
	for (uint64_t k = 0; same && k < t->s.n; k += 1 + t->s.n / 300)
		same = agg_sketch__order(&t->s, k) == agg_sketch__order(&t->r, k);
	agg_buf__free(&a);
	agg_buf__free(&b);
	return same;
}

static void twin__free(struct twin *t)
{
	agg_sketch__free(&t->s);
	agg_sketch__free(&t->r);
}

/* The middle value of level-0 bucket i. */
static double bucket(int32_t i)
{
	return agg_sketch__value(i, 0);
}

/* A window grown down and up from its first bucket, inline while the
 * occupied buckets fit its 56 slots, then spilled to an array. */
static void inline_grow_spill(void)
{
	struct twin t = { 0 }, n = { 0 };
	bool same = true, in = true;

	for (int i = 0; i < 20; i++)
		twin__add(&t, bucket(1000));
	for (int k = 1; k <= 27; k++) {
		twin__add(&t, bucket(1000 - k)); /* below the window's first bucket */
		twin__add(&t, bucket(1000 + k));
		same = same && twin__same(&t);
		in = in && !t.s.b;
	}
	TAP_OK(same && in && t.s.level == 0 && agg_sketch__count(&t.s, 0, 973) == 1 &&
		       agg_sketch__count(&t.s, 0, 1000) == 20,
	       "a window grown on either side to 55 buckets: inline, as the array");
	twin__add(&t, bucket(1028));
	twin__add(&t, bucket(972));
	TAP_OK(twin__same(&t) && t.s.b && t.s.level == 0,
	       "57 buckets: spilled to an array, as the reference");
	/* merged both ways: heap with inline, inline with heap */
	for (int i = 0; i < 40; i++)
		twin__add(&n, bucket(990 + i % 5));
	{
		struct twin h = { 0 }, m = { 0 };

		for (int i = 0; i < 60; i++)
			twin__add(&h, bucket(940 + i));
		for (int i = 0; i < 30; i++)
			twin__add(&m, bucket(1010 + i % 3));
		TAP_OK(h.s.b && !m.s.b, "one sketch with an array, one inline");
		twin__merge(&h, &m);
		TAP_OK(twin__same(&h) && h.s.b, "inline into an array: as the reference");
		for (int i = 0; i < 60; i++)
			twin__add(&m, bucket(940 + i));
		twin__merge(&n, &m);
		TAP_OK(twin__same(&n) && n.s.b, "an array into inline: spilled, as the reference");
		twin__free(&h);
	}
	{
		/* an array's window merged into inline when the union fits:
		 * stays inline */
		struct twin a = { 0 }, b = { 0 };

		for (int i = 0; i < 30; i++)
			twin__add(&a, bucket(500 + i));
		for (int i = 0; i < 30; i++)
			twin__add(&b, bucket(510 + i));
		twin__merge(&a, &b);
		TAP_OK(twin__same(&a) && !a.s.b, "two inline windows whose union fits: inline");
		twin__free(&a);
	}
	twin__free(&t);
	twin__free(&n);
}

/* Collapses with inline windows: far apart values take the level up,
 * their few occupied buckets stay inline. */
static void inline_collapse(void)
{
	struct twin t = { 0 }, u = { 0 };
	bool same = true, in = true;

	for (int i = 0; i < 40; i++) {
		twin__add(&t, i % 2 ? 1 : 1e6);
		same = same && twin__same(&t);
		in = in && (agg_sketch__exact(&t.s) || !t.s.b);
	}
	TAP_OK(same && in && t.s.level == 4,
	       "1 and 1e6: level %d, inline, as the array", t.s.level);
	twin__add(&t, 1e12);
	TAP_OK(twin__same(&t) && !t.s.b && t.s.level == 5, "1e12 more: level %d, inline", t.s.level);
	/* a narrow level-0 window merged with that one, both ways */
	for (int i = 0; i < 30; i++)
		twin__add(&u, bucket(300 + i % 7));
	{
		struct twin v = { 0 };

		for (int i = 0; i < 30; i++)
			twin__add(&v, bucket(300 + i % 7));
		/* level 0 into level 5, then level 5 into level 0 */
		twin__merge(&t, &v);
		TAP_OK(twin__same(&t) && !t.s.b && t.s.level == 5,
		       "level 0 into level 5: inline, as the array");
		twin__merge(&u, &t);
	}
	TAP_OK(twin__same(&u) && !u.s.b && u.s.level == 5,
	       "level 5 into level 0: level %d, inline, as the array", u.s.level);
	twin__free(&u);
}

/* Counts past 65535: 32-bit inline slots (28), an array beyond. */
static void inline_wide(void)
{
	struct twin t = { 0 }, a = { 0 }, b = { 0 };

	for (int i = 0; i < 70000; i++)
		twin__add(&t, bucket(2000 + (i % 1000 == 0 ? i / 1000 % 20 : 0)));
	TAP_OK(twin__same(&t) && !t.s.b && t.s.in.wide,
	       "a count of %u: 32-bit counts inline, as the array", agg_sketch__count(&t.s, 0, 2000));
	for (int i = 0; i < 8; i++)
		twin__add(&t, bucket(2020 + i));
	TAP_OK(twin__same(&t) && !t.s.b, "28 buckets of 32 bits: inline");
	twin__add(&t, bucket(2028));
	TAP_OK(twin__same(&t) && t.s.b, "29: an array");
	/* two 16-bit windows whose sum passes 65535 in one bucket */
	for (int k = 0; k < 2; k++) {
		agg_sketch__arrays_only = k;
		for (int i = 0; i < 50020; i++) {
			agg_sketch__add(k ? &a.r : &a.s, bucket(i < 50000 ? 7 : 8));
			agg_sketch__add(k ? &b.r : &b.s, bucket(i < 50000 ? 7 : 9));
		}
	}
	agg_sketch__arrays_only = false;
	TAP_OK(!a.s.in.wide && !b.s.in.wide && !a.s.b, "50020 values: 16-bit counts");
	twin__merge(&a, &b);
	TAP_OK(twin__same(&a) && !a.s.b && a.s.in.wide && agg_sketch__count(&a.s, 0, 7) == 100000,
	       "merged past 65535: 32-bit counts inline, as the array");
	twin__roundtrip(&a);
	TAP_OK(twin__same(&a) && !a.s.b && a.s.in.wide, "packed and unpacked: the same");
	twin__free(&a);
	twin__free(&t);
}

/* Negative values, both signs, and zeros only. */
static void inline_signs(void)
{
	struct twin t = { 0 }, z = { 0 }, y = { 0 };
	bool same = true;

	for (int i = 0; i < 200; i++) {
		twin__add(&t, i % 3 ? -bucket(100 + i % 11) : i % 2 ? 0 : bucket(50 + i % 13));
		same = same && twin__same(&t);
	}
	TAP_OK(same && !t.s.b && agg_sketch__count(&t.s, 1, 105) > 0 && t.s.zero > 0,
	       "negative, zero and positive values: inline, as the array");
	for (int i = 0; i < 40; i++)
		twin__add(&t, -bucket(200 + i));
	TAP_OK(twin__same(&t) && t.s.b, "the negatives too wide with the positives: an array");
	for (int i = 0; i < 100; i++) {
		twin__add(&z, 0);
		twin__add(&y, i % 2 ? 0 : -0.0);
	}
	TAP_OK(twin__same(&z) && !z.s.b && !z.r.b && z.s.zero == 100, "zeros only: no array");
	twin__merge(&z, &y);
	twin__roundtrip(&z);
	TAP_OK(twin__same(&z) && !z.s.b && z.s.zero == 200, "zeros merged, packed: no array");
	for (int i = 0; i < 20; i++)
		twin__add(&y, -1e-3 * (i + 1));
	twin__merge(&z, &y);
	TAP_OK(twin__same(&z) && !z.s.b, "zeros with negatives merged: inline, as the array");
	twin__free(&z);
	twin__free(&t);
}

/* Random values of several shapes in random trees, with packs and
 * unpacks on the way: inline and arrays alike at every merge. */
static void inline_random(void)
{
	enum { SEEDS = 300 };
	int bad = 0, spilled = 0, inl = 0;

	for (int seed = 0; seed < SEEDS; seed++) {
		size_t parts = 2 + (size_t)(uni() * 40), n = (size_t)(uni() * 4000), live = parts;
		struct twin *p = calloc(parts, sizeof(*p));
		int shape = seed % 6;
		double centre = exp((uni() - 0.5) * 80), width = uni();

		for (size_t i = 0; i < n; i++) {
			double v = centre * exp(width * (uni() - 0.5) * (shape == 1 ? 20 : 2));

			if (shape == 2 && uni() < 0.4)
				v = -v;
			if (shape == 3 && uni() < 0.7)
				v = 0;
			if (shape == 4)
				v = floor(v / centre * 10) * centre; /* few, repeated */
			if (shape == 5 && uni() < 0.01)
				v *= 1e9;
			twin__add(&p[(size_t)(uni() * (double)parts)], v);
		}
		while (live > 1) {
			size_t a = (size_t)(uni() * (double)live), b = (size_t)(uni() * (double)live);

			if (a == b)
				continue;
			if (uni() < 0.3)
				twin__roundtrip(&p[b]);
			twin__merge(&p[a], &p[b]);
			bad += !twin__same(&p[a]);
			p[b] = p[--live];
			memset(&p[live], 0, sizeof(p[live]));
		}
		bad += !twin__same(&p[0]);
		if (!agg_sketch__exact(&p[0].s)) {
			spilled += !!p[0].s.b;
			inl += !p[0].s.b;
		}
		twin__free(&p[0]);
		free(p);
	}
	TAP_OK(!bad && spilled && inl,
	       "%d random trees: inline and arrays alike at every merge (%d bad; roots %d inline, "
	       "%d arrays)", SEEDS, bad, inl, spilled);
}

int main(void)
{
	struct agg_sketch s = { 0 };
	double small[] = { 4000, 1000, 3000, 2000 };

	/* exact up to AGG_SK_EXACT values */
	for (int i = 0; i < 4; i++)
		agg_sketch__add(&s, small[i]);
	TAP_OK(agg_sketch__exact(&s) && agg_sketch__median(&s) == 2500,
	       "4 values: median exact (%g)", agg_sketch__median(&s));
	for (int i = 0; i < AGG_SK_EXACT - 4; i++)
		agg_sketch__add(&s, 1e6 + i);
	TAP_OK(agg_sketch__exact(&s) && agg_sketch__order(&s, 4) == 1e6,
	       "%d values: still exact", AGG_SK_EXACT);
	agg_sketch__add(&s, 7);
	TAP_OK(!agg_sketch__exact(&s) && s.n == AGG_SK_EXACT + 1, "one more: buckets");
	agg_sketch__free(&s);

	/* the levels: 1% to a spread of 3.6, 2% to 13, ... (summary.h) */
	distribution("lognormal sigma 0.25", g_lognormal, 100000, -1);
	distribution("counts 1e6..1e7", g_counts, 100000, 1);
	distribution("two values 1000 and 4000", g_twopoint, 999, 1);
	distribution("signed with zeros", g_signed, 20001, -1);
	distribution("300 decades", g_wide, 50000, -1);
	/* most cells of a job are one event's zeros in every rank: no
	 * bucket array until a value other than zero comes; merged, packed
	 * and ordered like any sketch */
	distribution("zeros, one value in 4000", g_sparse, 20000, -1);
	/* the counts inline while they fit: what an array would hold */
	inline_grow_spill();
	inline_collapse();
	inline_wide();
	inline_signs();
	inline_random();
	{
		struct agg_sketch z = { 0 }, y = { 0 };
		struct agg_rstat r = { 0 }, u;
		struct agg_buf buf = { 0 };

		for (int i = 0; i < 100; i++)
			agg_sketch__add(&z, 0);
		TAP_OK(!agg_sketch__exact(&z) && !z.b && agg_sketch__median(&z) == 0 &&
			       z.zero == 100,
		       "100 zeros: bucket mode without a bucket array, median 0");
		for (int i = 0; i < 20; i++)
			agg_sketch__add(&y, 0);
		for (int i = 0; i < 30; i++)
			agg_sketch__add(&y, 5 + i);
		agg_sketch__merge(&z, &y);
		TAP_OK(!z.b && z.n == 150 && z.zero == 120 && agg_sketch__order(&z, 119) == 0 &&
			       fabs(agg_sketch__order(&z, 149) - 34) <= 34 * agg_sketch__error(&z),
		       "zeros merged with values: counts inline (no array), order statistics kept");
		agg_sketch__free(&z);
		agg_sketch__free(&y);
		for (int i = 0; i < 40; i++)
			agg_rstat__add(&r, 0, 0, (struct agg_who){ .rank = i, .tid = -1 });
		agg_rstat__pack(&buf, &r);
		TAP_OK(buf.len == AGG_RSTAT_PACKED_MIN + 1 + 8 + 2 && agg_rstat__unpack(&buf, &u) &&
			       !u.q.b && u.q.zero == 40 && u.n == 40,
		       "40 zeros packed as an empty array (%zu bytes), unpacked without one",
		       buf.len);
		agg_rstat__free(&r);
		agg_rstat__free(&u);
		agg_buf__free(&buf);
	}
	{
		/* a level-0 sketch: values within a factor 3 */
		struct agg_sketch a = { 0 };

		for (int i = 0; i < 1000; i++)
			agg_sketch__add(&a, 1000 + i * 2);
		TAP_OK(a.level == 0 && agg_sketch__error(&a) < 0.0100001,
		       "a spread of 3: level 0, stated error %.4f", agg_sketch__error(&a));
		agg_sketch__free(&a);
	}
	/* statistics: holders, ties to the lowest rank, spread */
	{
		struct agg_rstat a = { 0 }, b = { 0 }, all = { 0 };
		double val[8] = { 5, 1, 9, 1, 9, 3, 7, 2 }, mean = 37.0 / 8, var = 0;

		for (int r = 0; r < 8; r++) {
			struct agg_who w = { .rank = r, .pid = 100 + r, .tid = -1 };

			agg_rstat__add(r % 2 ? &b : &a, val[r], 0, w);
			agg_rstat__add(&all, val[r], 0, w);
			var += (val[r] - mean) * (val[r] - mean);
		}
		agg_rstat__merge(&b, &a); /* the higher ranks first: holders still the lowest */
		TAP_OK(b.n == 8 && b.sum == 37 && b.min == 1 && b.min_at.rank == 1 &&
			       b.max == 9 && b.max_at.rank == 2,
		       "merged: n, sum, min at rank 1, max at rank 2 (ties to the lowest)");
		TAP_OK(fabs(agg_rstat__sd(&b) - sqrt(var / 8)) < 1e-12, "sd %.6f", agg_rstat__sd(&b));
		TAP_OK(agg_sketch__median(&b.q) == 4, "median exact: 4");

		struct agg_buf buf = { 0 };
		struct agg_rstat u;

		agg_rstat__pack(&buf, &b);
		TAP_OK(agg_rstat__unpack(&buf, &u) && u.n == b.n && u.sum == b.sum &&
			       u.m2 == b.m2 && u.max_at.rank == 2 && same_sketch(&u.q, &b.q),
		       "packed and unpacked equal");
		buf.len -= 3;
		buf.off = 0;
		agg_rstat__free(&u);
		TAP_OK(!agg_rstat__unpack(&buf, &u), "a truncated buffer refused");
		agg_buf__free(&buf);
		agg_rstat__free(&a);
		agg_rstat__free(&b);
		agg_rstat__free(&all);
	}

	/* job summaries: names joined, the binomial stack = the tree */
	{
		enum { P = 13 };
		struct agg_jobsum_stack st = { .depth = 0 };
		struct agg_jobsum *acc[P], *root;
		struct agg_buf buf = { 0 };
		struct agg_jobsum back;
		const struct agg_cell *c;

		for (int r = 0; r < P; r++) {
			struct agg_jobsum *one = calloc(1, sizeof(*one));
			struct agg_jobsum *two = calloc(1, sizeof(*two));
			char name[32];
			struct agg_who w = { .rank = r, .pid = 1000 + r, .tid = -1 };

			for (int k = 0; k < 2; k++) {
				struct agg_jobsum *x = k ? two : one;

				agg_jobsum__add_rank(x, r, P, r != 5);
				w.host = agg_jobsum__host(x, r < 7 ? "node1" : "node2");
				/* rank-specific regions: joined by name */
				snprintf(name, sizeof(name), "only%d", r % 3);
				agg_jobsum__add_value(x, name, "cycles", AGG_INCL, r * 10.5, 0, w);
				agg_jobsum__add_value(x, "work", "cycles", AGG_INCL, (r + 1) * 1000.25,
						      0, w);
				agg_jobsum__add_value(x, NULL, "cycles", AGG_TOTAL, 1e9 / (r + 1), 0, w);
			}
			agg_jobsum_stack__push(&st, one);
			acc[r] = two;
		}
		root = agg_jobsum_stack__finish(&st);
		/* the plugin's tree */
		for (int st2 = 1; st2 < P; st2 *= 2)
			for (int r = 0; r + st2 < P; r += 2 * st2) {
				agg_jobsum__merge(acc[r], acc[r + st2]);
				agg_jobsum__free(acc[r + st2]);
				free(acc[r + st2]);
			}
		long w = hs_strtab__lookup(&root->regions, "work");
		long e = hs_strtab__lookup(&root->events, "cycles");
		long w2 = hs_strtab__lookup(&acc[0]->regions, "work");
		c = agg_jobsum__cell(root, (uint32_t)w, (uint32_t)e, AGG_INCL);
		const struct agg_cell *c2 =
			agg_jobsum__cell(acc[0], (uint32_t)w2, (uint32_t)e, AGG_INCL);
		TAP_OK(c && c2 && c->s.n == P && c->s.sum == c2->s.sum && c->s.m2 == c2->s.m2 &&
			       c->s.max_at.rank == P - 1 &&
			       !strcmp(root->hosts.name[c->s.max_at.host], "node2"),
		       "stack = tree: sum, m2 identical, max at rank %d on node2", P - 1);
		TAP_OK(root->regions.n == 4 && root->ranks == P && root->nint == 1 &&
			       root->lo[0] == 0 && root->hi[0] == P - 1 && root->nincomplete == 1 &&
			       root->incomplete[0] == 5,
		       "regions joined by name (4), ranks 0..%d, rank 5 incomplete", P - 1);
		agg_jobsum__pack(root, &buf);
		TAP_OK(agg_jobsum__unpack(&back, &buf) == 0 && back.n == root->n &&
			       back.regions.n == root->regions.n,
		       "job summary packed and unpacked (%zu bytes, %zu cells)", buf.len, back.n);
		agg_jobsum__free(&back);
		agg_buf__free(&buf);
		agg_jobsum__free(root);
		free(root);
		agg_jobsum__free(acc[0]);
		free(acc[0]);
	}
	{
		/* the profile's and OpenMP's cells: events that are raw
		 * indices, beyond the events table, packed, unpacked and
		 * merged by their number */
		struct agg_jobsum a = { .size = -1 }, b = { .size = -1 }, back = { .size = -1 };
		struct agg_buf buf = { 0 };
		uint32_t ev = AGG_OMP_EVENT(AGG_OMP_WORK, 3);
		const struct agg_cell *c;

		for (int r = 0; r < 2; r++) {
			struct agg_jobsum *js = r ? &b : &a;
			struct agg_who who = { .rank = r, .pid = 100 + r, .host = -1, .tid = 500 + r };
			uint32_t reg;

			agg_jobsum__add_rank(js, r, 2, true);
			who.host = agg_jobsum__host(js, "h");
			agg_jobsum__add_value(js, "work", "cycles", AGG_INCL, 10.0 * (r + 1), 0, who);
			reg = (uint32_t)hs_strtab__lookup(&js->regions, "work");
			agg_jobsum__add_cell(js, reg, ev, AGG_OMP, 1000.0 * (r + 1), 0, who);
			agg_jobsum__add_cell(js, AGG_NONE, AGG_PART_WALL, AGG_PART_MAIN, 7.0 + r, 0, who);
			agg_jobsum__add_cell(js, AGG_NONE, AGG_NONE, AGG_PEAK_RSS, 4096.0 * (r + 1), 0,
					     who);
		}
		agg_jobsum__pack(&b, &buf);
		TAP_OK(agg_jobsum__unpack(&back, &buf) == 0 && back.n == b.n,
		       "OpenMP and profile cells (raw events) packed and unpacked");
		agg_jobsum__merge(&a, &back);
		c = agg_jobsum__cell(&a, (uint32_t)hs_strtab__lookup(&a.regions, "work"), ev, AGG_OMP);
		TAP_OK(c && c->s.n == 2 && c->s.sum == 3000 && c->s.max_at.rank == 1 &&
			       c->s.max_at.tid == 501,
		       "an OpenMP thread's cell merged: n 2, sum 3000, max at rank 1 tid 501");
		c = agg_jobsum__cell(&a, AGG_NONE, AGG_PART_WALL, AGG_PART_MAIN);
		TAP_OK(c && c->s.n == 2 && c->s.sum == 15 && c->s.min_at.rank == 0,
		       "a part's cell merged by its raw index: n 2, sum 15");
		c = agg_jobsum__cell(&a, AGG_NONE, AGG_NONE, AGG_PEAK_RSS);
		TAP_OK(c && c->s.max == 8192 && c->s.max_at.rank == 1, "peak memory: max at rank 1");
		agg_buf__free(&buf);
		agg_jobsum__free(&back);
		agg_jobsum__free(&a);
		agg_jobsum__free(&b);
	}
	return tap_done();
}
