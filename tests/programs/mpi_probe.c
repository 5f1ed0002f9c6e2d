/* mpi_probe.c - a program without MPI that probes for it the way optional
 * MPI support does (tests/mpi/test_mpi_job.py): dlsym(RTLD_DEFAULT) of the
 * MPI names the shim exports.  With argv[1] "next", it also calls
 * getppid(), which tests/programs/next_lib.c (preloaded after the shim)
 * wraps through dlsym(RTLD_NEXT): the shim's dlsym must keep RTLD_NEXT
 * relative to the caller, or the wrapper would find itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char *const names[] = { "MPI_Init", "MPI_Init_thread", "MPI_Finalize",
					     "MPI_Abort", "mpi_init_", "MPI_FINALIZE",
					     "mpi_finalize_f08_", "MPI_Comm_rank" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("%s %s\n", names[i], dlsym(RTLD_DEFAULT, names[i]) ? "found" : "absent");
	if (argc > 1 && strcmp(argv[1], "next") == 0)
		printf("getppid %s\n",
		       getppid() == (pid_t)syscall(SYS_getppid) ? "right" : "wrong");
	return 0;
}
