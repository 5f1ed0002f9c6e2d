# lapack.sig - LAPACK's common drivers and factorisations (Fortran
# interface; hidden character lengths left out as in blas.sig) and their
# LAPACKE C forms.  HPCSHIM_WRAP=@lapack
void dgesv_(int *n, int *nrhs, double *a, int *lda, int *ipiv, double *b, int *ldb, int *info);
void dgetrf_(int *m, int *n, double *a, int *lda, int *ipiv, int *info);
void dgetrs_(char *trans, int *n, int *nrhs, double *a, int *lda, int *ipiv, double *b, int *ldb, int *info);
void dgetri_(int *n, double *a, int *lda, int *ipiv, double *work, int *lwork, int *info);
void dpotrf_(char *uplo, int *n, double *a, int *lda, int *info);
void dpotrs_(char *uplo, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb, int *info);
void dposv_(char *uplo, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb, int *info);
void dgeqrf_(int *m, int *n, double *a, int *lda, double *tau, double *work, int *lwork, int *info);
void dgels_(char *trans, int *m, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb, double *work, int *lwork, int *info);
void dgelsd_(int *m, int *n, int *nrhs, double *a, int *lda, double *b, int *ldb, double *s, double *rcond, int *rank, double *work, int *lwork, int *iwork, int *info);
void dsyev_(char *jobz, char *uplo, int *n, double *a, int *lda, double *w, double *work, int *lwork, int *info);
void dsyevd_(char *jobz, char *uplo, int *n, double *a, int *lda, double *w, double *work, int *lwork, int *iwork, int *liwork, int *info);
void dgeev_(char *jobvl, char *jobvr, int *n, double *a, int *lda, double *wr, double *wi, double *vl, int *ldvl, double *vr, int *ldvr, double *work, int *lwork, int *info);
void dgesvd_(char *jobu, char *jobvt, int *m, int *n, double *a, int *lda, double *s, double *u, int *ldu, double *vt, int *ldvt, double *work, int *lwork, int *info);
void dgesdd_(char *jobz, int *m, int *n, double *a, int *lda, double *s, double *u, int *ldu, double *vt, int *ldvt, double *work, int *lwork, int *iwork, int *info);
void sgesv_(int *n, int *nrhs, float *a, int *lda, int *ipiv, float *b, int *ldb, int *info);
void zgesv_(int *n, int *nrhs, pointer a, int *lda, int *ipiv, pointer b, int *ldb, int *info);
int LAPACKE_dgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb);
int LAPACKE_dgetrf(int layout, int m, int n, double *a, int lda, int *ipiv);
int LAPACKE_dpotrf(int layout, char uplo, int n, double *a, int lda);
int LAPACKE_dsyev(int layout, char jobz, char uplo, int n, double *a, int lda, double *w);
int LAPACKE_dgesvd(int layout, char jobu, char jobvt, int m, int n, double *a, int lda, double *s, double *u, int ldu, double *vt, int ldvt, double *superb);
int LAPACKE_dgels(int layout, char trans, int m, int n, int nrhs, double *a, int lda, double *b, int ldb);
