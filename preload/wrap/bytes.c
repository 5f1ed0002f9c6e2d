/* bytes.c - the bytes of wrapped MPI and I/O calls, under HPCSHIM_PROFILE
 * (hs_wrap.in_mpi): MPI's send side as mpiP counts it (count x
 * MPI_Type_size of the datatype, read from the arguments at the call's
 * begin), I/O from the return value (bytes read, written, sent, received
 * or copied).  Summed per
 * function over the process's threads (one relaxed atomic add per call),
 * written as the wrap entry's "bytes". */
#include <dlfcn.h>
#include <string.h>
#include <sys/types.h>

#include "preload/base/real.h"
#include "preload/wrap/internal.h"

struct bytes_rule {
	const char *name;
	signed char kind, count, type; /* argument indices of WB_SEND */
};

/* Send-side buffers: (count, datatype) argument positions. */
static const struct bytes_rule rules[] = {
	{ "MPI_Send", WB_SEND, 1, 2 },      { "MPI_Isend", WB_SEND, 1, 2 },
	{ "MPI_Ssend", WB_SEND, 1, 2 },     { "MPI_Bsend", WB_SEND, 1, 2 },
	{ "MPI_Rsend", WB_SEND, 1, 2 },     { "MPI_Sendrecv", WB_SEND, 1, 2 },
	{ "MPI_Bcast", WB_SEND, 1, 2 },     { "MPI_Ibcast", WB_SEND, 1, 2 },
	{ "MPI_Reduce", WB_SEND, 2, 3 },    { "MPI_Allreduce", WB_SEND, 2, 3 },
	{ "MPI_Iallreduce", WB_SEND, 2, 3 }, { "MPI_Scan", WB_SEND, 2, 3 },
	{ "MPI_Exscan", WB_SEND, 2, 3 },    { "MPI_Gather", WB_SEND, 1, 2 },
	{ "MPI_Gatherv", WB_SEND, 1, 2 },   { "MPI_Allgather", WB_SEND, 1, 2 },
	{ "MPI_Allgatherv", WB_SEND, 1, 2 }, { "MPI_Scatter", WB_SEND, 1, 2 },
	{ "MPI_Alltoall", WB_SEND, 1, 2 },  { "MPI_Put", WB_SEND, 1, 2 },
	{ "MPI_Get", WB_SEND, 1, 2 },       { "MPI_File_write", WB_SEND, 2, 3 },
	{ "MPI_File_read", WB_SEND, 2, 3 }, { "MPI_File_write_at_all", WB_SEND, 3, 4 },
	{ "MPI_File_read_at_all", WB_SEND, 3, 4 },
	{ "read", WB_RET, 0, 0 },           { "write", WB_RET, 0, 0 },
	{ "pread", WB_RET, 0, 0 },          { "pwrite", WB_RET, 0, 0 },
	{ "pread64", WB_RET, 0, 0 },        { "pwrite64", WB_RET, 0, 0 },
	{ "readv", WB_RET, 0, 0 },          { "writev", WB_RET, 0, 0 },
	{ "preadv", WB_RET, 0, 0 },         { "pwritev", WB_RET, 0, 0 },
	{ "preadv64", WB_RET, 0, 0 },       { "pwritev64", WB_RET, 0, 0 },
	{ "preadv2", WB_RET, 0, 0 },        { "pwritev2", WB_RET, 0, 0 },
	{ "preadv64v2", WB_RET, 0, 0 },     { "pwritev64v2", WB_RET, 0, 0 },
	/* a copy in the kernel: its bytes once, not as a read and a write */
	{ "sendfile", WB_RET, 0, 0 },       { "sendfile64", WB_RET, 0, 0 },
	{ "copy_file_range", WB_RET, 0, 0 },
	{ "send", WB_RET, 0, 0 },           { "recv", WB_RET, 0, 0 },
	{ "sendto", WB_RET, 0, 0 },         { "recvfrom", WB_RET, 0, 0 },
	{ "sendmsg", WB_RET, 0, 0 },        { "recvmsg", WB_RET, 0, 0 },
};

void hs_wrap_bytes__rule(struct wrap_spec *s)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(rules[i].name, s->name)) {
			s->bkind = rules[i].kind;
			s->bcount = rules[i].count;
			s->btype = rules[i].type;
			return;
		}
}

typedef int (*type_size_fn)(uintptr_t type, int *size);
static type_size_fn type_size;
static int type_size_looked;

/* MPI_Type_size through its PMPI_ name (never a wrapper), found once. */
static type_size_fn bytes__type_size(void)
{
	type_size_fn f = __atomic_load_n(&type_size, __ATOMIC_ACQUIRE);

	if (f || __atomic_load_n(&type_size_looked, __ATOMIC_ACQUIRE))
		return f;
	f = (type_size_fn)hs_real__dlsym()(RTLD_DEFAULT, "PMPI_Type_size");
	__atomic_store_n(&type_size, f, __ATOMIC_RELEASE);
	__atomic_store_n(&type_size_looked, 1, __ATOMIC_RELEASE);
	return f;
}

void hs_wrap_bytes__send(struct wrap_spec *s, int count, uintptr_t type)
{
	type_size_fn f = bytes__type_size();
	int size = 0;

	if (!f || count <= 0)
		return;
	/* MPICH's handles are 32-bit ints: the register's low half. */
	if (!hs_wrap.handle_is_pointer)
		type = (uint32_t)type;
	if (f(type, &size) == 0 && size > 0)
		__atomic_add_fetch(&s->bytes, (uint64_t)count * (uint64_t)size, __ATOMIC_RELAXED);
}

void hs_wrap_bytes__ret(struct wrap_spec *s, intptr_t ret)
{
	if (ret > 0)
		__atomic_add_fetch(&s->bytes, (uint64_t)ret, __ATOMIC_RELAXED);
}
