/* plugin.h - between the shim's MPI feature (mpi.c) and the small
 * per-implementation plugins (plugin/hpcshim-mpi.c built once with each
 * MPI's compiler: hpcshim-mpi-openmpi.so, hpcshim-mpi-mpich.so).  ABI 2:
 * the ranks' summaries are merged on the way up (issue 30), no longer
 * gathered whole.
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

#define HS_MPI_PLUGIN_ABI 2
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
	/* Collective over MPI_COMM_WORLD (on a duplicate of it): the ranks'
	 * summaries merged up a binomial tree into rank 0's, then the named
	 * ranks' entries sent to rank 0.  Every rank gets the same answer: 0
	 * when every step went through on every rank, else -1 with why (on
	 * every rank that saw it).  *rank, *size: this rank's place; *rounds:
	 * the tree's rounds. */
	int (*reduce)(const struct hs_mpi_ops *ops, int *rank, int *size, int *rounds,
		      char *why, size_t whylen);
	/* Collective: rank 0's done (the document written) to every rank,
	 * then the duplicate communicator freed.  Returns rank 0's done, or
	 * -1 on an MPI error. */
	int (*finish)(int done);
};

#endif
