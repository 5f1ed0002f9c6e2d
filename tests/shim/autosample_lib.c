/* autosample_lib.c - the library function test_auto_sample.py wraps:
 * touches k fresh pages (one page fault each). */
#include "../pages.h"

void as_touch(char *p, long k)
{
	touch(p, k);
}
