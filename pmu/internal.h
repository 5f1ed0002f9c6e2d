/* internal.h - what only the files of pmu/ use (libperf's
 * include/internal): the system call variants, the descriptor table's own
 * test, the user-space read.  Nothing outside pmu/ includes it
 * (tests/project/test_layers.py). */
#ifndef HPCSHIM_PMU_INTERNAL_H
#define HPCSHIM_PMU_INTERNAL_H

#include "pmu/pmu.h"

/* sys.c */
/* The same as pmu_sys__open for thread tid of this process (0: the
 * calling thread), for breakpoints armed in threads already running. */
int pmu_sys__open_task(struct perf_event_attr *attr, pid_t tid, int group_fd);
/* The calling thread's event, left where the kernel put it (the program's
 * range): to be placed with pmu_fdspace__place_n, then registered. */
int pmu_sys__open_unplaced(struct perf_event_attr *attr, int group_fd);
/* Opens a group leader or lone event for tid below ceiling
 * (pmu_sys__fd_ceiling); -1 with EMFILE above it. */
int pmu_sys__open_below(struct perf_event_attr *attr, pid_t tid, int ceiling);
/* The kernel's core PMU name ("cpu", "cpu_core", "armv8_*"), or "". */
void pmu_sys__cpu_pmu(char *buf, size_t len);
/* Whether the Arm core PMU implements common event n (< 0x40): 1, 0, or
 * -1 when it cannot tell (not Arm, no events/ listing). */
int pmu_sys__arm_implements(const char *cpu_pmu, unsigned long long n);

/* fdspace.c: moves a new descriptor to our space (closing fd): the new
 * number, or -1 with EMFILE when there is no room. */
int pmu_fdspace__place(int fd);
/* The same for n descriptors (a group's members) at once, their old
 * numbers closed together: 0, or -1 (EMFILE) with all of them closed. */
int pmu_fdspace__place_n(int *fd, int n);
/* One more number in our space for a perf_event_open that found none. */
bool pmu_fdspace__make_room(void);

/* fdtab.c: whether fd is in the table at all; numbers beyond it are not
 * tracked, so their ownership cannot be checked. */
bool pmu_fdtab__tracked(int fd);
/* The revocation count (fdtab.c): unchanged since a check, no descriptor
 * checked then was revoked since. */
extern uint64_t pmu_fdtab__gen;
static inline uint64_t pmu_fdtab__generation(void)
{
	return __atomic_load_n(&pmu_fdtab__gen, __ATOMIC_ACQUIRE);
}

/* userread.c: counters read from user space through the mmap page. */
bool pmu_userread__supported(void);
/* Asks attr for user access, most capable form first: call with level 0,
 * then with the returned level while the open fails; -1 = nothing left to
 * try (attr is back to no request). */
int pmu_userread__request(struct perf_event_attr *attr, int level);
void *pmu_userread__map(int fd);
void pmu_userread__unmap(void *page);
/* The read itself: pmu_userread__read() in userread.h (inline). */

/* breakpoint.c: an execute breakpoint's attributes (point.c makes it
 * count or signal). */
void pmu_bp__attr(struct perf_event_attr *a, uint64_t addr, bool disabled);
/* uprobe.c: the uprobe PMU's type (-1, errno ENOENT: none), and a
 * uprobe's attributes at p's file and offset (-1: no such PMU). */
struct pmu_point;
int pmu_uprobe__type(void);
int pmu_uprobe__attr(struct perf_event_attr *a, const struct pmu_point *p,
		     bool disabled);

#endif
