/* papi_hl.c - PAPI's high-level regions, nested, with known page faults
 * (tests/shim/test_markers.py).
 *
 * Usage: papi_hl N
 *
 * N times: region "papi_outer" first-touches OUTER fresh pages, then
 * region "papi_inner" inside it INNER pages, with one PAPI_hl_read
 * inside; PAPI_hl_stop at the end.  Prints whether every call returned
 * PAPI_OK; exits 1 when one did not.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define OUTER 7
#define INNER 3

static void touch(int pages)
{
	char *p = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	for (int i = 0; i < pages; i++)
		((volatile char *)p)[(size_t)i * 4096] = 1;
	munmap(p, (size_t)pages * 4096);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5, bad = 0, calls = 0;

#define CHECK(call)                                              \
	do {                                                     \
		int rc_ = (call);                                \
		calls++;                                         \
		if (rc_ != PAPI_OK) {                            \
			bad++;                                   \
			fprintf(stderr, "%s: %d\n", #call, rc_); \
		}                                                \
	} while (0)
	for (int i = 0; i < n; i++) {
		CHECK(PAPI_hl_region_begin("papi_outer"));
		touch(OUTER);
		CHECK(PAPI_hl_region_begin("papi_inner"));
		touch(INNER);
		CHECK(PAPI_hl_read("papi_inner"));
		CHECK(PAPI_hl_region_end("papi_inner"));
		CHECK(PAPI_hl_region_end("papi_outer"));
	}
	CHECK(PAPI_hl_stop());
	printf("papi_hl: %d calls, %d not PAPI_OK\n", calls, bad);
	return bad ? 1 : 0;
}
