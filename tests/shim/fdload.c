/* fdload.c - descriptors and limits under many live threads, for
 * tests/shim/test_fds.py.
 *
 * Usage: fdload STEP [ARGS] [STEP [ARGS] ...]
 *   nofile SOFT      setrlimit(RLIMIT_NOFILE) to SOFT, the hard limit kept
 *   lockdown N       drop CAP_SYS_RESOURCE (effective, permitted), then set
 *                    both limits to N: there is no room above N for anyone
 *   live N           start N threads (64 KiB stacks) that stay alive, each
 *                    having burnt a little CPU, until "release"
 *   release          let the live threads end; join them
 *   select           pipe(), FD_SET both ends, write a byte, select() on the
 *                    read end; prints the numbers and whether it was ready
 *   openall          open /dev/null until it fails; prints how many and the
 *                    errno, then closes them
 *   limits           prints RLIMIT_NOFILE from getrlimit, getrlimit64,
 *                    prlimit(0), prlimit(getpid()) and prlimit64
 *   closefrom        closefrom(3), then a pipe with a message in it, a
 *                    thread started and joined, the live threads released;
 *                    then the message is read back and printed
 * Prints one line per step; exits 0, or 90+ on an unexpected failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Each "live" step is a group of its own; "release" ends them all. */
struct group {
	pthread_barrier_t started, go;
	pthread_t *t;
	long n;
	struct group *next;
};
static struct group *groups;

static void burn(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec <
	       100000);
}

static void *live_worker(void *arg)
{
	struct group *g = arg;

	burn();
	pthread_barrier_wait(&g->started);
	pthread_barrier_wait(&g->go);
	return NULL;
}

static void live_start(long n)
{
	struct group *g = calloc(1, sizeof(*g));
	pthread_attr_t a;

	if (!g || !(g->t = calloc((size_t)n, sizeof(*g->t))) ||
	    pthread_barrier_init(&g->started, NULL, (unsigned)n + 1) ||
	    pthread_barrier_init(&g->go, NULL, (unsigned)n + 1))
		exit(90);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long i = 0; i < n; i++)
		if (pthread_create(&g->t[i], &a, live_worker, g) != 0)
			exit(91);
	pthread_barrier_wait(&g->started);
	g->n = n;
	g->next = groups;
	groups = g;
	printf("live %ld\n", n);
}

static void live_release(void)
{
	long n = 0;

	while (groups) {
		struct group *g = groups;

		pthread_barrier_wait(&g->go);
		for (long i = 0; i < g->n; i++)
			pthread_join(g->t[i], NULL);
		n += g->n;
		groups = g->next;
		free(g->t);
		free(g);
	}
	printf("released %ld\n", n);
}

static void set_nofile(rlim_t soft, rlim_t hard)
{
	struct rlimit r = { soft, hard };

	if (setrlimit(RLIMIT_NOFILE, &r) != 0) {
		printf("setrlimit: %s\n", strerror(errno));
		exit(92);
	}
	printf("nofile %llu %llu\n", (unsigned long long)soft,
	       (unsigned long long)hard);
}

static void lockdown(rlim_t n)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		exit(93);
	d[CAP_SYS_RESOURCE / 32].effective &= ~(1u << (CAP_SYS_RESOURCE % 32));
	d[CAP_SYS_RESOURCE / 32].permitted &= ~(1u << (CAP_SYS_RESOURCE % 32));
	d[CAP_SYS_RESOURCE / 32].inheritable &= ~(1u << (CAP_SYS_RESOURCE % 32));
	if (syscall(SYS_capset, &h, d) != 0)
		exit(93);
	set_nofile(n, n);
}

static void do_select(void)
{
	int p[2];
	fd_set r;
	struct timeval tv = { 5, 0 };

	if (pipe(p) != 0)
		exit(94);
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	FD_SET(p[1], &r);
	FD_CLR(p[1], &r);
	if (write(p[1], "x", 1) != 1)
		exit(94);
	printf("select %d ready %d\n", select(p[0] + 1, &r, NULL, NULL, &tv),
	       FD_ISSET(p[0], &r));
	printf("pipe below FD_SETSIZE %d\n", p[0] < FD_SETSIZE && p[1] < FD_SETSIZE);
	close(p[0]);
	close(p[1]);
}

static void openall(void)
{
	int n = 0, cap = 1 << 20, *fds = malloc(sizeof(int) * (size_t)cap), err;

	if (!fds)
		exit(95);
	for (;;) {
		int fd = open("/dev/null", O_RDONLY);

		if (fd < 0 || n == cap) {
			err = errno;
			if (fd >= 0)
				close(fd);
			break;
		}
		fds[n++] = fd;
	}
	printf("opened %d until %s\n", n, err == EMFILE ? "EMFILE" : strerror(err));
	while (n)
		close(fds[--n]);
	free(fds);
}

static void limits(void)
{
	struct rlimit a, c, d;
	struct rlimit64 b, e;

	if (getrlimit(RLIMIT_NOFILE, &a) || getrlimit64(RLIMIT_NOFILE, &b) ||
	    prlimit(0, RLIMIT_NOFILE, NULL, &c) ||
	    prlimit(getpid(), RLIMIT_NOFILE, NULL, &d) ||
	    prlimit64(0, RLIMIT_NOFILE, NULL, &e))
		exit(96);
	printf("limits %llu %llu, %llu %llu, %llu %llu, %llu %llu, %llu %llu\n",
	       (unsigned long long)a.rlim_cur, (unsigned long long)a.rlim_max,
	       (unsigned long long)b.rlim_cur, (unsigned long long)b.rlim_max,
	       (unsigned long long)c.rlim_cur, (unsigned long long)c.rlim_max,
	       (unsigned long long)d.rlim_cur, (unsigned long long)d.rlim_max,
	       (unsigned long long)e.rlim_cur, (unsigned long long)e.rlim_max);
}

static void *one_worker(void *arg)
{
	burn();
	return arg;
}

static void do_closefrom(void)
{
	static const char msg[] = "the program's own data";
	char buf[64] = "";
	int p[2];
	pthread_t t;
	ssize_t n;

	closefrom(3);
	if (pipe(p) != 0 || write(p[1], msg, sizeof(msg)) != sizeof(msg))
		exit(97);
	if (pthread_create(&t, NULL, one_worker, NULL) != 0)
		exit(97);
	pthread_join(t, NULL);
	live_release();
	n = read(p[0], buf, sizeof(buf) - 1);
	printf("closefrom: read %zd \"%s\"\n", n, n > 0 ? buf : "");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		long v = i + 1 < argc ? atol(argv[i + 1]) : 0;

		if (strcmp(s, "nofile") == 0) {
			struct rlimit r;

			getrlimit(RLIMIT_NOFILE, &r);
			set_nofile((rlim_t)v, r.rlim_max);
			i++;
		} else if (strcmp(s, "lockdown") == 0) {
			lockdown((rlim_t)v);
			i++;
		} else if (strcmp(s, "live") == 0) {
			live_start(v);
			i++;
		} else if (strcmp(s, "release") == 0) {
			live_release();
		} else if (strcmp(s, "select") == 0) {
			do_select();
		} else if (strcmp(s, "openall") == 0) {
			openall();
		} else if (strcmp(s, "limits") == 0) {
			limits();
		} else if (strcmp(s, "closefrom") == 0) {
			do_closefrom();
		} else {
			fprintf(stderr, "fdload: unknown step %s\n", s);
			return 2;
		}
	}
	return 0;
}
