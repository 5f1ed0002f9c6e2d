/* startrun.c - wall time of whole short processes (bench/start.sh).
 *
 * startrun ROUNDS VARIANT... where each VARIANT is one argument
 * "name|VAR=value VAR=value|program arg...": the environment entries are
 * added to ours.  Every round runs each variant once, in an order that
 * rotates from round to round, timing posix_spawn to wait4 with
 * CLOCK_MONOTONIC; stdout goes to /dev/null.  Prints "round name ns" per
 * run.  Exits 1 when a run fails (a start that did nothing must not be
 * timed as a cheap one).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_VARIANTS 16
#define MAX_WORDS 64

struct variant {
	char *name;
	char *env[MAX_WORDS];
	char *argv[MAX_WORDS];
};

static int split(char *s, char **out, int max)
{
	int n = 0;

	for (char *w = strtok(s, " "); w && n < max - 1; w = strtok(NULL, " "))
		out[n++] = w;
	out[n] = NULL;
	return n;
}

static char **with_env(char **add)
{
	int n = 0, k = 0;
	char **e;

	while (environ[n])
		n++;
	while (add[k])
		k++;
	e = calloc((size_t)(n + k + 1), sizeof(*e));
	memcpy(e, add, (size_t)k * sizeof(*e));
	memcpy(e + k, environ, (size_t)n * sizeof(*e));
	return e;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct variant v[MAX_VARIANTS];
	char **envs[MAX_VARIANTS];
	posix_spawn_file_actions_t fa;
	int rounds, nv = argc - 2;

	if (argc < 3 || nv > MAX_VARIANTS) {
		fprintf(stderr,
			"usage: startrun ROUNDS 'name|ENV=V ...|prog args' ...\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	for (int i = 0; i < nv; i++) {
		char *s = strdup(argv[i + 2]), *env, *cmd;

		v[i].name = strsep(&s, "|");
		env = strsep(&s, "|");
		cmd = s;
		if (!env || !cmd || split(cmd, v[i].argv, MAX_WORDS) == 0) {
			fprintf(stderr, "startrun: bad variant '%s'\n", argv[i + 2]);
			return 2;
		}
		split(env, v[i].env, MAX_WORDS);
		envs[i] = with_env(v[i].env);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int r = 0; r < rounds; r++)
		for (int j = 0; j < nv; j++) {
			struct variant *x = &v[(r + j) % nv];
			long long t0 = now_ns();
			pid_t pid;
			int st;

			if (posix_spawn(&pid, x->argv[0], &fa, NULL, x->argv,
					envs[(r + j) % nv]) != 0 ||
			    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
			    WEXITSTATUS(st) != 0) {
				fprintf(stderr, "startrun: %s failed\n", x->name);
				return 1;
			}
			printf("%d %s %lld\n", r, x->name, now_ns() - t0);
		}
	return 0;
}
