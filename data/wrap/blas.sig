# blas.sig - BLAS: the Fortran interface (dgemm_ ..., every argument by
# reference; a character argument's hidden length is left out: callers
# that pass it pass it after these, the wrapper forwards what it declares
# and BLAS does not read it) and the C interface (cblas_*).
# Libraries: OpenBLAS, reference BLAS/CBLAS, BLIS, MKL's sequential ABI.
#   HPCSHIM_WRAP=@blas
typedef int enum_t;
# Level 3
void sgemm_(char *ta, char *tb, int *m, int *n, int *k, float *alpha, float *a, int *lda, float *b, int *ldb, float *beta, float *c, int *ldc);
void dgemm_(char *ta, char *tb, int *m, int *n, int *k, double *alpha, double *a, int *lda, double *b, int *ldb, double *beta, double *c, int *ldc);
void cgemm_(char *ta, char *tb, int *m, int *n, int *k, pointer alpha, pointer a, int *lda, pointer b, int *ldb, pointer beta, pointer c, int *ldc);
void zgemm_(char *ta, char *tb, int *m, int *n, int *k, pointer alpha, pointer a, int *lda, pointer b, int *ldb, pointer beta, pointer c, int *ldc);
void dsymm_(char *side, char *uplo, int *m, int *n, double *alpha, double *a, int *lda, double *b, int *ldb, double *beta, double *c, int *ldc);
void dsyrk_(char *uplo, char *trans, int *n, int *k, double *alpha, double *a, int *lda, double *beta, double *c, int *ldc);
void dtrsm_(char *side, char *uplo, char *ta, char *diag, int *m, int *n, double *alpha, double *a, int *lda, double *b, int *ldb);
void dtrmm_(char *side, char *uplo, char *ta, char *diag, int *m, int *n, double *alpha, double *a, int *lda, double *b, int *ldb);
# Level 2
void dgemv_(char *trans, int *m, int *n, double *alpha, double *a, int *lda, double *x, int *incx, double *beta, double *y, int *incy);
void sgemv_(char *trans, int *m, int *n, float *alpha, float *a, int *lda, float *x, int *incx, float *beta, float *y, int *incy);
void dger_(int *m, int *n, double *alpha, double *x, int *incx, double *y, int *incy, double *a, int *lda);
void dtrsv_(char *uplo, char *trans, char *diag, int *n, double *a, int *lda, double *x, int *incx);
void dsymv_(char *uplo, int *n, double *alpha, double *a, int *lda, double *x, int *incx, double *beta, double *y, int *incy);
# Level 1 (Fortran functions returning a real: the value in the FP register)
double ddot_(int *n, double *x, int *incx, double *y, int *incy);
void daxpy_(int *n, double *alpha, double *x, int *incx, double *y, int *incy);
void dscal_(int *n, double *alpha, double *x, int *incx);
void dcopy_(int *n, double *x, int *incx, double *y, int *incy);
double dnrm2_(int *n, double *x, int *incx);
# CBLAS (enums are ints)
void cblas_sgemm(enum_t order, enum_t ta, enum_t tb, int m, int n, int k, float alpha, const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_dgemm(enum_t order, enum_t ta, enum_t tb, int m, int n, int k, double alpha, const double *a, int lda, const double *b, int ldb, double beta, double *c, int ldc);
void cblas_cgemm(enum_t order, enum_t ta, enum_t tb, int m, int n, int k, pointer alpha, pointer a, int lda, pointer b, int ldb, pointer beta, pointer c, int ldc);
void cblas_zgemm(enum_t order, enum_t ta, enum_t tb, int m, int n, int k, pointer alpha, pointer a, int lda, pointer b, int ldb, pointer beta, pointer c, int ldc);
void cblas_dsyrk(enum_t order, enum_t uplo, enum_t trans, int n, int k, double alpha, const double *a, int lda, double beta, double *c, int ldc);
void cblas_dtrsm(enum_t order, enum_t side, enum_t uplo, enum_t ta, enum_t diag, int m, int n, double alpha, const double *a, int lda, double *b, int ldb);
void cblas_dgemv(enum_t order, enum_t trans, int m, int n, double alpha, const double *a, int lda, const double *x, int incx, double beta, double *y, int incy);
void cblas_sgemv(enum_t order, enum_t trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx, float beta, float *y, int incy);
double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
float cblas_sdot(int n, const float *x, int incx, const float *y, int incy);
void cblas_daxpy(int n, double alpha, const double *x, int incx, double *y, int incy);
void cblas_dscal(int n, double alpha, double *x, int incx);
double cblas_dnrm2(int n, const double *x, int incx);
