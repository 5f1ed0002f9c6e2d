/* cmd_run.c - hpcshim run: a program under the shim, as perf stat runs one.
 *
 * Usage: hpcshim run [options] [--] PROGRAM [ARGS...]
 *
 * Sets LD_PRELOAD to the shim found next to this binary (the build tree's
 * .libs/, or the install prefix's libdir) ahead of any LD_PRELOAD already
 * set, and the HPCSHIM_* variables from the options, then runs PROGRAM as
 * a child and waits.  The child has our stdin, stdout and stderr; its exit
 * status is ours; a signal sent to us (kill, not the terminal, which
 * signals the child itself) is passed on while the child runs, and is
 * ours once it has ended (a SIGTERM then ends us, however long the summary
 * takes); when the child dies by a signal we die by the same one.  A program that is not found exits 127, one
 * that cannot be executed 126, as in a shell.  At the end the process
 * totals of the child's result file go to stderr (-q: nothing): a
 * regular file of our own user only (another user's file, or a FIFO, in a
 * shared -o directory is never read).
 *
 * Before the program starts: the output directory is made (parents too,
 * common/mkdirs.h; exit 2 when it cannot be), and a program LD_PRELOAD
 * cannot reach (tools/reach.h: static, or secure execution) is named in
 * one line; it then runs all the same, and no summary is looked for.
 *
 * hpcshim itself is never counted: the shim is set in the child's
 * environment only, and "hpcshim" is a launcher name the shim stays
 * dormant in (preload/core/launchers.c) should someone preload it anyway.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/mkdirs.h"
#include "tools/cmd.h"
#include "tools/reach.h"
#include "tools/results.h"
#include "tools/rows.h"

#define XALLOC_STATUS 125 /* run's own failures, as a shell's 125 */
#include "tools/xalloc.h"

#ifndef HPCSHIM_LIBDIR
#define HPCSHIM_LIBDIR "/usr/local/lib"
#endif

static const char usage_line[] =
	"usage: hpcshim run [-e EVENTS] [-o DIR] [--preset LIST] [--opcode LIST]\n"
	"                   [--range LIST] [--mux MODE] [--interval T] [--wrap LIST]\n"
	"                   [--trace N] [--profile] [-v] [-q] [--] PROGRAM [ARGS...]\n";

static void run__help(void)
{
	fputs(usage_line, stdout);
	fputs("\nRuns PROGRAM under the hpcshim library and prints its process totals on\n"
	      "stderr at the end, like perf stat.  stdin, stdout, the exit status and\n"
	      "signals pass through; 127: PROGRAM not found, 126: not executable.\n\n"
	      "  -e, --event EVENTS   HPCSHIM_EVENTS (comma-separated, {a,b} groups)\n"
	      "  -o, --output DIR     HPCSHIM_OUTPUT: where the result file goes (.),\n"
	      "                       made with its parents if missing\n"
	      "      --preset LIST    HPCSHIM_PRESET\n"
	      "      --opcode LIST    HPCSHIM_OPCODE\n"
	      "      --range LIST     HPCSHIM_RANGE\n"
	      "      --mux MODE       HPCSHIM_MUX (kernel, rotate)\n"
	      "      --interval T     HPCSHIM_INTERVAL: time series every T of CPU time\n"
	      "      --wrap LIST      HPCSHIM_WRAP\n"
	      "      --trace N        HPCSHIM_TRACE: keep the last N region calls per thread\n"
	      "      --profile        HPCSHIM_PROFILE=1: where the time went (MPI and I/O\n"
	      "                       calls wrapped, task-clock, OpenMP, peak memory);\n"
	      "                       then: hpcshim report --view profile\n"
	      "  -v, --verbose        HPCSHIM_VERBOSE (repeat for more)\n"
	      "  -q, --quiet          no summary\n"
	      "  -h, --help           this text\n\n"
	      "Under MPI: mpirun -np 4 hpcshim run -- ./app (one result per rank).\n"
	      "See hpcshim(1) and docs/environment.md for the variables.\n",
	      stdout);
}

/* ---- the shim's path -------------------------------------------------- */

static int readable(const char *p)
{
	return access(p, R_OK) == 0;
}

/* The library next to this binary: a build tree keeps it in .libs/, an
 * installation in the prefix's lib directory (a relocated prefix first,
 * then the configured one). */
static int run__find_shim(char *out, size_t len)
{
	char exe[PATH_MAX - 64], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(out, len, "%s/.libs/libhpcshim.so", exe);
			if (readable(out))
				return 0;
			snprintf(out, len, "%s/../lib/libhpcshim.so", exe);
			if (readable(out))
				return 0;
		}
	}
	snprintf(out, len, "%s/libhpcshim.so", HPCSHIM_LIBDIR);
	return readable(out) ? 0 : -1;
}

/* LD_PRELOAD with the shim first, the entries already there kept after it
 * (a sanitizer runtime, another tool), the shim not twice. */
static void run__set_preload(const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	char *v;

	if (!old || !*old) {
		setenv("LD_PRELOAD", shim, 1);
		return;
	}
	if (strstr(old, shim))
		return;
	v = xrealloc(NULL, strlen(shim) + strlen(old) + 2);
	sprintf(v, "%s:%s", shim, old);
	setenv("LD_PRELOAD", v, 1);
	free(v);
}

/* ---- signals ------------------------------------------------------------ */

static volatile pid_t run_child;
static const int forwarded[] = { SIGINT,  SIGTERM, SIGHUP,   SIGQUIT, SIGUSR1,
				 SIGUSR2, SIGALRM, SIGWINCH, SIGCONT };
#define NFWD (sizeof(forwarded) / sizeof(forwarded[0]))

/* A signal someone sent us (kill, sigqueue, tkill: si_code <= 0) goes on
 * to the child.  One the terminal generated (SI_KERNEL) reached the whole
 * foreground process group, the child too: passing it on would deliver it
 * twice. */
static void run__forward(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	siginfo_t w;

	(void)uc;
	if (run_child > 0 && si->si_code <= 0) {
		/* A child that has ended (not reaped yet) cannot take it: the
		 * signal is ours, and does to us what it does by default. */
		w.si_pid = 0;
		if (waitid(P_PID, (id_t)run_child, &w, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    w.si_pid == 0) {
			kill(run_child, sig);
		} else {
			signal(sig, SIG_DFL);
			raise(sig); /* delivered when the handler returns */
		}
	}
	errno = saved;
}

static void run__install(sigset_t *fwd, struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = run__forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(fwd);
	for (size_t i = 0; i < NFWD; i++)
		sigaddset(fwd, forwarded[i]);
	sa.sa_mask = *fwd;
	for (size_t i = 0; i < NFWD; i++) {
		sigaction(forwarded[i], NULL, &old[i]);
		/* An ignored signal stays ignored, for us and the child. */
		if (old[i].sa_handler != SIG_IGN)
			sigaction(forwarded[i], &sa, NULL);
	}
}

/* ---- the summary ------------------------------------------------------- */

/* 1 when name is a result file name of pid: hpcshim-HOST-PID[-rR][-xG].json */
static int run__name_of(const char *name, pid_t pid)
{
	char tag[32];
	const char *p;
	size_t n = strlen(name);

	if (strncmp(name, "hpcshim-", 8) != 0 || n < 5 || strcmp(name + n - 5, ".json"))
		return 0;
	snprintf(tag, sizeof(tag), "-%d", (int)pid);
	for (p = strstr(name, tag); p; p = strstr(p + 1, tag)) {
		char c = p[strlen(tag)];

		if (c == '.' || c == '-')
			return 1;
	}
	return 0;
}

/* The child's result: the file of its pid with the highest exec
 * generation (the image that ran last). */
static struct dr_doc *run__result(const char *dir, pid_t pid, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct dr_doc *best = NULL;
	long long gen = -1;

	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		char p[PATH_MAX], why[256];
		struct dr_doc *doc;
		struct dr_rank rk;
		struct stat st;
		long long g;

		if (!run__name_of(e->d_name, pid))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		/* In a shared directory, another user's file may take the
		 * child's name (and a FIFO is never read: docread.c). */
		if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		doc = dr_doc__load(p, why, sizeof(why));
		if (!doc)
			continue;
		dr_doc__rank(doc, 0, &rk);
		if (rk.pid != pid) {
			dr_doc__free(doc);
			continue;
		}
		g = dr_doc__generation(doc);
		if (g > gen) {
			dr_doc__free(best);
			best = doc;
			gen = g;
			snprintf(path, len, "%s", p);
		} else {
			dr_doc__free(doc);
		}
	}
	closedir(d);
	return best;
}

/* 1234567 as "1,234,567", the way perf stat prints counts. */
static void run__grouped(char *buf, size_t len, long long v)
{
	char raw[32];
	int n, j = 0, neg = v < 0;

	snprintf(raw, sizeof(raw), "%lld", neg ? -v : v);
	n = (int)strlen(raw);
	if (neg && (size_t)j < len - 1)
		buf[j++] = '-';
	for (int i = 0; i < n && (size_t)j < len - 1; i++) {
		if (i && (n - i) % 3 == 0 && (size_t)j < len - 2)
			buf[j++] = ',';
		buf[j++] = raw[i];
	}
	buf[j] = '\0';
}

/* The share of the time event ev was counted, over the threads (perf
 * stat's "(xx.xx%)"); -1 when it always was. */
static double run__coverage(const struct dr_doc *doc, const char *ev)
{
	double en = 0, ru = 0;
	int any = 0;

	for (size_t i = 0; i < dr_doc__nthreads(doc); i++) {
		struct dr_value x;

		dr_thread__total(dr_doc__thread(doc, i), ev, &x);
		if (x.mux) {
			any = 1;
			en += x.en;
			ru += x.run;
		}
	}
	return any && en > 0 ? ru / en : -1;
}

static void run__summary(const struct dr_doc *doc, const char *path, char **argv,
			 double elapsed)
{
	fprintf(stderr, "\n Performance counter stats for '");
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
	fprintf(stderr, "' (hpcshim: %s):\n\n", path);
	for (size_t i = 0; i < dr_doc__nevents(doc); i++) {
		struct dr_event e;
		struct dr_value x;
		const char *name;
		double cov, v;
		char num[48];

		dr_doc__event(doc, i, &e);
		name = e.name ? e.name : "?";
		if (strcmp(e.status, "ok") != 0) {
			fprintf(stderr, "   %18s      %s (%s)\n", "<not supported>", name,
				e.error ? e.error : "dropped");
			continue;
		}
		if (!dr_doc__total(doc, name, &x)) {
			fprintf(stderr, "   %18s      %s\n", "<not counted>", name);
			continue;
		}
		v = x.v;
		cov = run__coverage(doc, name);
		if (rows__is_time(name)) {
			snprintf(num, sizeof(num), "%.2f", v / 1e6);
			fprintf(stderr, "   %18s msec %s", num, name);
			if (elapsed > 0 && strcmp(name, "task-clock") == 0)
				fprintf(stderr, "%*s#  %7.3f CPUs utilized",
					(int)(strlen(name) < 30 ? 30 - strlen(name) : 1), "",
					v / 1e9 / elapsed);
		} else {
			run__grouped(num, sizeof(num), (long long)v);
			fprintf(stderr, "   %18s      %s", num, name);
		}
		if (cov >= 0)
			fprintf(stderr, "  (%.2f%%)", cov * 100);
		fputc('\n', stderr);
	}
	fprintf(stderr, "\n   %18.9f seconds time elapsed\n", elapsed);
	fprintf(stderr, "   %zu regions, %lld threads: hpcshim report %s\n\n",
		dr_doc__nregions(doc), dr_doc__thread_count(doc), path);
}

/* ---- run ----------------------------------------------------------------- */

static double run__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Dies by sig as the child did, without a core file of our own. */
static int run__die_by(int sig)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t s;

	signal(sig, SIG_DFL);
	setrlimit(RLIMIT_CORE, &no_core);
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(sig);
	return 128 + sig; /* a signal that does not terminate */
}

/* The child: default dispositions back, the caller's mask, then exec.  A
 * failed exec sends its errno up the close-on-exec pipe. */
static void run__child(char **argv, int errfd, const sigset_t *mask,
		       const struct sigaction *old)
{
	int e;

	for (size_t i = 0; i < NFWD; i++)
		sigaction(forwarded[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvp(argv[0], argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* A shell's answer to an exec failure: 127 and "not found" when nothing
 * by that name exists, 126 when it exists but cannot be executed. */
static int run__exec_failed(const char *prog, int e)
{
	if (e == ENOENT && !strchr(prog, '/')) {
		fprintf(stderr, "hpcshim run: %s: command not found\n", prog);
		return 127;
	}
	fprintf(stderr, "hpcshim run: %s: %s\n", prog, strerror(e));
	return e == ENOENT || e == ENOTDIR ? 127 : 126;
}

/* The directory the child's file goes to (-o, or HPCSHIM_OUTPUT given to
 * us), made now with the shim's own rule: a mistyped or unwritable -o
 * fails here, before the program runs, not as a fallback after it.  The
 * ranks of a job may all make it at once. */
static int run__make_output(void)
{
	const char *dir = getenv("HPCSHIM_OUTPUT");

	if (!dir || !*dir || hs_mkdirs(dir, 0777) == 0)
		return 0;
	fprintf(stderr, "hpcshim run: cannot create the output directory %s: %s\n", dir,
		strerror(errno));
	return -1;
}

/* 1 when the program LD_PRELOAD cannot reach, said in one line; 0 when
 * it can, or when it is not found (execvp says so). */
static int run__unreachable(const char *name)
{
	char prog[PATH_MAX], why[PATH_MAX + 400];

	if (reach__resolve(name, prog, sizeof(prog)) < 0 ||
	    reach__check(prog, why, sizeof(why)) == REACH_OK)
		return 0;
	fprintf(stderr, "hpcshim run: %s %s; it runs uncounted (no result file)\n", prog,
		why);
	return 1;
}

static int run__setenv_opt(const char *var, const char *val)
{
	return setenv(var, val, 1);
}

int run_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "preset", required_argument, NULL, 'P' },
		{ "opcode", required_argument, NULL, 'O' },
		{ "range", required_argument, NULL, 'R' },
		{ "mux", required_argument, NULL, 'M' },
		{ "interval", required_argument, NULL, 'I' },
		{ "wrap", required_argument, NULL, 'W' },
		{ "trace", required_argument, NULL, 'T' },
		{ "profile", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	char shim[PATH_MAX + 32], path[PATH_MAX], verbose[16];
	struct sigaction old[NFWD];
	sigset_t fwd, mask;
	int opt, quiet = 0, nverbose = 0, pipefd[2], status, e, uncounted;
	double t0;
	ssize_t n;
	pid_t pid;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:o:vqh", opts, NULL)) != -1) {
		switch (opt) {
		case 'e': run__setenv_opt("HPCSHIM_EVENTS", optarg); break;
		case 'o': run__setenv_opt("HPCSHIM_OUTPUT", optarg); break;
		case 'P': run__setenv_opt("HPCSHIM_PRESET", optarg); break;
		case 'O': run__setenv_opt("HPCSHIM_OPCODE", optarg); break;
		case 'R': run__setenv_opt("HPCSHIM_RANGE", optarg); break;
		case 'M': run__setenv_opt("HPCSHIM_MUX", optarg); break;
		case 'I': run__setenv_opt("HPCSHIM_INTERVAL", optarg); break;
		case 'W': run__setenv_opt("HPCSHIM_WRAP", optarg); break;
		case 'T': run__setenv_opt("HPCSHIM_TRACE", optarg); break;
		case 'F': run__setenv_opt("HPCSHIM_PROFILE", "1"); break;
		case 'v': nverbose++; break;
		case 'q': quiet = 1; break;
		case 'h': run__help(); return 0;
		default: fputs(usage_line, stderr); return 2;
		}
	}
	if (optind == argc) {
		fputs(usage_line, stderr);
		return 2;
	}
	if (nverbose) {
		snprintf(verbose, sizeof(verbose), "%d", nverbose);
		setenv("HPCSHIM_VERBOSE", verbose, 1);
	}
	if (run__find_shim(shim, sizeof(shim)) < 0) {
		fprintf(stderr, "hpcshim run: libhpcshim.so not found next to this program "
				"nor in " HPCSHIM_LIBDIR "\n");
		return 125;
	}
	if (run__make_output() < 0)
		return 2;
	run__set_preload(shim);
	uncounted = run__unreachable(argv[optind]);
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		perror("hpcshim run: pipe");
		return 125;
	}
	/* Signals wait until the child's pid is known: none is lost, and
	 * none runs our handler in the child before its exec. */
	sigemptyset(&fwd);
	for (size_t i = 0; i < NFWD; i++)
		sigaddset(&fwd, forwarded[i]);
	sigprocmask(SIG_BLOCK, &fwd, &mask);
	run__install(&fwd, old);
	fflush(NULL);
	t0 = run__now();
	pid = fork();
	if (pid < 0) {
		perror("hpcshim run: fork");
		return 125;
	}
	if (pid == 0)
		run__child(argv + optind, pipefd[1], &mask, old);
	run_child = pid;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	close(pipefd[1]);
	do
		n = read(pipefd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("hpcshim run: waitpid");
			return 125;
		}
	/* The child is gone: a signal sent to us from now on is ours (a
	 * summary that took long must still be stoppable by SIGTERM). */
	for (size_t i = 0; i < NFWD; i++)
		sigaction(forwarded[i], &old[i], NULL);
	run_child = -1;
	if (n == (ssize_t)sizeof(e))
		return run__exec_failed(argv[optind], e);
	if (!quiet && !uncounted) {
		const char *dir = getenv("HPCSHIM_OUTPUT");
		struct dr_doc *doc;

		if (!dir || !*dir)
			dir = ".";
		doc = run__result(dir, pid, path, sizeof(path));
		if (doc)
			run__summary(doc, path, argv + optind, run__now() - t0);
		else
			fprintf(stderr, "hpcshim run: no result file of pid %d in %s\n",
				(int)pid, dir);
		dr_doc__free(doc);
	}
	if (WIFSIGNALED(status))
		return run__die_by(WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}
