/* range_so.c - librange_so.so: a linked shared object for the so: form
 * of HPCSHIM_RANGE (tests/shim/test_range.py). */
#include "tests/shim/range_so.h"

__attribute__((noipa)) void so_touch(char *p, long pages, long page)
{
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
}
