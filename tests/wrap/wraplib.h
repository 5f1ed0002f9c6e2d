#ifndef WRAPLIB_H
#define WRAPLIB_H
#include <setjmp.h>

struct wl_pair {
	double x;
	long y;
	int z;
};
struct wl_small {
	double a, b;
};

void wl_touch(char *p, long k);
struct wl_pair wl_pair(int a, double b);
struct wl_small wl_small(double x);
double wl_mix(int a, double b, long c, float d, short e, double f, unsigned g,
	      double h, char i, double j);
long wl_recurse(int n);
long wl_step(int n);
double wl_many(int a, long b, short c, char d, unsigned e, long f, int g, long h,
	       double x1, double x2, double x3, double x4, double x5, double x6,
	       double x7, double x8, double x9, float x10);
double wl_reg14(long a, long b, long c, long d, long e, long f, double x1,
		double x2, double x3, double x4, double x5, double x6, double x7,
		double x8);
double wl_int7(long a, long b, long c, long d, long e, long f, long g,
	       double x1, double x2, double x3, double x4, double x5, double x6,
	       double x7, double x8);
double wl_dbl9(long a, long b, long c, long d, long e, long f, double x1,
	       double x2, double x3, double x4, double x5, double x6, double x7,
	       double x8, double x9);
float wl_flt(float a, double b, float c, int d);
long wl_ext(int a, short b, signed char c, unsigned d, unsigned short e);
int wl_neg(int a, int b, int c, int d, int e, int f, int g, short h,
	   signed char i, unsigned j);
char *wl_ptr(char *p, long off);
void wl_jump(jmp_buf *env, int v);
int wl_use_inside(int x);
int wl_printf(const char *fmt, ...);
#endif
