# fftw.sig - FFTW 3: planning and execution, double and single precision.
#   HPCSHIM_WRAP=@fftw
typedef pointer fftw_plan;
typedef pointer fftwf_plan;
fftw_plan fftw_plan_dft_1d(int n, pointer in, pointer out, int sign, unsigned flags);
fftw_plan fftw_plan_dft_2d(int n0, int n1, pointer in, pointer out, int sign, unsigned flags);
fftw_plan fftw_plan_dft_3d(int n0, int n1, int n2, pointer in, pointer out, int sign, unsigned flags);
fftw_plan fftw_plan_dft(int rank, const int *n, pointer in, pointer out, int sign, unsigned flags);
fftw_plan fftw_plan_dft_r2c_1d(int n, double *in, pointer out, unsigned flags);
fftw_plan fftw_plan_dft_c2r_1d(int n, pointer in, double *out, unsigned flags);
fftw_plan fftw_plan_dft_r2c_3d(int n0, int n1, int n2, double *in, pointer out, unsigned flags);
fftw_plan fftw_plan_many_dft(int rank, const int *n, int howmany, pointer in, const int *inembed, int istride, int idist, pointer out, const int *onembed, int ostride, int odist, int sign, unsigned flags);
void fftw_execute(const fftw_plan p);
void fftw_execute_dft(const fftw_plan p, pointer in, pointer out);
void fftw_execute_dft_r2c(const fftw_plan p, double *in, pointer out);
void fftw_execute_dft_c2r(const fftw_plan p, pointer in, double *out);
void fftw_destroy_plan(fftw_plan p);
fftwf_plan fftwf_plan_dft_1d(int n, pointer in, pointer out, int sign, unsigned flags);
void fftwf_execute(const fftwf_plan p);
void fftwf_destroy_plan(fftwf_plan p);
