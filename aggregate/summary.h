/* summary.h - fixed-size, exactly mergeable summaries of one value over
 * the ranks (or threads) of a job: the in-job reduction's unit (issue 30).
 *
 * agg_sketch is a quantile sketch: the values themselves while there are
 * at most AGG_SK_EXACT of them (the median is then exact), beyond that a
 * log-bucketed histogram (DDSketch, Masson et al. 2019): at level L bucket
 * i holds the values in (g^(i-1), g^i], g = g0^(2^L), g0 = (1 + a) /
 * (1 - a), and answers with 2 g^i / (g + 1), within a relative error
 * a_L = (g - 1) / (g + 1) of every value of the bucket (a_0 = AGG_SK_ALPHA).
 * Negative values have their own buckets, zero a count.  A sketch spans
 * at most AGG_SK_SPAN consecutive buckets per sign: when its values need
 * more, adjacent buckets are joined in pairs and the level goes up (the
 * uniform collapse of UDDSketch, Epicoco et al. 2020), so a sketch has one
 * size whatever the number of values, and its error doubles per level:
 * 1% up to a spread (max/min) of 3.6 at 64 buckets, 2% to 13, 4% to 167,
 * 8% to 28000.  Merging is exact and order-free: the level is the lowest
 * at which all the values fit, and the counts those of a sketch of the
 * union, whatever the tree.
 *
 * Where a bucket sketch keeps its counts changes nothing observable: in
 * the sketch itself while they fit (agg_sk_inline, in the 128 bytes of
 * the exact values: per sign the window's first bucket and the counts
 * of the occupied buckets with the free slots around them, 56 of 16
 * bits, or 28 of 32 once a count passes 65535), else in a 528-byte array
 * (agg_sk_buckets).  The windows and counts are those the array alone
 * would hold, packed alike.  A statistic whose values over the ranks
 * occupy at most 56 consecutive buckets (a spread of 3 at level 0) never
 * allocates, so most cells of a job's summary keep one size from 17
 * ranks on, as they had up to 16 (issue 30: rank 0's peak flat in the
 * ranks); a collapsed sketch occupies 33 to 64 buckets, the widest of
 * them keep an array.
 *
 * agg_rstat is one statistic: count, sum, mean, M2 (Chan's parallel
 * variance), the multiplexing errors, min and max with who holds them
 * (ties to the lowest rank, as job.c), and the sketch.  Plain C, no MPI,
 * no JSON: the plugin merges them over MPI, hpcshim merge over files.
 */
#ifndef HPCSHIM_AGGREGATE_SUMMARY_H
#define HPCSHIM_AGGREGATE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGG_SK_ALPHA 0.01 /* the relative error at level 0 */
#define AGG_SK_EXACT 16   /* values kept as they are up to this many */
#define AGG_SK_SPAN 64    /* buckets per sign */

/* Bucket mode: the counts of buckets lo[s] .. lo[s] + AGG_SK_SPAN - 1,
 * s = 0 the positive values, 1 the negative ones (by magnitude). */
struct agg_sk_buckets {
	int32_t lo[2];
	uint8_t used[2];
	uint32_t cnt[2][AGG_SK_SPAN];
};

#define AGG_SK_SLOTS16 56 /* inline counts of 16 bits */
#define AGG_SK_SLOTS32 28 /* of 32 bits, once a count passes 65535 */

/* Bucket mode without an array: the window as agg_sk_buckets has it (lo,
 * used), of its counts only slots off[s] .. off[s] + w[s] - 1, the
 * occupied buckets and room beside them (sign 0's slots first). */
struct agg_sk_inline {
	int32_t lo[2];
	uint8_t used[2];
	uint8_t off[2], w[2];
	uint8_t wide; /* 32-bit counts */
	union {
		uint16_t c16[AGG_SK_SLOTS16];
		uint32_t c32[AGG_SK_SLOTS32];
	};
};

struct agg_sketch {
	uint64_t n;
	uint64_t zero;          /* bucket mode: the zeros */
	uint32_t nx;            /* exact mode: n == nx <= AGG_SK_EXACT */
	uint8_t level;          /* bucket mode: the collapses so far */
	union {
		double x[AGG_SK_EXACT];   /* exact mode: the values, ascending */
		struct agg_sk_inline in;  /* bucket mode, b NULL: the counts */
	};
	struct agg_sk_buckets *b; /* bucket mode, when the counts do not fit in */
};
_Static_assert(sizeof(struct agg_sk_inline) == sizeof(double[AGG_SK_EXACT]),
	       "the inline counts take the exact values' room, no more");

/* Who holds a value: rank, its pid, an index into the summary's hosts,
 * and a thread (-1: the process). */
struct agg_who {
	int32_t rank, pid, host;
	int64_t tid;
};

struct agg_rstat {
	uint64_t n;
	double sum, m2, err2; /* m2: sum of squared deviations from the mean */
	bool has_error;
	bool noq; /* no quantiles wanted: the sketch stays empty */
	double min, max;
	struct agg_who min_at, max_at;
	struct agg_sketch q;
};

/* 0 on success, -1 out of memory (the object unchanged or still valid). */
int agg_sketch__add(struct agg_sketch *s, double v);
int agg_sketch__merge(struct agg_sketch *a, const struct agg_sketch *b);
/* The k-th smallest value (0-based, k < n): exact in exact mode, else
 * within AGG_SK_ALPHA of it (relative). */
double agg_sketch__order(const struct agg_sketch *s, uint64_t k);
/* The median as job.c defines it (the mean of the two middle values for
 * an even count). */
double agg_sketch__median(const struct agg_sketch *s);
/* The q-quantile (0 <= q <= 1), lower order statistic floor(q (n - 1)). */
double agg_sketch__quantile(const struct agg_sketch *s, double q);
static inline bool agg_sketch__exact(const struct agg_sketch *s)
{
	return s->n <= AGG_SK_EXACT;
}
/* The stated relative error of its answers: 0 when exact, else a_L. */
double agg_sketch__error(const struct agg_sketch *s);
void agg_sketch__free(struct agg_sketch *s);
/* The bucket index of |v| > 0 at a level, and a bucket's value. */
int32_t agg_sketch__index(double v, int level);
double agg_sketch__value(int32_t i, int level);
/* Bucket mode: the count of bucket i (at the sketch's level) of sign g
 * (0 positive, 1 negative), 0 outside the window. */
uint32_t agg_sketch__count(const struct agg_sketch *s, int g, int32_t i);
/* Bucket mode: whether sign g has a window, and its first bucket. */
bool agg_sketch__window(const struct agg_sketch *s, int g, int32_t *lo);
/* Tests only: true keeps every bucket sketch's counts in an array, as
 * before the inline windows (the reference they are checked against). */
extern bool agg_sketch__arrays_only;

int agg_rstat__add(struct agg_rstat *s, double v, double err, struct agg_who who);
/* The same without quantiles (a statistic whose median no one reads). */
int agg_rstat__add_noq(struct agg_rstat *s, double v, double err, struct agg_who who);
/* s made the statistic of one value, whatever it held (a summary's new
 * cell, unwritten): what adding v to an empty one gives (noq: without
 * quantiles), without clearing it first.  Cannot fail. */
void agg_rstat__first(struct agg_rstat *s, double v, double err, struct agg_who who, bool noq);
int agg_rstat__merge(struct agg_rstat *a, const struct agg_rstat *b);
double agg_rstat__mean(const struct agg_rstat *s);
double agg_rstat__sd(const struct agg_rstat *s); /* the population one */
void agg_rstat__free(struct agg_rstat *s);

/* Serialisation: a byte buffer that grows (little-endian hosts' layout;
 * both ends of one job run one build). */
struct agg_buf {
	unsigned char *p;
	size_t len, cap, off; /* off: the reader's position */
	bool bad;             /* out of memory, or a read past the end */
};
void agg_buf__put(struct agg_buf *b, const void *p, size_t n);
/* Room for n more bytes now: one allocation for what many puts add. */
void agg_buf__reserve(struct agg_buf *b, size_t n);
bool agg_buf__get(struct agg_buf *b, void *p, size_t n);
void agg_buf__free(struct agg_buf *b);
/* A packed statistic's bytes at least: its head (n, sum, m2, err2, a
 * flags byte, min, max, the holders); an exact sketch's values or a
 * bucket sketch follow unless it has no quantiles. */
#define AGG_RSTAT_PACKED_MIN (4 * 8 + 1 + 2 * 8 + 2 * sizeof(struct agg_who))
void agg_rstat__pack(struct agg_buf *b, const struct agg_rstat *s);
/* false: a damaged buffer (s freed and zeroed). */
bool agg_rstat__unpack(struct agg_buf *b, struct agg_rstat *s);

#endif
