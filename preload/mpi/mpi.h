/* mpi.h - the MPI feature (mpi.c): the in-job reduction at MPI_Finalize,
 * a rank's results saved at MPI_Init and before MPI_Abort. */
#ifndef HPCSHIM_PRELOAD_MPI_H
#define HPCSHIM_PRELOAD_MPI_H

#include <stdbool.h>

#include "preload/core/feature.h"

extern const struct hs_feature hs_mpi_feature;

/* f is one of the MPI wrappers the shim exports (dlsym.c). */
bool hs_mpi__is_wrapper(const void *f);

#endif
