# mpi.sig - the common MPI C calls.  HPCSHIM_WRAP=@mpi
# Handles (MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request...) are ints in
# MPICH and pointers in Open MPI: the wrapper passes them at the width of
# the MPI the program loaded (docs/wrapping.md).  MPI_Init/MPI_Finalize
# are left out: a region open across them spans the whole run.
int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, pointer status);
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, pointer status);
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req);
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req);
int MPI_Wait(MPI_Request *req, pointer status);
int MPI_Waitall(int count, MPI_Request *reqs, pointer statuses);
int MPI_Waitany(int count, MPI_Request *reqs, int *index, pointer status);
int MPI_Test(MPI_Request *req, int *flag, pointer status);
int MPI_Probe(int source, int tag, MPI_Comm comm, pointer status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, pointer status);
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype, int root, MPI_Comm comm);
int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
int MPI_Scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm);
int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm);
int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm);
int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm);
int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm);
int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req);
int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int MPI_Win_fence(int assert, MPI_Win win);
int MPI_Put(const void *oaddr, int ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win);
int MPI_Get(void *oaddr, int ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Win win);
int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype type, pointer status);
int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype type, pointer status);
int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype type, pointer status);
int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype type, pointer status);
