/* fdspace.c - where our descriptors live: above the program's range.
 *
 * The kernel hands out the lowest free number, so counter descriptors
 * opened in the program's own range push the program's next files up: past
 * FD_SETSIZE (select() and FD_SET break) and, at its RLIMIT_NOFILE, out of
 * numbers.  So every counter descriptor is moved, right after
 * perf_event_open, to the lowest free number at or above
 *
 *     base = max(the program's soft RLIMIT_NOFILE, FD_SETSIZE)
 *
 * and the real soft limit is raised just past the highest number we hold:
 * one number at a time, so our space [base, limit) is always full and a
 * program that fills its own range still gets EMFILE where it would
 * without us.  The hard limit is raised in chunks when it must (only with
 * CAP_SYS_RESOURCE; never above /proc/sys/fs/nr_open).  The program keeps
 * seeing, and setting, its own limits: the preload layer answers
 * getrlimit/setrlimit/prlimit from the view kept here.  When nothing can
 * be raised and the space is full there is no room: the descriptor is
 * closed and the open fails with EMFILE (the program never is refused).
 *
 * Raw prlimit64 throughout: the libc names are interposed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/lock.h"
#include "common/sys.h"
#include "pmu/internal.h"

#define HARD_CHUNK 4096
#define TOP_CHUNK 256
#define NR_OPEN_MAX (1u << 30)

_Static_assert(sizeof(rlim_t) == 8, "struct rlimit is the kernel's rlimit64");

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	struct rlimit prog; /* the program's view                          */
	rlim_t top;         /* the soft limit we set for ourselves, or 0    */
	rlim_t nr_open;     /* read when the hard limit is first raised     */
	int base;           /* atomic: where our numbers start              */
	bool fixed;         /* atomic: the limit cannot be raised: fallback */
	rlim_t lo;          /* fallback: our numbers start here, or 0       */
	bool no_room;       /* atomic: the last placement found none        */
} fs = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

static int fdspace__prlimit(const struct rlimit *set, struct rlimit *old)
{
	return (int)syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, set, old);
}

static rlim_t fdspace__nr_open(void)
{
	char buf[32];
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/sys/fs/nr_open",
			      O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	rlim_t v = 0;

	if (fd >= 0)
		hs_sys__close(fd);
	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		v = v * 10 + (rlim_t)(buf[i] - '0');
	return v && v <= NR_OPEN_MAX ? v : 1024 * 1024;
}

static void fdspace__set_base(void)
{
	rlim_t b = fs.prog.rlim_cur > FD_SETSIZE ? fs.prog.rlim_cur : FD_SETSIZE;

	if (b > NR_OPEN_MAX)
		b = NR_OPEN_MAX;
	__atomic_store_n(&fs.base, (int)b, __ATOMIC_RELEASE);
}

/* The limits as the process started with them are the program's. */
static void fdspace__init(void)
{
	if (fdspace__prlimit(NULL, &fs.prog) != 0)
		fs.prog.rlim_cur = fs.prog.rlim_max = FD_SETSIZE;
	fdspace__set_base();
}

static void fdspace__ready(void)
{
	pthread_once(&fs.once, fdspace__init);
}

/* Our space [base, soft) is full: one more number, raising the hard limit
 * by a chunk when the soft one meets it.  0, or -1 when there is no room. */
static int fdspace__grow(int base)
{
	struct rlimit now, want;

	if (fdspace__prlimit(NULL, &now) != 0)
		return -1;
	want.rlim_cur = (now.rlim_cur > (rlim_t)base ? now.rlim_cur : (rlim_t)base) + 1;
	want.rlim_max = now.rlim_max;
	if (want.rlim_cur > now.rlim_max) {
		if (!fs.nr_open) /* only now: three system calls at start */
			fs.nr_open = fdspace__nr_open();
		want.rlim_max = now.rlim_max + HARD_CHUNK;
		if (want.rlim_max > fs.nr_open)
			want.rlim_max = fs.nr_open;
		if (want.rlim_cur > want.rlim_max)
			return -1;
	}
	if (fdspace__prlimit(&want, NULL) != 0)
		return -1; /* EPERM: no CAP_SYS_RESOURCE for the hard limit */
	fs.top = want.rlim_cur;
	return 0;
}

/* fs.lo is read without the lock by the fallback's fast path
 * (pmu_fdspace__place); written under it. */
static void fdspace__set_lo(rlim_t lo)
{
	__atomic_store_n(&fs.lo, lo, __ATOMIC_RELAXED);
}

/* No raising the limit (the program's soft limit is its hard one and we
 * lack CAP_SYS_RESOURCE, or nr_open): the top of the program's own range,
 * taken downwards in chunks, never below max(FD_SETSIZE, half the soft
 * limit).  The program keeps its low numbers (select() is safe) and loses
 * only as many numbers as we hold, from its top.  -1 when that is full. */
static int fdspace__place_top(int fd)
{
	struct rlimit now;
	rlim_t floor;

	if (fdspace__prlimit(NULL, &now) != 0)
		return -1;
	floor = now.rlim_cur / 2 > FD_SETSIZE ? now.rlim_cur / 2 : FD_SETSIZE;
	if (now.rlim_cur <= floor || now.rlim_cur > NR_OPEN_MAX)
		return -1;
	if (!fs.lo || fs.lo >= now.rlim_cur) {
		rlim_t lo = now.rlim_cur - TOP_CHUNK;

		fdspace__set_lo(lo > floor ? lo : floor);
	}
	for (;;) {
		int nfd = fcntl(fd, F_DUPFD_CLOEXEC, (int)fs.lo);

		if (nfd >= 0 || errno != EMFILE || fs.lo <= floor)
			return nfd;
		fdspace__set_lo(fs.lo - TOP_CHUNK > floor ? fs.lo - TOP_CHUNK : floor);
	}
}

static int fdspace__place_slow(int fd)
{
	int nfd = -1;

	if (!hs_lock__mutex(&fs.lock, true))
		return -1;
	while (!fs.fixed) {
		int base = __atomic_load_n(&fs.base, __ATOMIC_ACQUIRE);

		nfd = fcntl(fd, F_DUPFD_CLOEXEC, base);
		if (nfd >= 0 || (errno != EMFILE && errno != EINVAL))
			break;
		if (fdspace__grow(base) != 0)
			__atomic_store_n(&fs.fixed, true, __ATOMIC_RELAXED);
	}
	if (fs.fixed)
		nfd = fdspace__place_top(fd);
	__atomic_store_n(&fs.no_room, nfd < 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fs.lock);
	return nfd;
}

/* The new number for fd, fd left open; -1 when there is no room.  The
 * common cases take one fcntl and no lock: a free number in our space
 * above the limit, or, when the limit cannot be raised, at the top of the
 * program's range where the last placement found one (no prlimit each
 * time: a thread's start places one descriptor per event). */
static int fdspace__move(int fd)
{
	int nfd = -1, base = __atomic_load_n(&fs.base, __ATOMIC_ACQUIRE);

	if (fd >= base)
		return fd; /* the program's range was full: it landed in ours */
	if (!__atomic_load_n(&fs.fixed, __ATOMIC_RELAXED)) {
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, base);
	} else {
		rlim_t lo = __atomic_load_n(&fs.lo, __ATOMIC_RELAXED);

		if (lo)
			nfd = fcntl(fd, F_DUPFD_CLOEXEC, (int)lo);
	}
	if (nfd < 0)
		nfd = fdspace__place_slow(fd);
	return nfd;
}

int pmu_fdspace__place(int fd)
{
	int nfd;

	fdspace__ready();
	nfd = fdspace__move(fd);
	if (nfd != fd)
		hs_sys__close(fd);
	if (nfd < 0)
		errno = EMFILE;
	return nfd;
}

/* n new descriptors at once (one group's members, opened one after the
 * other in the program's range): each moved to our space, the old numbers
 * closed with one close_range when they are consecutive (they were free
 * and are ours, so nothing else is in between).  fd[] gets the new
 * numbers; on failure every old and new descriptor is closed, -1 with
 * errno EMFILE. */
int pmu_fdspace__place_n(int *fd, int n)
{
	int nfd[PMU_MAX_EVENTS], moved = 0, lo = INT_MAX, hi = -1;
	bool all_moved = true;

	fdspace__ready();
	for (; moved < n; moved++) {
		nfd[moved] = fdspace__move(fd[moved]);
		if (nfd[moved] < 0)
			break;
		all_moved &= nfd[moved] != fd[moved];
		lo = fd[moved] < lo ? fd[moved] : lo;
		hi = fd[moved] > hi ? fd[moved] : hi;
	}
	if (moved < n) {
		for (int i = 0; i < n; i++) {
			if (i < moved && nfd[i] != fd[i])
				hs_sys__close(nfd[i]);
			hs_sys__close(fd[i]);
			fd[i] = -1;
		}
		errno = EMFILE;
		return -1;
	}
	if (!all_moved || hi - lo + 1 != n ||
	    syscall(SYS_close_range, (unsigned int)lo, (unsigned int)hi, 0) != 0)
		for (int i = 0; i < n; i++)
			if (nfd[i] != fd[i])
				hs_sys__close(fd[i]);
	for (int i = 0; i < n; i++)
		fd[i] = nfd[i];
	return 0;
}

/* perf_event_open found no free number at all (EMFILE): the program's
 * range and ours are full.  One more number in ours, if there is room. */
bool pmu_fdspace__make_room(void)
{
	int rc;

	fdspace__ready();
	if (!hs_lock__mutex(&fs.lock, true))
		return false;
	rc = fs.fixed ? -1 : fdspace__grow(__atomic_load_n(&fs.base, __ATOMIC_ACQUIRE));
	__atomic_store_n(&fs.no_room, rc != 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&fs.lock);
	return rc == 0;
}

bool pmu_fdspace__no_room(void)
{
	return __atomic_load_n(&fs.no_room, __ATOMIC_RELAXED);
}

void pmu_fdspace__program(struct rlimit *view)
{
	fdspace__ready();
	if (!hs_lock__mutex(&fs.lock, true)) {
		*view = fs.prog;
		return;
	}
	*view = fs.prog;
	pthread_mutex_unlock(&fs.lock);
}

/* The program's request goes to the kernel as it is first, so it fails
 * exactly as it would without us (EINVAL, EPERM above the hard limit
 * without CAP_SYS_RESOURCE or above nr_open); then our space is kept: the
 * soft limit at least at our top, the hard one too when we may. */
int pmu_fdspace__set_program(const struct rlimit *want)
{
	struct rlimit keep;

	fdspace__ready();
	if (!hs_lock__mutex(&fs.lock, true))
		return -EAGAIN;
	if (fdspace__prlimit(want, NULL) != 0) {
		int err = errno;

		pthread_mutex_unlock(&fs.lock);
		return -err;
	}
	fs.prog = *want;
	fdspace__set_base();
	__atomic_store_n(&fs.fixed, false, __ATOMIC_RELAXED);
	fdspace__set_lo(0);
	keep = *want;
	if (fs.top > keep.rlim_cur) {
		keep.rlim_cur = fs.top;
		if (keep.rlim_max < fs.top)
			keep.rlim_max = fs.top;
		/* No raising the hard limit again (no CAP_SYS_RESOURCE): the
		 * program's request stands and our space starts over from
		 * base, up to its hard limit.  Our descriptors above it stay
		 * valid; no new one goes there. */
		if (fdspace__prlimit(&keep, NULL) != 0)
			fs.top = 0;
	}
	pthread_mutex_unlock(&fs.lock);
	return 0;
}

/* Before an exec: the next image starts with the program's limits (which
 * its own shim takes for the program's).  No lock and no store: a vfork
 * child runs this in its parent's memory, and a lock taken there would
 * stay taken in the parent.  A placement racing with it in another thread
 * may leave the next image a slightly raised soft limit. */
void pmu_fdspace__exec_begin(void)
{
	fdspace__ready();
	fdspace__prlimit(&fs.prog, NULL);
}

void pmu_fdspace__exec_failed(void)
{
	struct rlimit keep = fs.prog;

	if (fs.top > keep.rlim_cur) {
		keep.rlim_cur = fs.top;
		if (keep.rlim_max < fs.top)
			keep.rlim_max = fs.top;
		fdspace__prlimit(&keep, NULL);
	}
}
