/* kernel.h - the kernel's own figures of a task, beside the counters
 * (kernel.c): what ran before a thread's counters opened, and the threads
 * the shim never covered (docs/schema.md "before_start",
 * "uncovered_threads").
 */
#ifndef HPCSHIM_AGGREGATE_KERNEL_H
#define HPCSHIM_AGGREGATE_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The kernel's own figures of one task (kernel.c): getrusage(2) and the
 * task's CPU clock for a thread before its counters opened, /proc for a
 * thread we never covered. */
struct agg_kfigs {
	bool known;
	uint64_t cpu_ns;     /* user + system time                      */
	uint64_t cpu_res_ns; /* its resolution: 1, or the clock tick    */
	uint64_t minor_faults, major_faults;
	uint64_t vol_switches, invol_switches; /* context switches       */
};

/* The kernel figure an event counts the same thing as, if any. */
enum agg_kfig {
	AGG_KFIG_NONE = 0,
	AGG_KFIG_CPU,      /* task-clock, cpu-clock: cpu_ns          */
	AGG_KFIG_FAULTS,   /* page-faults: minor + major             */
	AGG_KFIG_MINOR,    /* minor-faults                           */
	AGG_KFIG_MAJOR,    /* major-faults                           */
	AGG_KFIG_SWITCHES, /* context-switches: voluntary + involuntary */
};
uint64_t agg_kfigs__value(const struct agg_kfigs *k, enum agg_kfig f);

/* A thread alive at exit that the shim never covered (raw clone, or
 * created before the shim started): the kernel's own per-task figures. */
struct agg_uncovered {
	pid_t tid;
	char name[16]; /* comm, "" when unknown */
	struct agg_kfigs k;
};

/* "before_start" and "before_start_kernel" of one thread, or summed over
 * the process's threads, added to o; the "uncovered_threads" array. */
struct agg_process;
struct json_object;
void agg_kernel__add_before(struct json_object *o, const struct agg_process *p,
			    const struct agg_kfigs *k);
void agg_kernel__add_process_before(struct json_object *o,
				    const struct agg_process *p);
struct json_object *agg_kernel__uncovered(const struct agg_process *p);

#endif
