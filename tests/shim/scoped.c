/* scoped.c - HPC_REGION left by break, continue, return and goto, and
 * HPC_THREAD_NAME.  Test program of tests/shim/test_langs.py.
 *
 * Usage: scoped exits N         each exit form N times (N even)
 *        scoped tname           names main and a second thread
 *
 * exits: one round of the four forms in "warm", then "outer" around N rounds and
 * 1 page of its own per round.  Each use touches fresh 4 KiB pages inside
 * its region, so the page faults are exact (round 0 included):
 *   "brk"   1 page, break on odd rounds, else 1 more: N+1 calls, 3N/2+2
 *   "cont"  1 page, continue on odd rounds, else 1 more: the same
 *   "ret"   1 page, return from inside the region: N+1 calls, N+1 pages
 *   "goto"  1 page, goto out of the region: N+1 calls, N+1 pages
 *   "outer" 6N pages inclusive, N exclusive
 * break and continue act on HPC_REGION's own one-pass loop: they leave the
 * region block, not the loop around it.  The program counts the statements
 * after each block and prints "after brk=N+1 cont=N+1 ret=N+1 goto=N+1".
 *
 * Built twice: with literal names (call-site handles) and with
 * -DSCOPED_DYN, where every name is built at run time.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "annotate/hpcshim.h"

#define PAGE 4096

#ifdef SCOPED_DYN
/* The name copied once into a table: a string the compiler cannot see
 * through.  main() enters every name before the first region, so no page
 * of the table is first touched inside one. */
static char names[16][32];

static const char *dyn(const char *s)
{
	int i;

	for (i = 0; i < 16 && names[i][0]; i++)
		if (strcmp(names[i], s) == 0)
			return names[i];
	if (i == 16)
		abort();
	snprintf(names[i], sizeof(names[i]), "%s", s);
	return names[i];
}
#define NAME(s) dyn(s)
static const char *const all_names[] = {
	"outer", "brk", "cont", "ret", "goto", "warm", "worker-first", "w",
	"main-thread", "m",
};
#else
#define NAME(s) s
#endif

static char *pool;
static long next_page;

static void touch_one(void)
{
	pool[next_page++ * PAGE] = 1;
}

static int ret_form(void)
{
	HPC_REGION(NAME("ret")) {
		touch_one();
		return 1;
	}
	return 0;
}

struct after {
	long brk, cont, ret, go;
};

/* One use of each form; touches 6 pages on even i, 4 on odd i. */
static void round_(long i, struct after *a)
{
	HPC_REGION(NAME("brk")) {
		touch_one();
		if (i % 2)
			break;
		touch_one();
	}
	a->brk++;
	HPC_REGION(NAME("cont")) {
		touch_one();
		if (i % 2)
			continue;
		touch_one();
	}
	a->cont++;
	a->ret += ret_form();
	HPC_REGION(NAME("goto")) {
		touch_one();
		goto out;
	}
	return; /* not reached */
out:
	a->go++;
}

static void exits(long n)
{
	long pages = 6 + 6 * n;
	struct after a = { 0, 0, 0, 0 };

	pool = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool == MAP_FAILED) {
		perror("mmap");
		exit(99);
	}
	madvise(pool, (size_t)pages * PAGE, MADV_NOHUGEPAGE);

	/* The shim's first BEGIN of a name allocates a record and its first
	 * BEGIN at a depth uses fresh frame memory: either may fault a page
	 * inside the enclosing region.  So every name once first, at the
	 * same depth, inside a region "warm" whose counts nobody checks. */
	HPC_BEGIN(NAME("warm"));
	round_(0, &a);
	HPC_END(NAME("warm"));
	HPC_BEGIN(NAME("outer"));
	for (long i = 0; i < n; i++) {
		touch_one();
		round_(i, &a);
	}
	HPC_END(NAME("outer"));
	if (next_page != pages) {
		fprintf(stderr, "scoped: touched %ld pages, expected %ld\n",
			next_page, pages);
		exit(98);
	}
	munmap(pool, (size_t)pages * PAGE);
	printf("after brk=%ld cont=%ld ret=%ld goto=%ld\n", a.brk, a.cont,
	       a.ret, a.go);
}

static void *worker(void *arg)
{
	char name[32];

	(void)arg;
	HPC_THREAD_NAME(NAME("worker-first"));
	snprintf(name, sizeof(name), "worker-%d", 1);
	HPC_THREAD_NAME(name); /* the last name wins */
	HPC_REGION(NAME("w")) {
	}
	return NULL;
}

static void tname(void)
{
	pthread_t t;

	HPC_THREAD_NAME(NAME("main-thread"));
	if (pthread_create(&t, NULL, worker, NULL) != 0) {
		fprintf(stderr, "scoped: pthread_create failed\n");
		exit(97);
	}
	pthread_join(t, NULL);
	HPC_REGION(NAME("m")) {
	}
	printf("active %d\n", HPC_ACTIVE());
}

int main(int argc, char **argv)
{
#ifdef SCOPED_DYN
	for (size_t i = 0; i < sizeof(all_names) / sizeof(all_names[0]); i++)
		dyn(all_names[i]);
#endif
	if (argc == 3 && strcmp(argv[1], "exits") == 0)
		exits(atol(argv[2]));
	else if (argc == 2 && strcmp(argv[1], "tname") == 0)
		tname();
	else {
		fprintf(stderr, "usage: scoped exits N | scoped tname\n");
		return 2;
	}
	return 0;
}
