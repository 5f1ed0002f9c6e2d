/* result.h - the OpenMP feature's part of the results: the top-level
 * "openmp" (docs/schema.md). */
#ifndef HPCSHIM_PRELOAD_OPENMP_RESULT_H
#define HPCSHIM_PRELOAD_OPENMP_RESULT_H

#include <stdbool.h>

struct agg_out;
struct agg_process;

struct omp_result {
	const char *kind; /* "libgomp", "libomp", or NULL: none seen  */
	bool ompt;        /* the runtime's OMPT interface started     */
	char path[512];   /* the runtime's object                   */
	bool refused;     /* its constructs are not recorded: reason */
	char reason[600];
};

extern struct omp_result hs_omp_result;

/* agg_section tail: "openmp": {...} */
void hs_omp_result__tail(struct agg_out *o, int depth, bool *first,
			 const struct agg_process *p, const void *arg);

#endif
