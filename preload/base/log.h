/* log.h - the one stderr logger, level set once from HPCSHIM_VERBOSE.
 * Every line starts with "hpcshim: " and is written with a single write(2),
 * so lines from concurrent threads never interleave.  Never stdout. */
#ifndef HPCSHIM_LOG_H
#define HPCSHIM_LOG_H

enum hs_log_level {
	HS_LOG_ERROR = 0, /* bad input, lost results: always shown */
	HS_LOG_INFO = 1,  /* what was counted and where it went    */
	HS_LOG_DEBUG = 2, /* probe details, per-thread events      */
};

void hs_log_set_level(int level);
/* Where lines go (stderr; the fuzzer sends them to /dev/null). */
void hs_log_set_fd(int fd);
int hs_log_level(void);
void hs_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
