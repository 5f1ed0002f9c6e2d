/* aggregate.h - the process result: everything one process writes.
 *
 *   agg_process  metadata, the event list, the threads (thread.h), what the
 *                view computes with, and the features' sections
 *                (section.h); written by json.c (json.h) into a result
 *                file (result.h).
 *
 * The other objects of aggregate/ have a header each: thread.h (records),
 * kernel.h, warnings.h, stat.h, view.h, out.h, section.h, result.h, ...
 */
#ifndef HPCSHIM_AGGREGATE_H
#define HPCSHIM_AGGREGATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "aggregate/kernel.h"
#include "aggregate/section.h"
#include "aggregate/thread.h"
#include "aggregate/warnings.h"

#define AGG_SCHEMA "hpcshim/1"

struct agg_mux;

struct agg_pmu_info {
	const char *cpu_pmu;   /* kernel core PMU name, "" if none        */
	bool hardware;         /* a hardware event is being counted       */
	const char *fallback;  /* NULL, or why the default set is software-only */
	const char *privilege; /* user+kernel, user, mixed                 */
	int paranoid;
	const char *privilege_requested; /* HPCSHIM_PRIVILEGE: all, user, kernel */
	const char *privilege_note;      /* NULL, or why counted != requested   */
};

struct agg_metrics; /* aggregate/metric.h */

/* Starts fn(arg) on a thread of the shim's own (the real pthread_create,
 * every signal blocked): 0, or an errno. */
typedef int agg_spawn_fn(pthread_t *th, void *(*fn)(void *), void *arg);

/* Every string member must be non-NULL (use "" for unknown). */
struct agg_tap;

struct agg_process {
	pid_t pid, ppid;
	const char *host;
	int rank; /* -1: not an MPI rank (or unknown) */
	int size; /* the job's ranks, or -1                      */
	const char *job; /* the launcher's job id, "" when none  */
	const char *mpi_job; /* the rank's launcher's own id: "" or NULL: none */
	char **argv;
	int argc;
	int exec_generation; /* 0 for the first image of this pid     */
	int shim_tid;        /* the shim's own thread (flusher), or 0  */
	uint64_t start_ns, end_ns;
	uint64_t wall_ns; /* constructor to collection, monotonic */
	uint64_t peak_rss_bytes; /* getrusage's ru_maxrss, 0: unknown */
	bool complete;   /* false when ended by a fatal signal    */
	const char *end; /* exit, _exit, exec, signal             */
	int signal;      /* the fatal signal, or 0                */
	const char *version;
	int nev;
	const struct agg_event *ev;
	int main_ev; /* event of the per-call statistics, or -1 */
	struct agg_pmu_info pmu;
	struct agg_thread *threads;
	uint64_t uncovered_calls; /* region calls from threads we never saw start */
	const struct agg_uncovered *uncovered;
	int nuncovered;
	/* What the view computes values with (view.h): presets/opcode
	 * classes (metric.h) and the groups and their rotation (mux.h), or
	 * NULL.  The features' own parts of the document are sections. */
	const struct agg_metrics *metrics;
	const struct agg_mux *mux;
	struct agg_sections sections; /* the features' parts (section.h) */
	int max_regions; /* names written, the rest folded; 0: all */
	int max_threads; /* threads written, the rest folded; 0: all */
	const struct agg_warning *warnings; /* "warnings" (warnings.c)        */
	int nwarnings;
	/* What one region call's measuring costs on this host, in ns
	 * (preload/measure/): a call whose counters are read (two readings
	 * and the clock), a sampled region's call that is only timed (two
	 * clock readings).  0: not known, no "measurement_ns" written. */
	double call_cost_ns, timed_cost_ns;
	/* The end's file may be written by a helper thread while the next
	 * part is formatted (json.c); NULL: by the calling thread alone (a
	 * signal handler, a flush beside the program, tests). */
	agg_spawn_fn *spawn;
	/* A reader of the view while the document is written, which also
	 * says which region records are written (tap.h); NULL: none, every
	 * record written. */
	const struct agg_tap *tap;
};

#endif
