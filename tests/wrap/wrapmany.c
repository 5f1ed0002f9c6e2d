/* wrapmany.c - dlopens libraries one by one, each calling the wrapped
 * wn_hit (tests/shim/test_wrap.py):
 *
 *   wrapmany DIR N CALLS
 *
 *   1. libwrapuse0.so, RTLD_LAZY: loaded before wn_hit's library (its
 *      slot unresolvable until then);
 *   2. libwrapdef.so, RTLD_NOW | RTLD_GLOBAL: wn_hit's definition;
 *   3. libwrapuse1.so ... libwrapuse<N-1>.so, one by one, RTLD_LAZY and
 *      RTLD_NOW in turn, each one's wu_run(CALLS) called before the next
 *      is loaded;
 *   4. libwrapuse0's wu_run(CALLS): the one loaded before the definition;
 *   5. libwrapuse1.so closed, opened again (the same link map at the same
 *      address, as glibc's allocator gives it back), wu_run(CALLS).
 *
 * Prints each library's sum (wn_hit's results) and whether the reloaded
 * library had the same link map and base as before ("reload same"). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

static void *open_lib(const char *dir, const char *name, int mode)
{
	char path[4096];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, mode);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		exit(98);
	}
	return h;
}

static long run(void *h, int calls)
{
	long (*f)(int) = (long (*)(int))dlsym(h, "wu_run");

	if (!f) {
		fprintf(stderr, "dlsym wu_run: %s\n", dlerror());
		exit(97);
	}
	return f(calls);
}

int main(int argc, char **argv)
{
	const char *dir;
	int n, calls;
	void *first, *h1 = NULL;
	struct link_map *lm1 = NULL, *lm2 = NULL;
	ElfW(Addr) base1 = 0;
	char name[64];

	if (argc != 4)
		return 2;
	dir = argv[1];
	n = atoi(argv[2]);
	calls = atoi(argv[3]);
	first = open_lib(dir, "libwrapuse0.so", RTLD_LAZY);
	open_lib(dir, "libwrapdef.so", RTLD_NOW | RTLD_GLOBAL);
	for (int i = 1; i < n; i++) {
		void *h;

		snprintf(name, sizeof(name), "libwrapuse%d.so", i);
		h = open_lib(dir, name, i % 2 ? RTLD_LAZY : RTLD_NOW);
		printf("lib %d: %ld\n", i, run(h, calls));
		if (i == 1)
			h1 = h;
	}
	printf("lib 0: %ld\n", run(first, calls));
	if (dlinfo(h1, RTLD_DI_LINKMAP, &lm1) != 0)
		return 3;
	base1 = lm1->l_addr;
	dlclose(h1);
	h1 = open_lib(dir, "libwrapuse1.so", RTLD_LAZY);
	if (dlinfo(h1, RTLD_DI_LINKMAP, &lm2) != 0)
		return 3;
	printf("lib 1 again: %ld\n", run(h1, calls));
	printf("reload %s\n", lm1 == lm2 && base1 == lm2->l_addr ? "same" : "moved");
	return 0;
}
