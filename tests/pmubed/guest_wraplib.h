/* guest_wraplib.h - the pmubed guest's wrapped library (guest_wraplib.c). */
#ifndef PMUBED_GUEST_WRAPLIB_H
#define PMUBED_GUEST_WRAPLIB_H
#include <stdint.h>

typedef void pw_f1_fn(uint64_t n);
typedef void pw_f7_fn(uint64_t n, double a, int b, double c, long d, double e, int f);
pw_f1_fn pw_f1;
pw_f7_fn pw_f7;
/* The originals, by a pointer HPCSHIM_WRAP does not patch. */
pw_f1_fn *pw_orig1(void);
pw_f7_fn *pw_orig7(void);

/* The step "abi" (guest_wrap.c): the same call through the wrapper and to
 * the original must give the same bits.  AArch64 passes 8 integer and 8
 * floating-point arguments in registers: pw_reg16 is at that limit, pw_int9
 * and pw_dbl9 one past it (a stack argument). */
double pw_reg16(long a, long b, long c, long d, long e, long f, long g, long h,
		double x1, double x2, double x3, double x4, double x5, double x6,
		double x7, double x8);
double pw_int9(long a, long b, long c, long d, long e, long f, long g, long h,
	       long i, double x1, double x2, double x3, double x4, double x5,
	       double x6, double x7, double x8);
double pw_dbl9(long a, long b, long c, long d, long e, long f, long g, long h,
	       double x1, double x2, double x3, double x4, double x5, double x6,
	       double x7, double x8, double x9);
float pw_flt(float a, double b, float c, int d);
long pw_ext(int a, short b, signed char c, unsigned d, unsigned short e);
int pw_neg(int a, int b, int c, int d, int e, int f, int g, short h, signed char i,
	   unsigned j);
char *pw_ptr(char *p, long off);
/* Frames the unwinder walks from here to the end of the stack (CFI of
 * every frame between, the wrapper's included). */
int pw_frames(void);
/* The original of one of the above by name, or NULL. */
void *pw_orig(const char *name);
#endif
