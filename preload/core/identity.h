/* identity.h - which rank of which job this process is, from the variables
 * its launcher set (no MPI linked, nothing asked of the launcher).
 *
 *   launchers.c  the table: per launcher, the variables that give the
 *                rank, the size and the job id, in priority order
 *   identity.c   reading it once, from the image's start environment
 */
#ifndef HPCSHIM_PRELOAD_IDENTITY_H
#define HPCSHIM_PRELOAD_IDENTITY_H

#define HS_JOB_MAX 128 /* a job id longer than this is cut */

enum hs_id_field {
	HS_ID_RANK,    /* the rank in the job: an integer >= 0              */
	HS_ID_SIZE,    /* the number of ranks: an integer >= 1               */
	HS_ID_JOB,     /* the job id, as the launcher spells it               */
	HS_ID_STEP,    /* appended to the job id after a '.' (Slurm steps)   */
	HS_ID_REQUIRE, /* the launcher counts only when this is set too      */
	HS_ID_DERIVE,  /* no job id in the environment: var names a deriver  */
	HS_ID_OUTER,   /* set: this launcher's job id is also that of a rank
			* another launcher started inside it (a Slurm step) */
	HS_ID_OWN,     /* set: no outer launcher's job id applies; the rank's
			* own launcher started ranks outside any outer step */
};

/* One row: launcher (a label, rows of one launcher are adjacent), what
 * the variable gives, and its name.  The first launcher whose RANK
 * variable holds a valid number gives the rank, and the size and job id
 * come from the same launcher only (an inherited variable of an outer
 * launcher, a Slurm allocation around mpirun, never mixes in).  One
 * exception, for the job id only: an OUTER launcher whose OUTER variable
 * is set (a Slurm step: every task of it, whichever MPI started it, sees
 * the same SLURM_JOB_ID.SLURM_STEP_ID) gives the job id, and the rank's
 * launcher's own id goes to mpi_job; not when any OWN variable is set. */
struct hs_id_var {
	const char *launcher;
	enum hs_id_field what;
	const char *var;
};

/* launchers.c: terminated by a row with launcher NULL. */
extern const struct hs_id_var hs_launcher_ids[];

struct hs_identity {
	int rank, size;           /* -1 when unknown                    */
	char job[HS_JOB_MAX];     /* "" when unknown                    */
	char mpi_job[HS_JOB_MAX]; /* the job id of the launcher that gave
				   * the rank, when that is no OUTER one;
				   * "" when it has none               */
	const char *launcher;     /* the table's label, NULL when none  */
};

/* identity.c: reads the identity from the current environment (the
 * constructor calls it before the program runs: the start environment). */
void hs_identity__read(struct hs_identity *id);

#endif
