/* tap_model.h - per-CPU-model checks in a child process, for the C unit
 * tests that force a libpfm4 model (unit_preset, unit_tree).
 *
 * libpfm4 picks its model once per process, so each forced model is
 * checked in a fork: the child writes one verdict per line ("1 text" /
 * "0 text", "S reason" for a skip) to a pipe and the parent turns them
 * into TAP lines.  "prog MODEL" checks one model in the process itself
 * (out NULL: verdicts are TAP lines), for emulators whose fork does not
 * work (qemu-user) and for another libpfm4 build (Arm tables on aarch64).
 */
#ifndef HPCSHIM_TAP_MODEL_H
#define HPCSHIM_TAP_MODEL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/tap.h"

/* One verdict on out (a child's pipe), or a TAP line when out is NULL. */
__attribute__((format(printf, 3, 4)))
static void verdict(FILE *out, bool ok, const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (out)
		fprintf(out, "%d %s\n", ok ? 1 : 0, text);
	else
		TAP_OK(ok, "%s", text);
}

/* Runs check(model, out) in a child and reports its verdicts. */
static void tap_model__forked(const char *model, void (*check)(const char *, FILE *))
{
	char line[2048];
	int fds[2], status = -1, n = 0;
	FILE *in;
	pid_t pid;

	fflush(stdout);
	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		TAP_OK(0, "pipe/fork for %s: %s", model, strerror(errno));
		return;
	}
	if (pid == 0) {
		FILE *out;

		close(fds[0]);
		out = fdopen(fds[1], "w");
		if (!out)
			_exit(3);
		check(model, out);
		fclose(out);
		_exit(0);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'S')
			SKIP("%s", line + 2);
		else
			TAP_OK(line[0] == '1', "%s", line + 2);
		n++;
	}
	if (in)
		fclose(in);
	waitpid(pid, &status, 0);
	TAP_OK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && n > 0,
	       "%s: child ran and reported %d verdicts (status %#x)", model, n, status);
}

#endif
