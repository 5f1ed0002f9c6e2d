/* guest_wrap.c - the cost of a wrapped call (HPCSHIM_WRAP) in the pmubed
 * guest, against the same call unwrapped and an annotated pair around it.
 *
 * The library guest_wraplib.c has pw_f1(n) (1 argument) and pw_f7(n, ...)
 * (7 mixed int/double arguments), each running spin(n): 1 + 2n user
 * instructions.  The program takes pw_f1's address (a GOT slot the shim
 * patches: the wrapper under HPCSHIM_WRAP) and gets the original from the
 * library (pw_orig1: not patched), then, in one process, with the same
 * loop:
 *   region "w1wrap"  K calls through the wrapper
 *   region "w1orig"  K calls of the original
 *   region "w1pair"  K calls of pair1(n): HPC_BEGIN("pw_pair1"), the
 *                    original, HPC_END: an annotated pair around the call
 * and the same for 7 arguments (w7wrap, w7orig, w7pair, pw_pair7).  The
 * differences over K are the wrapped call's and the pair's cost, exactly.
 * Before: one call of each (lazy bindings, the sites' ids); after: one
 * call of the wrapper with spin(2n) (check.py: per_call max - min == 2n).
 *
 * The step "abi" calls each of guest_wraplib.h's ABI functions once
 * through the wrapper (its PLT slot) and once directly (the original) with
 * the same arguments and prints "abi NAME BITS BITS": the results' bits,
 * which must be equal (the register limits, one past each, floats in and
 * out, narrow signed integers, a pointer result); for pw_frames the
 * frames the unwinder walks, one more through the wrapper.
 *
 * Usage: guest_wrap STEP... with STEP "wrap1 K N", "wrap7 K N" or "abi".
 * Prints "STEP K N wrapped|not wrapped" and the abi lines.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/hpcshim.h"
#include "tests/pmubed/guest_wraplib.h"

#define NAME(var, text) \
	static const char var[16] __attribute__((aligned(16))) = text

NAME(n_w1wrap, "w1wrap");
NAME(n_w1orig, "w1orig");
NAME(n_w1pair, "w1pair");
NAME(n_w7wrap, "w7wrap");
NAME(n_w7orig, "w7orig");
NAME(n_w7pair, "w7pair");

static pw_f1_fn *volatile w1, *volatile o1;
static pw_f7_fn *volatile w7, *volatile o7;

/* The same loop for the three: only the called function differs. */
static __attribute__((noinline)) void call1(pw_f1_fn *f, uint64_t k, uint64_t n)
{
	for (uint64_t c = 0; c < k; c++)
		f(n);
}

static __attribute__((noinline)) void call7(pw_f7_fn *f, uint64_t k, uint64_t n)
{
	for (uint64_t c = 0; c < k; c++)
		f(n, 0.5, (int)c, 1.5, (long)c, 2.5, 7);
}

static __attribute__((noinline)) void pair1(uint64_t n)
{
	HPC_BEGIN("pw_pair1");
	o1(n);
	HPC_END("pw_pair1");
}

static __attribute__((noinline)) void pair7(uint64_t n, double a, int b, double c,
					    long d, double e, int f)
{
	HPC_BEGIN("pw_pair7");
	o7(n, a, b, c, d, e, f);
	HPC_END("pw_pair7");
}

static void step1(uint64_t k, uint64_t n)
{
	w1 = pw_f1;
	o1 = pw_orig1();
	w1(n), o1(n), pair1(n);
	HPC_BEGIN(n_w1wrap);
	call1(w1, k, n);
	HPC_END(n_w1wrap);
	HPC_BEGIN(n_w1orig);
	call1(o1, k, n);
	HPC_END(n_w1orig);
	HPC_BEGIN(n_w1pair);
	call1(pair1, k, n);
	HPC_END(n_w1pair);
	w1(2 * n);
	printf("wrap1 %" PRIu64 " %" PRIu64 " %s\n", k, n,
	       w1 != o1 ? "wrapped" : "not wrapped");
}

static void step7(uint64_t k, uint64_t n)
{
	w7 = pw_f7;
	o7 = pw_orig7();
	w7(n, 0, 0, 0, 0, 0, 0), o7(n, 0, 0, 0, 0, 0, 0), pair7(n, 0, 0, 0, 0, 0, 0);
	HPC_BEGIN(n_w7wrap);
	call7(w7, k, n);
	HPC_END(n_w7wrap);
	HPC_BEGIN(n_w7orig);
	call7(o7, k, n);
	HPC_END(n_w7orig);
	HPC_BEGIN(n_w7pair);
	call7(pair7, k, n);
	HPC_END(n_w7pair);
	w7(2 * n, 0, 0, 0, 0, 0, 0);
	printf("wrap7 %" PRIu64 " %" PRIu64 " %s\n", k, n,
	       w7 != o7 ? "wrapped" : "not wrapped");
}

static uint64_t bits_d(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static uint64_t bits_f(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static void abi_line(const char *name, uint64_t wrapped, uint64_t orig)
{
	printf("abi %s %016" PRIx64 " %016" PRIx64 "\n", name, wrapped, orig);
}

#define ORIG(f) ((__typeof__(&f))pw_orig(#f))

static void step_abi(void)
{
	static char buf[64];

	abi_line("pw_reg16",
		 bits_d(pw_reg16(-1, 2, -3, 1L << 50, -5, 6, -7, 8, 0.1, -0.2, 0.3,
				 1e-300, 0.5, -0.6, 0.7, 1e300)),
		 bits_d(ORIG(pw_reg16)(-1, 2, -3, 1L << 50, -5, 6, -7, 8, 0.1, -0.2,
				       0.3, 1e-300, 0.5, -0.6, 0.7, 1e300)));
	abi_line("pw_int9",
		 bits_d(pw_int9(-1, 2, -3, 4, -5, 6, -7, 8, -9, 0.1, -0.2, 0.3, 0.4,
				0.5, -0.6, 0.7, 0.8)),
		 bits_d(ORIG(pw_int9)(-1, 2, -3, 4, -5, 6, -7, 8, -9, 0.1, -0.2,
				      0.3, 0.4, 0.5, -0.6, 0.7, 0.8)));
	abi_line("pw_dbl9",
		 bits_d(pw_dbl9(1, -2, 3, -4, 5, -6, 7, -8, 0.1, 0.2, -0.3, 0.4,
				0.5, 0.6, -0.7, 0.8, 0.9)),
		 bits_d(ORIG(pw_dbl9)(1, -2, 3, -4, 5, -6, 7, -8, 0.1, 0.2, -0.3,
				      0.4, 0.5, 0.6, -0.7, 0.8, 0.9)));
	abi_line("pw_flt", bits_f(pw_flt(1.25f, -3.5e10, -0.1f, -9)),
		 bits_f(ORIG(pw_flt)(1.25f, -3.5e10, -0.1f, -9)));
	abi_line("pw_ext",
		 (uint64_t)pw_ext(-2000000000, -32000, -128, 4000000000u, 65535),
		 (uint64_t)ORIG(pw_ext)(-2000000000, -32000, -128, 4000000000u, 65535));
	abi_line("pw_neg",
		 (uint64_t)(int64_t)pw_neg(-1, -2, 3, -4, 5, -6, 7, -300, -100,
					   4000000000u),
		 (uint64_t)(int64_t)ORIG(pw_neg)(-1, -2, 3, -4, 5, -6, 7, -300,
						 -100, 4000000000u));
	abi_line("pw_ptr", (uint64_t)(pw_ptr(buf, 40) - buf),
		 (uint64_t)(ORIG(pw_ptr)(buf, 40) - buf));
	abi_line("pw_frames", (uint64_t)pw_frames(), (uint64_t)ORIG(pw_frames)());
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i += 3) {
		uint64_t k, n;

		if (!strcmp(argv[i], "abi")) {
			step_abi();
			i -= 2;
			continue;
		}
		if (i + 2 >= argc) {
			fprintf(stderr, "guest_wrap: %s needs K N\n", argv[i]);
			return 2;
		}
		k = strtoull(argv[i + 1], NULL, 0);
		n = strtoull(argv[i + 2], NULL, 0);
		if (!strcmp(argv[i], "wrap1")) {
			step1(k, n);
		} else if (!strcmp(argv[i], "wrap7")) {
			step7(k, n);
		} else {
			fprintf(stderr, "guest_wrap: unknown step '%s'\n", argv[i]);
			return 2;
		}
	}
	return 0;
}
