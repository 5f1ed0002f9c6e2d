/* log.c - see log.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "preload/base/log.h"

static int log_level = HS_LOG_ERROR;
static int log_fd = STDERR_FILENO;

void hs_log_set_fd(int fd)
{
	log_fd = fd;
}

void hs_log_set_level(int level)
{
	log_level = level;
}

int hs_log_level(void)
{
	return log_level;
}

void hs_log(int level, const char *fmt, ...)
{
	char buf[1024];
	int saved = errno; /* logging must not disturb the host's errno */
	va_list ap;
	int n;

	if (level > log_level)
		return;
	n = snprintf(buf, sizeof(buf), "hpcshim: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(log_fd, buf, (size_t)n) < 0) {
		/* nowhere left to report it */
	}
	errno = saved;
}
