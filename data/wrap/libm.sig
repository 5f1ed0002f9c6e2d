# libm.sig - the C math library's common functions (libm.so.6).
# Format: docs/wrapping.md.  Use: HPCSHIM_WRAP=@libm, or a name alone.
double cos(double);
double sin(double);
double tan(double);
double acos(double);
double asin(double);
double atan(double);
double atan2(double, double);
double exp(double);
double log(double);
double log10(double);
double pow(double, double);
double sqrt(double);
double cbrt(double);
double erf(double);
double hypot(double, double);
float cosf(float);
float sinf(float);
float expf(float);
float logf(float);
float powf(float, float);
float sqrtf(float);
void sincos(double, double *, double *);
