/* wrapdl.c - a library the test program dlopens after start: it calls
 * wl_touch through its own PLT, patched when it is loaded. */
#include "wraplib.h"

void wd_touch(char *p, long k)
{
	wl_touch(p, k);
}
