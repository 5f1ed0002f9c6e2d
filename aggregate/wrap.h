/* wrap.h - what HPCSHIM_WRAP asked for and what became of it.
 *
 * Filled by preload/wrap/ when the results are written; aggregate/wrap.c
 * turns it into the top-level "wrap" array (docs/schema.md).  The calls
 * themselves are ordinary regions: they are in "regions" like annotated
 * ones.
 */
#ifndef HPCSHIM_AGGREGATE_WRAP_H
#define HPCSHIM_AGGREGATE_WRAP_H

#include <stdbool.h>
#include <stdint.h>

struct agg_wrap_spec {
	const char *name;       /* the function                               */
	const char *object;     /* name@object's object, or NULL               */
	const char *set;        /* the @set it came from, or NULL              */
	const char *signature;  /* normalised, or NULL when none was found     */
	const char *status;     /* "wrapped", "not found", "variadic", ...     */
	const char *reason;     /* NULL, or a sentence                         */
	const char *definition; /* the object of the original, or NULL        */
	const char *path;       /* how a call reaches it: "registers", ...     */
	uint64_t slots;         /* GOT slots patched (PLT and GLOB_DAT)        */
	uint64_t dlsym;         /* dlsym/dlvsym answers with the wrapper       */
	int64_t bytes;          /* bytes of its calls (HPCSHIM_PROFILE), or -1 */
};

struct agg_wrap {
	int n;
	const struct agg_wrap_spec *spec;
};

/* The top-level "wrap" array: a head section (section.h), arg the
 * agg_wrap. */
struct agg_out;
struct agg_process;
void agg_wrap__head(struct agg_out *o, int depth, bool *first,
		    const struct agg_process *p, const void *arg);

#endif
