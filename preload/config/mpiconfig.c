/* mpiconfig.c - HPCSHIM_MPI_FILES: which files an MPI job leaves.
 *
 * "all" (the default): every rank's own file, and the job document that
 * rank 0 writes at MPI_Finalize (preload/mpi/).  "job": only the job
 * document; a rank still writes its own file when the in-job reduction
 * failed, so no result is ever lost to the choice.  One file per rank
 * overwhelms the metadata servers of parallel file systems at scale.
 */
#include "preload/config/config.h"
#include "preload/config/varparse.h"

bool hs_mpi_config__job_only(const char *v)
{
	static const char *const names[] = { "all", "job" };

	return hs_var__choice("HPCSHIM_MPI_FILES", v, names, 2, 0) == 1;
}
