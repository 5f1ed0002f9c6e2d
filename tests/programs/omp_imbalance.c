/* omp_imbalance.c - an OpenMP team of known imbalance
 * (tests/command/test_profile_run.py):  omp_imbalance T_MS ITER
 * In each of ITER parallel regions, OpenMP thread t burns (t+1) x T_MS ms
 * of its own CPU: with 2 threads, thread 0 waits about half of each
 * region at its implicit barrier.
 *
 * It prints the bracket of thread 0's wait by its own clock, summed over
 * the regions: at least from its work's end to the last thread's, at most
 * to the master's return from the region ("wait0_ms LO HI OFF"), so a test
 * holds on a loaded machine, where a thread's CPU takes longer wall.  OFF:
 * thread 0's time waiting for a CPU (runnable, preempted) between its
 * work's end and that return (it is the master), summed, from the
 * kernel's schedstat (without it: all its time off the CPU there): a
 * thread preempted after its work's end but before the shim's clock read
 * is seen to end later by the shim, by at most that much. */
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAXT 64

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile double sink;

/* The calling thread's time waiting on a run queue (ns), or -1.  Raw
 * system calls: the profile wraps open, read and fopen, and this is no
 * I/O of the program's. */
static long long run_delay(void)
{
	char buf[128];
	long long on, wait = -1;
	long n = -1;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/schedstat", O_RDONLY);

	if (fd >= 0) {
		n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
		syscall(SYS_close, fd);
	}
	if (n > 0) {
		buf[n] = '\0';
		if (sscanf(buf, "%lld %lld", &on, &wait) != 2)
			wait = -1;
	}
	return wait;
}

int main(int argc, char **argv)
{
	long long t = argc > 1 ? atoll(argv[1]) : 20;
	int iter = argc > 2 ? atoi(argv[2]) : 5;
	long long lo = 0, hi = 0, off = 0;

	for (int i = 0; i < iter; i++) {
		long long done[MAXT] = { 0 }, last = 0, after, cpu0 = 0, rq0 = -1, rq1;

#pragma omp parallel
		{
			int me = omp_get_thread_num();
			long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (me + 1) * t * 1000000LL;
			double x = 1;

			while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
				for (int k = 0; k < 1000; k++)
					x = x * 1.0000001 + 1e-9;
			sink = x;
			if (me < MAXT)
				done[me] = clock_ns(CLOCK_MONOTONIC);
			if (me == 0) {
				cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
				rq0 = run_delay();
			}
		}
		after = clock_ns(CLOCK_MONOTONIC);
		rq1 = run_delay();
		if (rq0 >= 0 && rq1 >= rq0)
			off += rq1 - rq0;
		else
			off += (after - done[0]) - (clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0);
		for (int k = 0; k < MAXT; k++)
			if (done[k] > last)
				last = done[k];
		lo += last - done[0];
		hi += after - done[0];
	}
	printf("wait0_ms %.3f %.3f %.3f\n", lo / 1e6, hi / 1e6, (off > 0 ? off : 0) / 1e6);
	return 0;
}
