/* range_so.c - librange_so.so: a linked shared object for the so: form
 * of HPCSHIM_RANGE (tests/test_range.py). */
#include "tests/range_so.h"

__attribute__((noipa)) void so_touch(char *p, long pages, long page)
{
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
}
