/* guest_wraplib.c - the library whose functions the pmubed guest wraps
 * (HPCSHIM_WRAP, case "wrap" of check.py; guest_wrap.c calls them).
 *
 * pw_f1(n) and pw_f7(n, ...) run spin_n(n) (spin.h): exactly 1 + 2n user
 * instructions, whatever the other arguments are.  pw_orig1/pw_orig7 give
 * the originals through hidden aliases, bound inside this object: no GOT
 * slot holds them, so the shim leaves those pointers alone and the program
 * can call the same function with and without the wrapper in one process.
 */
#include <stdint.h>
#include <string.h>
#include <unwind.h>

#include "tests/pmubed/guest_wraplib.h"
#include "tests/pmubed/spin.h"

void pw_f1(uint64_t n)
{
	spin_n(n);
}

void pw_f7(uint64_t n, double a, int b, double c, long d, double e, int f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	spin_n(n);
}

extern __typeof__(pw_f1) pw_f1_local
	__attribute__((alias("pw_f1"), visibility("hidden")));
extern __typeof__(pw_f7) pw_f7_local
	__attribute__((alias("pw_f7"), visibility("hidden")));

pw_f1_fn *pw_orig1(void)
{
	return pw_f1_local;
}

pw_f7_fn *pw_orig7(void)
{
	return pw_f7_local;
}

static double reg16(long a, long b, long c, long d, long e, long f, long g, long h,
		    double x1, double x2, double x3, double x4, double x5,
		    double x6, double x7, double x8)
{
	return a + 2.0 * b + 3.0 * c + 5.0 * d + 7.0 * e + 11.0 * f + 13.0 * g +
	       17.0 * h + x1 / 2 + x2 / 3 + x3 / 5 + x4 / 7 + x5 / 11 + x6 / 13 +
	       x7 / 17 + x8 / 19;
}

double pw_reg16(long a, long b, long c, long d, long e, long f, long g, long h,
		double x1, double x2, double x3, double x4, double x5, double x6,
		double x7, double x8)
{
	return reg16(a, b, c, d, e, f, g, h, x1, x2, x3, x4, x5, x6, x7, x8);
}

double pw_int9(long a, long b, long c, long d, long e, long f, long g, long h,
	       long i, double x1, double x2, double x3, double x4, double x5,
	       double x6, double x7, double x8)
{
	return reg16(a, b, c, d, e, f, g, h, x1, x2, x3, x4, x5, x6, x7, x8) + 23.0 * i;
}

double pw_dbl9(long a, long b, long c, long d, long e, long f, long g, long h,
	       double x1, double x2, double x3, double x4, double x5, double x6,
	       double x7, double x8, double x9)
{
	return reg16(a, b, c, d, e, f, g, h, x1, x2, x3, x4, x5, x6, x7, x8) + x9 / 29;
}

float pw_flt(float a, double b, float c, int d)
{
	return a * 3.0f + (float)b - c / 7.0f + (float)d;
}

long pw_ext(int a, short b, signed char c, unsigned d, unsigned short e)
{
	return (long)a * 1000003L + (long)b * 1009L + (long)c * 17L + (long)d * 3L +
	       (long)e;
}

int pw_neg(int a, int b, int c, int d, int e, int f, int g, short h, signed char i,
	   unsigned j)
{
	return a - 2 * b + 3 * c - 5 * d + 7 * e - 11 * f + 13 * g - 17 * h +
	       19 * i - (int)(j % 1000u);
}

char *pw_ptr(char *p, long off)
{
	return p + off;
}

static _Unwind_Reason_Code frame__count(struct _Unwind_Context *ctx, void *arg)
{
	(void)ctx;
	++*(int *)arg;
	return _URC_NO_REASON;
}

int pw_frames(void)
{
	int n = 0;

	_Unwind_Backtrace(frame__count, &n);
	return n;
}

#define ORIG(f)                        \
	extern __typeof__(f) f##_local \
		__attribute__((alias(#f), visibility("hidden")));
ORIG(pw_reg16)
ORIG(pw_int9)
ORIG(pw_dbl9)
ORIG(pw_flt)
ORIG(pw_ext)
ORIG(pw_neg)
ORIG(pw_ptr)
ORIG(pw_frames)

void *pw_orig(const char *name)
{
	static const struct {
		const char *name;
		void *fn;
	} tab[] = {
		{ "pw_reg16", (void *)pw_reg16_local },
		{ "pw_int9", (void *)pw_int9_local },
		{ "pw_dbl9", (void *)pw_dbl9_local },
		{ "pw_flt", (void *)pw_flt_local },
		{ "pw_ext", (void *)pw_ext_local },
		{ "pw_neg", (void *)pw_neg_local },
		{ "pw_ptr", (void *)pw_ptr_local },
		{ "pw_frames", (void *)pw_frames_local },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, name))
			return tab[i].fn;
	return NULL;
}
