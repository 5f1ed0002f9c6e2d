/* hpcshim-mpi.c - the MPI side of the in-job reduction (plugin.h), built
 * once per implementation with its compiler (mpicc.openmpi, mpicc.mpich)
 * into hpcshim-mpi-<name>.so; the shim dlopens the one that matches the
 * MPI of the process at MPI_Finalize.
 *
 * The ranks' summaries travel up a binomial tree of MPI_BYTE messages on a
 * duplicate of MPI_COMM_WORLD: in round s = 1, 2, 4..., rank r receives
 * from r + s when r % 2s == 0 and merges it into its own, and sends its
 * merged summary to r - s otherwise, then stops.  ceil(log2 P) rounds;
 * every message is one summary, whose size does not grow with the ranks
 * below it (aggregate/jobsum.h).  Then rank 0 sends its verdict and the
 * ranks that hold the extremes (HS_MPI_NAMED_MAX at most) down the same
 * tree, and each named rank sends rank 0 its own entry; at the end rank
 * 0's done goes down the tree.  The duplicate is made at MPI_Init, when
 * every rank is there (MPI_Comm_dup is collective), and from then on no
 * call is collective: a rank that never reaches MPI_Finalize (blocked,
 * dead) must not hold the others.  Every wait has a deadline, wait_ns
 * per level of the tree after the rank's arrival (a parent waits a level
 * longer than its child, which may be waiting for a missing child of its
 * own): a child not heard from by then is left out with the ranks below
 * it, and rank 0's document lists them missing; a rank whose parent or
 * rank 0 does not answer in time falls back to its own file.  A message
 * is its length (8 bytes: it goes eagerly, taken or not), then, after the
 * receiver's "go", the bytes in pieces of at most 1 GiB (MPI counts are
 * int): a receiver that gave up never says go, so no large send is left
 * pending towards it.  Errors return (MPI_ERRORS_RETURN).  Every wait is a
 * test and a short sleep (wait_until), not a blocking call that polls:
 * the waiting ranks leave the cores to those still working.
 */
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "preload/mpi/plugin.h"

#define PIECE (1 << 30)
/* Each kind of message its tag, so a late message of one phase never
 * matches a receive of another; a message's go and bytes tag + 1, + 2. */
#define TAG_UP 0x4850    /* a summary, child to parent */
#define TAG_NAMED 0x4860 /* rank 0's verdict and named ranks, down the tree */
#define TAG_ENTRY 0x4870 /* a named rank's entry, to rank 0 */
#define TAG_DONE 0x4880  /* rank 0's done, down the tree */
#define TAG_GAVEUP 0x4890 /* a parent's "too late" to a child it gave up on */
#define FAILED UINT64_MAX /* a length saying "no summary: this subtree failed" */
#define MAXKIDS 64

static MPI_Comm comm = MPI_COMM_NULL;
static int me, np, parent = -1, nkids, kids[MAXKIDS]; /* the children heard from */
static uint64_t t0, wait_ns, levels;
static int timed_out; /* something was given up on: the duplicate is kept */
static MPI_Request gaveup = MPI_REQUEST_NULL; /* the parent's "too late", posted early */
static int gaveup_buf;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Waits for a request until the deadline.  Nap: sleeping between tests
 * (50 us, doubling to 2 ms), for a peer that may still be summarising: a
 * waiting rank gives its core to the ranks still working (MPICH's blocking
 * calls poll, which on an oversubscribed node takes the cores from the
 * ranks with work).  Else testing without a pause but sched_yield, for the
 * bytes of a message whose peer is there: a large message's fragments
 * need both sides' progress, and a nap per fragment would cost seconds
 * per megabyte.  1 done, 0 the deadline passed (the request still
 * pending), -1 an MPI error. */
static int wait_until(MPI_Request *r, uint64_t deadline, int nap)
{
	long ns = 50000;
	int done = 0;

	for (;;) {
		if (MPI_Test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -1;
		if (done)
			return 1;
		if (now_ns() >= deadline)
			return 0;
		if (!nap) {
			sched_yield();
			continue;
		}
		nanosleep(&(struct timespec){ 0, ns }, NULL);
		if (ns < 2000000)
			ns *= 2;
	}
}

/* A receive given up on: cancelled, unless it completed meanwhile (1). */
static int drop_recv(MPI_Request *r)
{
	MPI_Status st;
	int cancelled = 0;

	timed_out = 1;
	MPI_Cancel(r);
	MPI_Wait(r, &st);
	MPI_Test_cancelled(&st, &cancelled);
	return !cancelled;
}

/* A send given up on: left to complete on its own (its buffer is never
 * freed: the caller leaks it). */
static void drop_send(MPI_Request *r)
{
	timed_out = 1;
	MPI_Request_free(r);
}

static int send_wait(const void *buf, int n, MPI_Datatype t, int to, int tag, uint64_t deadline,
		     int nap)
{
	MPI_Request r;
	int rc;

	if (MPI_Isend(buf, n, t, to, tag, comm, &r) != MPI_SUCCESS)
		return -1;
	rc = wait_until(&r, deadline, nap);
	if (rc == 0)
		drop_send(&r);
	return rc;
}

static int recv_wait(void *buf, int n, MPI_Datatype t, int from, int tag, uint64_t deadline,
		     int nap)
{
	MPI_Request r;
	int rc;

	if (MPI_Irecv(buf, n, t, from, tag, comm, &r) != MPI_SUCCESS)
		return -1;
	rc = wait_until(&r, deadline, nap);
	if (rc == 0)
		rc = drop_recv(&r);
	return rc;
}

/* A message: its length (8 bytes, small enough to go eagerly whether the
 * receiver is there or not), then, once the receiver has answered "go",
 * the bytes in pieces of at most 1 GiB (MPI counts are int).  A receiver
 * that gave up never answers, so no large send is left pending towards a
 * rank that will not take it.  1 sent, 0 the deadline passed (buf must
 * then stay allocated: *keep set), -1 an MPI error. */
static int send_msg(const void *buf, uint64_t len, int to, int tag, uint64_t deadline, int *keep)
{
	uint64_t *hdr = malloc(sizeof(*hdr));
	int go = 0, rc;

	*keep = 0;
	if (!hdr)
		return -1;
	*hdr = len;
	rc = send_wait(hdr, 8, MPI_BYTE, to, tag, deadline, 1);
	if (rc == 0)
		return 0; /* hdr leaked: the send may still read it */
	free(hdr);
	if (rc < 0 || len == FAILED || len == 0)
		return rc;
	rc = recv_wait(&go, 1, MPI_INT, to, tag + 1, deadline, 1);
	if (rc == 1 && deadline < now_ns() + wait_ns) /* the receiver is there */
		deadline = now_ns() + wait_ns;
	for (uint64_t off = 0; rc == 1 && off < len; off += PIECE) {
		uint64_t n = len - off < PIECE ? len - off : PIECE;
		rc = send_wait((const char *)buf + off, (int)n, MPI_BYTE, to, tag + 2, deadline, 0);
		if (rc == 0)
			*keep = 1;
	}
	return rc;
}

/* A message from `from` into *buf (malloc'd; NULL when *len is 0 or
 * FAILED).  1, 0 (the deadline passed), -1. */
static int recv_msg(void **buf, uint64_t *len, int from, int tag, uint64_t deadline)
{
	static const int go = 1;
	uint64_t n = 0;
	char *b;
	int rc = recv_wait(&n, 8, MPI_BYTE, from, tag, deadline, 1);

	*buf = NULL;
	*len = 0;
	if (rc != 1)
		return rc;
	*len = n;
	if (n == FAILED || n == 0)
		return 1;
	b = malloc(n);
	if (!b)
		return -1;
	if (deadline < now_ns() + wait_ns) /* the sender is there */
		deadline = now_ns() + wait_ns;
	rc = send_wait(&go, 1, MPI_INT, from, tag + 1, deadline, 0);
	for (uint64_t off = 0; rc == 1 && off < n; off += PIECE) {
		uint64_t k = n - off < PIECE ? n - off : PIECE;
		rc = recv_wait(b + off, (int)k, MPI_BYTE, from, tag + 2, deadline, 0);
	}
	if (rc != 1) {
		free(b);
		*len = 0;
		return rc;
	}
	*buf = b;
	return 1;
}

static int dup_world(void)
{
	if (comm != MPI_COMM_NULL)
		return 0;
	if (MPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
		comm = MPI_COMM_NULL;
		return -1;
	}
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	return 0;
}

static int plugin__init(void)
{
	return dup_world();
}

/* The deadline of a wait at a level of the tree: wait_ns per level after
 * this rank's arrival, so a parent waits one level longer than its child,
 * which may itself have waited for a missing child of its own. */
static uint64_t deadline(uint64_t level)
{
	return t0 + (level + 1) * wait_ns;
}

/* The tree: this rank's summary merged with its children's, sent to its
 * parent.  A child that has not sent by its deadline is left out with its
 * subtree; a child's failure (FAILED) makes this subtree's.  Returns 1,
 * or 0 when this rank's subtree failed, -1 when its parent did not take
 * its summary (this rank then falls back). */
static int tree(const struct hs_mpi_ops *ops, int good, int *rounds, char *why, size_t whylen)
{
	uint64_t k = 0;

	*rounds = 0;
	for (int s = 1; s < np; s *= 2, k++) {
		++*rounds;
		if (me % (2 * s) == 0) {
			void *b;
			uint64_t n;
			int rc;

			if (me + s >= np)
				continue;
			rc = recv_msg(&b, &n, me + s, TAG_UP, deadline(k));
			if (rc == 0) {
				/* missing, with the ranks below it; told so, should
				 * it come late: it then sends nothing that nobody
				 * would receive (UCX warns of those at finalize) */
				static const int late = 1;
				MPI_Request r;

				if (MPI_Isend(&late, 1, MPI_INT, me + s, TAG_GAVEUP, comm, &r) ==
					    MPI_SUCCESS &&
				    wait_until(&r, now_ns() + wait_ns, 1) == 0)
					drop_send(&r);
				continue;
			}
			if (rc < 0 || n == FAILED) {
				if (rc < 0 && !why[0])
					snprintf(why, whylen, "a message of the reduction tree failed");
				good = 0;
			} else if (good && ops->merge(ops->ctx, b, n) != 0) {
				good = 0;
			}
			if (rc == 1 && nkids < MAXKIDS)
				kids[nkids++] = me + s;
			free(b);
		} else {
			void *b = NULL;
			size_t n = 0;
			int keep = 0, rc;

			int late = 0;

			parent = me - s;
			/* too late: the parent gave up on this rank (its word was
			 * sent at its deadline, long before: a few tests see it) */
			for (int i = 0; i < 64 && !late && gaveup != MPI_REQUEST_NULL; i++)
				if (MPI_Test(&gaveup, &late, MPI_STATUS_IGNORE) != MPI_SUCCESS)
					break;
			if (late) {
				snprintf(why, whylen,
					 "rank %d had stopped waiting for this rank (HPCSHIM_MPI_WAIT)",
					 parent);
				return -1;
			}
			if (good && ops->pack(ops->ctx, &b, &n) != 0)
				good = 0;
			rc = send_msg(b, good ? n : FAILED, parent, TAG_UP, deadline(levels + 1),
				      &keep);
			if (!keep)
				free(b);
			if (rc != 1) {
				snprintf(why, whylen,
					 rc == 0 ? "rank %d did not take this rank's summary in time" :
						   "a message of the reduction tree failed (to rank %d)",
					 parent);
				return -1;
			}
			break;
		}
	}
	return good;
}

/* A small message to the children heard from (a child that went away
 * falls back by its own deadline). */
static void to_kids(const int *v, int n, int tag)
{
	for (int i = 0; i < nkids; i++) {
		int keep;

		send_msg(v, (uint64_t)n * sizeof(int), kids[i], tag, now_ns() + wait_ns, &keep);
	}
}

/* A small message down the tree: from the parent (by the deadline), then
 * to the children heard from.  1, or 0/-1 when it did not come. */
static int down(int *v, int n, int tag, uint64_t dl)
{
	int rc = 1;

	if (me != 0) {
		void *b;
		uint64_t len;

		rc = recv_msg(&b, &len, parent, tag, dl);
		if (rc == 1 && len == (uint64_t)n * sizeof(int))
			memcpy(v, b, len);
		else if (rc == 1)
			rc = -1;
		free(b);
		if (rc != 1)
			return rc;
	}
	to_kids(v, n, tag);
	return 1;
}

/* The named ranks' own entries to rank 0 (list: count, then ranks). */
static int named(const struct hs_mpi_ops *ops, const int *list)
{
	uint64_t dl = now_ns() + wait_ns; /* one deadline for them all */
	int good = 1;

	for (int i = 1; i <= list[0]; i++) {
		if (list[i] == 0 && me == 0) {
			void *b = NULL;
			size_t len = 0;

			good = good && ops->entry(ops->ctx, &b, &len) == 0 &&
			       ops->add_entry(ops->ctx, 0, b, len) == 0;
			free(b);
		} else if (me == 0) {
			void *b;
			uint64_t len;
			int rc = recv_msg(&b, &len, list[i], TAG_ENTRY, dl);

			good = rc == 1 && len && len != FAILED && good &&
			       ops->add_entry(ops->ctx, list[i], b, len) == 0;
			free(b);
		} else if (me == list[i]) {
			void *b = NULL;
			size_t len = 0;
			int ok = ops->entry(ops->ctx, &b, &len) == 0, keep = 0;

			send_msg(b, ok ? len : FAILED, 0, TAG_ENTRY, dl, &keep);
			if (!keep)
				free(b);
		}
	}
	return good;
}

static int ceil_log2(int n)
{
	int k = 0;

	while ((1LL << k) < n)
		k++;
	return k;
}

/* The parent's "too late" not received: withdrawn. */
static void gaveup_cancel(void)
{
	if (gaveup != MPI_REQUEST_NULL) {
		MPI_Cancel(&gaveup);
		MPI_Wait(&gaveup, MPI_STATUS_IGNORE);
	}
}

static int reduce(const struct hs_mpi_ops *ops, uint64_t wait, int *rank, int *size,
		  int *rounds, char *why, size_t whylen)
{
	int good, list[2 + HS_MPI_NAMED_MAX] = { 0 }; /* verdict, count, ranks */

	t0 = now_ns();
	wait_ns = wait;
	if (dup_world() != 0) {
		snprintf(why, whylen, "MPI_Comm_dup failed");
		return -1;
	}
	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &np);
	*rank = me;
	*size = np;
	levels = (uint64_t)ceil_log2(np);
	nkids = 0;
	parent = -1;
	/* the parent's "too late", received whenever it comes */
	if (me > 0)
		MPI_Irecv(&gaveup_buf, 1, MPI_INT, me - (me & -me), TAG_GAVEUP, comm, &gaveup);
	good = ops->start(ops->ctx, me, np) == 0;
	good = tree(ops, good, rounds, why, whylen);
	if (good < 0) {
		/* this subtree is not in the document: its ranks told now, not
		 * at their deadlines */
		to_kids(list, 2 + HS_MPI_NAMED_MAX, TAG_NAMED);
		return -1;
	}
	/* rank 0's verdict and the ranks it names, down the tree */
	if (me == 0) {
		int n = good ? ops->named(ops->ctx, list + 2, HS_MPI_NAMED_MAX) : 0;

		list[0] = good;
		list[1] = n < 0 ? 0 : n > HS_MPI_NAMED_MAX ? HS_MPI_NAMED_MAX : n;
	}
	if (down(list, 2 + HS_MPI_NAMED_MAX, TAG_NAMED, deadline(levels + 2)) != 1) {
		snprintf(why, whylen, "rank 0's answer did not come in time");
		return -1;
	}
	if (!list[0]) {
		if (!why[0])
			snprintf(why, whylen, "a rank could not summarise its results");
		return -1;
	}
	good = named(ops, list + 1);
	if (me == 0 && !good) {
		int done = 0;

		snprintf(why, whylen, "a named rank's entry did not arrive");
		down(&done, 1, TAG_DONE, 0);
		return -1;
	}
	return 0;
}

static int plugin__reduce(const struct hs_mpi_ops *ops, uint64_t wait, int *rank, int *size,
			  int *rounds, char *why, size_t whylen)
{
	int rc = reduce(ops, wait, rank, size, rounds, why, whylen);

	gaveup_cancel();
	return rc;
}

static int plugin__finish(int done)
{
	int rc = down(&done, 1, TAG_DONE, deadline(levels + 4));

	if (!timed_out && rc == 1 && comm != MPI_COMM_NULL)
		MPI_Comm_free(&comm);
	return rc == 1 ? done : -1;
}

__attribute__((visibility("default"))) const struct hs_mpi_plugin hpcshim_mpi_plugin = {
	.abi = HS_MPI_PLUGIN_ABI,
	.init = plugin__init,
	.reduce = plugin__reduce,
	.finish = plugin__finish,
};
