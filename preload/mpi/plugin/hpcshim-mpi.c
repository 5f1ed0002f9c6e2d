/* hpcshim-mpi.c - the MPI side of the in-job reduction (plugin.h), built
 * once per implementation with its compiler (mpicc.openmpi, mpicc.mpich)
 * into hpcshim-mpi-<name>.so; the shim dlopens the one that matches the
 * MPI of the process at MPI_Finalize.
 *
 * The ranks' records travel up a binomial tree of MPI_BYTE messages on a
 * duplicate of MPI_COMM_WORLD (Caliper's pattern): in round s = 1, 2,
 * 4..., rank r receives from r + s when r % 2s == 0 and sends what it has
 * to r - s otherwise, then stops.  ceil(log2 P) rounds; rank 0 receives
 * one message per round, never P at once.  A message is its length (8
 * bytes) and then the bytes in pieces of at most 1 GiB (MPI counts are
 * int).  Errors return (MPI_ERRORS_RETURN on the duplicate), and every
 * decision that could differ between ranks goes through an allreduce, so
 * all ranks fall back together and none waits for a message that will
 * not come.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/mpi/plugin.h"

#define PIECE (1 << 30)
#define TAG 0x4853 /* "HS" */

static MPI_Comm comm = MPI_COMM_NULL;

static int send_buf(const char *buf, uint64_t len, int to)
{
	int rc = MPI_Send(&len, 8, MPI_BYTE, to, TAG, comm);

	for (uint64_t off = 0; rc == MPI_SUCCESS && off < len; off += PIECE) {
		uint64_t n = len - off < PIECE ? len - off : PIECE;
		rc = MPI_Send(buf + off, (int)n, MPI_BYTE, to, TAG, comm);
	}
	return rc;
}

/* Appends a message from `from` to *buf. */
static int recv_append(char **buf, uint64_t *len, int from)
{
	uint64_t n = 0;
	char *b;
	int rc = MPI_Recv(&n, 8, MPI_BYTE, from, TAG, comm, MPI_STATUS_IGNORE);

	if (rc != MPI_SUCCESS)
		return rc;
	b = realloc(*buf, *len + n + 1);
	if (!b)
		return MPI_ERR_NO_MEM;
	*buf = b;
	for (uint64_t off = 0; rc == MPI_SUCCESS && off < n; off += PIECE) {
		uint64_t k = n - off < PIECE ? n - off : PIECE;
		rc = MPI_Recv(b + *len + off, (int)k, MPI_BYTE, from, TAG, comm,
			      MPI_STATUS_IGNORE);
	}
	*len += n;
	return rc;
}

static void why_mpi(char *why, size_t whylen, const char *what, int rc)
{
	char s[MPI_MAX_ERROR_STRING] = "";
	int n = 0;

	MPI_Error_string(rc, s, &n);
	snprintf(why, whylen, "%s: %s", what, s);
}

static int plugin__gather(const void *mine, size_t mlen, int ok, int *rank, int *size,
			  void **all, size_t *all_len, char *why, size_t whylen)
{
	struct hs_mpi_record h = { 0 };
	uint64_t len = 0, pad = (8 - mlen % 8) % 8;
	char *buf = NULL;
	int rc, good, allgood = 0;

	*all = NULL;
	*all_len = 0;
	rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	if (rc != MPI_SUCCESS) {
		why_mpi(why, whylen, "MPI_Comm_dup", rc);
		return -1;
	}
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
	MPI_Comm_rank(comm, rank);
	MPI_Comm_size(comm, size);
	h.rank = *rank;
	h.size = *size;
	h.len = mlen;
	buf = malloc(sizeof(h) + mlen + pad + 1);
	if (buf) {
		memcpy(buf, &h, sizeof(h));
		memcpy(buf + sizeof(h), mine, mlen);
		memset(buf + sizeof(h) + mlen, 0, pad);
		len = sizeof(h) + mlen + pad;
	}
	/* Everybody able to take part, or nobody starts the tree. */
	good = ok && buf;
	rc = MPI_Allreduce(&good, &allgood, 1, MPI_INT, MPI_MIN, comm);
	if (rc != MPI_SUCCESS || !allgood) {
		if (rc != MPI_SUCCESS)
			why_mpi(why, whylen, "MPI_Allreduce", rc);
		else
			snprintf(why, whylen, "a rank could not render its results");
		free(buf);
		MPI_Comm_free(&comm);
		return -1;
	}
	good = 1;
	for (int s = 1; s < *size; s *= 2) {
		if (*rank % (2 * s) == 0) {
			/* Received even after a failure: the sender must
			 * not wait forever. */
			if (*rank + s < *size)
				good = recv_append(&buf, &len, *rank + s) == MPI_SUCCESS &&
				       good;
		} else {
			good = send_buf(buf, len, *rank - s) == MPI_SUCCESS && good;
			break;
		}
	}
	/* A failure anywhere in the tree: all ranks learn it. */
	rc = MPI_Allreduce(&good, &allgood, 1, MPI_INT, MPI_MIN, comm);
	if (rc != MPI_SUCCESS || !allgood) {
		if (rc != MPI_SUCCESS)
			why_mpi(why, whylen, "MPI_Allreduce", rc);
		else
			snprintf(why, whylen, "a message of the reduction tree failed");
		free(buf);
		MPI_Comm_free(&comm);
		return -1;
	}
	if (*rank == 0) {
		*all = buf;
		*all_len = len;
	} else {
		free(buf);
	}
	return 0;
}

static int plugin__finish(int done)
{
	int rc = MPI_Bcast(&done, 1, MPI_INT, 0, comm);

	MPI_Comm_free(&comm);
	return rc == MPI_SUCCESS ? done : -1;
}

__attribute__((visibility("default"))) const struct hs_mpi_plugin hpcshim_mpi_plugin = {
	.abi = HS_MPI_PLUGIN_ABI,
	.gather = plugin__gather,
	.finish = plugin__finish,
};
