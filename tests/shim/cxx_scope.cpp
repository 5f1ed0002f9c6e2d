/* cxx_scope.cpp - hpcshim.hpp scopes: unwinding by exceptions, naming,
 * nesting.  Test program of tests/shim/test_langs.py.
 *
 * Usage: cxx_scope unwind R N M
 *   one_round(): thrower(), whose region "thrower" touches N fresh pages
 *   and calls deep(), whose HPC_FUNCTION() region "deep" touches N more
 *   and throws; one_round() catches.  Both regions once first, in region
 *   "warm", without pages or exception; then "outer" touches M pages of
 *   its own around R rounds.  Truths: thrower R+1 calls, inclusive 2NR,
 *   exclusive NR; deep R+1 calls, NR; outer 1 call, inclusive M+2NR,
 *   exclusive M.  Prints "caught R".
 *        cxx_scope names
 *   HPC_FUNCTION() in two instances of a function template ("tfunc":
 *   2 calls, 1+2 pages) and in a member function ("run": 5 pages);
 *   hpcshim::scope with a literal ("direct": 3 pages) and with temporary
 *   std::strings ("dyn_0".."dyn_2": 1, 2, 3 pages), HPC_SCOPE with a
 *   std::string ("str_scope": 2 pages); two scopes on one line ("same1"
 *   around "same2", 4 pages), "same2" met once in "warm" first (2 calls).
 *   Prints "names".
 *
 * Built three times: with literal names (call-site handles), with
 * -DSCOPED_DYN (every name a std::string or plain pointer, no call-site
 * handle), and with -DHPCSHIM_DISABLE (no annotation left).
 */
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "annotate/hpcshim.hpp"
#include "tests/pages.h"

#ifdef SCOPED_DYN
/* The name copied once into a table: a pointer the compiler cannot see
 * through, and no allocation inside the regions (an allocation there may
 * fault a page of the heap). */
static const char *dyn(const char *s)
{
	static char names[16][16];
	int i;

	for (i = 0; i < 16 && names[i][0]; i++)
		if (strcmp(names[i], s) == 0)
			return names[i];
	if (i == 16)
		abort();
	snprintf(names[i], sizeof(names[i]), "%s", s);
	return names[i];
}
static const char *const all_names[] = { "thrower", "outer", "same1", "same2", "warm" };
#define SCOPE(lit) HPC_SCOPE(dyn(lit))
#define FUNCTION() ::hpcshim::scope fn_scope(__func__)
#else
#define SCOPE(lit) HPC_SCOPE(lit)
#define FUNCTION() HPC_FUNCTION()
#endif

struct unwind {
	long pages;
};

__attribute__((noinline)) static void deep(char *p, long n, bool raise)
{
	FUNCTION();
	touch(p, n);
	if (raise)
		throw unwind{n};
}

__attribute__((noinline)) static void thrower(char *p, long n, bool raise)
{
	SCOPE("thrower");
	touch(p, n);
	deep(p + n * PAGE, n, raise);
}

__attribute__((noinline)) static void warm_thrower()
{
	throw unwind{0};
}

static long one_round(long n)
{
	char *p = map_pages(2 * n);
	long caught = 0;

	try {
		thrower(p, n, true);
	} catch (const unwind &u) {
		caught = u.pages == n;
	}
	unmap_pages(p, 2 * n);
	return caught;
}

static void unwind_step(long r, long n, long m)
{
	char *own = map_pages(m);
	long caught = 0;

	/* The shim's first BEGIN of a name allocates a record, its first
	 * BEGIN at a depth uses fresh frame memory, and the first exception
	 * reads the unwind tables and allocates the exception object: any of
	 * these may fault a page inside the enclosing region.  So before
	 * "outer": the regions at the same depths without pages or
	 * exception, inside a region "warm" whose counts nobody checks, then
	 * one exception outside any region (its object is reused). */
	{
		SCOPE("warm");
		thrower(own, 0, false);
	}
	try {
		warm_thrower();
	} catch (const unwind &) {
	}
	{
		SCOPE("outer");
		touch(own, m);
		for (long i = 0; i < r; i++)
			caught += one_round(n);
	}
	unmap_pages(own, m);
	printf("caught %ld\n", caught);
}

template <int K> __attribute__((noinline)) static void tfunc(char *p)
{
	FUNCTION();
	touch(p, K);
}

struct solver {
	__attribute__((noinline)) void run(char *p, long n)
	{
		FUNCTION();
		touch(p, n);
	}
};

static void names_step()
{
	const long pages = 3 + 5 + 3 + 6 + 2 + 4;
	char *pool = map_pages(pages), *p = pool;
	solver s;

	{
		SCOPE("warm"); /* same2's record and depth 1 (see unwind_step) */
		SCOPE("same2");
	}
	tfunc<1>(p);
	tfunc<2>(p + PAGE);
	p += 3 * PAGE;
	s.run(p, 5);
	p += 5 * PAGE;
	{
		hpcshim::scope d{"direct"};
		touch(p, 3);
	}
	p += 3 * PAGE;
	for (int k = 0; k < 3; k++) {
		hpcshim::scope dyn{std::string("dyn_") + std::to_string(k)};
		touch(p, k + 1);
		p += (k + 1) * PAGE;
	}
	{
		HPC_SCOPE(std::string("str_") + "scope");
		touch(p, 2);
	}
	p += 2 * PAGE;
	{
		SCOPE("same1"); SCOPE("same2");
		touch(p, 4);
	}
	unmap_pages(pool, pages);
	printf("names\n");
}

int main(int argc, char **argv)
{
	prefault_stack();
#ifdef SCOPED_DYN
	for (const char *n : all_names)
		dyn(n);
#endif
	if (argc == 5 && strcmp(argv[1], "unwind") == 0)
		unwind_step(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	else if (argc == 2 && strcmp(argv[1], "names") == 0)
		names_step();
	else {
		fprintf(stderr, "usage: cxx_scope unwind R N M | cxx_scope names\n");
		return 2;
	}
	return 0;
}
