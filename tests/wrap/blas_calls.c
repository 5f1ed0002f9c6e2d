/* blas_calls.c - N calls of OpenBLAS's Fortran dgemm_ and M of cblas_dgemm
 * from C (tests/shim/test_wrap.py, HPCSHIM_WRAP=@blas): the regions dgemm_ and
 * cblas_dgemm must count exactly those calls.  Small integers: the printed
 * checksum is exact. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

void dgemm_(char *ta, char *tb, int *m, int *n, int *k, double *alpha, double *a,
	    int *lda, double *b, int *ldb, double *beta, double *c, int *ldc);

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 10, cc = argc > 2 ? atoi(argv[2]) : 3;
	int n = 64;
	double one = 1.0, *a = malloc(sizeof(double) * n * n),
	       *b = malloc(sizeof(double) * n * n),
	       *c = calloc((size_t)n * n, sizeof(double));
	double sum = 0;

	for (int i = 0; i < n * n; i++) {
		a[i] = i % 7 - 2;
		b[i] = i % 5 - 1;
	}
	for (int i = 0; i < calls; i++)
		dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &one, c, &n);
	for (int i = 0; i < cc; i++)
		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0,
			    a, n, b, n, 1.0, c, n);
	for (int i = 0; i < n * n; i++)
		sum += c[i] * (i % 3 + 1);
	printf("dgemm %d cblas %d checksum %.0f\n", calls, cc, sum);
	return 0;
}
