/* nopie.c - annotations in a position-dependent program (built with
 * -fno-pie -no-pie): the static linker resolves the weak references to 0
 * for good, so <hpcshim.h> looks the functions up with dlsym() instead.
 * Test program of tests/shim/test_langs.py.
 *
 * Usage: nopie A B
 *   region "np_lit" (a literal: call-site handle) first-touches A pages,
 *   region "np_dyn" (a name built at run time) first-touches B pages;
 *   the thread is named "nopie"; prints "active 1" under the shim, else
 *   "active 0".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "annotate/hpcshim.h"
#include "tests/pages.h"

int main(int argc, char **argv)
{
	prefault_stack();
	long a = argc > 1 ? atol(argv[1]) : 100;
	long b = argc > 2 ? atol(argv[2]) : 200;
	char *pa = map_pages(a), *pb = map_pages(b);
	char dyn[16];

	HPC_THREAD_NAME("nopie");
	HPC_BEGIN("np_lit");
	touch(pa, a);
	HPC_END("np_lit");

	snprintf(dyn, sizeof(dyn), "np_%s", "dyn");
	HPC_BEGIN(dyn);
	touch(pb, b);
	HPC_END(dyn);

	printf("active %d\n", HPC_ACTIVE());
	return 0;
}
