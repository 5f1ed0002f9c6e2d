/* unit_fmath.c - common/fmath.h against libm: the shim does not link libm,
 * so its fmax, llround and hypot must give libm's answers where it uses
 * them.  Halves and their neighbours, negatives, integers up to 2^62,
 * NaNs for fmax; hypot within one ulp.  TAP through tests/unit/tap.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/fmath.h"
#include "tests/unit/tap.h"

static int llround_bad(double x)
{
	return hs_llround(x) != llround(x);
}

int main(void)
{
	static const double edges[] = { 0.0,
					-0.0,
					0.5,
					-0.5,
					1.5,
					-1.5,
					2.5,
					-2.5,
					0.49999999999999994,
					-0.49999999999999994,
					4503599627370495.5,
					4503599627370496.0,
					9007199254740993.0,
					4611686018427387904.0,
					-4611686018427387904.0,
					1e18,
					123456789.5 };
	unsigned seed = 18;
	int bad = 0, badmax = 0, badhyp = 0;

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		bad += llround_bad(edges[i]) + llround_bad(nextafter(edges[i], 0)) +
		       llround_bad(nextafter(edges[i], INFINITY));
	for (int i = 0; i < 1000000; i++) {
		double m = (double)rand_r(&seed) / RAND_MAX;
		double x = ldexp(m, rand_r(&seed) % 63) * (i & 1 ? -1 : 1);
		double y = ldexp((double)rand_r(&seed) / RAND_MAX, rand_r(&seed) % 63);
		double h = hypot(x, y);

		bad += llround_bad(x) + llround_bad(floor(x) + 0.5);
		badmax += hs_fmax(x, y) != fmax(x, y);
		badhyp += fabs(hs_hypot(x, y) - h) > nextafter(h, INFINITY) - h;
	}
	TAP_OK(bad == 0,
	       "hs_llround == llround: halves, neighbours, 10^6 values (%d differ)",
	       bad);
	TAP_OK(badmax == 0 && hs_fmax(NAN, 1.0) == 1.0 &&
		       hs_fmax(1.0, NAN) == 1.0 && isnan(hs_fmax(NAN, NAN)),
	       "hs_fmax == fmax, a NaN loses to a number (%d differ)", badmax);
	TAP_OK(badhyp == 0 && hs_hypot(3, 4) == 5 && hs_hypot(0, 7) == 7,
	       "hs_hypot within an ulp of hypot (%d beyond)", badhyp);
	return tap_done();
}
