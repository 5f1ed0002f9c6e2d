/* warnings.h - what the results lack, said at their top (warnings.c).
 */
#ifndef HPCSHIM_AGGREGATE_WARNINGS_H
#define HPCSHIM_AGGREGATE_WARNINGS_H

#include <stdint.h>

/* Something the results lack, said at the top of the document
 * ("warnings", warnings.c): threads whose events were not counted, by
 * reason. */
struct agg_warning {
	const char *what;   /* "threads not counted"                      */
	const char *reason; /* static text                                */
	uint64_t threads;   /* how many of them                           */
	uint64_t of;        /* of how many threads the process started    */
};
struct json_object *agg_warnings__json(const struct agg_warning *w, int n);

#endif
