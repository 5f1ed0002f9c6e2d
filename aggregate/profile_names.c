/* profile_names.c - the functions a profile sorts time into, by name
 * (profile.h): MPI's collectives, point-to-point calls and waits/tests,
 * and the I/O calls of the io wrap set (data/wrap/io.sig).  Data only. */
#include <stdlib.h>
#include <string.h>

#include "aggregate/profile.h"

const char *const pf_cat_name[PF_NCAT] = {
	[PF_COMPUTE] = "compute", [PF_MPI] = "mpi", [PF_IO] = "io",
	[PF_OMP_WAIT] = "openmp_wait", [PF_OFF_CPU] = "off_cpu",
	[PF_MEASURE] = "measurement",
};

const char *const pf_kind_name[PF_IO_CALL + 1] = {
	[PF_NONE] = "none",
	[PF_MPI_COLLECTIVE] = "collective",
	[PF_MPI_P2P] = "point_to_point",
	[PF_MPI_WAIT] = "wait",
	[PF_MPI_OTHER] = "other",
	[PF_MPI_START] = "init_finalize",
	[PF_IO_CALL] = "io",
};

struct pf_name {
	const char *name;
	enum pf_kind kind;
};

/* Sorted by name (strcmp): bsearch. */
static const struct pf_name names[] = {
	{ "MPI_Allgather", PF_MPI_COLLECTIVE },
	{ "MPI_Allgatherv", PF_MPI_COLLECTIVE },
	{ "MPI_Allreduce", PF_MPI_COLLECTIVE },
	{ "MPI_Alltoall", PF_MPI_COLLECTIVE },
	{ "MPI_Alltoallv", PF_MPI_COLLECTIVE },
	{ "MPI_Alltoallw", PF_MPI_COLLECTIVE },
	{ "MPI_Barrier", PF_MPI_COLLECTIVE },
	{ "MPI_Bcast", PF_MPI_COLLECTIVE },
	{ "MPI_Bsend", PF_MPI_P2P },
	{ "MPI_Comm_dup", PF_MPI_COLLECTIVE },
	{ "MPI_Comm_split", PF_MPI_COLLECTIVE },
	{ "MPI_Exscan", PF_MPI_COLLECTIVE },
	{ "MPI_Finalize", PF_MPI_START },
	{ "MPI_Gather", PF_MPI_COLLECTIVE },
	{ "MPI_Gatherv", PF_MPI_COLLECTIVE },
	{ "MPI_Get", PF_MPI_P2P },
	{ "MPI_Iallreduce", PF_MPI_COLLECTIVE },
	{ "MPI_Ibcast", PF_MPI_COLLECTIVE },
	{ "MPI_Improbe", PF_MPI_P2P },
	{ "MPI_Init", PF_MPI_START },
	{ "MPI_Init_thread", PF_MPI_START },
	{ "MPI_Iprobe", PF_MPI_P2P },
	{ "MPI_Irecv", PF_MPI_P2P },
	{ "MPI_Isend", PF_MPI_P2P },
	{ "MPI_Mprobe", PF_MPI_P2P },
	{ "MPI_Mrecv", PF_MPI_P2P },
	{ "MPI_Probe", PF_MPI_P2P },
	{ "MPI_Put", PF_MPI_P2P },
	{ "MPI_Recv", PF_MPI_P2P },
	{ "MPI_Reduce", PF_MPI_COLLECTIVE },
	{ "MPI_Reduce_scatter", PF_MPI_COLLECTIVE },
	{ "MPI_Reduce_scatter_block", PF_MPI_COLLECTIVE },
	{ "MPI_Rsend", PF_MPI_P2P },
	{ "MPI_Scan", PF_MPI_COLLECTIVE },
	{ "MPI_Scatter", PF_MPI_COLLECTIVE },
	{ "MPI_Scatterv", PF_MPI_COLLECTIVE },
	{ "MPI_Send", PF_MPI_P2P },
	{ "MPI_Sendrecv", PF_MPI_P2P },
	{ "MPI_Sendrecv_replace", PF_MPI_P2P },
	{ "MPI_Ssend", PF_MPI_P2P },
	{ "MPI_Test", PF_MPI_WAIT },
	{ "MPI_Testall", PF_MPI_WAIT },
	{ "MPI_Testany", PF_MPI_WAIT },
	{ "MPI_Testsome", PF_MPI_WAIT },
	{ "MPI_Wait", PF_MPI_WAIT },
	{ "MPI_Waitall", PF_MPI_WAIT },
	{ "MPI_Waitany", PF_MPI_WAIT },
	{ "MPI_Waitsome", PF_MPI_WAIT },
	{ "MPI_Win_fence", PF_MPI_COLLECTIVE },
	{ "copy_file_range", PF_IO_CALL },
	{ "creat", PF_IO_CALL },
	{ "fclose", PF_IO_CALL },
	{ "fdatasync", PF_IO_CALL },
	{ "fflush", PF_IO_CALL },
	{ "fopen", PF_IO_CALL },
	{ "fread", PF_IO_CALL },
	{ "fsync", PF_IO_CALL },
	{ "fwrite", PF_IO_CALL },
	{ "open", PF_IO_CALL },
	{ "open64", PF_IO_CALL },
	{ "openat", PF_IO_CALL },
	{ "pread", PF_IO_CALL },
	{ "pread64", PF_IO_CALL },
	{ "preadv", PF_IO_CALL },
	{ "preadv2", PF_IO_CALL },
	{ "preadv64", PF_IO_CALL },
	{ "preadv64v2", PF_IO_CALL },
	{ "pwrite", PF_IO_CALL },
	{ "pwrite64", PF_IO_CALL },
	{ "pwritev", PF_IO_CALL },
	{ "pwritev2", PF_IO_CALL },
	{ "pwritev64", PF_IO_CALL },
	{ "pwritev64v2", PF_IO_CALL },
	{ "read", PF_IO_CALL },
	{ "readv", PF_IO_CALL },
	{ "recv", PF_IO_CALL },
	{ "recvfrom", PF_IO_CALL },
	{ "recvmsg", PF_IO_CALL },
	{ "send", PF_IO_CALL },
	{ "sendfile", PF_IO_CALL },
	{ "sendfile64", PF_IO_CALL },
	{ "sendmsg", PF_IO_CALL },
	{ "sendto", PF_IO_CALL },
	{ "write", PF_IO_CALL },
	{ "writev", PF_IO_CALL },
};

static int name__cmp(const void *k, const void *e)
{
	return strcmp(k, ((const struct pf_name *)e)->name);
}

enum pf_kind pf__classify(const char *name)
{
	const struct pf_name *n;

	if (!name)
		return PF_NONE;
	n = bsearch(name, names, sizeof(names) / sizeof(names[0]), sizeof(names[0]),
		    name__cmp);
	if (n)
		return n->kind;
	if (!strncmp(name, "MPI_", 4) || !strncmp(name, "PMPI_", 5))
		return PF_MPI_OTHER;
	return PF_NONE;
}
