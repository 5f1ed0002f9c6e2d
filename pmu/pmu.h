/* pmu.h - internal API of the perf_event_open layer.
 *
 * Objects and their lifecycles (libperf style):
 *   pmu_event     one event spec resolved to a perf_event_attr   (event.c)
 *   pmu_evlist    the process-wide event set: parsed, probed on this host,
 *                 partitioned into groups that can be co-scheduled (evlist.c)
 *   pmu_counters  one thread's open group fds over an evlist     (counters.c)
 *
 * pmu/ knows nothing about regions, threads' bookkeeping or JSON: it turns
 * names into attrs, attrs into fds and fds into struct count readings.
 */
#ifndef HPCSHIM_PMU_H
#define HPCSHIM_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmu/count.h"
#include "pmu/pfm.h"

#define PMU_MAX_EVENTS 64
#define PMU_NAME_MAX 128
#define PMU_REASON_MAX 256

enum pmu_source {
	PMU_SRC_UNKNOWN,  /* not resolved (dropped before encoding)    */
	PMU_SRC_GENERIC,  /* perf generic hardware name (cycles, ...)   */
	PMU_SRC_SOFTWARE, /* perf software event (task-clock, ...)      */
	PMU_SRC_RAW,      /* rNNNN                                      */
	PMU_SRC_PFM,      /* libpfm4 name (perf::X, INST_RETIRED:ANY_P) */
};

enum pmu_status {
	PMU_EV_OK,      /* counted                                    */
	PMU_EV_DROPPED, /* could not be parsed or opened: see reason  */
};

struct pmu_event {
	char name[PMU_NAME_MAX]; /* as the user wrote it; the key in results */
	char encoding[PMU_NAME_MAX]; /* libpfm4's fully qualified name, or "" */
	enum pmu_source source;
	struct perf_event_attr attr;
	bool plm_explicit; /* :u / :k given: never change the privilege   */
	bool downgraded;   /* kernel excluded because paranoid forbade it */
	enum pmu_status status;
	int err;                      /* positive errno of the failure, or 0 */
	char reason[PMU_REASON_MAX];  /* human reason when dropped           */
	int group;                    /* group index when OK                 */
};

struct pmu_group {
	int n;
	int idx[PMU_MAX_EVENTS]; /* event indices; idx[0] is the leader */
};

struct pmu_evlist {
	int nevents;
	struct pmu_event ev[PMU_MAX_EVENTS];
	int ngroups;
	struct pmu_group grp[PMU_MAX_EVENTS];
	int paranoid;         /* /proc/sys/kernel/perf_event_paranoid, or -99 */
	char cpu_pmu[64];     /* kernel's core PMU (cpu, armv8_pmuv3_0), or "" */
	bool hardware;        /* at least one hardware event opened           */
	bool user_read;       /* read hardware groups from user space if able */
	int ndropped;         /* events not counted at all (set by probe)     */
};

/* event.c: resolve one spec into ev (name, attr, source).  On failure ev is
 * marked dropped with err and reason set, and -1 is returned. */
int pmu_event__parse(struct pmu_event *ev, const char *spec);
bool pmu_event__is_hardware(const struct pmu_event *ev);
/* "user", "kernel" or "user+kernel" from the exclude bits. */
const char *pmu_event__privilege(const struct pmu_event *ev);
const char *pmu_source__name(enum pmu_source s);

/* evlist.c */
void pmu_evlist__init(struct pmu_evlist *el);
/* Adds a spec; duplicates and unknown names are kept as dropped entries so
 * they appear in the results with their reason.  -1 when the list is full. */
int pmu_evlist__add(struct pmu_evlist *el, const char *spec);
/* Opens every event once on the calling thread (privilege downgrade on
 * EACCES unless explicit), drops what does not open, and partitions the rest
 * into groups by trial opening.  Returns the number of OK events. */
int pmu_evlist__probe(struct pmu_evlist *el);
int pmu_evlist__nok(const struct pmu_evlist *el);
const char *pmu_evlist__privilege(const struct pmu_evlist *el);
/* Privilege levels for every event without an explicit modifier (pfmon's
 * -u / -k); call before the probe.  ALL keeps the downgrade to user level
 * when perf_event_paranoid refuses kernel level; KERNEL is never
 * downgraded (it would count something else): refused events are dropped. */
enum pmu_plm { PMU_PLM_ALL, PMU_PLM_USER, PMU_PLM_KERNEL };
void pmu_evlist__set_privilege(struct pmu_evlist *el, enum pmu_plm plm);
const char *pmu_plm__name(enum pmu_plm plm);
/* Why the counted privilege differs from the requested one ("" if not). */
void pmu_evlist__privilege_note(const struct pmu_evlist *el, enum pmu_plm plm,
				char *buf, size_t len);

/* counters.c: one thread's counters (pid = calling thread, cpu = -1). */
struct pmu_counters {
	const struct pmu_evlist *el;
	int fd[PMU_MAX_EVENTS]; /* by event index; -1 when not open        */
	void *page[PMU_MAX_EVENTS]; /* mmap page for user-space reads, or NULL */
	bool user[PMU_MAX_EVENTS];  /* by group: every member's page mapped  */
	uint64_t user_reads;    /* group reads done in user space (atomic)   */
	uint64_t syscall_reads; /* group reads done with read() (atomic)     */
	uint64_t missing;       /* bit i: OK event i not counted here        */
	int err;                /* errno of the first failure, or 0          */
	const char *reason;     /* static text for missing events, or NULL   */
};
int pmu_counters__open(struct pmu_counters *c, const struct pmu_evlist *el);
/* One read() per group.  out[] is indexed by event index (nevents
 * entries); events not open in this thread and dropped events read as
 * all-zero.  A group whose descriptor the program closed becomes missing.
 * Returns 0, or -1 with errno when a read failed. */
int pmu_counters__read(struct pmu_counters *c, struct count *out);
/* The same from a thread other than the owner: read() only, since the
 * hardware counters hold the calling thread's counts. */
int pmu_counters__read_other(struct pmu_counters *c, struct count *out);
void pmu_counters__close(struct pmu_counters *c);
/* In a fork()ed child, before closing inherited counters. */
void pmu_counters__forget_pages(struct pmu_counters *c);

/* userread.c: counters read from user space through the mmap page. */
bool pmu_userread__supported(void);
/* Asks attr for user access, most capable form first: call with level 0,
 * then with the returned level while the open fails; -1 = nothing left to
 * try (attr is back to no request). */
int pmu_userread__request(struct perf_event_attr *attr, int level);
void *pmu_userread__map(int fd);
void pmu_userread__unmap(void *page);
/* The read itself: pmu_userread__read() in userread.h (inline). */

/* error.c: perf_event_open errno -> symbolic name and human reason. */
const char *pmu_errno__name(int err);
const char *pmu_errno__reason(int err);

/* sys.c */
int pmu_sys__open(struct perf_event_attr *attr, int group_fd);
int pmu_sys__open_task(struct perf_event_attr *attr, pid_t tid, int group_fd);
/* The lowest descriptor number left to the program (RLIMIT_NOFILE minus a
 * quarter, at least 16), and an open that keeps below it. */
int pmu_sys__fd_ceiling(void);
int pmu_sys__open_below(struct perf_event_attr *attr, pid_t tid, int ceiling);
/* fdtab.c: counter descriptors we own.  pmu_sys__open registers them;
 * pmu_sys__close closes only a descriptor that is still ours. */
void pmu_sys__close(int fd);
void pmu_fdtab__own(int fd);
bool pmu_fdtab__valid(int fd);
/* The program closed (or replaced) fd: true when it was ours. */
bool pmu_fdtab__revoke(int fd);
void pmu_fdtab__revoke_range(unsigned int first, unsigned int last);
int pmu_sys__paranoid(void);
void pmu_sys__cpu_pmu(char *buf, size_t len);

#endif
