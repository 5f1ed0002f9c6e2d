/* jsonutil.h - the JSON value helpers every writer in aggregate/ shares.
 *
 * json-c has no unsigned or "null unless finite" constructors, and every
 * string that comes from outside the shim (names, paths, preset texts)
 * must be made valid UTF-8 before it is a JSON string or key.
 */
#ifndef HPCSHIM_AGGREGATE_JSONUTIL_H
#define HPCSHIM_AGGREGATE_JSONUTIL_H

#include <stdbool.h>
#include <stddef.h>
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

/* Text writers for the streamed document (json.c): the very text json-c
 * prints for the same value, without building an object.  buf holds at
 * least AGG_JSON_NUM_MAX bytes; the length is returned, no NUL. */
#define AGG_JSON_NUM_MAX 40
/* An int64 as json_object_new_int64 prints it. */
size_t agg_json__fmt_i64(char *buf, int64_t v);
/* A count as agg_json__u64 prints it (clamped to INT64_MAX). */
size_t agg_json__fmt_u64(char *buf, uint64_t v);
/* A finite double as json_object_new_double prints it. */
size_t agg_json__fmt_dbl(char *buf, double v);
/* True, with its length, when s needs neither escaping nor UTF-8 repair
 * (printable ASCII but '"' and '\\'): it can be written between quotes. */
bool agg_json__plain(const char *s, size_t *len);

#endif
