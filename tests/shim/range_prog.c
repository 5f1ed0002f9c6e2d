/* range_prog.c - known truths for range restriction, checkpoints and
 * triggers (tests/shim/test_range.py).
 *
 * Usage: range_prog STEP [ARGS] [STEP [ARGS] ...]
 *   touch K        touch_pages() first-touches K fresh pages: exactly K
 *                  page faults inside touch_pages and none elsewhere
 *   hot MS PCT     MS ms of thread CPU time, PCT % of it in hot_spin(),
 *                  the rest in cold_spin() (slices of 10 ms)
 *   calls N        cp_target() and cp_static() (a static function) each
 *                  called N times
 *   bench N        N calls of bench_target(); prints the ns per call
 *   sotouch K      so_touch() in librange_so.so (linked) touches K pages
 *   dlopen K N     dlopen("librange_dl.so") by bare name, found only
 *                  through this program's own RUNPATH; dl_touch() touches
 *                  K pages, dl_count() is called N times
 *   prephase K     touches K pages outside every trigger function
 *   measured M     measured() touches M pages, then after_measured()
 *   across P1 P2   a thread touches P1 pages, then main calls measured(0)
 *                  (the trigger), then the thread touches P2 more
 *   thread K       a thread touches K pages in touch_pages()
 *   where          prints the address of touch_pages (for absolute ranges
 *                  under setarch -R)
 *   exit CODE      exit(CODE)
 * Code pages of the measured functions are touched first as data, so the
 * first instruction fetch of a function never page-faults inside it, and
 * the stack is pre-touched, so the counts are exactly the touched pages.
 * Prints one deterministic line per step.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tests/shim/range_so.h"

#define NOIPA __attribute__((noipa, used))

/* Global: found by name in .symtab (and cp_static, static, as well). */
void touch_pages(char *p, long pages);
void hot_spin(double ms);
void cold_spin(double ms);
void cp_target(void);
void bench_target(void);
void measured(char *p, long pages);
void after_measured(void);

static long page;

/* Fresh anonymous pages, no huge pages: one fault per page touched. */
static char *fresh(long pages)
{
	char *p = mmap(NULL, (size_t)(pages ? pages : 1) * (size_t)page,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(3);
	}
	madvise(p, (size_t)(pages ? pages : 1) * (size_t)page, MADV_NOHUGEPAGE);
	return p;
}

/* Maps a function's code (a few hundred bytes from its start) by reading
 * it: the fault happens here, not at the function's first instruction. */
static void prefault_code(const void *fn)
{
	const volatile char *c = fn;

	(void)c[0];
	(void)c[512];
}

/* A deep stack region touched once, so later calls fault no stack page. */
static NOIPA void pretouch_stack(void)
{
	volatile char buf[256 * 1024];

	for (size_t i = 0; i < sizeof(buf); i += 512)
		buf[i] = 1;
}

NOIPA void touch_pages(char *p, long pages)
{
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static volatile unsigned long sink;

static NOIPA void spin_until(double end)
{
	while (cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i;
}

NOIPA void hot_spin(double ms)
{
	double end = cpu_ms() + ms;

	/* The loop is inline here: its samples are inside hot_spin. */
	while (cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			sink += (unsigned long)i;
}

NOIPA void cold_spin(double ms)
{
	spin_until(cpu_ms() + ms);
}

NOIPA void cp_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static NOIPA void cp_static(void)
{
	__asm__ volatile("" ::: "memory");
}

NOIPA void bench_target(void)
{
	__asm__ volatile("" ::: "memory");
}

NOIPA void measured(char *p, long pages)
{
	touch_pages(p, pages);
}

NOIPA void after_measured(void)
{
	__asm__ volatile("" ::: "memory");
}

static long arg(char **argv, int *i, int argc)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "range_prog: missing argument for %s\n", argv[*i]);
		exit(2);
	}
	return atol(argv[++*i]);
}

static void step_hot(long ms, long pct)
{
	long slices = ms / 10;

	prefault_code((const void *)hot_spin);
	for (long s = 0; s < slices; s++) {
		hot_spin(10.0 * (double)pct / 100);
		cold_spin(10.0 * (double)(100 - pct) / 100);
	}
	printf("hot %ld ms %ld%%\n", ms, pct);
}

static void step_calls(long n)
{
	for (long i = 0; i < n; i++) {
		cp_target();
		cp_static();
	}
	printf("calls %ld\n", n);
}

static void step_bench(long n)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		bench_target();
	clock_gettime(CLOCK_MONOTONIC, &b);
	/* Timing goes to stderr: stdout stays deterministic. */
	fprintf(stderr, "bench ns_per_call %.1f\n",
		((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	printf("bench %ld\n", n);
}

static void step_dlopen(long pages, long n)
{
	void *h = dlopen("librange_dl.so", RTLD_NOW);
	void (*dl_touch)(char *, long, long);
	void (*dl_count)(void);
	char *p;

	if (!h) {
		printf("dlopen failed: %s\n", dlerror());
		exit(4);
	}
	dl_touch = (void (*)(char *, long, long))dlsym(h, "dl_touch");
	dl_count = (void (*)(void))dlsym(h, "dl_count");
	if (!dl_touch || !dl_count) {
		printf("dlsym failed\n");
		exit(4);
	}
	prefault_code((const void *)dl_touch);
	p = fresh(pages);
	dl_touch(p, pages, page);
	for (long i = 0; i < n; i++)
		dl_count();
	printf("dlopen %ld %ld\n", pages, n);
}

struct across {
	long p1, p2;
	int go[2], done[2];
};

static void *across_thread(void *arg)
{
	struct across *a = arg;
	char *p1 = fresh(a->p1), *p2 = fresh(a->p2), c = 0;

	pretouch_stack();
	touch_pages(p1, a->p1);
	if (write(a->done[1], &c, 1) != 1 || read(a->go[0], &c, 1) != 1)
		exit(5);
	touch_pages(p2, a->p2);
	return NULL;
}

static void step_across(long p1, long p2)
{
	struct across a = { .p1 = p1, .p2 = p2 };
	pthread_t th;
	char c = 0, *none = fresh(1);

	if (pipe(a.go) || pipe(a.done) ||
	    pthread_create(&th, NULL, across_thread, &a) != 0)
		exit(5);
	if (read(a.done[0], &c, 1) != 1)
		exit(5);
	measured(none, 0); /* the start trigger */
	if (write(a.go[1], &c, 1) != 1)
		exit(5);
	pthread_join(th, NULL);
	printf("across %ld %ld\n", p1, p2);
}

static void *thread_touch(void *arg)
{
	long pages = (long)arg;

	touch_pages(fresh(pages), pages);
	return NULL;
}

int main(int argc, char **argv)
{
	page = sysconf(_SC_PAGESIZE);
	prefault_code((const void *)touch_pages);
	prefault_code((const void *)measured);
	prefault_code((const void *)after_measured);
	prefault_code((const void *)so_touch);
	pretouch_stack();
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "touch") == 0) {
			long k = arg(argv, &i, argc);
			char *p = fresh(k);

			touch_pages(p, k);
			printf("touch %ld\n", k);
		} else if (strcmp(s, "hot") == 0) {
			long ms = arg(argv, &i, argc);

			step_hot(ms, arg(argv, &i, argc));
		} else if (strcmp(s, "calls") == 0) {
			step_calls(arg(argv, &i, argc));
		} else if (strcmp(s, "bench") == 0) {
			step_bench(arg(argv, &i, argc));
		} else if (strcmp(s, "sotouch") == 0) {
			long k = arg(argv, &i, argc);

			so_touch(fresh(k), k, page);
			printf("sotouch %ld\n", k);
		} else if (strcmp(s, "dlopen") == 0) {
			long k = arg(argv, &i, argc);

			step_dlopen(k, arg(argv, &i, argc));
		} else if (strcmp(s, "prephase") == 0) {
			long k = arg(argv, &i, argc);
			char *p = fresh(k);

			for (long j = 0; j < k; j++)
				p[j * page] = 2;
			printf("prephase %ld\n", k);
		} else if (strcmp(s, "measured") == 0) {
			long m = arg(argv, &i, argc);
			char *p = fresh(m);

			measured(p, m);
			after_measured();
			printf("measured %ld\n", m);
		} else if (strcmp(s, "across") == 0) {
			long p1 = arg(argv, &i, argc);

			step_across(p1, arg(argv, &i, argc));
		} else if (strcmp(s, "thread") == 0) {
			pthread_t th;
			long k = arg(argv, &i, argc);

			if (pthread_create(&th, NULL, thread_touch, (void *)k) != 0)
				return 5;
			pthread_join(th, NULL);
			printf("thread %ld\n", k);
		} else if (strcmp(s, "where") == 0) {
			printf("touch_pages %p\n", (void *)touch_pages);
		} else if (strcmp(s, "exit") == 0) {
			fflush(stdout);
			exit((int)arg(argv, &i, argc));
		} else {
			fprintf(stderr, "range_prog: unknown step %s\n", s);
			return 2;
		}
		fflush(stdout);
	}
	return 0;
}
