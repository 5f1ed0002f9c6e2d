! mpi_job.f90 - a Fortran MPI job (tests/mpi/test_mpi_job.py): init, a sum
! over the ranks, finalize through the Fortran bindings (Open MPI's call
! PMPI_Finalize directly, never the C MPI_Finalize).
program mpi_job
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, total
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  call MPI_ALLREDUCE(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0)', 'ranks ', nranks, ' sum ', total
  call MPI_FINALIZE(ierr)
end program mpi_job
