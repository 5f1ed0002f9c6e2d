/* sampled.c - regions with known page faults per call, for
 * HPCSHIM_REGION_SAMPLE (tests/shim/test_region_sampling.py).
 *
 *   sampled fixed C K    region "fixed": C calls, each K fresh pages
 *   sampled vary R C     regions "v0".."v<R-1>", C calls each, call j of
 *                        region i touching 1 + (i + j * j) % 5 pages;
 *                        prints "v<i> <pages in all>" per region
 *
 * Every call maps its pages before BEGIN and unmaps them after END
 * (pages.h), so a call's region counts exactly its touches.  Everything
 * runs inside region "outer" (not sampled in the tests), with one region
 * "plain" per call of "fixed" beside it (also not sampled).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/hpcshim.h"
#include "tests/pages.h"

static void call_pages(const char *name, long k)
{
	char *p = map_pages(k);

	HPC_BEGIN(name);
	touch(p, k);
	HPC_END(name);
	unmap_pages(p, k);
}

int main(int argc, char **argv)
{
	prefault_stack();
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;

	if (argc < 4)
		return 2;
	HPC_BEGIN("outer");
	if (strcmp(argv[1], "fixed") == 0) {
		for (long i = 0; i < a; i++) {
			call_pages("fixed", b);
			call_pages("plain", 1);
		}
	} else if (strcmp(argv[1], "vary") == 0) {
		for (long i = 0; i < a; i++) {
			char buf[32], *name;
			long total = 0;

			/* A name of its own per region (a site caches by pointer). */
			snprintf(buf, sizeof(buf), "v%ld", i);
			name = strdup(buf);
			if (!name)
				return 99;
			for (long j = 0; j < b; j++) {
				long k = 1 + (i + j * j) % 5;

				call_pages(name, k);
				total += k;
			}
			printf("%s %ld\n", name, total);
		}
	} else {
		return 2;
	}
	HPC_END("outer");
	return 0;
}
