/* memclear.h - zeroing memory that is most likely zero already.
 *
 * The process's configuration and event list (55 and 78 KiB) live in
 * .bss and are set up once, at start.  A memset of them writes every page:
 * each write faults in a fresh page (allocated, cleared, charged), about
 * 33 page faults per process start for pages that are mostly never used.
 * A read of an untouched page maps the kernel's shared zero page instead,
 * so this reads each page first and writes only those not already zero.
 * The result is the same as memset(p, 0, n) wherever p points.
 */
#ifndef HPCSHIM_COMMON_MEMCLEAR_H
#define HPCSHIM_COMMON_MEMCLEAR_H

#include <stdint.h>
#include <string.h>

static inline void hs_mem__clear(void *p, size_t n)
{
	enum { PAGE = 4096 }; /* the unit of the test, not a correctness bound */
	unsigned char *b = p;

	while (n > 0) {
		size_t k = PAGE - ((uintptr_t)b & (PAGE - 1));

		if (k > n)
			k = n;
		/* All zero when the first byte is and each equals the next. */
		if (b[0] != 0 || (k > 1 && memcmp(b, b + 1, k - 1) != 0))
			memset(b, 0, k);
		b += k;
		n -= k;
	}
}

#endif
