/* papi_misuse.c - PAPI's high-level calls used wrong, each case in a
 * process of its own, their return codes printed: the same program
 * against the real PAPI and under the shim (tests/shim/test_markers.py).
 *
 * Usage: papi_misuse          (every case)
 *        papi_misuse CASE     (one case, in this process)
 *
 * Prints "CASE rc rc ..." per case, one return code per call in the
 * order made; a case that dies prints "signal N" after the codes it got.
 * The high-level API switches itself off for the whole process after an
 * error, so each case runs in a fresh child (fork before any PAPI call).
 *
 * The real PAPI needs an event it can count to initialise.  On a machine
 * without a PMU (a VM) it has none, so the program defines one itself: a
 * software-defined event (libsde), "sde:::papi_misuse::work", which the
 * test names in PAPI_EVENTS.  Under the shim the SDE is never read.
 */
#include <papi.h>
#include <pthread.h>
#include <sde_lib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long long work;

static void rc(int v)
{
	printf(" %d", v);
	fflush(stdout);
}

#define B(name) rc(PAPI_hl_region_begin(name))
#define E(name) rc(PAPI_hl_region_end(name))
#define R(name) rc(PAPI_hl_read(name))
#define S() rc(PAPI_hl_stop())

static void *other_end(void *arg)
{
	E((const char *)arg); /* a thread that never began one */
	S();
	return NULL;
}

/* A: begun on the main thread; another thread ends A and stops. */
static void case_thread(void)
{
	pthread_t th;

	B("A");
	if (pthread_create(&th, NULL, other_end, "A") == 0)
		pthread_join(th, NULL);
	E("A");
}

static void case_deep(void)
{
	static const char *n[] = { "d0", "d1", "d2", "d3", "d4", "d5",
				   "d6", "d7", "d8", "d9", "d10", "d11" };

	for (int i = 0; i < 12; i++)
		B(n[i]);
	B("after");
}

static void run(const char *c)
{
	if (!strcmp(c, "end_first")) { E("A"); B("A"); E("A"); }
	else if (!strcmp(c, "read_first")) { R("A"); B("A"); E("A"); }
	else if (!strcmp(c, "stop_first")) { S(); B("A"); E("A"); S(); }
	else if (!strcmp(c, "stop_twice")) { B("A"); E("A"); S(); S(); B("A"); S(); E("A"); }
	else if (!strcmp(c, "end_unknown")) { B("A"); E("B"); E("A"); B("C"); R("A"); S(); }
	else if (!strcmp(c, "end_twice")) { B("A"); E("A"); E("A"); B("B"); }
	else if (!strcmp(c, "end_outer")) { B("A"); B("B"); E("A"); E("B"); }
	else if (!strcmp(c, "read_unknown")) { B("A"); R("B"); R("A"); E("A"); R("A"); }
	else if (!strcmp(c, "read_outer")) { B("A"); B("B"); R("A"); E("B"); E("A"); }
	else if (!strcmp(c, "thread")) case_thread();
	else if (!strcmp(c, "deep")) case_deep();
	else if (!strcmp(c, "begin_null")) { B(NULL); B("A"); E("A"); }
	else if (!strcmp(c, "end_null")) { B("A"); E(NULL); B("B"); }
	else if (!strcmp(c, "read_null")) { B("A"); R(NULL); E("A"); }
}

static const char *const cases[] = {
	"end_first", "read_first", "stop_first", "stop_twice", "end_unknown",
	"end_twice", "end_outer", "read_unknown", "read_outer", "thread",
	"deep", "begin_null", "end_null", "read_null",
};

static void one(const char *c)
{
	printf("%s", c);
	fflush(stdout);
	run(c);
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	papi_handle_t h = papi_sde_init("papi_misuse");
	int st;

	papi_sde_register_counter(h, "work", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
				  &work);
	if (argc > 1) {
		one(argv[1]);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pid_t pid = fork();

		if (pid == 0) {
			one(cases[i]);
			exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0)
			return 2;
		if (WIFSIGNALED(st))
			printf(" signal %d\n", WTERMSIG(st));
		fflush(stdout);
	}
	return 0;
}
