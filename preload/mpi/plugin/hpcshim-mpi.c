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
 * below it (aggregate/jobsum.h).  Then rank 0 names the ranks that hold
 * the extremes (HS_MPI_NAMED_MAX at most), a broadcast tells them, and
 * each sends rank 0 its own entry.  A message is its length (8 bytes) and
 * then the bytes in pieces of at most 1 GiB (MPI counts are int).  Errors
 * return (MPI_ERRORS_RETURN on the duplicate), and every decision that
 * could differ between ranks goes through an allreduce, so all ranks fall
 * back together and none waits for a message that will not come.  Every
 * wait is a test and a short sleep (wait_req), not a blocking call that
 * polls: the waiting ranks leave the cores to those still working.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "preload/mpi/plugin.h"

#define PIECE (1 << 30)
#define TAG 0x4853 /* "HS" */

static MPI_Comm comm = MPI_COMM_NULL;

/* Waits for a request sleeping between tests (50 us, doubling to 2 ms):
 * a rank that waits for its children or for the others gives its core
 * to the ranks still summarising (MPICH's blocking calls poll, which on
 * an oversubscribed node takes the cores from the ranks with work). */
static int wait_req(MPI_Request *r, MPI_Status *st)
{
	long ns = 50000;
	int done = 0, rc;

	for (;;) {
		rc = MPI_Test(r, &done, st ? st : MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS || done)
			return rc;
		nanosleep(&(struct timespec){ 0, ns }, NULL);
		if (ns < 2000000)
			ns *= 2;
	}
}

static int send_part(const void *buf, int n, int to)
{
	MPI_Request r;
	int rc = MPI_Isend(buf, n, MPI_BYTE, to, TAG, comm, &r);

	return rc == MPI_SUCCESS ? wait_req(&r, NULL) : rc;
}

static int recv_part(void *buf, int n, int from)
{
	MPI_Request r;
	int rc = MPI_Irecv(buf, n, MPI_BYTE, from, TAG, comm, &r);

	return rc == MPI_SUCCESS ? wait_req(&r, NULL) : rc;
}

/* The length waits sleeping (the receiver may still be summarising); the
 * bytes then go with blocking calls: the receiver is there, and a large
 * message's fragments need both sides' progress without naps between. */
static int send_buf(const void *buf, uint64_t len, int to)
{
	int rc = send_part(&len, 8, to);

	for (uint64_t off = 0; rc == MPI_SUCCESS && off < len; off += PIECE) {
		uint64_t n = len - off < PIECE ? len - off : PIECE;
		rc = MPI_Send((const char *)buf + off, (int)n, MPI_BYTE, to, TAG, comm);
	}
	return rc;
}

/* A message from `from` into *buf (malloc'd). */
static int recv_buf(void **buf, uint64_t *len, int from)
{
	uint64_t n = 0;
	char *b;
	int rc = recv_part(&n, 8, from);

	*buf = NULL;
	*len = 0;
	if (rc != MPI_SUCCESS)
		return rc;
	b = malloc(n ? n : 1);
	if (!b)
		return MPI_ERR_NO_MEM;
	for (uint64_t off = 0; rc == MPI_SUCCESS && off < n; off += PIECE) {
		uint64_t k = n - off < PIECE ? n - off : PIECE;
		rc = MPI_Recv(b + off, (int)k, MPI_BYTE, from, TAG, comm, MPI_STATUS_IGNORE);
	}
	*buf = b;
	*len = n;
	return rc;
}

static void why_mpi(char *why, size_t whylen, const char *what, int rc)
{
	char s[MPI_MAX_ERROR_STRING] = "";
	int n = 0;

	MPI_Error_string(rc, s, &n);
	snprintf(why, whylen, "%s: %s", what, s);
}

/* Every rank's good, or the first failure: -1 on all ranks. */
static int all_good(int good, const char *what, char *why, size_t whylen)
{
	int allgood = 0, rc;
	MPI_Request r;

	rc = MPI_Iallreduce(&good, &allgood, 1, MPI_INT, MPI_MIN, comm, &r);
	if (rc == MPI_SUCCESS)
		rc = wait_req(&r, NULL);

	if (rc != MPI_SUCCESS) {
		why_mpi(why, whylen, "MPI_Allreduce", rc);
		return -1;
	}
	if (!allgood) {
		if (!why[0])
			snprintf(why, whylen, "%s", what);
		return -1;
	}
	return 0;
}

/* The tree: this rank's summary merged with its children's, sent to its
 * parent.  A child's message is received even after a failure here: the
 * sender must not wait forever. */
static int tree(const struct hs_mpi_ops *ops, int rank, int size, int *rounds)
{
	int good = 1;

	*rounds = 0;
	for (int s = 1; s < size; s *= 2) {
		++*rounds;
		if (rank % (2 * s) == 0) {
			void *b;
			uint64_t n;

			if (rank + s >= size)
				continue;
			good = recv_buf(&b, &n, rank + s) == MPI_SUCCESS && good;
			if (good)
				good = ops->merge(ops->ctx, b, n) == 0;
			free(b);
		} else {
			void *b = NULL;
			size_t n = 0;
			int packed = good && ops->pack(ops->ctx, &b, &n) == 0;

			/* a failed rank still sends (an empty message): its
			 * parent must not wait */
			good = send_buf(packed ? b : "", packed ? n : 0, rank - s) ==
				       MPI_SUCCESS &&
			       packed;
			free(b);
			break;
		}
	}
	return good;
}

static int bcast(int *v, int n)
{
	MPI_Request r;
	int rc = MPI_Ibcast(v, n, MPI_INT, 0, comm, &r);

	return rc == MPI_SUCCESS ? wait_req(&r, NULL) : rc;
}

/* The named ranks' own entries to rank 0. */
static int named(const struct hs_mpi_ops *ops, int rank, int good)
{
	int list[HS_MPI_NAMED_MAX + 1] = { 0 }, n;

	if (rank == 0) {
		n = good ? ops->named(ops->ctx, list + 1, HS_MPI_NAMED_MAX) : 0;
		list[0] = n < 0 ? 0 : n > HS_MPI_NAMED_MAX ? HS_MPI_NAMED_MAX : n;
	}
	if (bcast(list, HS_MPI_NAMED_MAX + 1) != MPI_SUCCESS)
		return 0;
	for (int i = 1; i <= list[0]; i++) {
		if (list[i] == 0 && rank == 0) {
			void *b = NULL;
			size_t len = 0;

			good = good && ops->entry(ops->ctx, &b, &len) == 0 &&
			       ops->add_entry(ops->ctx, 0, b, len) == 0;
			free(b);
		} else if (rank == 0) {
			void *b;
			uint64_t len;

			good = recv_buf(&b, &len, list[i]) == MPI_SUCCESS && good;
			if (good && len)
				good = ops->add_entry(ops->ctx, list[i], b, len) == 0;
			free(b);
		} else if (rank == list[i]) {
			void *b = NULL;
			size_t len = 0;
			int ok = ops->entry(ops->ctx, &b, &len) == 0;

			good = send_buf(ok ? b : "", ok ? len : 0, 0) == MPI_SUCCESS && ok &&
			       good;
			free(b);
		}
	}
	return good;
}

static int plugin__reduce(const struct hs_mpi_ops *ops, int *rank, int *size, int *rounds,
			  char *why, size_t whylen)
{
	int rc, good;

	rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	if (rc != MPI_SUCCESS) {
		why_mpi(why, whylen, "MPI_Comm_dup", rc);
		return -1;
	}
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	MPI_Comm_rank(comm, rank);
	MPI_Comm_size(comm, size);
	/* Everybody able to take part, or nobody starts the tree. */
	good = ops->start(ops->ctx, *rank, *size) == 0;
	if (all_good(good, "a rank could not summarise its results", why, whylen))
		goto fail;
	good = tree(ops, *rank, *size, rounds);
	/* A failure anywhere in the tree: all ranks learn it. */
	if (all_good(good, "a message of the reduction tree failed", why, whylen))
		goto fail;
	good = named(ops, *rank, 1);
	if (all_good(good, "a named rank's entry did not arrive", why, whylen))
		goto fail;
	return 0;
fail:
	MPI_Comm_free(&comm);
	return -1;
}

static int plugin__finish(int done)
{
	int rc = bcast(&done, 1);

	MPI_Comm_free(&comm);
	return rc == MPI_SUCCESS ? done : -1;
}

__attribute__((visibility("default"))) const struct hs_mpi_plugin hpcshim_mpi_plugin = {
	.abi = HS_MPI_PLUGIN_ABI,
	.reduce = plugin__reduce,
	.finish = plugin__finish,
};
