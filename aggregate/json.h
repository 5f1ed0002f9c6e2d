/* json.h - the process result as a JSON document (json.c, docs/schema.md).
 */
#ifndef HPCSHIM_AGGREGATE_JSON_H
#define HPCSHIM_AGGREGATE_JSON_H

#include <stddef.h>

struct agg_process;
struct agg_result_file;

/* Renders p into a file of dir nobody sees yet (result.h; tag: which
 * writer of the process, in a temporary name).  -1 with err. */
int agg_result__create(struct agg_result_file *f, const struct agg_process *p,
		       const char *dir, char tag, char *err, size_t errlen);
/* Writes the process result atomically into dir (agg_result__create, then
 * link(2) to a name that never overwrites another result).  On success
 * path receives the final file name. */
int agg_process__write(const struct agg_process *p, const char *dir, char *path,
		       size_t pathlen, char *err, size_t errlen);

#endif
