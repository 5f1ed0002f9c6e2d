/* plugin.h - between the shim's MPI feature (mpi.c) and the small
 * per-implementation plugins (plugin/hpcshim-mpi.c built once with each
 * MPI's compiler: hpcshim-mpi-openmpi.so, hpcshim-mpi-mpich.so).  ABI 2:
 * the ranks' summaries are merged on the way up (issue 30), no longer
 * gathered whole.  ABI 3: the communicator duplicated at MPI_Init (init),
 * and every wait of the reduction bounded (a rank that never reaches
 * MPI_Finalize is missing from the document, and hangs nobody).
 *
 * libhpcshim.so links no MPI: it cannot name MPI_COMM_WORLD or MPI_BYTE,
 * whose values differ between implementations (a pointer to a global in
 * Open MPI, an integer constant in MPICH).  A plugin, compiled against
 * one implementation, does the communication; the shim gives it callbacks
 * that make, pack and merge the summaries.  Plain C types only, no project header.
 */
#ifndef HPCSHIM_PRELOAD_MPI_PLUGIN_H
#define HPCSHIM_PRELOAD_MPI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define HS_MPI_PLUGIN_ABI 3
#define HS_MPI_PLUGIN_SYMBOL "hpcshim_mpi_plugin"

/* Ranks whose own detail the root asks for at the end, at most. */
#define HS_MPI_NAMED_MAX 64

/* What the reduction does with the bytes, given by the shim (mpi.c): the
 * plugin only moves them.  Every callback returns 0, or -1 on a failure
 * of this rank (which all ranks then learn). */
struct hs_mpi_ops {
	void *ctx;
	/* This rank's place: its summary made (aggregate/jobsum.h). */
	int (*start)(void *ctx, int rank, int size);
	/* The summary so far, packed (*buf malloc'd), to send to the parent. */
	int (*pack)(void *ctx, void **buf, size_t *len);
	/* A child's packed summary merged into this rank's. */
	int (*merge)(void *ctx, const void *buf, size_t len);
	/* Rank 0, after the tree: the ranks whose entries it wants (the
	 * holders the document names), at most max, ascending; their number. */
	int (*named)(void *ctx, int *ranks, int max);
	/* A named rank: its own entry (*buf malloc'd). */
	int (*entry)(void *ctx, void **buf, size_t *len);
	/* Rank 0: a named rank's entry. */
	int (*add_entry)(void *ctx, int rank, const void *buf, size_t len);
};

struct hs_mpi_plugin {
	int abi; /* HS_MPI_PLUGIN_ABI */
	/* Collective, once, when MPI_Init returns (every rank is there): the
	 * duplicate of MPI_COMM_WORLD the reduction runs on.  0, or -1 (then
	 * reduce duplicates it, collectively, at MPI_Finalize). */
	int (*init)(void);
	/* On the duplicate: the ranks' summaries merged up a binomial tree
	 * into rank 0's, then the named ranks' entries sent to rank 0.  No
	 * collective call: point-to-point messages whose every wait ends at a
	 * deadline, wait_ns per level of the tree after this rank's arrival.
	 * A child that has not answered by then is left out with the ranks
	 * below it (rank 0's summary then lacks them: the document's missing
	 * ranks).  0 when this rank took part (rank 0: the summary is ready
	 * to be written), -1 with why when it falls back to its own file (a
	 * failure anywhere reaches every rank that is there).  *rank, *size:
	 * this rank's place; *rounds: the tree's rounds. */
	int (*reduce)(const struct hs_mpi_ops *ops, uint64_t wait_ns, int *rank, int *size,
		      int *rounds, char *why, size_t whylen);
	/* After a reduce that returned 0: rank 0's done (the document
	 * written) down the tree to the ranks that took part, each within its
	 * deadline.  Returns rank 0's done, or -1 when it did not come. */
	int (*finish)(int done);
};

#endif
