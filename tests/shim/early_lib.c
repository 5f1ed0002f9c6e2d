/* early_lib.c - a library whose constructor starts a worker thread, the
 * way OpenBLAS starts its thread pool (tests/shim/test_early.py).
 *
 * Linked to tests/shim/early_prog, its constructor runs before the shim's: it
 * touches EARLY_K fresh pages, then creates a worker that touches EARLY_N
 * fresh pages and burns EARLY_MS ms of its own CPU time, and measures
 * itself: its CPU clock and getrusage(RUSAGE_THREAD) at its very end.
 * The same source is built as libearly_dl (EARLY_DL: its own symbols and
 * EARLY_DL_* variables), dlopen'ed or preloaded.  With N < 0 no thread is
 * started.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tests/shim/early_lib.h"
#include "tests/pages.h"

#ifdef EARLY_DL
#define ENV(x) "EARLY_DL_" x
#else
#define ENV(x) "EARLY_" x
#endif

static pthread_t worker;
static bool started;
static long n_pages, cpu_ms;
static char *pages;
static struct early_result res;

static uint64_t cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *work(void *arg)
{
	struct rusage ru;
	uint64_t until;
	volatile uint64_t x = 0;

	(void)arg;
	res.cpu0_ns = cpu_now();
	until = res.cpu0_ns + (uint64_t)cpu_ms * 1000000ull;
	touch(pages, n_pages);
	while (cpu_now() < until)
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
	res.tid = gettid();
	res.cpu_ns = cpu_now();
	getrusage(RUSAGE_THREAD, &ru);
	res.faults = (uint64_t)(ru.ru_minflt + ru.ru_majflt);
	return NULL;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : def;
}

__attribute__((constructor)) static void early_init(void)
{
	long k = env_long(ENV("K"), 64);
	char *kp = map_pages(k);

	touch(kp, k);
	n_pages = env_long(ENV("N"), 200);
	cpu_ms = env_long(ENV("MS"), 50);
	if (n_pages < 0)
		return;
	pages = map_pages(n_pages);
	/* Our data page touched here, not first by the worker: its faults
	 * must be its N pages only. */
	__atomic_store_n(&res.tid, 0, __ATOMIC_RELAXED);
	started = pthread_create(&worker, NULL, work, NULL) == 0;
}

#ifdef EARLY_DL
#define early_lib__join early_dl__join
#endif
int early_lib__join(struct early_result *r)
{
	if (!started || pthread_join(worker, NULL) != 0)
		return -1;
	*r = res;
	return 0;
}
