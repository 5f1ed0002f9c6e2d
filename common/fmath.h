/* fmath.h - the few libm functions the library needs, inline.
 *
 * libhpcshim.so does not link libm: loading it costs every process start
 * about 0.05 ms (bench/start.sh), for four functions.  sqrt is the
 * instruction itself (the library is built with -fno-math-errno); these are
 * the other three, with libm's results where the library uses them.
 */
#ifndef HPCSHIM_COMMON_FMATH_H
#define HPCSHIM_COMMON_FMATH_H

#include <math.h>

/* fmax: the larger; a NaN loses to a number. */
static inline double hs_fmax(double a, double b)
{
	return a > b || b != b ? a : b;
}

/* llround: to the nearest, halves away from zero, for |x| < 2^63 (beyond,
 * like llround, the result is unspecified).  x - trunc(x) is exact. */
static inline long long hs_llround(double x)
{
	long long t = (long long)x;
	double f = x - (double)t;

	return f >= 0.5 ? t + 1 : f <= -0.5 ? t - 1 : t;
}

/* hypot for the standard errors combined here: far from overflow, so the
 * plain formula (within an ulp of libm's). */
static inline double hs_hypot(double a, double b)
{
	return sqrt(a * a + b * b);
}

#endif
