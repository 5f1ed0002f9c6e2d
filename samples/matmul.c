/* matmul.c - annotated sample: naive and cache-blocked matrix multiply.
 *
 * Usage: matmul [N [BLOCK]]     (defaults: N 384, BLOCK 32)
 *
 * Regions: "init" fills A and B, "matmul_naive" is the textbook i-j-k loop
 * (B walked by column, so it misses the cache), "matmul_blocked" multiplies
 * BLOCK x BLOCK tiles that stay in cache.  Under hpcshim the two regions'
 * task-clock (and, on real hardware, cache-misses) show the difference.
 * Prints one deterministic line; exits 1 when the two results disagree.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/hpcshim.h"

/* Parses a positive integer argument or exits with a usage error. */
static long parse_pos(const char *s, const char *what, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > max) {
		fprintf(stderr, "matmul: bad %s '%s' (1..%ld)\n", what, s, max);
		exit(2);
	}
	return v;
}

/* Zeroed matrix, first-touched here: a volatile store per page makes the
 * kernel faults (and the zero-page copy-on-write that a read-modify-write
 * kernel would take) happen in "init", not in the regions being compared. */
static double *alloc_matrix(long n)
{
	size_t len = (size_t)n * (size_t)n * sizeof(double);
	volatile char *m = calloc(1, len);

	if (!m) {
		perror("matmul: calloc");
		exit(2);
	}
	for (size_t off = 0; off < len; off += 4096)
		m[off] = 0;
	return (double *)m;
}

/* Deterministic values in [-1, 1): a fixed LCG, so every run (with or
 * without the shim) multiplies the same matrices and prints the same line. */
static void fill(double *m, long n, uint64_t seed)
{
	uint64_t x = seed;

	for (long i = 0; i < n * n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		m[i] = (double)(x >> 11) / (double)(1ull << 52) - 1.0;
	}
}

/* Textbook C = A B: the inner loop strides through B by whole rows. */
static void matmul_naive(const double *a, const double *b, double *c, long n)
{
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			double s = 0.0;

			for (long k = 0; k < n; k++)
				s += a[i * n + k] * b[k * n + j];
			c[i * n + j] = s;
		}
}

static long min_l(long a, long b)
{
	return a < b ? a : b;
}

/* One tile product: C[i0.., j0..] += A[i0.., k0..] B[k0.., j0..], with the
 * inner loop running along rows of B and C (unit stride). */
static void tile(const double *a, const double *b, double *c, long n,
		 long i0, long k0, long j0, long bs)
{
	long ie = min_l(i0 + bs, n), ke = min_l(k0 + bs, n), je = min_l(j0 + bs, n);

	for (long i = i0; i < ie; i++)
		for (long k = k0; k < ke; k++) {
			double aik = a[i * n + k];

			for (long j = j0; j < je; j++)
				c[i * n + j] += aik * b[k * n + j];
		}
}

/* C must be zeroed by the caller (calloc). */
static void matmul_blocked(const double *a, const double *b, double *c,
			   long n, long bs)
{
	for (long i0 = 0; i0 < n; i0 += bs)
		for (long k0 = 0; k0 < n; k0 += bs)
			for (long j0 = 0; j0 < n; j0 += bs)
				tile(a, b, c, n, i0, k0, j0, bs);
}

static double max_abs_diff(const double *x, const double *y, long n)
{
	double d = 0.0;

	/* Plain comparisons, not fmax/fabs: the sample links without -lm. */
	for (long i = 0; i < n * n; i++) {
		double e = x[i] > y[i] ? x[i] - y[i] : y[i] - x[i];

		if (e > d)
			d = e;
	}
	return d;
}

static double checksum(const double *m, long n)
{
	double s = 0.0;

	for (long i = 0; i < n * n; i++)
		s += m[i];
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? parse_pos(argv[1], "size", 8192) : 384;
	long bs = argc > 2 ? parse_pos(argv[2], "block size", 8192) : 32;
	double *a, *b, *c1, *c2, diff, tol;
	int ok;

	HPC_BEGIN("init");
	a = alloc_matrix(n);
	b = alloc_matrix(n);
	c1 = alloc_matrix(n);
	c2 = alloc_matrix(n);
	fill(a, n, 1);
	fill(b, n, 2);
	HPC_END("init");

	HPC_BEGIN("matmul_naive");
	matmul_naive(a, b, c1, n);
	HPC_END("matmul_naive");

	HPC_BEGIN("matmul_blocked");
	matmul_blocked(a, b, c2, n, bs);
	HPC_END("matmul_blocked");

	/* The kernels add in different orders; allow rounding growing with N. */
	diff = max_abs_diff(c1, c2, n);
	tol = 1e-12 * (double)n * (double)n;
	ok = diff <= tol;
	printf("matmul n %ld block %ld checksum %.6f %s\n", n, bs,
	       checksum(c2, n), ok ? "ok" : "MISMATCH");
	free(a);
	free(b);
	free(c1);
	free(c2);
	return ok ? 0 : 1;
}
