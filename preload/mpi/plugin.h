/* plugin.h - between the shim's MPI feature (mpi.c) and the small
 * per-implementation plugins (plugin/hpcshim-mpi.c built once with each
 * MPI's compiler: hpcshim-mpi-openmpi.so, hpcshim-mpi-mpich.so).
 *
 * libhpcshim.so links no MPI: it cannot name MPI_COMM_WORLD or MPI_BYTE,
 * whose values differ between implementations (a pointer to a global in
 * Open MPI, an integer constant in MPICH).  A plugin, compiled against
 * one implementation, does the communication; the shim gives it bytes and
 * gets bytes back.  Plain C types only, no project header.
 */
#ifndef HPCSHIM_PRELOAD_MPI_PLUGIN_H
#define HPCSHIM_PRELOAD_MPI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define HS_MPI_PLUGIN_ABI 1
#define HS_MPI_PLUGIN_SYMBOL "hpcshim_mpi_plugin"

/* One rank's part of what rank 0 receives: this header, then len bytes
 * (a result document, not NUL-terminated), padded to 8 bytes. */
struct hs_mpi_record {
	int32_t rank; /* the sender's rank in MPI_COMM_WORLD */
	int32_t size; /* MPI_COMM_WORLD's size as the sender sees it */
	uint64_t len;
};

struct hs_mpi_plugin {
	int abi; /* HS_MPI_PLUGIN_ABI */
	/* Collective over MPI_COMM_WORLD (on a duplicate of it).  ok: this
	 * rank's input is usable; every rank gets the same answer: 0 when
	 * all ranks were ok and rank 0 holds every record (*all, *len: a
	 * malloc'd concatenation, NULL elsewhere), else -1 with why (on
	 * every rank that saw it).  *rank, *size: this rank's place. */
	int (*gather)(const void *mine, size_t len, int ok, int *rank, int *size,
		      void **all, size_t *all_len, char *why, size_t whylen);
	/* Collective: rank 0's done (the document written) to every rank,
	 * then the duplicate communicator freed.  Returns rank 0's done, or
	 * -1 on an MPI error. */
	int (*finish)(int done);
};

#endif
