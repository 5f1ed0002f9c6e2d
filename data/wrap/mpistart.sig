# mpistart.sig - MPI's start and end.  HPCSHIM_WRAP=@mpistart; added by
# HPCSHIM_PROFILE=1 (docs/environment.md), where the time inside them is
# MPI's (the launcher's wire-up in MPI_Init, the last synchronisation in
# MPI_Finalize).  Each is a region of its call only; the mpi set leaves
# them out.  Fortran's mpi_init/mpi_finalize are not here.
int MPI_Init(pointer argc, pointer argv);
int MPI_Init_thread(pointer argc, pointer argv, int required, int *provided);
int MPI_Finalize();
