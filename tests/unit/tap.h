/* tap.h - minimal TAP output for C unit tests (run by automake's tap-driver). */
#ifndef HPCSHIM_TAP_H
#define HPCSHIM_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;

#define TAP_OK(cond, ...)                                                   \
	do {                                                                \
		int ok_ = !!(cond);                                         \
		tap_failed += !ok_;                                         \
		printf("%sok %d - ", ok_ ? "" : "not ", ++tap_n);           \
		printf(__VA_ARGS__);                                        \
		printf(" (line %d)\n", __LINE__);                           \
	} while (0)

/* A skipped test, with its reason. */
#define SKIP(...)                                                           \
	do {                                                                \
		printf("ok %d - # SKIP ", ++tap_n);                         \
		printf(__VA_ARGS__);                                        \
		printf("\n");                                               \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
