/* utf8.h - strings from outside made valid UTF-8 (utf8.c).
 */
#ifndef HPCSHIM_AGGREGATE_UTF8_H
#define HPCSHIM_AGGREGATE_UTF8_H

/* utf8.c: a malloc'd copy with each invalid UTF-8 byte replaced by U+FFFD. */
char *agg_utf8__clean(const char *s);

#endif
