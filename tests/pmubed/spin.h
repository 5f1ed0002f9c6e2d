/* spin.h - the bed's known work: exactly 1 + 2n retired user instructions
 * (cbz, then n x {subs, b.ne}; 1 for n == 0).  guest_loop.c calls it
 * through a function of its own, guest_wraplib.c inlines it into the
 * wrapped functions. */
#ifndef HPCSHIM_PMUBED_SPIN_H
#define HPCSHIM_PMUBED_SPIN_H

#include <stdint.h>

static inline __attribute__((always_inline)) void spin_n(uint64_t n)
{
	__asm__ volatile("cbz %0, 2f\n"
			 "1: subs %0, %0, #1\n"
			 "b.ne 1b\n"
			 "2:\n"
			 : "+r"(n)
			 :
			 : "cc");
}

#endif
