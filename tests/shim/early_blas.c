/* early_blas.c - a C program on OpenBLAS threads (tests/shim/test_early.py,
 * built there when libopenblas-dev is installed): OpenBLAS starts its
 * thread pool from its constructor, before the shim's.
 *
 *   early_blas N REPS      C = A B of N x N doubles, REPS times
 *
 * Its last act prints the process's CPU clock (all threads, OpenBLAS's
 * pool too) to stderr: "cpu_ns C".  The shim's final reads come after
 * main returns, so its totals + before_start are at least that.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 400, reps = argc > 2 ? atoi(argv[2]) : 4;
	double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
	double *b = malloc(sizeof(double) * (size_t)n * (size_t)n);
	double *c = calloc((size_t)n * (size_t)n, sizeof(double));

	if (!a || !b || !c)
		return 99;
	for (long i = 0; i < (long)n * n; i++) {
		a[i] = (double)(i % 7) / 7.0;
		b[i] = (double)(i % 5) / 5.0;
	}
	for (int r = 0; r < reps; r++)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a,
			    n, b, n, 0.0, c, n);
	printf("c[0] = %.6f\n", c[0]);
	fflush(stdout);
	{
		struct timespec ts;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		fprintf(stderr, "cpu_ns %lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec);
	}
	return 0;
}
