/* pmu.h - the API of the perf_event_open layer for the rest of hpcshim.
 * What only the files of pmu/ use is in pmu/internal.h.
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

#include "common/count.h"
#include "common/mux_mode.h"
#include "pmu/pfm.h"

#define PMU_MAX_EVENTS 64
#define PMU_NAME_MAX 128
#define PMU_REASON_MAX 256
#define PMU_MAX_CLOCKS 4

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
	char name[PMU_NAME_MAX];     /* as the user wrote it; the key in results */
	char encoding[PMU_NAME_MAX]; /* libpfm4's fully qualified name, or "" */
	enum pmu_source source;
	struct perf_event_attr attr;
	bool plm_explicit; /* :u / :k given: never change the privilege   */
	bool downgraded;   /* kernel excluded because paranoid forbade it */
	enum pmu_status status;
	int err;                     /* positive errno of the failure, or 0 */
	char reason[PMU_REASON_MAX]; /* human reason when dropped           */
	int group;                   /* group index when OK                 */
	int ugroup;                  /* user group ({a,b} in the list), or -1 */
	bool pinned;                 /* HPCSHIM_MUX_PINNED: never rotated,
				       * attr.pinned on its group's leader  */
	bool derived;                /* task-clock/cpu-clock with no descriptor:
				       * its group's time running (evlist.c) */
};

struct pmu_group {
	int n;
	int idx[PMU_MAX_EVENTS];  /* event indices; idx[0] is the leader */
	bool user;                /* a {...} group of the user's list       */
	bool pinned;              /* never multiplexed: pinned events, or any
				  * group kept by HPCSHIM_MUX=off            */
	bool rotated;             /* time-shared by the shim (HPCSHIM_MUX=rotate) */
	char why[PMU_REASON_MAX]; /* why this group exists apart from the others */
	/* Clock events derived from this group's time running, not opened
	 * (not in idx[]: the read layout is the members'). */
	int nclock;
	int clock[PMU_MAX_CLOCKS];
};

/* The derived clocks' reading from their group's times (exact: a clock's
 * own enabled and running are its value). */
static inline void pmu_group__clocks(const struct pmu_group *grp, struct count *out,
				     uint64_t running)
{
	for (int k = 0; k < grp->nclock; k++)
		out[grp->clock[k]] = (struct count){ running, running, running };
}

/* How groups that do not fit on the PMU at once share it (schedule.c). */

struct pmu_evlist {
	int nevents;
	struct pmu_event ev[PMU_MAX_EVENTS];
	int ngroups;
	struct pmu_group grp[PMU_MAX_EVENTS];
	int paranoid;     /* /proc/sys/kernel/perf_event_paranoid, or -99 */
	char cpu_pmu[64]; /* kernel's core PMU (cpu, armv8_pmuv3_0), or "" */
	bool hardware;    /* at least one hardware event opened           */
	bool user_read;   /* read hardware groups from user space if able */
	int ndropped;     /* events not counted at all (set by probe)     */
	int nderived;     /* clock events read from their group's times   */
	bool hold;        /* set before the probe: hold its descriptors   */
	int nheld;        /* open until pmu_evlist__release (evlist.c)   */
	int held[PMU_MAX_EVENTS];
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
/* The same for a member of user group ugroup (-1: none), pinned or not.
 * A user group is opened as one or dropped whole, never split. */
int pmu_evlist__add_grouped(struct pmu_evlist *el, const char *spec, int ugroup,
			    bool pinned);
/* Index of the event named name, or -1. */
int pmu_evlist__find(const struct pmu_evlist *el, const char *name);
/* Opens every event once on the calling thread (privilege downgrade on
 * EACCES unless explicit), drops what does not open, and partitions the rest
 * into groups by trial opening.  Returns the number of OK events. */
int pmu_evlist__probe(struct pmu_evlist *el);
int pmu_evlist__nok(const struct pmu_evlist *el);
/* Closes the descriptors the probe held open: call once the first
 * thread's counters are open. */
void pmu_evlist__release(struct pmu_evlist *el);
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
	int fd[PMU_MAX_EVENTS];     /* by event index; -1 when not open        */
	void *page[PMU_MAX_EVENTS]; /* mmap page for user-space reads, or NULL */
	bool user[PMU_MAX_EVENTS];  /* by group: every member's page mapped  */
	uint64_t user_reads;        /* group reads done in user space (atomic)   */
	uint64_t syscall_reads;     /* group reads done with read() (atomic)     */
	uint64_t missing;           /* bit i: OK event i not counted here        */
	uint64_t revoked;           /* bit g: group g's descriptors closed by the
				     * program: never read again (atomic)      */
	uint64_t fdgen;             /* pmu_fdtab__gen when last all intact       */
	int err;                    /* errno of the first failure, or 0          */
	const char *reason;         /* static text for missing events, or NULL   */
	/* A read of all groups by the owner is one snapshot for the caller
	 * (a region boundary).  A signal handler of the owner that would
	 * change which groups count (the rotation) must not run inside it:
	 * it sees `reading`, sets `deferred` and returns; the read runs
	 * defer_fn(defer_arg) as it ends.  Touched only by the owner thread
	 * and its handlers (signal fences). */
	volatile int reading, deferred;
	void (*defer_fn)(void *arg);
	void *defer_arg;
	/* The owner's lean read (counters__plan): when every group is read
	 * from user space and out[] holds nothing else (no dropped, derived
	 * or missing event), each page in group order with its event index
	 * and whether it leads its group (nplan of them).  One loop, no
	 * per-group lookups: the region hot path.  nplan -1: every group
	 * read with read(), nothing dropped or missing (one read() each, no
	 * per-group tests).  0: the general read. */
	int nplan;
	bool plan1; /* the plan is one group's (counters__read_plan1) */
	struct pmu_plan {
		const void *page;
		int ev;
		bool lead;
	} plan[PMU_MAX_EVENTS];
};
int pmu_counters__open(struct pmu_counters *c, const struct pmu_evlist *el);
/* One read() per group.  out[] is indexed by event index (nevents
 * entries); events not open in this thread and dropped events read as
 * all-zero.  A group whose descriptor the program closed becomes missing.
 * Returns 0, or -1 with errno when a read failed. */
int pmu_counters__read(struct pmu_counters *c, struct count *out);
/* The same, and the instant of the reading on the perf clock (the kernel's
 * sched_clock, in ns) in *clock when the counters were read from user
 * space through their plan, else 0: the region path's wall time then
 * comes with the counts, not from a clock read of its own. */
int pmu_counters__read_at(struct pmu_counters *c, struct count *out, uint64_t *clock);
/* The perf clock now from the planned pages, as read_at gives it; 0 when
 * reads are not planned or the pages do not give it. */
uint64_t pmu_counters__clock(const struct pmu_counters *c);
/* Whether reads are planned from user space (pmu_counters__read_at may
 * give a clock). */
static inline bool pmu_counters__planned(const struct pmu_counters *c)
{
	return __atomic_load_n(&c->nplan, __ATOMIC_RELAXED) > 0;
}
/* The same from a thread other than the owner: read() only, since the
 * hardware counters hold the calling thread's counts. */
int pmu_counters__read_other(struct pmu_counters *c, struct count *out);
void pmu_counters__close(struct pmu_counters *c);
/* In a fork()ed child, before closing inherited counters. */
void pmu_counters__forget_pages(struct pmu_counters *c);

/* schedule.c: after the probe.  Checks by trial which hardware groups can
 * be on the PMU together (pinned groups, then the others in OFF mode, each
 * rotated group next to the pinned ones in ROTATE mode), drops what cannot
 * be counted as asked (with a reason), sets attr.pinned on the leaders of
 * groups that must never be multiplexed and attr.disabled on rotated ones.
 * sampler (or NULL) is a hardware sampling event that will be on the PMU
 * too.  Returns the number of OK events. */
int pmu_schedule__apply(struct pmu_evlist *el, enum hs_mux_mode mode,
			const struct perf_event_attr *sampler);
/* evlist.c: gives every clock derived from group g a group of its own (a
 * group the shim rotates or disables apart has no thread time to give). */
void pmu_evlist__underive(struct pmu_evlist *el, int g);

/* sampler.c: an event that interrupts the thread every period ns of its
 * CPU time (task-clock) or every period instructions, with signo. */
void pmu_sampler__attr(struct perf_event_attr *a, bool instructions, uint64_t period);
/* Opens a once on the calling thread (downgrading to user level when
 * refused); 0, or -1 with errno. */
int pmu_sampler__probe(struct perf_event_attr *a);
/* Opens a for the calling thread, disabled, owned by the thread (F_SETOWN_EX
 * F_OWNER_TID) and signalling signo (si_fd = the descriptor) on overflow.
 * -1 with errno. */
int pmu_sampler__open(const struct perf_event_attr *a, int signo);
/* One more overflow, then the event disables itself (async-signal-safe):
 * a thread that blocks the signal never has more than one queued. */
int pmu_sampler__arm(int fd);
void pmu_sampler__close(int fd);
/* The thread's task clock, counted all the time (pinned, no signal), with
 * the privilege of sampler a: the rotation's time reference.  -1 with
 * errno.  Its value (8 bytes from read()) is in the clock of the kernel's
 * time enabled/running of the thread's events. */
int pmu_sampler__open_clock(const struct perf_event_attr *a);

/* groupctl.c: one group of a thread's counters, async-signal-safe (no
 * allocation, no lock, nothing but the system call on the group leader).
 * Both return -1 when the group is not open here or the program closed its
 * descriptor. */
int pmu_group__enable(const struct pmu_counters *c, int g, bool on);
/* One read() of group g into out[] (by event index); nothing else is
 * touched (no tally, no missing bit). */
int pmu_group__read(const struct pmu_counters *c, int g, struct count *out);

/* error.c: perf_event_open errno -> symbolic name and human reason. */
const char *pmu_errno__name(int err);
const char *pmu_errno__reason(int err);
/* The reason of a thread left uncounted for lack of descriptor room. */
extern const char pmu_errno__no_room[];

/* sys.c: the perf_event_open system call for the calling thread; the new
 * descriptor is registered in fdtab.c.  -1 with errno. */
int pmu_sys__open(struct perf_event_attr *attr, int group_fd);
/* No ceiling any more (INT_MAX): every descriptor is placed above the
 * program's range by fdspace.c.  For the callers that still pass one. */
int pmu_sys__fd_ceiling(void);
/* Closes a counter descriptor only while it is still ours (fdtab.c). */
void pmu_sys__close(int fd);
/* /proc/sys/kernel/perf_event_paranoid, or -99. */
int pmu_sys__paranoid(void);

/* fdtab.c: counter descriptors we own.  pmu_sys__open registers them; the
 * preload layer revokes the numbers the program closes or replaces, and
 * pmu/ never reads or closes a revoked number. */
void pmu_fdtab__own(int fd);
bool pmu_fdtab__valid(int fd);
/* The program closed (or replaced) fd: true when it was ours. */
bool pmu_fdtab__revoke(int fd);
void pmu_fdtab__revoke_range(unsigned int first, unsigned int last);

/* fdspace.c: our descriptors live at or above max(the program's soft
 * RLIMIT_NOFILE, FD_SETSIZE), under a real limit raised for them; the
 * program sees and sets its own limits through this view. */
struct rlimit;
void pmu_fdspace__program(struct rlimit *view);
/* The program's setrlimit: 0 or -errno, as the kernel would answer it. */
int pmu_fdspace__set_program(const struct rlimit *want);
/* The last placement found no room: the program's hard limit is its soft
 * one (or nr_open) and cannot be raised. */
bool pmu_fdspace__no_room(void);
/* Around an exec: the next image starts with the program's limits
 * (async-signal-safe, no lock: also in a vfork child). */
void pmu_fdspace__exec_begin(void);
void pmu_fdspace__exec_failed(void);

/* fd.c: ioctl PERF_EVENT_IOC_ENABLE / DISABLE on a descriptor that is
 * still ours (group: the whole group of a leader).  Async-signal-safe. */
void pmu_fd__enable(int fd, bool group);
void pmu_fd__disable(int fd, bool group);

#endif
