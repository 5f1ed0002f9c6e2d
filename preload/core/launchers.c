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

#include "preload/core/identity.h"
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
	"MPIRUN_RANK",
	"MPI_LOCALRANKID",
	"SLURM_JOB_ID",
	"SLURM_JOBID",
	"SLURM_STEP_ID",
	"ALPS_APP_PE",
	"PALS_RANKID",
	"FLUX_JOB_ID",
	"FLUX_TASK_RANK",
	"LSB_JOBID",
	"PBS_JOBID",
	"JSM_NAMESPACE_RANK",
	NULL,
};

/* Rank, size and job id, launcher by launcher, most specific first (the
 * libpfm4 way: data, read by identity.c; docs/environment.md, "Rank and
 * job").  The MPI launchers come before the batch systems: a job script of
 * Slurm, Flux or PBS runs mpirun with the allocation's variables still set
 * (SLURM_PROCID=0 in every rank), and the launcher that started the
 * process is the one that knows its rank; inside an allocation, mpirun and
 * hydra start their daemons with srun, so the ranks also carry the
 * daemon's SLURM_STEP_ID and SLURM_PROCID (a node number).  Observed here (Debian 12):
 * Open MPI 4.1 sets OMPI_COMM_WORLD_RANK/SIZE, OMPI_MCA_ess_base_jobid and
 * PMIX_RANK/PMIX_NAMESPACE (the same number); MPICH 4.0's hydra sets
 * PMI_RANK, PMI_SIZE, PMI_FD and no job id at all (its kvsname is only
 * given over the PMI socket, which belongs to the program).
 *
 * The job id alone may come from another launcher: every task of a Slurm
 * step sees the step's SLURM_JOB_ID and SLURM_STEP_ID, whether srun
 * started it itself (--mpi=pmix: PMIx names it slurm.pmix.JOB.STEP;
 * --mpi=pmi2) or a launcher srun started (MPICH's hydra starts all its
 * proxies, its own node's too, with one srun), so the step (OUTER) names
 * the job and the rank's launcher's id becomes mpi_job.  Not when an OWN
 * variable is set: Open MPI's mpirun (ORTE; PRRTE's prterun is built alike) starts the
 * ranks of its own node itself, outside any step, and the other nodes'
 * through srun, so on several nodes only some of its ranks would see a
 * step; MVAPICH's mpirun_rsh starts them over ssh; a Flux instance run by
 * srun runs many jobs in one step.  Their own id is the job's. */
const struct hs_id_var hs_launcher_ids[] = {
	/* Open MPI 4 (ORTE): the jobid; Open MPI 5 (PRRTE): the namespace */
	{ "Open MPI", HS_ID_RANK, "OMPI_COMM_WORLD_RANK" },
	{ "Open MPI", HS_ID_OWN, "OMPI_COMM_WORLD_RANK" },
	{ "Open MPI", HS_ID_SIZE, "OMPI_COMM_WORLD_SIZE" },
	{ "Open MPI", HS_ID_JOB, "OMPI_MCA_ess_base_jobid" },
	{ "Open MPI", HS_ID_JOB, "PMIX_NAMESPACE" },
	/* MVAPICH2 (mpirun_rsh / mpispawn); MPIRUN_ID is mpirun_rsh's id */
	{ "MVAPICH", HS_ID_RANK, "MV2_COMM_WORLD_RANK" },
	{ "MVAPICH", HS_ID_RANK, "MPIRUN_RANK" },
	{ "MVAPICH", HS_ID_SIZE, "MV2_COMM_WORLD_SIZE" },
	{ "MVAPICH", HS_ID_SIZE, "MPIRUN_NPROCS" },
	{ "MVAPICH", HS_ID_JOB, "MPIRUN_ID" },
	{ "MVAPICH", HS_ID_OWN, "MV2_COMM_WORLD_RANK" },
	{ "MVAPICH", HS_ID_OWN, "MPIRUN_RANK" },
	/* any PMIx server: PRRTE, srun --mpi=pmix, jsrun, Flux */
	{ "PMIx", HS_ID_RANK, "PMIX_RANK" },
	{ "PMIx", HS_ID_JOB, "PMIX_NAMESPACE" },
	/* PMI-1/2: MPICH's and Intel MPI's hydra, srun --mpi=pmi2 (PMI_JOBID);
	 * hydra gives no id: its mpiexec's control port (identity.c) */
	{ "PMI", HS_ID_RANK, "PMI_RANK" },
	{ "PMI", HS_ID_SIZE, "PMI_SIZE" },
	{ "PMI", HS_ID_JOB, "PMI_JOBID" },
	{ "PMI", HS_ID_DERIVE, "hydra" },
	/* Cray PALS (PBS/PALS mpiexec) and ALPS (aprun): no size variable */
	{ "Cray PALS", HS_ID_RANK, "PALS_RANKID" },
	{ "Cray PALS", HS_ID_JOB, "PALS_APID" },
	{ "Cray ALPS", HS_ID_RANK, "ALPS_APP_PE" },
	{ "Cray ALPS", HS_ID_JOB, "ALPS_APP_ID" },
	/* Flux */
	{ "Flux", HS_ID_RANK, "FLUX_TASK_RANK" },
	{ "Flux", HS_ID_SIZE, "FLUX_JOB_SIZE" },
	{ "Flux", HS_ID_JOB, "FLUX_JOB_ID" },
	{ "Flux", HS_ID_OWN, "FLUX_JOB_ID" },
	/* Slurm: a task of a step srun started.  The batch script itself has
	 * SLURM_PROCID=0 and no step id: a program it runs is no rank.  A
	 * step names the job of any rank started in it (OUTER, above). */
	{ "Slurm", HS_ID_REQUIRE, "SLURM_STEP_ID" },
	{ "Slurm", HS_ID_RANK, "SLURM_PROCID" },
	{ "Slurm", HS_ID_SIZE, "SLURM_NTASKS" },
	{ "Slurm", HS_ID_SIZE, "SLURM_NPROCS" },
	{ "Slurm", HS_ID_JOB, "SLURM_JOB_ID" },
	{ "Slurm", HS_ID_JOB, "SLURM_JOBID" },
	{ "Slurm", HS_ID_STEP, "SLURM_STEP_ID" },
	{ "Slurm", HS_ID_OUTER, "SLURM_STEP_ID" },
	{ NULL, 0, NULL },
};
