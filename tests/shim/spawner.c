/* spawner - starts a command the ways programs and launchers do, for
 * tests/shim/test_quiet.py.  Prints nothing of its own on stdout.
 *
 *   spawner [OPTION]... MODE CMD [ARG]...
 *
 * Options, in order:
 *   -s VAR=VAL  setenv in this process, first thing
 *   -c VAR=VAL  setenv where CMD is started: in the fork child (fork, and
 *               what a launcher's helper does), else in this process
 *   -w PAGES    touch PAGES fresh pages (no region) where CMD is started
 *   -n N        fork: start CMD N times, one after the other
 * Modes:
 *   fork     fork; the child applies -c and -w and execvp's CMD
 *   exec     apply -c and -w, execvp CMD
 *   badexec  execv a path that does not exist, then as exec
 *   spawn    posix_spawnp CMD with environ (-c applies to this process)
 *   system   system() of CMD and its arguments joined by blanks
 *   vfork    vfork; the child execvp's CMD
 *   status   print this process's SigCgt/SigIgn and open descriptors
 * The exit status is the last child's (fork, spawn, system, vfork).
 */
#include <dirent.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAXSET 16

static char *child_env[MAXSET];
static int nchild_env;
static long work_pages;

static void put(char *kv)
{
	char *eq = strchr(kv, '=');

	if (!eq) {
		fprintf(stderr, "spawner: %s is not VAR=VAL\n", kv);
		exit(2);
	}
	*eq = '\0';
	setenv(kv, eq + 1, 1);
	*eq = '=';
}

/* What a launcher's helper does between fork and exec. */
static void prepare(void)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < nchild_env; i++)
		put(child_env[i]);
	if (work_pages > 0) {
		char *p = mmap(NULL, (size_t)(work_pages * page),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			exit(2);
		}
		for (long i = 0; i < work_pages; i++)
			((volatile char *)p)[i * page] = 1;
	}
}

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void show_status(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	DIR *d;
	struct dirent *e;
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigCgt:", 7) || !strncmp(line, "SigIgn:", 7))
			fputs(line, stdout);
	if (f)
		fclose(f);
	d = opendir("/proc/self/fd");
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	printf("descriptors: %d\n", n - 1); /* less the directory's own */
}

int main(int argc, char **argv)
{
	int i = 1, times = 1, st = 0;
	const char *mode;
	char **cmd;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "-s"))
			put(argv[i + 1]);
		else if (!strcmp(argv[i], "-c") && nchild_env < MAXSET)
			child_env[nchild_env++] = argv[i + 1];
		else if (!strcmp(argv[i], "-w"))
			work_pages = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "-n"))
			times = atoi(argv[i + 1]);
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: spawner [-s|-c VAR=VAL] [-w PAGES] [-n N] "
				"MODE CMD...\n");
		return 2;
	}
	mode = argv[i];
	cmd = argv + i + 1;
	if (!strcmp(mode, "status")) {
		show_status();
		return 0;
	}
	if (!cmd[0]) {
		fprintf(stderr, "spawner: no command\n");
		return 2;
	}
	fflush(stdout);
	if (!strcmp(mode, "fork")) {
		for (int k = 0; k < times; k++) {
			pid_t pid = fork();

			if (pid == 0) {
				prepare();
				execvp(cmd[0], cmd);
				perror("execvp");
				_exit(127);
			}
			if (pid < 0 || waitpid(pid, &st, 0) < 0)
				return 2;
		}
		return status_of(st);
	}
	if (!strcmp(mode, "exec") || !strcmp(mode, "badexec")) {
		if (!strcmp(mode, "badexec")) {
			char *none[] = { "none", NULL };

			execv("/nonexistent/spawner-none", none);
		}
		prepare();
		execvp(cmd[0], cmd);
		perror("execvp");
		return 127;
	}
	if (!strcmp(mode, "spawn")) {
		pid_t pid;

		prepare();
		if (posix_spawnp(&pid, cmd[0], NULL, NULL, cmd, environ) != 0 ||
		    waitpid(pid, &st, 0) < 0)
			return 2;
		return status_of(st);
	}
	if (!strcmp(mode, "system")) {
		char line[4096] = "";
		size_t at = 0;

		prepare();
		for (char **a = cmd; *a && at < sizeof(line); a++)
			at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s",
					       a == cmd ? "" : " ", *a);
		st = system(line);
		return st < 0 ? 2 : status_of(st);
	}
	if (!strcmp(mode, "vfork")) {
		pid_t pid = vfork();

		if (pid == 0) {
			execvp(cmd[0], cmd);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0)
			return 2;
		return status_of(st);
	}
	fprintf(stderr, "spawner: unknown mode %s\n", mode);
	return 2;
}
