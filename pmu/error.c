/* error.c - perf_event_open failures as names and human reasons.
 * One X-macro list so codes and strings cannot drift (libuv's UV_ERRNO_MAP). */
#include <errno.h>

#include "pmu/pmu.h"

#define PMU_ERRNO_MAP(X)                                                    \
	X(ENOENT, "event not supported on this host (no such PMU event; "   \
		  "virtual machines usually expose no hardware PMU)")       \
	X(EOPNOTSUPP, "the PMU cannot count this event in this mode")       \
	X(ENODEV, "no PMU device for this event")                           \
	X(EACCES, "permission denied by perf_event_paranoid (kernel-level " \
		  "counting needs CAP_PERFMON or paranoid <= 1)")           \
	X(EPERM, "operation not permitted (paranoid setting, seccomp or a " \
		 "security module)")                                        \
	X(EINVAL, "invalid encoding, or the group does not fit on the PMU") \
	X(ENOSPC, "no free counter or breakpoint slot")                     \
	X(EBUSY, "the counter is in exclusive use elsewhere")               \
	X(EMFILE, "too many open descriptors in this process "              \
		  "(RLIMIT_NOFILE)")                                        \
	X(ENFILE, "system-wide file table is full")                         \
	X(E2BIG, "perf_event_attr size not supported by this kernel")       \
	X(ENOSYS, "perf_event_open is not available in this kernel")        \
	X(ENAMETOOLONG, "event name too long")                              \
	X(EEXIST, "duplicate of an earlier event in the list")

const char *pmu_errno__name(int err)
{
	switch (err) {
#define X(code, text) \
	case code:    \
		return #code;
		PMU_ERRNO_MAP(X)
#undef X
	}
	return "EUNKNOWN";
}

const char pmu_errno__no_room[] =
	"no descriptor room: the program's RLIMIT_NOFILE hard limit is its soft "
	"limit and cannot be raised (raise the hard limit, ulimit -Hn, or run "
	"with CAP_SYS_RESOURCE)";

/* EMFILE is a lack of room in our descriptor space (fdspace.c) when that
 * space says so, else the process's own limit or an injected error. */
const char *pmu_errno__reason(int err)
{
	if (err == EMFILE && pmu_fdspace__no_room())
		return pmu_errno__no_room;
	switch (err) {
#define X(code, text) \
	case code:    \
		return text;
		PMU_ERRNO_MAP(X)
#undef X
	}
	return "unexpected error";
}
