/* point.h - code points counted exactly: how many times one thread
 * executes one address (checkpoints), or a signal when it does (the
 * start/stop triggers).
 *
 * Two ways to watch a point, chosen by the caller:
 *   breakpoint  a hardware execute breakpoint (breakpoint.c): one of the
 *               CPU's debug address registers per point and thread (x86:
 *               4), any address, no privilege.  Some hypervisors accept
 *               the breakpoint and never fire it.
 *   uprobe      the kernel's uprobe PMU (uprobe.c): an int3 written into
 *               this process's copy of the code page, no register limit,
 *               but a file-backed address only and CAP_SYS_ADMIN.
 * Both count with the same read format, so one reader serves both; both
 * can instead signal every hit (sigtrap with sig_data, kernel >= 5.13).
 *
 * What opens is not always what works: pmu_point__works executes a
 * function of ours once under a point and reads the count.
 */
#ifndef HPCSHIM_PMU_POINT_H
#define HPCSHIM_PMU_POINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum pmu_point_method {
	PMU_POINT_BREAKPOINT,
	PMU_POINT_UPROBE,
	PMU_POINT_NMETHODS,
};

/* Where a point is: its address in this process, and for a uprobe the
 * file and file offset mapped there (pmu_point__locate). */
struct pmu_point {
	uint64_t addr;
	const char *path;
	uint64_t offset;
};

/* "breakpoint", "uprobe". */
const char *pmu_point__method_name(enum pmu_point_method m);

/* The file and offset of p->addr, for a uprobe: path is set to a buffer
 * of len bytes (the file as the kernel mapped it; a removed file through
 * its /proc/self/map_files link).  false with a reason in why. */
bool pmu_point__locate(struct pmu_point *p, char *path, size_t len, char *why,
		       size_t wlen);

/* Opens point p for thread tid of this process (0: the caller) below fd
 * ceiling: counting when sig_data is 0, else every hit sends the thread a
 * synchronous SIGTRAP (si_code TRAP_PERF, si_perf_data = sig_data): before
 * the instruction runs with a breakpoint, right after it with a uprobe.
 * -1 with errno. */
int pmu_point__open(enum pmu_point_method m, const struct pmu_point *p, pid_t tid,
		    bool disabled, uint64_t sig_data, int ceiling);

/* A counting point's count; false when the program closed the fd, the
 * read failed, or the point was not always armed (running < enabled:
 * another user, e.g. a debugger, held the debug registers). */
bool pmu_point__read(int fd, uint64_t *count);

/* Whether method m counts here: a point on a function of ours, executed
 * once (not at all when execute is false: the test suite's way to see
 * the "opens but never fires" path on any host), must read 1.  false
 * with the reason in why. */
bool pmu_point__works(enum pmu_point_method m, bool execute, char *why, size_t len);

/* breakpoint.c: how many execute breakpoints one thread can hold (x86: 4
 * debug registers), found by opening them until the kernel refuses; 0
 * with *err set when breakpoints cannot be opened at all. */
int pmu_bp__limit(int *err);

#endif
