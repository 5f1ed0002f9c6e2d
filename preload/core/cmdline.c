/* cmdline.c - the program's arguments when the constructor's argc/argv
 * are not at hand: the shim started early, from a pthread_create made by
 * a constructor that ran before ours (boot.c). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sys.h"
#include "preload/core/core.h"

#define CMDLINE_MAX (1 << 20)

/* The whole of /proc/self/cmdline: NUL-separated, as the kernel keeps it
 * (the arguments at exec; nobody changed them yet, no constructor of the
 * program's own has run).  NULL when unreadable. */
static char *cmdline__slurp(size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *nb;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (!buf || fd < 0)
		goto fail;
	while ((r = read(fd, buf + n, cap - n - 1)) != 0) {
		if (r < 0)
			goto fail;
		n += (size_t)r;
		if (n + 1 == cap) {
			if (cap >= CMDLINE_MAX || !(nb = realloc(buf, cap * 2)))
				goto fail;
			buf = nb;
			cap *= 2;
		}
	}
	hs_sys__close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		hs_sys__close(fd);
	free(buf);
	return NULL;
}

int hs_cmdline__read(char ***out)
{
	size_t len = 0, off;
	char *text = cmdline__slurp(&len), **argv;
	int argc = 0;

	*out = NULL;
	if (!text)
		return 0;
	for (off = 0; off < len; off += strlen(text + off) + 1)
		argc++;
	/* One block: the pointers, then the text (free(*out) frees both). */
	argv = malloc((size_t)(argc + 1) * sizeof(char *) + len + 1);
	if (argv) {
		char *copy = (char *)(argv + argc + 1);

		memcpy(copy, text, len + 1);
		argc = 0;
		for (off = 0; off < len; off += strlen(copy + off) + 1)
			argv[argc++] = copy + off;
		argv[argc] = NULL;
	} else {
		argc = 0;
	}
	free(text);
	*out = argv;
	return argc;
}
