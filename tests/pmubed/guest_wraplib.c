/* guest_wraplib.c - the library whose functions the pmubed guest wraps
 * (HPCSHIM_WRAP, case "wrap" of check.py; guest_wrap.c calls them).
 *
 * pw_f1(n) and pw_f7(n, ...) run spin(n): exactly 1 + 2n user
 * instructions, whatever the other arguments are.  pw_orig1/pw_orig7 give
 * the originals through hidden aliases, bound inside this object: no GOT
 * slot holds them, so the shim leaves those pointers alone and the program
 * can call the same function with and without the wrapper in one process.
 */
#include <stdint.h>

#include "tests/pmubed/guest_wraplib.h"

/* Exactly 1 + 2n retired instructions (guest_loop.c's spin). */
static inline __attribute__((always_inline)) void spin(uint64_t n)
{
	__asm__ volatile("cbz %0, 2f\n"
			 "1: subs %0, %0, #1\n"
			 "b.ne 1b\n"
			 "2:\n"
			 : "+r"(n)
			 :
			 : "cc");
}

void pw_f1(uint64_t n)
{
	spin(n);
}

void pw_f7(uint64_t n, double a, int b, double c, long d, double e, int f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	spin(n);
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
