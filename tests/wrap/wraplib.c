/* wraplib.c - the functions tests/shim/test_wrap.py wraps by name: a shared
 * library called from wrapprog.c through its PLT (or GOT). */
#include <setjmp.h>
#include <stdio.h>

#include "wraplib.h"

#define PAGE 4096

/* First touch of k fresh pages: exactly k minor faults. */
void wl_touch(char *p, long k)
{
	for (long i = 0; i < k; i++)
		((volatile char *)p)[i * PAGE] = 1;
}

struct wl_pair wl_pair(int a, double b)
{
	struct wl_pair r = { b * 3.0, (long)a * 1000003L, a ^ 0x5a5a };

	return r;
}

struct wl_small wl_small(double x)
{
	struct wl_small r = { x + 0.5, x * x };

	return r;
}

/* Ten mixed arguments, every bit of each in the result. */
double wl_mix(int a, double b, long c, float d, short e, double f, unsigned g,
	      double h, char i, double j)
{
	return (double)a * 1e-3 + b * 7.0 + (double)c * 1e-9 + (double)d * 3.0 +
	       (double)e * 11.0 + f / 3.0 + (double)g * 1e-6 + h * h +
	       (double)i * 13.0 + j * 0.25;
}

/* 8 integers and 10 floating-point arguments: some of each on the stack
 * (x86-64: 6 and 8 in registers), the last one a float. */
double wl_many(int a, long b, short c, char d, unsigned e, long f, int g, long h,
	       double x1, double x2, double x3, double x4, double x5, double x6,
	       double x7, double x8, double x9, float x10)
{
	return a + 2.0 * b + 3.0 * c + 5.0 * d + 7.0 * e + 11.0 * f + 13.0 * g +
	       17.0 * h + x1 / 2 + x2 / 3 + x3 / 5 + x4 / 7 + x5 / 11 + x6 / 13 +
	       x7 / 17 + x8 / 19 + x9 / 23 + x10 / 29;
}

/* The register limits of x86-64 (6 integer, 8 floating-point arguments;
 * AArch64: 8 and 8): exactly at them, one integer past, one double past.
 * Weights differ so that a swapped or shifted argument shows. */
static double reg14(long a, long b, long c, long d, long e, long f, double x1,
		    double x2, double x3, double x4, double x5, double x6,
		    double x7, double x8)
{
	return a + 2.0 * b + 3.0 * c + 5.0 * d + 7.0 * e + 11.0 * f + x1 / 2 +
	       x2 / 3 + x3 / 5 + x4 / 7 + x5 / 11 + x6 / 13 + x7 / 17 + x8 / 19;
}

double wl_reg14(long a, long b, long c, long d, long e, long f, double x1, double x2,
		double x3, double x4, double x5, double x6, double x7, double x8)
{
	return reg14(a, b, c, d, e, f, x1, x2, x3, x4, x5, x6, x7, x8);
}

double wl_int7(long a, long b, long c, long d, long e, long f, long g, double x1,
	       double x2, double x3, double x4, double x5, double x6, double x7,
	       double x8)
{
	return reg14(a, b, c, d, e, f, x1, x2, x3, x4, x5, x6, x7, x8) + 23.0 * g;
}

double wl_dbl9(long a, long b, long c, long d, long e, long f, double x1, double x2,
	       double x3, double x4, double x5, double x6, double x7, double x8,
	       double x9)
{
	return reg14(a, b, c, d, e, f, x1, x2, x3, x4, x5, x6, x7, x8) + x9 / 29;
}

/* Floats in and out: their bits in the low half of a vector register. */
float wl_flt(float a, double b, float c, int d)
{
	return a * 3.0f + (float)b - c / 7.0f + (float)d;
}

/* Narrow signed and unsigned arguments: the callee extends them itself
 * (the caller's upper bits are not its business). */
long wl_ext(int a, short b, signed char c, unsigned d, unsigned short e)
{
	return (long)a * 1000003L + (long)b * 1009L + (long)c * 17L + (long)d * 3L +
	       (long)e;
}

/* Ten narrow integers, four of them on the stack (x86-64), and a
 * negative int result. */
int wl_neg(int a, int b, int c, int d, int e, int f, int g, short h, signed char i,
	   unsigned j)
{
	return a - 2 * b + 3 * c - 5 * d + 7 * e - 11 * f + 13 * g - 17 * h +
	       19 * i - (int)(j % 1000u);
}

char *wl_ptr(char *p, long off)
{
	return p + off;
}

/* Recursion through the library's own PLT slot: GCC binds a direct
 * self-call locally, a call to another exported function it does not. */
long wl_step(int n)
{
	return wl_recurse(n);
}

long wl_recurse(int n)
{
	return n <= 0 ? 0 : 1 + wl_step(n - 1);
}

void wl_jump(jmp_buf *env, int v)
{
	longjmp(*env, v);
}

/* Only called inside this object, and bound inside it. */
__attribute__((visibility("protected"))) int wl_inside(int x)
{
	return x + 1;
}

int wl_use_inside(int x)
{
	return wl_inside(x) * 2;
}

int wl_printf(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}
