// wrapxx.cpp - a C++ program whose wrapped library function throws:
// the exception goes through the wrapper's frames to the caller's catch.
#include <cstdio>
#include <stdexcept>

#include <hpcshim.h>
#include "../pages.h"

extern "C" int wx_throw(int v);

int main(int argc, char **argv)
{
	prefault_stack();
	long n = argc > 1 ? atol(argv[1]) : 10, caught = 0, k = 5;
	char *p = map_pages(k);

	for (long i = 0; i < n; i++) {
		try {
			wx_throw((int)i);
		} catch (const std::runtime_error &e) {
			caught++;
		}
	}
	HPC_BEGIN("after");
	touch(p, k);
	HPC_END("after");
	printf("caught %ld\n", caught);
	return 0;
}
