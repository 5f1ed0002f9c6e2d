/* profile.h - where a job's time went (issue 31, `hpcshim report --view
 * profile`): each thread's wall time split into compute, MPI, I/O, OpenMP
 * waits and time off the CPU, per rank and for the job; the MPI and I/O
 * functions' calls and time over the ranks, mpiP's way; findings in words.
 *
 * Computed from process results only, through the typed reader
 * (docread.h): the wrapped functions' region records (HPCSHIM_PROFILE=1,
 * docs/environment.md), the threads' wall time and task-clock, and the
 * "openmp" section.  The thresholds of the findings are in docs/command.md.
 */
#ifndef HPCSHIM_AGGREGATE_PROFILE_H
#define HPCSHIM_AGGREGATE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

struct dr_doc;

/* measurement: what the shim itself spent measuring the wrapped MPI and
 * I/O calls, taken out of those calls' time (the readings fall inside
 * it): the sixth part, so that the other five add up to the wall with it.
 * (The readings of constructs and annotations stay in compute: a rank's
 * in-job summary reads only the wrapped calls' records, and both ways
 * must give the same parts; each region's measurement_ns says them.) */
enum pf_cat { PF_COMPUTE, PF_MPI, PF_IO, PF_OMP_WAIT, PF_OFF_CPU, PF_MEASURE, PF_NCAT };
/* What a function is (profile_names.c, a table of names). */
enum pf_kind {
	PF_NONE,
	PF_MPI_COLLECTIVE,
	PF_MPI_P2P,
	PF_MPI_WAIT,
	PF_MPI_OTHER,
	PF_MPI_START, /* MPI_Init, MPI_Init_thread, MPI_Finalize */
	PF_IO_CALL,
};
#define PF_NMPI 5 /* the MPI kinds, PF_MPI_COLLECTIVE.. PF_MPI_START */

extern const char *const pf_cat_name[PF_NCAT];   /* "compute", "mpi", ... */
extern const char *const pf_kind_name[PF_IO_CALL + 1]; /* "collective", ... */

/* The kind of a region named name: an MPI function (by the table, else
 * any MPI_ or PMPI_ name is PF_MPI_OTHER), an I/O call of the io set, or
 * PF_NONE. */
enum pf_kind pf__classify(const char *name);
/* Whether the profile reads a thread's region record named name (a
 * wrapped function, an OpenMP barrier): the records a document must keep
 * for pf_profile__build's rank parts (the in-job snapshot keeps only
 * those, aggregate/jobsrc_view.c). */
bool pf__reads_region(const char *name);

/* One owner's time (ns): t[] adds up to wall.  cpu: its task-clock, -1
 * unknown (then off_cpu is 0 and compute what is left). */
struct pf_times {
	double wall, cpu;
	double t[PF_NCAT];
	double mpi[PF_NMPI]; /* t[PF_MPI] by kind */
};

struct pf_thread {
	long long tid, omp; /* omp: -1 none */
	struct pf_times x;
};

struct pf_rank {
	int rank;
	const char *host;
	long long pid;
	double wall, peak_rss; /* the process's; -1: unknown */
	struct pf_times main;  /* its main thread (tid == pid, else the first) */
	struct pf_times all;   /* summed over its threads (thread time) */
	struct pf_thread *threads;
	size_t nthreads;
};

/* A statistic over the ranks (a rank without the function counts 0). */
struct pf_stat {
	double sum, min, max, mean, cov; /* cov: sd / mean, 0 when mean 0 */
	int min_at, max_at;              /* ranks */
};

struct pf_func {
	char *name;
	enum pf_kind kind;
	struct pf_stat calls, time; /* time: inclusive wall, ns */
	struct pf_stat bytes;       /* send side (MPI), returned (I/O)  */
	bool has_bytes;             /* some rank recorded them          */
};

/* The thread that waited the largest share of an OpenMP construct. */
struct pf_omp_worst {
	bool has;
	char *region;
	int rank;
	long long tid, omp;
	double wait_ns, work_ns, share;
};

struct pf_profile {
	struct pf_rank *ranks;
	size_t nranks;
	struct pf_times job; /* the ranks' main threads summed */
	struct pf_times threads; /* every thread of every rank summed: the base of
				  * the functions' shares (their time is every
				  * thread's) */
	double job_wall;     /* the longest rank's process wall */
	struct pf_func *funcs; /* MPI functions, then I/O, each by time, most first */
	size_t nfuncs, nmpi;
	bool cpu_known;      /* every thread had its task-clock */
	bool wrapped;        /* some document wrapped MPI or I/O calls */
	bool profiled;       /* some document ran under HPCSHIM_PROFILE */
	struct pf_omp_worst omp;
	size_t job_docs;     /* job documents given: left out beside rank files */
	/* No rank file, a job document: the job's parts from its regions'
	 * sums over the ranks (every thread's), its ranks' process wall and
	 * task-clock; no rank's parts, no threads, no OpenMP waits, no
	 * bytes, no memory. */
	bool from_job;
	/* ...and it carries the ranks' parts of time (issue 30's summaries:
	 * the job's and every rank's main thread's parts, their OpenMP
	 * waits, the functions' bytes, memory): the figures of the rank
	 * files, no thread's of a rank. */
	bool job_parts;
};

/* The profile of n process results (job documents are counted in
 * job_docs and left out; with no process result, the first job document
 * is read: from_job).  ranks[i]: docs[i]'s rank.  0, or -1 when out
 * of memory. */
int pf_profile__build(struct pf_profile *p, const struct dr_doc *const *docs,
		      const int *ranks, size_t n);
void pf_profile__free(struct pf_profile *p);

/* The findings, one sentence each into out[i] (PF_LINE bytes), at most
 * max; returns how many. */
#define PF_LINE 400
size_t pf_profile__findings(const struct pf_profile *p, char (*out)[PF_LINE], size_t max);

#endif
