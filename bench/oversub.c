/* oversub.c - busy-yielding workers, more of them than CPUs: the pattern of
 * an oversubscribed MPI job whose ranks poll with sched_yield().
 *
 * Usage: oversub [-p WORKERS] [-n PASSES] [-u WORK] [-c CPUS] [-t] [-v] [LABEL]
 *
 * WORKERS processes (forked; -t: threads) pass a token around through
 * shared memory PASSES times in all.  The holder does WORK dependent
 * multiply-adds, then hands the token to the next worker; every worker
 * without the token polls it with sched_yield() in between, as Open MPI's
 * progress loop does when oversubscribed (mpi_yield_when_idle).  With more
 * workers than CPUs the token only moves when the scheduler switches to its
 * holder, so the run is a fixed amount of work plus a number of context
 * switches, and what a switch costs decides the run time.
 *
 * -c CPUS restricts the workers to the first CPUS online CPUs (default:
 * all).  Prints one line:
 *
 *     LABEL SECONDS SWITCHES YIELDS
 *
 * with SWITCHES the workers' voluntary + involuntary context switches from
 * getrusage() (children for processes, the process for threads) and YIELDS
 * the sched_yield() calls made.
 *
 * Each worker's loop is the region "oversub.spin", bracketed by
 * getrusage(RUSAGE_THREAD) calls; -v prints one line per worker,
 *
 *     worker TID SWITCHES_IN_REGION
 *
 * the kernel's count of the worker's context switches across the region,
 * which the shim's context-switches of the region must match but for the
 * few instructions between each getrusage() and the region boundary
 * (tests/shim/test_oversub.py).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "annotate/hpcshim.h"

#define USAGE "oversub [-p WORKERS] [-n PASSES] [-u WORK] [-c CPUS] [-t] [-v] [LABEL]"
#define MAX_WORKERS 256

struct shared {
	_Atomic long token; /* passes done; worker token % nworkers holds it */
	_Atomic long yields;
	char pad[64];
};

static struct shared *sh;
static int nworkers = 4;
static long passes = 20000;
static long work = 2000;
static int verbose;
static volatile unsigned long long sink;

static void worker(int me)
{
	unsigned long long x = (unsigned long long)me;
	long yields = 0;
	struct rusage r0, r1;

	getrusage(RUSAGE_THREAD, &r0);
	HPC_BEGIN("oversub.spin");
	for (;;) {
		long t = atomic_load_explicit(&sh->token, memory_order_acquire);

		if (t >= passes)
			break;
		if (t % nworkers != me) {
			sched_yield();
			yields++;
			continue;
		}
		for (long i = 0; i < work; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		atomic_store_explicit(&sh->token, t + 1, memory_order_release);
	}
	HPC_END("oversub.spin");
	getrusage(RUSAGE_THREAD, &r1);
	sink = x;
	if (verbose) /* one write(): lines of workers do not mix */
		printf("worker %ld %ld\n", (long)syscall(SYS_gettid),
		       r1.ru_nvcsw + r1.ru_nivcsw - r0.ru_nvcsw - r0.ru_nivcsw);
	fflush(stdout);
	atomic_fetch_add(&sh->yields, yields);
}

static void *thread_main(void *arg)
{
	worker((int)(long)arg);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first n online CPUs of our affinity mask, for us and our workers. */
static void restrict_cpus(int n)
{
	cpu_set_t have, want;
	int taken = 0;

	if (n <= 0 || sched_getaffinity(0, sizeof(have), &have))
		return;
	CPU_ZERO(&want);
	for (int c = 0; c < CPU_SETSIZE && taken < n; c++)
		if (CPU_ISSET(c, &have)) {
			CPU_SET(c, &want);
			taken++;
		}
	if (sched_setaffinity(0, sizeof(want), &want))
		perror("oversub: sched_setaffinity");
}

int main(int argc, char **argv)
{
	const char *label = "run";
	pthread_t tid[MAX_WORKERS];
	pid_t pid[MAX_WORKERS];
	struct rusage ru;
	int threads = 0, cpus = 0, opt;
	double t0, t1;

	while ((opt = getopt(argc, argv, "p:n:u:c:tv")) != -1) {
		switch (opt) {
		case 'p': nworkers = atoi(optarg); break;
		case 'n': passes = atol(optarg); break;
		case 'u': work = atol(optarg); break;
		case 'c': cpus = atoi(optarg); break;
		case 't': threads = 1; break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: %s\n", USAGE);
			return 2;
		}
	}
	if (optind < argc)
		label = argv[optind];
	if (nworkers < 1 || nworkers > MAX_WORKERS || passes < 0 || work < 0) {
		fprintf(stderr, "usage: %s\n", USAGE);
		return 2;
	}
	restrict_cpus(cpus);
	setvbuf(stdout, NULL, _IOFBF, 4096);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("oversub: mmap");
		return 1;
	}
	t0 = now();
	for (int i = 0; i < nworkers; i++) {
		if (threads) {
			if (pthread_create(&tid[i], NULL, thread_main,
					   (void *)(long)i)) {
				fprintf(stderr, "oversub: pthread_create failed\n");
				return 1;
			}
			continue;
		}
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("oversub: fork");
			return 1;
		}
		if (pid[i] == 0) {
			worker(i);
			exit(0);
		}
	}
	for (int i = 0; i < nworkers; i++) {
		int st;

		if (threads)
			pthread_join(tid[i], NULL);
		else if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) ||
			 WEXITSTATUS(st)) {
			fprintf(stderr, "oversub: worker %d failed\n", i);
			return 1;
		}
	}
	t1 = now();
	getrusage(threads ? RUSAGE_SELF : RUSAGE_CHILDREN, &ru);
	printf("%s %.6f %ld %ld\n", label, t1 - t0, ru.ru_nvcsw + ru.ru_nivcsw,
	       atomic_load(&sh->yields));
	return 0;
}
