/* iobytes.c - each I/O call of the io wrap set whose bytes the profile
 * counts from the return value, REPEAT times with its own byte count, and
 * once failing (tests/shim/test_iobytes.py).
 *
 * Usage: iobytes DIR REPEAT
 *
 * Each kind moves its own number of bytes per call (size[], 1000 to
 * 1010; a receive what its send sent): preadv, pwritev, preadv2,
 * pwritev2, sendfile and copy_file_range on files in DIR; send/recv,
 * sendto/recvfrom, sendmsg/recvmsg over a socketpair.  Each then fails once (a closed descriptor: -1, no bytes).
 * Prints "NAME BYTES" per function: the sum of what its calls returned,
 * which the test compares with the profile's bytes.  Exit 1 when a call
 * moved fewer bytes than asked.
 */
#undef _FORTIFY_SOURCE /* recv would be __recv_chk, which the set does not list */
/* _GNU_SOURCE (preadv2, sendfile, copy_file_range): from configure */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAXN 2000

static char buf[MAXN], back[MAXN];
static int src, dst, sock[2], failed;

enum { PREADV, PWRITEV, PREADV2, PWRITEV2, SENDFILE, COPY, SEND, RECV, SENDTO, RECVFROM,
       SENDMSG, RECVMSG, NCALLS };
static const char *const names[NCALLS] = {
	"preadv", "pwritev", "preadv2", "pwritev2", "sendfile", "copy_file_range",
	"send",   "recv",    "sendto",  "recvfrom", "sendmsg",  "recvmsg",
};
/* A receive takes what its send put: the same size. */
static const size_t size[NCALLS] = { 1000, 1001, 1002, 1003, 1004, 1005,
				     1006, 1006, 1008, 1008, 1010, 1010 };
static long long sum[NCALLS];

/* Two pieces, so the vector calls gather and scatter. */
static void split(struct iovec *iov, char *p, size_t n)
{
	iov[0] = (struct iovec){ p, n / 2 };
	iov[1] = (struct iovec){ p + n / 2, n - n / 2 };
}

static void note(int k, ssize_t got, size_t want)
{
	if (got > 0)
		sum[k] += got;
	if (want && got != (ssize_t)want) {
		fprintf(stderr, "iobytes: %s moved %zd of %zu bytes\n", names[k], got, want);
		failed = 1;
	}
}

/* Call k with n bytes; or, bad a closed descriptor, the failing call,
 * which must return -1. */
static void call(int k, int bad, size_t n)
{
	struct iovec iov[2];
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	int in = bad >= 0 ? bad : src, out = bad >= 0 ? bad : dst;
	int s = bad >= 0 ? bad : sock[0], r = bad >= 0 ? bad : sock[1];
	off_t off = 0, off2 = 0;
	ssize_t got = -1;

	split(iov, k == RECVMSG || k == PREADV || k == PREADV2 ? back : buf, n);
	switch (k) {
	case PREADV: got = preadv(in, iov, 2, 0); break;
	case PWRITEV: got = pwritev(out, iov, 2, 0); break;
	case PREADV2: got = preadv2(in, iov, 2, 0, 0); break;
	case PWRITEV2: got = pwritev2(out, iov, 2, 0, 0); break;
	case SENDFILE: got = sendfile(out, in, &off, n); break;
	case COPY: got = copy_file_range(in, &off, out, &off2, n, 0); break;
	case SEND: got = send(s, buf, n, 0); break;
	case RECV: got = recv(r, back, n, MSG_WAITALL); break;
	case SENDTO: got = sendto(s, buf, n, 0, NULL, 0); break;
	case RECVFROM: got = recvfrom(r, back, n, MSG_WAITALL, NULL, NULL); break;
	case SENDMSG: got = sendmsg(s, &m, 0); break;
	case RECVMSG: got = recvmsg(r, &m, MSG_WAITALL); break;
	}
	if (bad >= 0 && got != -1) {
		fprintf(stderr, "iobytes: %s on a closed descriptor returned %zd\n", names[k], got);
		failed = 1;
	}
	note(k, got, bad >= 0 ? 0 : n);
}

static int open_in(const char *dir, const char *name, int flags)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	int repeat = argc > 2 ? atoi(argv[2]) : 0, closed;

	if (argc != 3 || repeat < 1) {
		fputs("usage: iobytes DIR REPEAT\n", stderr);
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	src = open_in(argv[1], "src", O_RDWR | O_CREAT | O_TRUNC);
	dst = open_in(argv[1], "dst", O_RDWR | O_CREAT | O_TRUNC);
	if (pwrite(src, buf, sizeof(buf), 0) != sizeof(buf) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sock) != 0) {
		perror("iobytes: set-up");
		return 2;
	}
	/* a sender's calls before its receiver's: the socket's buffer (over
	 * 200 KB) holds what REPEAT small sends put in it */
	for (int k = 0; k < NCALLS; k++)
		for (int i = 0; i < repeat; i++)
			call(k, -1, size[k]);
	/* a descriptor number nothing holds: every call on it fails (EBADF) */
	closed = dup(src);
	close(closed);
	for (int k = 0; k < NCALLS; k++)
		call(k, closed, 2);
	for (int k = 0; k < NCALLS; k++)
		printf("%s %lld\n", names[k], sum[k]);
	return failed;
}
