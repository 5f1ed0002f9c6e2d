/* wraplib.c - the functions tests/test_wrap.py wraps by name: a shared
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
