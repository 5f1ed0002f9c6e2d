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
 * Usage: guest_wrap STEP K N [STEP K N ...], STEP wrap1 or wrap7.
 * Prints "STEP K N wrapped|not wrapped".
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

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i + 2 < argc; i += 3) {
		uint64_t k = strtoull(argv[i + 1], NULL, 0),
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
