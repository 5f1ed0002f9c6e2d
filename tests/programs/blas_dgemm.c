/* blas_dgemm.c - a C program linked to OpenBLAS (tests/programs/test_programs.py):
 * C = A * B with cblas_dgemm, run with OPENBLAS_NUM_THREADS=2, so
 * OpenBLAS starts its worker thread from its own constructor.  The
 * matrices hold small integers, so the product is exact whatever the
 * threads' split, and the printed checksum is the same on every run.
 * argv[2], when given, receives the tids of every task of the process
 * after the product (one per line), for the test to find in the results. */
#include <cblas.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	double *a = malloc(sizeof(double) * n * n);
	double *b = malloc(sizeof(double) * n * n);
	double *c = calloc((size_t)n * n, sizeof(double));

	if (!a || !b || !c)
		return 99;
	for (int i = 0; i < n * n; i++) {
		a[i] = i % 7 - 2;
		b[i] = i % 5 - 1;
	}
	for (int rep = 0; rep < 4; rep++)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0,
			    a, n, b, n, rep ? 1.0 : 0.0, c, n);
	double sum = 0;
	for (int i = 0; i < n * n; i++)
		sum += c[i] * (i % 3 + 1);
	printf("n %d checksum %.0f\n", n, sum);

	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;

		if (!f || !d)
			return 98;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				fprintf(f, "%s\n", e->d_name);
		closedir(d);
		fclose(f);
	}
	free(a);
	free(b);
	free(c);
	return 0;
}
