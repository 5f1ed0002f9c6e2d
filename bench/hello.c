/* hello.c - the smallest program: prints one line and exits (bench/start.sh).
 * With -DWITH_PAPI it does the same inside one PAPI high-level region, so
 * that PAPI's start-up and output are in its run as hpcshim's are in ours. */
#include <stdio.h>
#ifdef WITH_PAPI
#include <papi.h>
#endif

int main(void)
{
#ifdef WITH_PAPI
	PAPI_hl_region_begin("hello");
#endif
	puts("hello");
#ifdef WITH_PAPI
	PAPI_hl_region_end("hello");
#endif
	return 0;
}
