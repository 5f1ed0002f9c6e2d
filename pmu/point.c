/* point.c - code points, whichever way they are watched (point.h): the
 * parts both ways share, and the check that a way actually counts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/dl.h"
#include "pmu/internal.h"
#include "pmu/point.h"

const char *pmu_point__method_name(enum pmu_point_method m)
{
	static const char *const names[] = { "breakpoint", "uprobe" };

	return m < PMU_POINT_NMETHODS ? names[m] : "none";
}

/* Counting or signalling: the part of the attributes both ways share. */
static void point__signal_attr(struct perf_event_attr *a, uint64_t sig_data)
{
	if (sig_data) {
		/* Every hit overflows and signals the thread that hit it. */
		a->sample_period = 1;
		a->sigtrap = 1;
		a->remove_on_exec = 1; /* the kernel requires it with sigtrap */
		a->sig_data = sig_data;
	} else {
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
}

bool pmu_point__locate(struct pmu_point *p, char *path, size_t len, char *why,
		       size_t wlen)
{
	struct hs_dl_map m;

	if (!hs_dl__mapping((const void *)(uintptr_t)p->addr, &m)) {
		snprintf(why, wlen,
			 "0x%llx is not in a mapped file (a uprobe needs one)",
			 (unsigned long long)p->addr);
		return false;
	}
	/* A removed file is still reachable through its mapping's link. */
	if (m.deleted)
		snprintf(path, len, "/proc/self/map_files/%llx-%llx",
			 (unsigned long long)m.start, (unsigned long long)m.end);
	else
		snprintf(path, len, "%s", m.path);
	p->path = path;
	p->offset = p->addr - m.start + m.offset;
	return true;
}

int pmu_point__open(enum pmu_point_method m, const struct pmu_point *p, pid_t tid,
		    bool disabled, uint64_t sig_data, int ceiling)
{
	struct perf_event_attr a;

	if (m == PMU_POINT_UPROBE) {
		if (pmu_uprobe__attr(&a, p, disabled) < 0)
			return -1;
	} else {
		pmu_bp__attr(&a, p->addr, disabled);
	}
	point__signal_attr(&a, sig_data);
	return pmu_sys__open_below(&a, tid, ceiling);
}

bool pmu_point__read(int fd, uint64_t *count)
{
	uint64_t v[3]; /* value, time enabled, time running */

	if (fd < 0 || !pmu_fdtab__valid(fd) || read(fd, v, sizeof(v)) != sizeof(v))
		return false;
	*count = v[0];
	return v[1] == v[2];
}

/* The function the check watches.  Not inlined, not merged with another
 * (the asm), called through a volatile pointer so it really runs. */
static __attribute__((noinline, noclone)) void point__probe_target(void)
{
	__asm__ volatile("" ::: "memory");
}

/* The way in prose, for reasons. */
static const char *point__plural(enum pmu_point_method m)
{
	return m == PMU_POINT_UPROBE ? "uprobes" : "hardware breakpoints";
}

static void point__why_open(enum pmu_point_method m, int err, char *why, size_t len)
{
	if (m == PMU_POINT_UPROBE && err == ENOENT)
		snprintf(why, len, "no uprobe PMU in this kernel (%s)",
			 "/sys/bus/event_source/devices/uprobe");
	else if (m == PMU_POINT_UPROBE && (err == EACCES || err == EPERM))
		snprintf(why, len, "uprobes need CAP_SYS_ADMIN (perf_event_open: %s)",
			 pmu_errno__name(err));
	else
		snprintf(why, len, "%s cannot be opened: %s: %s",
			 point__plural(m), pmu_errno__name(err),
			 pmu_errno__reason(err));
}

bool pmu_point__works(enum pmu_point_method m, bool execute, char *why, size_t len)
{
	void (*volatile fn)(void) = point__probe_target;
	struct pmu_point p = { .addr = (uint64_t)(uintptr_t)fn };
	char path[PATH_MAX];
	uint64_t n = 0;
	bool read_ok;
	int fd;

	if (m == PMU_POINT_UPROBE && !pmu_point__locate(&p, path, sizeof(path), why, len))
		return false;
	fd = pmu_point__open(m, &p, 0, false, 0, 1 << 30);
	if (fd < 0) {
		point__why_open(m, errno, why, len);
		return false;
	}
	if (execute)
		fn();
	read_ok = pmu_point__read(fd, &n);
	pmu_sys__close(fd);
	if (read_ok && n == 1)
		return true;
	if (!read_ok)
		snprintf(why, len, "%s open but cannot be read here",
			 point__plural(m));
	else
		snprintf(why, len,
			 "%s open but do not fire on this host (a function "
			 "called once counted %llu)",
			 point__plural(m), (unsigned long long)n);
	return false;
}
