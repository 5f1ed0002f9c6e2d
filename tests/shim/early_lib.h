/* early_lib.h - the worker that early_lib.c's constructor starts. */
#ifndef HPCSHIM_TESTS_EARLY_LIB_H
#define HPCSHIM_TESTS_EARLY_LIB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What the worker measured of itself at its very end. */
struct early_result {
	pid_t tid;
	uint64_t cpu0_ns; /* CLOCK_THREAD_CPUTIME_ID at its start  */
	uint64_t cpu_ns;  /* ... and at its end                    */
	uint64_t faults; /* getrusage(RUSAGE_THREAD) minflt+majflt */
};

/* Joins the worker; -1 when none was started. */
int early_lib__join(struct early_result *r);
int early_dl__join(struct early_result *r); /* libearly_dl, dlsym'ed */

#endif
