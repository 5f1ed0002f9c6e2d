/* workload.c - programs with known counter truths, annotated with regions.
 *
 * Usage: workload STEP [ARGS] [STEP [ARGS] ...]
 *   busy MS          region "busy": spin for MS ms of thread CPU time
 *   touch PAGES      region "touch": first-touch PAGES fresh 4 KiB pages
 *   sleep N US       region "sleep": N x nanosleep(US microseconds)
 *   nested A B       region "outer" touching A pages around "inner" touching B
 *   threads N P      N threads, thread i touches (i+1)*P pages in region "work"
 *   pexit P          a thread touches P pages in "work" and calls pthread_exit
 *   cancel P         a thread touches P pages in "work", blocks and is cancelled
 *   pending P        a thread with a cancellation pending (deferred) touches
 *                    P pages in "work", then reaches pthread_testcancel:
 *                    prints "pending survived S canceled C"
 *   linger P         a thread touches P pages in "work" and is still running
 *                    (blocked) when the process exits
 *   recurse D P      region "rec" nested in itself D deep, P pages per level
 *   mismatch         BEGIN a, BEGIN b, END a (closes b too), END c (unmatched)
 *   fork P           fork(); the child touches P pages in "child" and exits
 *   vfork            vfork(); the child _exits at once
 *   spawn P          posix_spawn this program with "touch P"; wait for it
 *   system P         system("<this program> touch P")
 *   exec STEP...     execv this program with the remaining steps
 *   badexec          execv a path that does not exist; go on
 *   execform F P     exec this program with "touch P" through execl (F=l),
 *                    execlp (F=lp) or execle (F=le)
 *   _exit CODE       _exit(CODE) right here (stdout flushed first)
 *   thread_exit P C  a thread touches P pages in "work" then calls exit(C)
 *                    while the main thread is blocked
 *   main_pexit P     main calls pthread_exit; a thread touches P pages and
 *                    returns last, ending the process
 *   segv             write through a null pointer
 *   abort            abort()
 *   raise SIG        raise(SIG)
 *   catch SIG CODE   SA_SIGINFO handler for SIG that prints and exit(CODE)s;
 *                    then raise(SIG)
 *   rethrow SIG      signal() handler that restores SIG_DFL and re-raises
 *   ignore SIG       signal(SIG, SIG_IGN); raise(SIG); go on
 *   altstack         SIGSEGV handler on a sigaltstack (SA_ONSTACK) that
 *                    reports whether it ran there and _exit(9)s; then segv
 *   mask SIG         block SIG, raise it, report it pending, unblock it
 *   query SIG        report whether sigaction() says SIG_DFL
 *   badnames         regions named with quotes, backslashes, control and
 *                    non-UTF-8 bytes, "", NULL, a 1 MB name; END without
 *                    BEGIN; END with a name never opened
 *   closeall         close() every descriptor from 3 to 1023, then check a
 *                    pipe's data survives region boundaries
 *   closerange       the same with close_range(3, ~0U, 0)
 *   dup2over         dup2() a pipe onto each perf descriptor, then the same
 *   fdcount          print how many perf_event descriptors are open
 *   openfiles N      open /dev/null N times, print how many succeeded
 *   churn N          N threads, one after the other, each touching one page
 *                    in region "w"
 *   rawclone P       a thread made with a raw clone() (not pthread_create)
 *                    touches P pages and spins until the process exits
 *   seccomp ERRNO    from here on (this thread, threads it creates, exec'd
 *                    images) perf_event_open fails with ERRNO
 *   detached N P     N detached threads touch P pages each in "work"; main
 *                    waits until all have left their region
 *   rss              print the resident set size in KiB
 *   exit CODE        exit(CODE) right here
 * Prints one deterministic line per step on stdout.  With WORKLOAD_FAULTS
 * set, "faults NAME N" on stderr for the regions of touch (and the
 * threads' "work"), nested and recurse: the kernel's own count of the
 * thread's faults inside the region (hpctest.exact_faults).
 */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "annotate/hpcshim.h"
#include "tests/pages.h"

static int catch_code;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void busy(long ms)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)ms * 1000000ull;
	volatile uint64_t x = 0;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
}

/* The kernel's own count of this thread's page faults (minor and major).
 * Read just inside a region's BEGIN and END, it counts what the region
 * must: the touches, and any fault the kernel adds meanwhile.  Migration by
 * memory compaction (kcompactd, under load) makes a page already touched,
 * a code page or a stack page fault again: one more now and then, which a
 * test of exact counts must not take for the shim's. */
static long thread_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* With WORKLOAD_FAULTS set: "faults NAME N" on stderr, N the kernel's
 * count inside region NAME.  A raw write: no cancellation point (the
 * pending-cancel thread reports too). */
static void report_faults(const char *step, long n)
{
	char line[128];
	int k;

	if (!getenv("WORKLOAD_FAULTS"))
		return;
	k = snprintf(line, sizeof(line), "faults %s %ld\n", step, n);
	if (k > 0)
		syscall(SYS_write, 2, line, (size_t)k < sizeof(line) ? (size_t)k : sizeof(line) - 1);
}

static void touch_region(const char *name, long pages)
{
	char *p = map_pages(pages);
	long f;

	HPC_BEGIN(name);
	f = thread_faults();
	touch(p, pages);
	f = thread_faults() - f;
	HPC_END(name);
	report_faults(name, f);
	munmap(p, (size_t)pages * PAGE);
}

static void sleep_region(long n, long us)
{
	struct timespec ts = { 0, us * 1000 };

	HPC_BEGIN("sleep");
	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	HPC_END("sleep");
}

static void nested(long a, long b)
{
	char *pa = map_pages(a), *pb = map_pages(b);
	long fo, fi;

	HPC_BEGIN("outer");
	fo = thread_faults();
	touch(pa, a);
	HPC_BEGIN("inner");
	fi = thread_faults();
	touch(pb, b);
	fi = thread_faults() - fi;
	HPC_END("inner");
	fo = thread_faults() - fo;
	HPC_END("outer");
	report_faults("inner", fi);
	report_faults("outer", fo);
	munmap(pa, (size_t)a * PAGE);
	munmap(pb, (size_t)b * PAGE);
}

struct job {
	long pages;
	sem_t *ready;
};

static void *worker(void *arg)
{
	touch_region("work", ((struct job *)arg)->pages);
	return NULL;
}

static void threads(long n, long per)
{
	pthread_t tid[n];
	struct job jobs[n];

	for (long i = 0; i < n; i++) {
		jobs[i].pages = (i + 1) * per;
		if (pthread_create(&tid[i], NULL, worker, &jobs[i]) != 0)
			exit(98);
	}
	for (long i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
}

static void *pexit_worker(void *arg)
{
	touch_region("work", ((struct job *)arg)->pages);
	pthread_exit(NULL);
}

static void *cancel_worker(void *arg)
{
	struct job *j = arg;

	touch_region("work", j->pages);
	sem_post(j->ready);
	for (;;)
		pause(); /* a cancellation point */
	return NULL;
}

/* A region boundary is no cancellation point (none is without the shim):
 * with a cancellation pending, the region runs to its END and the thread
 * goes only at its own pthread_testcancel. */
static int cancel_sent, survived;

static void *pending_worker(void *arg)
{
	struct job *j = arg;

	sem_post(j->ready);
	while (!__atomic_load_n(&cancel_sent, __ATOMIC_ACQUIRE))
		; /* no cancellation point while main cancels */
	touch_region("work", j->pages);
	__atomic_store_n(&survived, 1, __ATOMIC_RELEASE);
	pthread_testcancel();
	return NULL;
}

static void pending(long pages)
{
	sem_t ready;
	struct job j = { pages, &ready };
	pthread_t t;
	void *ret = NULL;

	sem_init(&ready, 0, 0);
	if (pthread_create(&t, NULL, pending_worker, &j) != 0)
		exit(98);
	while (sem_wait(&ready) != 0)
		;
	pthread_cancel(t);
	__atomic_store_n(&cancel_sent, 1, __ATOMIC_RELEASE);
	pthread_join(t, &ret);
	sem_destroy(&ready);
	printf("pending survived %d canceled %d\n",
	       __atomic_load_n(&survived, __ATOMIC_ACQUIRE), ret == PTHREAD_CANCELED);
}

static void one_thread(void *(*fn)(void *), long pages, int cancel)
{
	sem_t ready;
	struct job j = { pages, &ready };
	pthread_t t;

	sem_init(&ready, 0, 0);
	if (pthread_create(&t, NULL, fn, &j) != 0)
		exit(98);
	if (cancel) {
		while (sem_wait(&ready) != 0)
			;
		pthread_cancel(t);
	}
	pthread_join(t, NULL);
	sem_destroy(&ready);
}

static void *linger_worker(void *arg)
{
	struct job *j = arg;

	touch_region("work", j->pages);
	sem_post(j->ready);
	for (;;)
		pause();
	return NULL;
}

/* The thread outlives main: the process exits while it is blocked. */
static void linger(long pages)
{
	static sem_t ready;
	static struct job j;
	pthread_t t;

	sem_init(&ready, 0, 0);
	j.pages = pages;
	j.ready = &ready;
	if (pthread_create(&t, NULL, linger_worker, &j) != 0)
		exit(98);
	while (sem_wait(&ready) != 0)
		;
}

/* faults: the outermost level's (the kernel's count inside it), else
 * NULL; on the caller's stack, not a global whose first write would fault
 * inside the region */
static void recurse(long depth, long pages, long *faults)
{
	char *p;

	if (depth == 0)
		return;
	p = map_pages(pages);
	HPC_BEGIN("rec");
	if (faults)
		*faults = thread_faults();
	touch(p, pages);
	recurse(depth - 1, pages, NULL);
	if (faults)
		*faults = thread_faults() - *faults;
	HPC_END("rec");
	munmap(p, (size_t)pages * PAGE);
}

static void mismatch(void)
{
	HPC_BEGIN("a");
	HPC_BEGIN("b");
	HPC_END("a"); /* closes b implicitly */
	HPC_END("c"); /* never opened */
}

extern char **environ;

static char altstack_mem[1 << 16];

static void on_catch(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	printf("caught %d code %d\n", sig, si->si_code);
	fflush(stdout);
	exit(catch_code);
}

static void on_rethrow(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_altstack(int sig)
{
	char here;
	int on = &here >= altstack_mem && &here < altstack_mem + sizeof(altstack_mem);
	char msg[] = "altstack 0\n";

	(void)sig;
	msg[9] = (char)('0' + on);
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(8);
	_exit(9);
}

static void segv(void)
{
	fflush(stdout);
	*(volatile int *)(uintptr_t)0 = 1;
}

static void signals(const char *what, int sig, int code)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	fflush(stdout);
	if (strcmp(what, "catch") == 0) {
		catch_code = code;
		sa.sa_sigaction = on_catch;
		sa.sa_flags = SA_SIGINFO;
		sigaction(sig, &sa, NULL);
		raise(sig);
	} else if (strcmp(what, "rethrow") == 0) {
		signal(sig, on_rethrow);
		raise(sig);
	} else if (strcmp(what, "ignore") == 0) {
		signal(sig, SIG_IGN);
		raise(sig);
		printf("survived %d\n", sig);
	} else if (strcmp(what, "altstack") == 0) {
		stack_t ss = { .ss_sp = altstack_mem, .ss_size = sizeof(altstack_mem) };
		sigaltstack(&ss, NULL);
		sa.sa_handler = on_altstack;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGSEGV, &sa, NULL);
		segv();
	} else if (strcmp(what, "mask") == 0) {
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_BLOCK, &set, NULL);
		raise(sig);
		sigpending(&set);
		printf("pending %d\n", sigismember(&set, sig));
		fflush(stdout);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		printf("still alive\n");
	} else if (strcmp(what, "query") == 0) {
		sigaction(sig, NULL, &sa);
		printf("dfl %d\n", sa.sa_handler == SIG_DFL);
	}
}

static void do_fork(long pages)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(97);
	if (pid == 0) {
		touch_region("child", pages);
		exit(0);
	}
	waitpid(pid, &st, 0);
	printf("fork child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void do_vfork(void)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = vfork();
	if (pid < 0)
		exit(97);
	if (pid == 0)
		_exit(7);
	waitpid(pid, &st, 0);
	printf("vfork child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void do_spawn(long pages)
{
	char n[32], *args[] = { "workload", "touch", n, NULL };
	pid_t pid;
	int st;

	snprintf(n, sizeof(n), "%ld", pages);
	fflush(stdout);
	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0)
		exit(97);
	waitpid(pid, &st, 0);
	printf("spawn child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void do_system(long pages)
{
	char self[4096], cmd[4200];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		exit(97);
	self[n] = '\0';
	snprintf(cmd, sizeof(cmd), "'%s' touch %ld >/dev/null", self, pages);
	fflush(stdout);
	printf("system status %d\n", system(cmd));
}

static void do_exec(int argc, char **argv, int from)
{
	char *args[argc - from + 2];

	args[0] = argv[0];
	for (int i = from; i < argc; i++)
		args[i - from + 1] = argv[i];
	args[argc - from + 1] = NULL;
	fflush(stdout);
	execv("/proc/self/exe", args);
	perror("execv");
	exit(96);
}

struct exiter {
	long pages;
	int code;
};

static void *exit_worker(void *arg)
{
	struct exiter *e = arg;

	touch_region("work", e->pages);
	fflush(stdout);
	exit(e->code);
}

static void thread_exit(long pages, int code)
{
	static struct exiter e;
	pthread_t t;

	e.pages = pages;
	e.code = code;
	if (pthread_create(&t, NULL, exit_worker, &e) != 0)
		exit(98);
	for (;;)
		pause(); /* the worker ends the process */
}

static void *last_worker(void *arg)
{
	touch_region("work", *(long *)arg);
	return NULL;
}

static void main_pexit(long pages)
{
	static long p;
	pthread_t t;

	p = pages;
	if (pthread_create(&t, NULL, last_worker, &p) != 0)
		exit(98);
	fflush(stdout);
	pthread_exit(NULL);
}

static void badnames(void)
{
	static const char *const names[] = {
		"quote\"d", "back\\slash", "ctl\x01\x1f\n\t", "bad\xff\xfe utf8",
		"overlong\xc0\xaf", "", "\xe2\x82\xac euro",
	};
	size_t big = 1 << 20;
	char *huge = malloc(big + 1);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		HPC_BEGIN(names[i]);
		HPC_END(names[i]);
	}
	HPC_BEGIN(NULL);
	HPC_END(NULL);
	if (huge) {
		memset(huge, 'x', big);
		huge[big] = '\0';
		HPC_BEGIN(huge);
		HPC_END(huge);
		free(huge);
	}
	HPC_END("never-opened");
}

/* Writes into a pipe, crosses region boundaries (which read counters),
 * then checks every byte arrives: a shim reading a reused descriptor would
 * swallow them. */
static void pipe_check(const char *how)
{
	char buf[64] = "";
	int p[2];

	if (pipe(p) != 0)
		exit(95);
	if (write(p[1], "hello through the pipe", 22) != 22)
		exit(95);
	for (int i = 0; i < 5; i++) {
		HPC_BEGIN("after_close");
		touch_region("touch", 10);
		HPC_END("after_close");
	}
	printf("%s: pipe %s\n", how,
	       read(p[0], buf, sizeof(buf)) == 22 &&
	       memcmp(buf, "hello through the pipe", 22) == 0 ? "ok" : "CORRUPTED");
	close(p[0]);
	close(p[1]);
}

static int perf_fds(int *fds, int max)
{
	char path[300], target[128];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)) != NULL) {
		ssize_t k;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		k = readlink(path, target, sizeof(target) - 1);
		if (k > 0) {
			target[k] = '\0';
			if (strstr(target, "perf_event") && n < max)
				fds[n++] = atoi(de->d_name);
		}
	}
	if (d)
		closedir(d);
	return n;
}

static void fd_games(const char *what)
{
	if (strcmp(what, "closeall") == 0) {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	} else if (strcmp(what, "closerange") == 0) {
		if (close_range(3, ~0U, 0) != 0)
			exit(94);
	} else if (strcmp(what, "dup2over") == 0) {
		int fds[256], n = perf_fds(fds, 256), p[2];

		if (pipe(p) != 0)
			exit(95);
		for (int i = 0; i < n; i++)
			dup2(p[0], fds[i]);
		(void)n;
	}
	pipe_check(what);
}

static void *churn_worker(void *arg)
{
	(void)arg;
	touch_region("w", 1);
	return NULL;
}

static void churn(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, churn_worker, NULL) != 0)
			exit(98);
		pthread_join(t, NULL);
	}
}

static char *raw_pages;
static long raw_npages;
static volatile int raw_ready;

/* Runs without a TLS of its own (it shares the creator's): memory
 * accesses only, no libc. */
static int raw_thread(void *arg)
{
	(void)arg;
	for (long i = 0; i < raw_npages; i++)
		raw_pages[i * PAGE] = 1;
	__atomic_store_n(&raw_ready, 1, __ATOMIC_RELEASE);
	for (;;)
		__asm__ volatile("" ::: "memory");
	return 0;
}

static void rawclone(long pages)
{
	size_t stack = 1 << 16;
	char *st = mmap(NULL, stack, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	raw_pages = map_pages(pages);
	raw_npages = pages;
	if (st == MAP_FAILED ||
	    clone(raw_thread, st + stack, CLONE_VM | CLONE_FS | CLONE_FILES |
		  CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, NULL) < 0)
		exit(93);
	while (!__atomic_load_n(&raw_ready, __ATOMIC_ACQUIRE))
		sched_yield();
}

/* A real kernel failure of perf_event_open, not a mock of our code. */
static void seccomp_errno(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		exit(92);
}

static sem_t detached_done;

static void *detached_worker(void *arg)
{
	touch_region("work", *(long *)arg);
	sem_post(&detached_done);
	return NULL;
}

static void detached(long n, long pages)
{
	static long p;
	pthread_attr_t a;

	p = pages;
	sem_init(&detached_done, 0, 0);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &a, detached_worker, &p) != 0)
			exit(98);
	}
	for (long i = 0; i < n; i++)
		while (sem_wait(&detached_done) != 0)
			;
	pthread_attr_destroy(&a);
}

static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

static long arg(char **argv, int *i, int argc)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "workload: %s needs an argument\n", argv[*i]);
		exit(2);
	}
	return atol(argv[++*i]);
}

int main(int argc, char **argv)
{
	prefault_stack();
	thread_faults(); /* getrusage bound now: its lazy binding's fault is not a region's */
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "busy") == 0) {
			long ms = arg(argv, &i, argc);
			HPC_BEGIN("busy");
			busy(ms);
			HPC_END("busy");
			printf("busy %ld ms\n", ms);
		} else if (strcmp(s, "touch") == 0) {
			long p = arg(argv, &i, argc);
			touch_region("touch", p);
			printf("touched %ld pages\n", p);
		} else if (strcmp(s, "sleep") == 0) {
			long n = arg(argv, &i, argc), us = arg(argv, &i, argc);
			sleep_region(n, us);
			printf("slept %ld x %ld us\n", n, us);
		} else if (strcmp(s, "nested") == 0) {
			long a = arg(argv, &i, argc), b = arg(argv, &i, argc);
			nested(a, b);
			printf("nested %ld %ld\n", a, b);
		} else if (strcmp(s, "threads") == 0) {
			long n = arg(argv, &i, argc), p = arg(argv, &i, argc);
			threads(n, p);
			printf("threads %ld x %ld\n", n, p);
		} else if (strcmp(s, "pexit") == 0) {
			long p = arg(argv, &i, argc);
			one_thread(pexit_worker, p, 0);
			printf("pexit %ld\n", p);
		} else if (strcmp(s, "cancel") == 0) {
			long p = arg(argv, &i, argc);
			one_thread(cancel_worker, p, 1);
			printf("cancel %ld\n", p);
		} else if (strcmp(s, "pending") == 0) {
			pending(arg(argv, &i, argc));
		} else if (strcmp(s, "linger") == 0) {
			long p = arg(argv, &i, argc);
			linger(p);
			printf("linger %ld\n", p);
		} else if (strcmp(s, "recurse") == 0) {
			long d = arg(argv, &i, argc), p = arg(argv, &i, argc), f = 0;

			recurse(d, p, &f);
			report_faults("rec", f);
			printf("recurse %ld %ld\n", d, p);
		} else if (strcmp(s, "mismatch") == 0) {
			mismatch();
			printf("mismatch\n");
		} else if (strcmp(s, "fork") == 0) {
			do_fork(arg(argv, &i, argc));
		} else if (strcmp(s, "vfork") == 0) {
			do_vfork();
		} else if (strcmp(s, "spawn") == 0) {
			do_spawn(arg(argv, &i, argc));
		} else if (strcmp(s, "system") == 0) {
			do_system(arg(argv, &i, argc));
		} else if (strcmp(s, "execform") == 0) {
			const char *f = argv[++i < argc ? i : 0];
			char *p = argv[++i < argc ? i : 0];
			fflush(stdout);
			if (strcmp(f, "l") == 0)
				execl("/proc/self/exe", "workload", "touch", p, (char *)NULL);
			else if (strcmp(f, "lp") == 0)
				execlp("/proc/self/exe", "workload", "touch", p, (char *)NULL);
			else
				execle("/proc/self/exe", "workload", "touch", p, (char *)NULL, environ);
			exit(96);
		} else if (strcmp(s, "badexec") == 0) {
			char *none[] = { "none", NULL };
			execv("/nonexistent/hpcshim-none", none);
			printf("badexec failed\n");
		} else if (strcmp(s, "exec") == 0) {
			do_exec(argc, argv, i + 1);
		} else if (strcmp(s, "_exit") == 0) {
			int code = (int)arg(argv, &i, argc);
			printf("_exit %d\n", code);
			fflush(stdout);
			_exit(code);
		} else if (strcmp(s, "thread_exit") == 0) {
			long p = arg(argv, &i, argc);
			thread_exit(p, (int)arg(argv, &i, argc));
		} else if (strcmp(s, "main_pexit") == 0) {
			main_pexit(arg(argv, &i, argc));
		} else if (strcmp(s, "segv") == 0) {
			segv();
		} else if (strcmp(s, "abort") == 0) {
			fflush(stdout);
			abort();
		} else if (strcmp(s, "raise") == 0) {
			int sig = (int)arg(argv, &i, argc);
			fflush(stdout);
			raise(sig);
		} else if (strcmp(s, "catch") == 0) {
			int sig = (int)arg(argv, &i, argc);
			signals(s, sig, (int)arg(argv, &i, argc));
		} else if (strcmp(s, "rethrow") == 0 || strcmp(s, "ignore") == 0 ||
			   strcmp(s, "mask") == 0 || strcmp(s, "query") == 0) {
			signals(s, (int)arg(argv, &i, argc), 0);
		} else if (strcmp(s, "altstack") == 0) {
			signals(s, SIGSEGV, 0);
		} else if (strcmp(s, "badnames") == 0) {
			badnames();
			printf("badnames\n");
		} else if (strcmp(s, "closeall") == 0 || strcmp(s, "closerange") == 0 ||
			   strcmp(s, "dup2over") == 0) {
			fd_games(s);
		} else if (strcmp(s, "fdcount") == 0) {
			int fds[4096];
			printf("perf fds %d\n", perf_fds(fds, 4096));
		} else if (strcmp(s, "openfiles") == 0) {
			long n = arg(argv, &i, argc), ok = 0;
			for (long k = 0; k < n; k++)
				ok += open("/dev/null", O_RDONLY) >= 0;
			printf("opened %ld of %ld\n", ok, n);
		} else if (strcmp(s, "churn") == 0) {
			long n = arg(argv, &i, argc);
			churn(n);
			printf("churn %ld\n", n);
		} else if (strcmp(s, "rawclone") == 0) {
			long p = arg(argv, &i, argc);
			rawclone(p);
			printf("rawclone %ld\n", p);
		} else if (strcmp(s, "seccomp") == 0) {
			seccomp_errno((int)arg(argv, &i, argc));
		} else if (strcmp(s, "detached") == 0) {
			long n = arg(argv, &i, argc), p = arg(argv, &i, argc);
			detached(n, p);
			printf("detached %ld x %ld\n", n, p);
		} else if (strcmp(s, "rss") == 0) {
			printf("rss %ld\n", rss_kib());
		} else if (strcmp(s, "exit") == 0) {
			int code = (int)arg(argv, &i, argc);
			printf("exit %d\n", code);
			exit(code);
		} else {
			fprintf(stderr, "workload: unknown step '%s'\n", s);
			return 2;
		}
	}
	return 0;
}
