/* sys.c - the few places pmu/ touches the kernel directly. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/sys.h"
#include "pmu/internal.h"

/* Counts the calling thread on any CPU; close-on-exec so an exec'd image
 * never inherits another image's counters. */
int pmu_sys__open(struct perf_event_attr *attr, int group_fd)
{
	return pmu_sys__open_task(attr, 0, group_fd);
}

/* The same for thread tid of this process (0: the calling thread), for
 * breakpoints that must be armed in threads already running.  The new
 * descriptor is moved out of the program's range (fdspace.c) before it is
 * registered; when even perf_event_open found no free number, one more is
 * made in our space if there is room. */
/* EMFILE from perf_event_open means no free number below the limit only
 * if no other call can get one either (a seccomp filter can return it). */
static bool sys__out_of_numbers(void)
{
	int fd = hs_sys__openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

	if (fd < 0)
		return errno == EMFILE;
	hs_sys__close(fd);
	errno = EMFILE;
	return false;
}

static int sys__open_task(struct perf_event_attr *attr, pid_t tid, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, attr, tid, -1, group_fd,
			  PERF_FLAG_FD_CLOEXEC);

	if (fd < 0 && errno == EMFILE && sys__out_of_numbers() &&
	    pmu_fdspace__make_room())
		fd = syscall(SYS_perf_event_open, attr, tid, -1, group_fd,
			     PERF_FLAG_FD_CLOEXEC);
	return (int)fd;
}

int pmu_sys__open_unplaced(struct perf_event_attr *attr, int group_fd)
{
	return sys__open_task(attr, 0, group_fd);
}

int pmu_sys__open_task(struct perf_event_attr *attr, pid_t tid, int group_fd)
{
	int fd = sys__open_task(attr, tid, group_fd);

	if (fd < 0)
		return -1;
	fd = pmu_fdspace__place(fd);
	if (fd < 0)
		return -1;
	pmu_fdtab__own((int)fd);
	return (int)fd;
}

/* No ceiling any more: every descriptor is placed above the program's
 * range (fdspace.c).  Kept for the callers that still pass one. */
int pmu_sys__fd_ceiling(void)
{
	return INT_MAX;
}

/* Opens a group leader or lone event for tid; a descriptor at or above
 * ceiling is closed again (EMFILE): that range is left to the program. */
int pmu_sys__open_below(struct perf_event_attr *attr, pid_t tid, int ceiling)
{
	int fd = pmu_sys__open_task(attr, tid, -1);

	if (fd >= ceiling) {
		pmu_sys__close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

/* Closes with the raw system call (common/sys.h), never through the
 * shim's close wrapper; a number the program took over is left alone. */
void pmu_sys__close(int fd)
{
	if (pmu_fdtab__revoke(fd) || !pmu_fdtab__tracked(fd))
		hs_sys__close(fd);
}

int pmu_sys__paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -99;

	if (!f)
		return v;
	if (fscanf(f, "%d", &v) != 1)
		v = -99;
	fclose(f);
	return v;
}

/* The kernel's core PMU: "cpu" (x86), "cpu_core" (hybrid), "armv8_*". */
void pmu_sys__cpu_pmu(char *buf, size_t len)
{
	static const char *const known[] = { "cpu", "cpu_core", "armv8_" };
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;

	buf[0] = '\0';
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
			size_t n = strlen(known[i]);
			bool prefix = known[i][n - 1] == '_';
			if (prefix ? strncmp(de->d_name, known[i], n) == 0 :
				     strcmp(de->d_name, known[i]) == 0) {
				snprintf(buf, len, "%s", de->d_name);
				closedir(d);
				return;
			}
		}
	}
	closedir(d);
}

/* Whether the Arm core PMU cpu_pmu implements the common event n
 * (0x00-0x3f): 1 yes, 0 no, -1 cannot tell.  The kernel lists in
 * <pmu>/events/ exactly the common events whose PMCEID bit is set
 * (armv8pmu_event_attr_is_visible; since Linux 5.x it names all 64), and a
 * counter on an event the core does not implement counts nothing: its 0
 * is no measurement (QEMU's emulated PMUv3 implements 0x00, 0x08, 0x11,
 * 0x23, 0x24 and 0x3c, and SW_INCR unlisted). */
int pmu_sys__arm_implements(const char *cpu_pmu, unsigned long long n)
{
	char path[512], text[64];
	unsigned long long v;
	struct dirent *de;
	int listed = 0, found = 0;
	DIR *d;

	/* SW_INCR (0) is mandatory and counts only writes to PMSWINC_EL0; QEMU
	 * 7.2 leaves it out of PMCEID0 all the same. */
	if (strncmp(cpu_pmu, "armv8_", 6) || n == 0 || n >= 0x40)
		return -1;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%.64s/events",
		 cpu_pmu);
	d = opendir(path);
	if (!d)
		return -1;
	while (!found && (de = readdir(d)) != NULL) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%.64s/events/%.256s",
			 cpu_pmu, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(text, sizeof(text), f) && sscanf(text, "event=%llx", &v) == 1 &&
		    v < 0x40) {
			listed++;
			found = v == n;
		}
		fclose(f);
	}
	closedir(d);
	return found ? 1 : listed ? 0 : -1;
}
