/* jsonutil.h - the JSON value helpers every writer in aggregate/ shares.
 *
 * json-c has no unsigned or "null unless finite" constructors, and every
 * string that comes from outside the shim (names, paths, preset texts)
 * must be made valid UTF-8 before it is a JSON string or key.
 */
#ifndef HPCSHIM_AGGREGATE_JSONUTIL_H
#define HPCSHIM_AGGREGATE_JSONUTIL_H

#include <stdint.h>

struct json_object;

/* A count or time: clamped to INT64_MAX (json-c has no unsigned). */
struct json_object *agg_json__u64(uint64_t v);
/* A double, or NULL (json null) when it is not finite. */
struct json_object *agg_json__dbl(double v);
/* A string from outside, invalid UTF-8 bytes replaced by U+FFFD. */
struct json_object *agg_json__text(const char *s);
/* An address as "0x...". */
struct json_object *agg_json__hex(uint64_t v);
/* Adds v under a key from outside, made valid UTF-8 like agg_json__text. */
void agg_json__add_key(struct json_object *o, const char *key, struct json_object *v);
/* Adds v under "<key><suffix>" (a sibling such as "totals_metrics"). */
void agg_json__add_sibling(struct json_object *o, const char *key,
			   const char *suffix, struct json_object *v);

#endif
