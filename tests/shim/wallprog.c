/* wallprog.c - regions whose wall-clock time the program measures itself.
 *
 * Usage: wallprog STEP [ARGS] [STEP [ARGS] ...]
 *   nap MS        region "nap" sleeping MS ms (nanosleep)
 *   nest K MS     K calls of "n_outer", each holding "n_a" (sleep MS ms)
 *                 twice and "n_b" (sleep MS ms) once
 *   recurse D MS  "w_rec" nested in itself D deep, sleeping MS ms a level
 *   thread MS     a thread running region "t_nap" sleeping MS ms
 *
 * Every region is timed twice with CLOCK_MONOTONIC: "inner" inside its
 * HPC_BEGIN/HPC_END and "outer" around them; one line per call:
 *   call NAME INNER OUTER
 * and for a thread: "thread OUTER" (pthread_create to pthread_join).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "annotate/hpcshim.h"

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

/* One region call around fn(arg): prints both measurements. */
#define TIMED(name, body)                                                            \
	do {                                                                         \
		uint64_t o0_, o1_, i0_, i1_;                                         \
		o0_ = mono();                                                        \
		hpcshim_region_begin(name);                                          \
		i0_ = mono();                                                        \
		body;                                                                \
		i1_ = mono();                                                        \
		hpcshim_region_end(name);                                            \
		o1_ = mono();                                                        \
		printf("call %s %llu %llu\n", name, (unsigned long long)(i1_ - i0_), \
		       (unsigned long long)(o1_ - o0_));                             \
	} while (0)

static void recurse(long d, long ms)
{
	if (d == 0)
		return;
	TIMED("w_rec", {
		nap_ms(ms);
		recurse(d - 1, ms);
	});
}

static void *thread_main(void *arg)
{
	long ms = (long)(intptr_t)arg;

	TIMED("t_nap", nap_ms(ms));
	return NULL;
}

static long arg(char **argv, int *i, int argc)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "wallprog: %s needs an argument\n", argv[*i]);
		exit(2);
	}
	return strtol(argv[++*i], NULL, 0);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "nap") == 0) {
			long ms = arg(argv, &i, argc);

			TIMED("nap", nap_ms(ms));
		} else if (strcmp(s, "nest") == 0) {
			long k = arg(argv, &i, argc), ms = arg(argv, &i, argc);

			for (long c = 0; c < k; c++)
				TIMED("n_outer", {
					TIMED("n_a", nap_ms(ms));
					TIMED("n_b", nap_ms(ms));
					TIMED("n_a", nap_ms(ms));
				});
		} else if (strcmp(s, "recurse") == 0) {
			long d = arg(argv, &i, argc), ms = arg(argv, &i, argc);

			recurse(d, ms);
		} else if (strcmp(s, "thread") == 0) {
			long ms = arg(argv, &i, argc);
			pthread_t th;
			uint64_t o0 = mono(), o1;

			if (pthread_create(&th, NULL, thread_main,
					   (void *)(intptr_t)ms)) {
				fprintf(stderr, "wallprog: pthread_create failed\n");
				return 1;
			}
			pthread_join(th, NULL);
			o1 = mono();
			printf("thread %llu\n", (unsigned long long)(o1 - o0));
		} else {
			fprintf(stderr, "wallprog: unknown step %s\n", s);
			return 2;
		}
	}
	return 0;
}
