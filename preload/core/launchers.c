/* launchers.c - the programs that stay dormant unless HPCSHIM_PROGRAMS is
 * given (data only; docs/environment.md lists them).
 *
 * A launcher's own result says nothing about the job, and the fork child
 * in which it prepares a rank's environment is not that rank.  The shells
 * and command wrappers between a launcher and a rank (a job script, `sh
 * -c`, `env`, `numactl`...) are dormant only when a launcher started them:
 * one of hs_launcher_vars is set.  Entries are fnmatch(3) globs matched
 * against the program's name (core/dormant.c).
 */
#include <stddef.h>

#include "preload/core/quiet.h"

const char *const hs_launcher_programs[] = {
	/* Open MPI, PRRTE, PMIx */
	"mpirun",
	"mpirun.*",
	"mpiexec",
	"mpiexec.*",
	"orterun",
	"orted",
	"prterun",
	"prted",
	"prte",
	"prun",
	"ompi-server",
	/* MPICH / Hydra, MVAPICH */
	"hydra_pmi_proxy",
	"hydra_nameserver",
	"hydra_persist",
	"mpiexec_*",
	"mpirun_rsh",
	"mpispawn",
	/* Slurm, Flux, LSF, PBS, Cray ALPS / PALS, Intel MPI on Slurm */
	"srun",
	"salloc",
	"sbatch",
	"slurmstepd",
	"slurmd",
	"flux",
	"flux-broker",
	"flux-shell",
	"jsrun",
	"jsm",
	"lrun",
	"ibrun",
	"pbs_mom",
	"pbsdsh",
	"pbs_tmrsh",
	"aprun",
	"palsd",
	"pals_*",
	/* Charm++, GASNet, upcxx: spawners of the same kind */
	"charmrun",
	"gasnetrun_*",
	"upcxx-run",
	/* hpcshim run: it sets the shim for its child only */
	"hpcshim",
	NULL,
};

const char *const hs_launcher_helpers[] = {
	/* shells */
	"sh",
	"bash",
	"dash",
	"ash",
	"zsh",
	"ksh",
	"ksh93",
	"mksh",
	"pdksh",
	"yash",
	"posh",
	"csh",
	"tcsh",
	"fish",
	"busybox",
	/* command wrappers and remote shells between a launcher and a rank */
	"env",
	"time",
	"timeout",
	"nice",
	"nohup",
	"numactl",
	"taskset",
	"stdbuf",
	"chrt",
	"setsid",
	"xargs",
	"ssh",
	"rsh",
	NULL,
};

const char *const hs_launcher_vars[] = {
	"OMPI_COMM_WORLD_SIZE",
	"OMPI_COMM_WORLD_RANK",
	"PMIX_NAMESPACE",
	"PMIX_RANK",
	"PMI_RANK",
	"PMI_SIZE",
	"PMI_FD",
	"PMI_PORT",
	"MV2_COMM_WORLD_RANK",
	"MPI_LOCALRANKID",
	"SLURM_JOB_ID",
	"SLURM_JOBID",
	"SLURM_STEP_ID",
	"ALPS_APP_PE",
	"PALS_RANKID",
	"FLUX_JOB_ID",
	"LSB_JOBID",
	"PBS_JOBID",
	"JSM_NAMESPACE_RANK",
	NULL,
};
