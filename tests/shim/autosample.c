/* autosample.c - the program of tests/shim/test_auto_sample.py.
 *   touch N SEED   N calls of as_touch (a wrapped library function), call
 *                  i on k_i fresh pages, k_i from 1 to 5 in a pseudo-random
 *                  pattern of SEED; prints "touched N PAGES": the exact
 *                  page faults inside the calls, the truth the shim's
 *                  sampled estimate is held against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pages.h"

void as_touch(char *p, long k);

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0, total = 0;
	unsigned long long x = argc > 3 ? strtoull(argv[3], NULL, 10) | 1 : 1;
	char *p;

	if (argc < 3 || strcmp(argv[1], "touch") != 0) {
		fprintf(stderr, "usage: autosample touch N SEED\n");
		return 2;
	}
	p = map_pages(5 * n);
	for (long i = 0; i < n; i++) {
		long k;

		x ^= x << 13; /* xorshift64: the pattern, not the shim's */
		x ^= x >> 7;
		x ^= x << 17;
		k = 1 + (long)(x % 5);
		as_touch(p + total * PAGE, k);
		total += k;
	}
	printf("touched %ld %ld\n", n, total);
	return 0;
}
