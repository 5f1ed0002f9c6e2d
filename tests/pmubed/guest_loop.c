/* guest_loop.c - aarch64 guest program with exactly known instruction counts.
 *
 * Runs in the emulated-PMU guest (tests/pmubed/run.sh) under libhpcshim.so.
 * Every measured region is opened and closed by the same function,
 * region_spin(), around spin(n), which retires exactly 1 + 2n user
 * instructions (cbz, then n x {subs, b.ne}); spin(0) retires 1.  So
 * between two regions that differ only in n the counts differ by exactly
 * 2 x (n1 - n0) instructions; spin(0) gives the region's fixed overhead.
 * Region names all have the same length and live in 16-byte aligned
 * storage, so the END path's string compare costs the same for each.
 *
 * Usage: guest_loop STEP [ARGS] [STEP [ARGS] ...]
 *   warm           region "warm_0" around spin(0): the process's first
 *                  region call (pays the lazy PLT binding of the program)
 *   empty K        K x region "loop_0" around spin(0)     (the overhead)
 *   loop A B       region "loop_a" around spin(A), "loop_b" around spin(B)
 *   repeat K N     K x region "loop_r" around spin(N)
 *   threads K N    K threads; thread i (1..K) runs region "work_t" around
 *                  spin(i x N) and prints "thread TID i ITERS" afterwards
 *   steady N       region "steady" around spin(N) (multiplexing runs)
 *   short K N G    K regions "short0".."short<K-1>" (K <= 10), each around
 *                  spin(N), separated by spin(G) outside any region
 *   site K         K x region "site_0" around spin(0), named by a literal
 *                  (the call-site handle path; the steps above pass names
 *                  through a pointer, the by-name path)
 *   pairs K        the cost of a whole begin+end pair: region "pairs_on"
 *                  around K calls of a function holding one empty literal
 *                  region "pair", region "pairs_off" around K calls of an
 *                  empty function through the same loop; the difference
 *                  over K is the pair's cost, exactly
 *   freq PPM       sets the kernel's NTP frequency correction to PPM parts
 *                  per million (adjtimex ADJ_FREQUENCY; the guest runs as
 *                  root): CLOCK_MONOTONIC then runs that much off the
 *                  counter the perf clock comes from
 *   exec STEP...   execs this program with the remaining steps (the shim
 *                  starts again, in a process where the steps before hold)
 *   rate MS        region "rate_p" around a wait of MS ms (an END past
 *                  the shim's one-second recalibration of its wall clock)
 *   maps           prints the executable mappings (/proc/self/maps) as
 *                  "maps LINE": the addresses a per-instruction trace
 *                  of the guest is attributed by (trace.sh)
 *   nap MS         region "nap_ms" around a wait of MS ms of
 *                  CLOCK_MONOTONIC; prints "nap INNER OUTER": the wait as
 *                  timed inside the region and around HPC_BEGIN/HPC_END
 * Prints one line per step on stdout.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "tests/pmubed/spin.h"

#define NAME(var, text) \
	static const char var[16] __attribute__((aligned(16))) = text

NAME(n_loop0, "loop_0");
NAME(n_loopa, "loop_a");
NAME(n_loopb, "loop_b");
NAME(n_loopr, "loop_r");
NAME(n_work, "work_t");
NAME(n_steady, "steady");
NAME(n_warm, "warm_0");
NAME(n_nap, "nap_ms");
NAME(n_rate, "rate_p");

/* Exactly 1 + 2n retired instructions (spin.h), as a call of its own. */
static __attribute__((noinline)) void spin(uint64_t n)
{
	spin_n(n);
}

/* The one place regions are opened and closed: identical code around
 * every measured interval whatever n is. */
static __attribute__((noinline)) void region_spin(const char *name, uint64_t n)
{
	HPC_BEGIN(name);
	spin(n);
	HPC_END(name);
}

/* The literal-name (call-site handle) path, around spin(0). */
static __attribute__((noinline)) void site_spin0(void)
{
	HPC_BEGIN("site_0");
	spin(0);
	HPC_END("site_0");
}

static __attribute__((noinline)) void one_pair(void)
{
	HPC_BEGIN("pair");
	HPC_END("pair");
}

static __attribute__((noinline)) void no_pair(void)
{
	__asm__ volatile("");
}

/* The same loop for both: only the called function differs. */
static __attribute__((noinline)) void call_k(void (*fn)(void), uint64_t k)
{
	for (uint64_t c = 0; c < k; c++)
		fn();
}

NAME(n_pon, "pairs_on");
NAME(n_poff, "pairs_off");

struct job {
	long index;
	uint64_t iters;
};

static void *worker(void *arg)
{
	struct job *j = arg;

	region_spin(n_work, j->iters);
	printf("thread %ld %ld %" PRIu64 "\n", (long)syscall(SYS_gettid),
	       j->index, j->iters);
	return NULL;
}

static void threads(long k, uint64_t n)
{
	pthread_t tid[k];
	struct job jobs[k];

	for (long i = 0; i < k; i++) {
		jobs[i].index = i + 1;
		jobs[i].iters = (uint64_t)(i + 1) * n;
		if (pthread_create(&tid[i], NULL, worker, &jobs[i]) != 0)
			exit(98);
	}
	for (long i = 0; i < k; i++)
		pthread_join(tid[i], NULL);
}

static uint64_t arg(char **argv, int *i, int argc)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "guest_loop: %s needs an argument\n", argv[*i]);
		exit(2);
	}
	return strtoull(argv[++*i], NULL, 0);
}

static int64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (b->tv_nsec - a->tv_nsec);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("active %d\n", HPC_ACTIVE());
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "warm") == 0) {
			region_spin(n_warm, 0);
			printf("warm\n");
		} else if (strcmp(s, "empty") == 0) {
			uint64_t k = arg(argv, &i, argc);
			for (uint64_t c = 0; c < k; c++)
				region_spin(n_loop0, 0);
			printf("empty %" PRIu64 "\n", k);
		} else if (strcmp(s, "loop") == 0) {
			uint64_t a = arg(argv, &i, argc), b = arg(argv, &i, argc);
			region_spin(n_loopa, a);
			region_spin(n_loopb, b);
			printf("loop %" PRIu64 " %" PRIu64 "\n", a, b);
		} else if (strcmp(s, "repeat") == 0) {
			uint64_t k = arg(argv, &i, argc), n = arg(argv, &i, argc);
			for (uint64_t c = 0; c < k; c++)
				region_spin(n_loopr, n);
			printf("repeat %" PRIu64 " %" PRIu64 "\n", k, n);
		} else if (strcmp(s, "threads") == 0) {
			uint64_t k = arg(argv, &i, argc), n = arg(argv, &i, argc);
			threads((long)k, n);
			printf("threads %" PRIu64 " %" PRIu64 "\n", k, n);
		} else if (strcmp(s, "steady") == 0) {
			uint64_t n = arg(argv, &i, argc);
			region_spin(n_steady, n);
			printf("steady %" PRIu64 "\n", n);
		} else if (strcmp(s, "short") == 0) {
			uint64_t k = arg(argv, &i, argc), n = arg(argv, &i, argc),
				 g = arg(argv, &i, argc);
			static char name[16] __attribute__((aligned(16))) = "short0";
			for (uint64_t c = 0; c < k && c < 10; c++) {
				name[5] = (char)('0' + c);
				region_spin(name, n);
				spin(g);
			}
			printf("short %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", k, n, g);
		} else if (strcmp(s, "site") == 0) {
			uint64_t k = arg(argv, &i, argc);
			for (uint64_t c = 0; c < k; c++)
				site_spin0();
			printf("site %" PRIu64 "\n", k);
		} else if (strcmp(s, "pairs") == 0) {
			uint64_t k = arg(argv, &i, argc);
			void (*volatile on)(void) = one_pair, (*volatile off)(void) = no_pair;
			struct timespec t0, t1;

			one_pair(); /* first call: resolves the site and binds PLT slots */
			clock_gettime(CLOCK_MONOTONIC, &t0);
			HPC_BEGIN(n_pon);
			call_k(on, k);
			HPC_END(n_pon);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			HPC_BEGIN(n_poff);
			call_k(off, k);
			HPC_END(n_poff);
			/* pairs_on's interval as the program sees it: its wall time
			 * lies inside */
			printf("pairs %" PRIu64 " %" PRId64 "\n", k,
			       (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 +
				       (t1.tv_nsec - t0.tv_nsec));
		} else if (strcmp(s, "maps") == 0) {
			char line[512];
			FILE *f = fopen("/proc/self/maps", "re");

			while (f && fgets(line, sizeof(line), f))
				if (strstr(line, " r-xp "))
					printf("maps %s", line);
			if (f)
				fclose(f);
		} else if (strcmp(s, "freq") == 0) {
			struct timex tx = { .modes = ADJ_FREQUENCY };

			tx.freq = (long)arg(argv, &i, argc) * 65536;
			printf("freq %d %ld\n", adjtimex(&tx) < 0 ? -1 : 0, tx.freq);
		} else if (strcmp(s, "exec") == 0) {
			argv[i] = argv[0];
			execv(argv[0], argv + i);
			perror("guest_loop: exec");
			return 2;
		} else if (strcmp(s, "rate") == 0) {
			uint64_t ms = arg(argv, &i, argc);
			struct timespec b, c;

			HPC_BEGIN(n_rate);
			clock_gettime(CLOCK_MONOTONIC, &b);
			do
				clock_gettime(CLOCK_MONOTONIC, &c);
			while (ns_between(&b, &c) < (int64_t)ms * 1000000);
			HPC_END(n_rate);
			printf("rate %" PRIu64 "\n", ms);
		} else if (strcmp(s, "nap") == 0) {
			uint64_t ms = arg(argv, &i, argc);
			struct timespec a, b, c, d;

			clock_gettime(CLOCK_MONOTONIC, &a);
			HPC_BEGIN(n_nap);
			clock_gettime(CLOCK_MONOTONIC, &b);
			do
				clock_gettime(CLOCK_MONOTONIC, &c);
			while (ns_between(&b, &c) < (int64_t)ms * 1000000);
			HPC_END(n_nap);
			clock_gettime(CLOCK_MONOTONIC, &d);
			printf("nap %" PRId64 " %" PRId64 "\n", ns_between(&b, &c),
			       ns_between(&a, &d));
		} else {
			fprintf(stderr, "guest_loop: unknown step '%s'\n", s);
			return 2;
		}
	}
	return 0;
}
