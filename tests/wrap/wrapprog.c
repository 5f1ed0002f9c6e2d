/* wrapprog.c - the program of tests/shim/test_wrap.py.  Modes:
 *   touch N K [outer]  N calls of wl_touch on K fresh pages each (inside an
 *                      annotated region "outer" touching K pages itself)
 *   cos N              prints a hash of the bits of N results of cos()
 *   abi                wl_pair, wl_small, wl_mix and wl_recurse results, in hex
 *   dlopen N K         dlopen libwrapdl.so: N calls of its wd_touch (which
 *                      calls wl_touch through its PLT), then N calls of
 *                      wl_touch through a pointer from dlsym
 *   threads N          8 threads call wl_recurse(1) N times each while the
 *                      main thread dlopens libwrapdl.so (patching again)
 *   jump N K           N longjmps out of wl_jump, then region "after" (K pages)
 *   inside             wl_use_inside (wl_inside has no slot anywhere)
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpcshim.h>
#include "../pages.h"
#include "wraplib.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static void *dl_lib(const char *self)
{
	char path[4096];
	const char *slash = strrchr(self, '/');
	void *h;

	snprintf(path, sizeof(path), "%.*s/libwrapdl.so",
		 slash ? (int)(slash - self) : 1, slash ? self : ".");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(98);
	}
	return h;
}

static long nthread;

static void *worker(void *arg)
{
	long s = 0;

	(void)arg;
	for (long i = 0; i < nthread; i++)
		s += wl_recurse(1);
	return (void *)s;
}

int main(int argc, char **argv)
{
	prefault_stack();
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0, k = argc > 3 ? atol(argv[3]) : 0;

	if (!strcmp(mode, "touch")) {
		bool outer = argc > 4;
		char *p = map_pages(n * k + k);

		if (outer)
			HPC_BEGIN("outer");
		for (long i = 0; i < n; i++)
			wl_touch(p + i * k * PAGE, k);
		if (outer) {
			touch(p + n * k * PAGE, k);
			HPC_END("outer");
		}
		printf("touched %ld\n", n * k);
	} else if (!strcmp(mode, "cos")) {
		volatile double x = 0.0;
		uint64_t h = 0xcbf29ce484222325ull;

		for (long i = 0; i < n; i++) {
			double c = cos(x + (double)i * 1e-3);

			h = fnv(h, &c, sizeof(c));
		}
		printf("cos %ld %016llx\n", n, (unsigned long long)h);
	} else if (!strcmp(mode, "abi")) {
		struct wl_pair pr = wl_pair(-7, 1.25);
		struct wl_small sm = wl_small(3.5);
		double m = wl_mix(-3, 0.1, 1234567890123L, 2.5f, -12, 1e300,
				  4000000000u, -0.75, 'x', 6.02e23);

		printf("pair %a %ld %d\n", pr.x, pr.y, pr.z);
		printf("small %a %a\n", sm.a, sm.b);
		printf("mix %a\n", m);
		printf("many %a\n",
		       wl_many(-1, 1L << 40, -300, 'q', 3000000000u, -5, 7, 9, 0.1,
			       0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.5f));
		printf("recurse %ld\n", wl_recurse(5));
		printf("reg14 %a\n", wl_reg14(-1, 2, -3, 1L << 50, -5, 6, 0.1, -0.2,
					      0.3, 1e-300, 0.5, -0.6, 0.7, 1e300));
		printf("int7 %a\n", wl_int7(-1, 2, -3, 4, -5, 6, -7, 0.1, -0.2, 0.3,
					    0.4, 0.5, -0.6, 0.7, 0.8));
		printf("dbl9 %a\n", wl_dbl9(1, -2, 3, -4, 5, -6, 0.1, 0.2, -0.3,
					    0.4, 0.5, 0.6, -0.7, 0.8, 0.9));
		printf("flt %a\n", (double)wl_flt(1.25f, -3.5e10, -0.1f, -9));
		printf("ext %ld\n",
		       wl_ext(-2000000000, -32000, -128, 4000000000u, 65535));
		printf("neg %d\n",
		       wl_neg(-1, -2, 3, -4, 5, -6, 7, -300, -100, 4000000000u));
		{
			static char buf[64];

			printf("ptr %td\n", wl_ptr(buf, 40) - buf);
		}
	} else if (!strcmp(mode, "dlopen")) {
		void *h = dl_lib(argv[0]);
		void (*wd)(char *, long) = (void (*)(char *, long))dlsym(h, "wd_touch");
		void (*wt)(char *, long) = (void (*)(char *, long))dlsym(RTLD_DEFAULT,
									 "wl_touch");
		char *p = map_pages(2 * n * k);

		for (long i = 0; i < n; i++)
			wd(p + i * k * PAGE, k);
		for (long i = 0; i < n; i++)
			wt(p + (n + i) * k * PAGE, k);
		printf("dlopen %ld\n", n);
	} else if (!strcmp(mode, "threads")) {
		pthread_t th[8];
		long total = 0;

		nthread = n;
		for (int i = 0; i < 8; i++)
			pthread_create(&th[i], NULL, worker, NULL);
		dl_lib(argv[0]);
		for (int i = 0; i < 8; i++) {
			void *r;

			pthread_join(th[i], &r);
			total += (long)r;
		}
		printf("threads %ld\n", total);
	} else if (!strcmp(mode, "jump")) {
		char *p = map_pages(k);
		volatile long jumps = 0;
		jmp_buf env;

		for (long i = 0; i < n; i++)
			if (setjmp(env) == 0)
				wl_jump(&env, 1);
			else
				jumps++;
		HPC_BEGIN("after");
		touch(p, k);
		HPC_END("after");
		printf("jumps %ld\n", (long)jumps);
	} else if (!strcmp(mode, "inside")) {
		printf("inside %d\n", wl_use_inside(4));
	} else {
		fprintf(stderr,
			"usage: wrapprog touch|cos|abi|dlopen|threads|jump|inside\n");
		return 2;
	}
	return 0;
}
