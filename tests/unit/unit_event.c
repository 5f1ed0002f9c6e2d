/* unit_event.c - event specs, errno strings, the evlist probe and counters.
 *
 * TAP through tests/unit/tap.h.  Table rows carry their __LINE__ so a failing
 * row names itself.  Hardware events are only asserted dropped when this
 * test can show that the host refuses them too (no PMU in most VMs).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmu/pmu.h"
#include "tests/unit/tap.h"

#define PAGE 4096
#define NPAGES 1000

/* AddressSanitizer touches shadow memory for every store: extra faults in
 * the measured interval, so fault counts are only a lower bound there. */
#if defined(__SANITIZE_ADDRESS__)
#define FAULTS_OK(n) ((n) >= NPAGES)
#else
#define FAULTS_OK(n) ((n) == NPAGES)
#endif

/* ---- pmu_event__parse: names that resolve ------------------------------ */

struct parse_ok {
	int line;
	const char *spec;
	enum pmu_source source;
	uint32_t type;
	uint64_t config;
	bool exclude_user, exclude_kernel, plm_explicit;
};

static const struct parse_ok parse_ok_rows[] = {
	/* generic hardware names */
	{ __LINE__, "cycles", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0 },
	{ __LINE__, "cpu-cycles", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 0 },
	{ __LINE__, "instructions", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 0 },
	{ __LINE__, "ref-cycles", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 0, 0, 0 },
	{ __LINE__, "stalled-cycles-backend", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 0, 0, 0 },
	{ __LINE__, "stalled-cycles-frontend", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 0, 0, 0 },
	{ __LINE__, "branch-misses", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, 0, 0 },
	{ __LINE__, "branches", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0, 0, 0 },
	{ __LINE__, "cache-misses", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0, 0, 0 },
	{ __LINE__, "bus-cycles", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 0, 0, 0 },
	/* software names and aliases */
	{ __LINE__, "task-clock", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0 },
	{ __LINE__, "cpu-clock", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 0, 0 },
	{ __LINE__, "page-faults", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 0 },
	{ __LINE__, "faults", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 0 },
	{ __LINE__, "minor-faults", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 0, 0, 0 },
	{ __LINE__, "major-faults", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0, 0, 0 },
	{ __LINE__, "context-switches", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0, 0 },
	{ __LINE__, "cs", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0, 0 },
	{ __LINE__, "cpu-migrations", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0, 0, 0 },
	{ __LINE__, "migrations", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0, 0, 0 },
	{ __LINE__, "alignment-faults", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, 0, 0, 0 },
	{ __LINE__, "emulation-faults", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, 0, 0, 0 },
	/* privilege modifiers */
	{ __LINE__, "task-clock:u", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 1, 1 },
	{ __LINE__, "page-faults:k", PMU_SRC_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1, 0, 1 },
	{ __LINE__, "cycles:k", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, 0, 1 },
	{ __LINE__, "cycles:u", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1, 1 },
	{ __LINE__, "cycles:uk", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 1 },
	{ __LINE__, "cycles:ku", PMU_SRC_GENERIC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0, 1 },
	/* raw */
	{ __LINE__, "r01c2", PMU_SRC_RAW, PERF_TYPE_RAW, 0x1c2, 0, 0, 0 },
	{ __LINE__, "rabc", PMU_SRC_RAW, PERF_TYPE_RAW, 0xabc, 0, 0, 0 },
	{ __LINE__, "r0", PMU_SRC_RAW, PERF_TYPE_RAW, 0x0, 0, 0, 0 },
	{ __LINE__, "r01c2:u", PMU_SRC_RAW, PERF_TYPE_RAW, 0x1c2, 0, 1, 1 },
	/* libpfm4 perf:: names */
	{ __LINE__, "perf::PAGE-FAULTS", PMU_SRC_PFM, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 0 },
	{ __LINE__, "perf::CONTEXT-SWITCHES", PMU_SRC_PFM, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0, 0 },
	{ __LINE__, "perf::PAGE-FAULTS:u", PMU_SRC_PFM, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, 1, 1 },
};

static void test_parse_ok(void)
{
	for (size_t i = 0; i < sizeof(parse_ok_rows) / sizeof(parse_ok_rows[0]); i++) {
		const struct parse_ok *r = &parse_ok_rows[i];
		struct pmu_event ev;
		int rc;

		memset(&ev, 0xa5, sizeof(ev)); /* parse must not rely on a clean ev */
		rc = pmu_event__parse(&ev, r->spec);
		TAP_OK(rc == 0 && ev.status == PMU_EV_OK && ev.err == 0 &&
		       strcmp(ev.name, r->spec) == 0 && ev.group == -1,
		       "row %d: '%s' parses (rc %d status %d err %d reason '%s')",
		       r->line, r->spec, rc, ev.status, ev.err,
		       ev.status == PMU_EV_OK ? "" : ev.reason);
		TAP_OK(ev.source == r->source && ev.attr.type == r->type &&
		       ev.attr.config == r->config,
		       "row %d: '%s' -> source %s type %u config %#llx "
		       "(got %s type %u config %#llx)", r->line, r->spec,
		       pmu_source__name(r->source), r->type,
		       (unsigned long long)r->config, pmu_source__name(ev.source),
		       ev.attr.type, (unsigned long long)ev.attr.config);
		TAP_OK(ev.attr.exclude_user == r->exclude_user &&
		       ev.attr.exclude_kernel == r->exclude_kernel &&
		       ev.plm_explicit == r->plm_explicit && !ev.downgraded,
		       "row %d: '%s' exclude_user %d exclude_kernel %d explicit %d "
		       "(got %d %d %d)", r->line, r->spec, r->exclude_user,
		       r->exclude_kernel, r->plm_explicit, (int)ev.attr.exclude_user,
		       (int)ev.attr.exclude_kernel, (int)ev.plm_explicit);
		TAP_OK(ev.attr.size == sizeof(ev.attr) &&
		       ev.attr.read_format == (PERF_FORMAT_GROUP | PERF_FORMAT_ID |
					       PERF_FORMAT_TOTAL_TIME_ENABLED |
					       PERF_FORMAT_TOTAL_TIME_RUNNING) &&
		       ev.attr.sample_period == 0 && ev.attr.disabled == 0 &&
		       ev.attr.inherit == 0,
		       "row %d: '%s' attr size/read_format/flags are set up for "
		       "group reads", r->line, r->spec);
		TAP_OK(pmu_event__is_hardware(&ev) == (r->type != PERF_TYPE_SOFTWARE),
		       "row %d: '%s' is_hardware == %d", r->line, r->spec,
		       r->type != PERF_TYPE_SOFTWARE);
		if (r->source == PMU_SRC_PFM)
			TAP_OK(strncmp(ev.encoding, "perf::", 6) == 0,
			       "row %d: '%s' has libpfm4 encoding '%s'", r->line,
			       r->spec, ev.encoding);
		else
			TAP_OK(ev.encoding[0] == '\0',
			       "row %d: '%s' has no libpfm4 encoding ('%s')",
			       r->line, r->spec, ev.encoding);
	}
}

/* ---- pmu_event__parse: names that are dropped -------------------------- */

struct parse_bad {
	int line;
	const char *spec;
	int err;
	const char *reason_has; /* substring of the reason */
};

static const struct parse_bad parse_bad_rows[] = {
	{ __LINE__, "bogus", ENOENT, "libpfm4" },
	{ __LINE__, "no-such-event", ENOENT, "libpfm4" },
	{ __LINE__, "r", ENOENT, "libpfm4" },
	{ __LINE__, "rXYZ", ENOENT, "libpfm4" },
	{ __LINE__, "r1ZZ", ENOENT, "libpfm4" },
	{ __LINE__, "cycles:", ENOENT, "libpfm4" },
	{ __LINE__, "cycles:x", ENOENT, "libpfm4" },
	{ __LINE__, "bogus:u", ENOENT, "libpfm4" },
	{ __LINE__, "perf::NO-SUCH-EVENT", ENOENT, "libpfm4" },
	{ __LINE__, "", EINVAL, "empty" },
};

static void check_dropped(const struct pmu_event *ev, int rc, int line,
			  const char *label, int err, const char *reason_has)
{
	TAP_OK(rc == -1 && ev->status == PMU_EV_DROPPED,
	       "row %d: '%s' is dropped (rc %d status %d)", line, label, rc,
	       ev->status);
	TAP_OK(ev->err == err, "row %d: '%s' err %d (%s), got %d (%s)", line,
	       label, err, pmu_errno__name(err), ev->err,
	       pmu_errno__name(ev->err));
	TAP_OK(strstr(ev->reason, reason_has) != NULL,
	       "row %d: '%s' reason mentions '%s': '%s'", line, label,
	       reason_has, ev->reason);
}

static void test_parse_bad(void)
{
	char longname[PMU_NAME_MAX + 80];
	struct pmu_event ev;
	int rc;

	for (size_t i = 0; i < sizeof(parse_bad_rows) / sizeof(parse_bad_rows[0]); i++) {
		const struct parse_bad *r = &parse_bad_rows[i];

		rc = pmu_event__parse(&ev, r->spec);
		check_dropped(&ev, rc, r->line, r->spec, r->err, r->reason_has);
		TAP_OK(ev.source == PMU_SRC_UNKNOWN &&
		       strcmp(pmu_source__name(ev.source), "unknown") == 0,
		       "row %d: dropped '%s' has source unknown (%s)", r->line,
		       r->spec, pmu_source__name(ev.source));
		TAP_OK(strcmp(ev.name, r->spec) == 0,
		       "row %d: dropped '%s' keeps its name for the results ('%s')",
		       r->line, r->spec, ev.name);
	}

	/* 199 characters: too long, dropped before any lookup. */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	rc = pmu_event__parse(&ev, longname);
	check_dropped(&ev, rc, __LINE__, "199 x a", ENAMETOOLONG, "long");
	TAP_OK(strlen(ev.name) == PMU_NAME_MAX - 1 &&
	       strncmp(ev.name, longname, PMU_NAME_MAX - 1) == 0,
	       "over-long name is kept truncated to %d characters (%zu)",
	       PMU_NAME_MAX - 1, strlen(ev.name));

	/* Exactly PMU_NAME_MAX characters: one too many. */
	longname[PMU_NAME_MAX] = '\0';
	rc = pmu_event__parse(&ev, longname);
	check_dropped(&ev, rc, __LINE__, "128 x a", ENAMETOOLONG, "long");

	/* PMU_NAME_MAX - 1 characters fit: looked up (and unknown). */
	longname[PMU_NAME_MAX - 1] = '\0';
	rc = pmu_event__parse(&ev, longname);
	check_dropped(&ev, rc, __LINE__, "127 x a", ENOENT, "libpfm4");
	TAP_OK(strcmp(ev.name, longname) == 0,
	       "127-character name is kept whole");

	/* A failed modifier split must leave no privilege bits behind. */
	rc = pmu_event__parse(&ev, "bogus:uk");
	TAP_OK(rc == -1 && !ev.plm_explicit && !ev.attr.exclude_user &&
	       !ev.attr.exclude_kernel && !ev.attr.exclude_hv,
	       "'bogus:uk' dropped with modifier bits undone");
}

/* ---- privilege strings ------------------------------------------------- */

static void test_privilege(void)
{
	static const struct {
		int line;
		const char *spec, *priv;
	} rows[] = {
		{ __LINE__, "cycles", "user+kernel" },
		{ __LINE__, "task-clock:u", "user" },
		{ __LINE__, "cycles:k", "kernel" },
		{ __LINE__, "cycles:uk", "user+kernel" },
		{ __LINE__, "r01c2:u", "user" },
		{ __LINE__, "perf::PAGE-FAULTS:u", "user" },
		{ __LINE__, "perf::PAGE-FAULTS", "user+kernel" },
	};
	static const struct {
		int line;
		const char *specs[3], *priv;
	} lists[] = {
		{ __LINE__, { "task-clock", "page-faults", NULL }, "user+kernel" },
		{ __LINE__, { "task-clock:u", "page-faults:u", NULL }, "user" },
		{ __LINE__, { "task-clock:u", "page-faults", NULL }, "mixed" },
		{ __LINE__, { "task-clock:k", "page-faults:u", NULL }, "mixed" },
		/* dropped events do not count towards the privilege */
		{ __LINE__, { "task-clock:u", "bogus", NULL }, "user" },
		{ __LINE__, { "bogus", NULL, NULL }, "none" },
	};
	static struct pmu_evlist el;
	struct pmu_event ev;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *p;

		pmu_event__parse(&ev, rows[i].spec);
		p = pmu_event__privilege(&ev);
		TAP_OK(ev.status == PMU_EV_OK && p && strcmp(p, rows[i].priv) == 0,
		       "row %d: privilege of '%s' is %s (got %s)", rows[i].line,
		       rows[i].spec, rows[i].priv, p ? p : "(null)");
	}
	/* libpfm4 modifiers in any spelling are the user's explicit choice;
	 * a choice that excludes both levels is refused at parse time. */
	pmu_event__parse(&ev, "perf::PAGE-FAULTS:K");
	TAP_OK(ev.status == PMU_EV_OK && ev.plm_explicit &&
	       strcmp(pmu_event__privilege(&ev), "kernel") == 0,
	       "perf::PAGE-FAULTS:K is an explicit kernel-only request");
	pmu_event__parse(&ev, "perf::PAGE-FAULTS:u=0:k=0");
	TAP_OK(ev.status == PMU_EV_DROPPED && ev.err == EINVAL,
	       "excluding user and kernel is dropped (status %d err %d)",
	       ev.status, ev.err);
	pmu_event__parse(&ev, "page-faults:h");
	TAP_OK(ev.status == PMU_EV_DROPPED && ev.err == EINVAL,
	       "page-faults:h (hypervisor only) is dropped as counting nothing");
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		const char *p;

		pmu_evlist__init(&el);
		for (int k = 0; k < 3 && lists[i].specs[k]; k++)
			pmu_evlist__add(&el, lists[i].specs[k]);
		pmu_evlist__probe(&el);
		p = pmu_evlist__privilege(&el);
		TAP_OK(p && strcmp(p, lists[i].priv) == 0,
		       "row %d: evlist privilege %s (got %s)", lists[i].line,
		       lists[i].priv, p ? p : "(null)");
	}
}

/* ---- libpfm4 with a forced CPU model (child process) ------------------- */

/* libpfm4 is initialised once per process, and a forced PMU hides the perf::
 * PMU, so the forced encoding runs in a child that has not used libpfm4 yet
 * and hands its pmu_event back through a pipe. */
static void test_pfm_forced(void)
{
	struct pmu_event ev;
	int fds[2], status = -1;
	ssize_t got = -1;
	pid_t pid;

	fflush(stdout);
	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		TAP_OK(0, "pipe/fork for the forced-PMU child: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		setenv("LIBPFM_FORCE_PMU", "skl", 1);
		pmu_event__parse(&ev, "INST_RETIRED:ANY_P");
		_exit(write(fds[1], &ev, sizeof(ev)) == (ssize_t)sizeof(ev) ? 0 : 1);
	}
	close(fds[1]);
	memset(&ev, 0, sizeof(ev));
	for (size_t off = 0; off < sizeof(ev); off += (size_t)got) {
		got = read(fds[0], (char *)&ev + off, sizeof(ev) - off);
		if (got <= 0)
			break;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	TAP_OK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "forced-PMU child ran and reported (status %#x)", status);
	TAP_OK(ev.status == PMU_EV_OK && ev.source == PMU_SRC_PFM,
	       "LIBPFM_FORCE_PMU=skl: INST_RETIRED:ANY_P parses via libpfm4 "
	       "(status %d source %s reason '%s')", ev.status,
	       pmu_source__name(ev.source), ev.reason);
	TAP_OK(ev.attr.type == PERF_TYPE_RAW && ev.attr.config == 0xc0,
	       "INST_RETIRED:ANY_P on skl -> PERF_TYPE_RAW config 0xc0 (type %u "
	       "config %#llx)", ev.attr.type, (unsigned long long)ev.attr.config);
	TAP_OK(strncmp(ev.encoding, "skl::INST_RETIRED:ANY_P", 23) == 0,
	       "encoding is skl's fully qualified name: '%s'", ev.encoding);
	TAP_OK(!ev.attr.exclude_user && !ev.attr.exclude_kernel && !ev.plm_explicit,
	       "libpfm4 default privilege is user+kernel, not explicit");
}

/* ---- errno strings ----------------------------------------------------- */

static void test_errno(void)
{
	static const struct {
		int line, err;
		const char *name, *reason_has;
	} rows[] = {
		{ __LINE__, ENOENT, "ENOENT", "not supported" },
		{ __LINE__, EACCES, "EACCES", "paranoid" },
		{ __LINE__, EMFILE, "EMFILE", "RLIMIT_NOFILE" },
		{ __LINE__, EOPNOTSUPP, "EOPNOTSUPP", "PMU" },
		{ __LINE__, ENAMETOOLONG, "ENAMETOOLONG", "too long" },
		{ __LINE__, EEXIST, "EEXIST", "duplicate" },
		{ __LINE__, 4242, "EUNKNOWN", "unexpected" },
		{ __LINE__, 0, "EUNKNOWN", "unexpected" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *name = pmu_errno__name(rows[i].err);
		const char *reason = pmu_errno__reason(rows[i].err);

		TAP_OK(name && strcmp(name, rows[i].name) == 0,
		       "row %d: pmu_errno__name(%d) == %s (got %s)", rows[i].line,
		       rows[i].err, rows[i].name, name ? name : "(null)");
		TAP_OK(reason && strstr(reason, rows[i].reason_has),
		       "row %d: pmu_errno__reason(%d) mentions '%s': '%s'",
		       rows[i].line, rows[i].err, rows[i].reason_has,
		       reason ? reason : "(null)");
	}
	TAP_OK(strcmp(pmu_errno__reason(ENOENT), pmu_errno__reason(EACCES)) != 0 &&
	       strcmp(pmu_errno__reason(EACCES), pmu_errno__reason(EMFILE)) != 0,
	       "reasons differ per errno");
}

/* ---- evlist probe, counters on this thread ------------------------------ */

/* errno of opening cycles on this host ourselves, or 0 when it opens. */
static int host_cycles_errno(void)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t spin_sink;

/* NPAGES fresh 4 KiB pages without huge pages: one fault per page. */
static char *map_fresh(void)
{
	char *mem = mmap(NULL, (size_t)NPAGES * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED) {
		TAP_OK(0, "mmap %d pages: %s", NPAGES, strerror(errno));
		return NULL;
	}
	madvise(mem, (size_t)NPAGES * PAGE, MADV_NOHUGEPAGE);
	return mem;
}

static void spin_ms(uint64_t ms)
{
	uint64_t end = thread_cpu_ns() + ms * 1000000ull;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			spin_sink += (uint64_t)i;
}

enum { E_TC, E_PF, E_CS, E_CYC, E_BOGUS, E_DUP, E_N };

static void test_counters(const struct pmu_evlist *el)
{
	struct count a[PMU_MAX_EVENTS], b[PMU_MAX_EVENTS], d[3];
	struct pmu_counters c;
	uint64_t cpu0, cpu1;
	char *mem;
	int n, rc;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	n = pmu_counters__open(&c, el);
	TAP_OK(n == pmu_evlist__nok(el) && c.missing == 0 && c.err == 0,
	       "pmu_counters__open opens all %d OK events (opened %d, missing "
	       "%#llx, err %d)", pmu_evlist__nok(el), n,
	       (unsigned long long)c.missing, c.err);
	TAP_OK(c.fd[E_BOGUS] == -1 && c.fd[E_DUP] == -1 && c.fd[E_PF] >= 0 &&
	       c.fd[E_TC] == -1 && c.fd[E_CS] >= 0,
	       "fds open for OK events only, none for task-clock (from group time)");

	mem = map_fresh();
	if (!mem) {
		pmu_counters__close(&c);
		return;
	}

	/* Warm up the read path so the measured interval faults only mem. */
	pmu_counters__read(&c, a);
	pmu_counters__read(&c, b);

	rc = pmu_counters__read(&c, a);
	for (int p = 0; p < NPAGES; p++)
		mem[(size_t)p * PAGE] = 1;
	rc |= pmu_counters__read(&c, b);
	TAP_OK(rc == 0, "pmu_counters__read succeeds (rc %d)", rc);
	count__sub(&d[0], &b[E_PF], &a[E_PF]);
	count__sub(&d[1], &b[E_TC], &a[E_TC]);
	TAP_OK(FAULTS_OK(d[0].value),
	       "page-faults delta over %d first touches == %d (got %llu)",
	       NPAGES, NPAGES, (unsigned long long)d[0].value);
	TAP_OK(d[1].value > 0, "task-clock delta > 0 (%llu ns)",
	       (unsigned long long)d[1].value);
	for (int i = E_TC; i <= E_CS; i++)
		TAP_OK(b[i].enabled > 0 && b[i].enabled == b[i].running &&
		       a[i].enabled == a[i].running,
		       "%s: time enabled == running (%llu / %llu)", el->ev[i].name,
		       (unsigned long long)b[i].enabled,
		       (unsigned long long)b[i].running);
	{
		/* A group that is not open in a thread reads as all-zero,
		 * without failing the read of the other groups. */
		struct pmu_counters c2 = c;
		struct count z[PMU_MAX_EVENTS];
		int grp = el->ev[E_PF].group, zero = 1;

		memset(z, 0xa5, sizeof(z));
		c2.fd[el->grp[grp].idx[0]] = -1;
		rc = pmu_counters__read(&c2, z);
		for (int m = 0; m < el->grp[grp].n; m++) {
			const struct count *zc = &z[el->grp[grp].idx[m]];
			zero &= zc->value == 0 && zc->enabled == 0 && zc->running == 0;
		}
		TAP_OK(rc == 0 && zero,
		       "members of a group not open read as all-zero (rc %d)", rc);
	}
	munmap(mem, (size_t)NPAGES * PAGE);

	/* 50 ms of thread CPU time: task-clock agrees within 5%. */
	rc = pmu_counters__read(&c, a);
	cpu0 = thread_cpu_ns();
	spin_ms(50);
	cpu1 = thread_cpu_ns();
	rc |= pmu_counters__read(&c, b);
	count__sub(&d[2], &b[E_TC], &a[E_TC]);
	{
		double cpu = (double)(cpu1 - cpu0), tc = (double)d[2].value;

		TAP_OK(rc == 0 && cpu >= 50e6 && tc > 0.95 * cpu && tc < 1.05 * cpu,
		       "task-clock delta %.3f ms within 5%% of thread CPU time "
		       "%.3f ms", tc / 1e6, cpu / 1e6);
	}
	pmu_counters__close(&c);
	TAP_OK(c.fd[E_TC] == -1 && c.fd[E_PF] == -1, "close resets the fds");
}

static void test_evlist(void)
{
	static const char *const specs[E_N] = {
		"task-clock", "page-faults", "context-switches", "cycles",
		"bogus", "page-faults",
	};
	struct pmu_evlist el;
	int cyc_err = host_cycles_errno(), nok, sw_group;
	const struct pmu_group *g;

	pmu_evlist__init(&el);
	for (int i = 0; i < E_N; i++)
		TAP_OK(pmu_evlist__add(&el, specs[i]) == 0, "add '%s'", specs[i]);
	TAP_OK(el.nevents == E_N, "all %d specs kept, dropped ones too (%d)",
	       E_N, el.nevents);
	TAP_OK(el.ev[E_DUP].status == PMU_EV_DROPPED && el.ev[E_DUP].err == EEXIST &&
	       strstr(el.ev[E_DUP].reason, "duplicate"),
	       "second page-faults dropped at add: EEXIST '%s'", el.ev[E_DUP].reason);

	nok = pmu_evlist__probe(&el);
	TAP_OK(nok == (cyc_err ? 3 : 4) && nok == pmu_evlist__nok(&el),
	       "probe: %d OK events (got %d)", cyc_err ? 3 : 4, nok);
	for (int i = E_TC; i <= E_CS; i++)
		TAP_OK(el.ev[i].status == PMU_EV_OK && el.ev[i].err == 0 &&
		       !el.ev[i].downgraded,
		       "'%s' OK after probe (status %d err %d reason '%s')",
		       specs[i], el.ev[i].status, el.ev[i].err, el.ev[i].reason);
	if (cyc_err) {
		TAP_OK(el.ev[E_CYC].status == PMU_EV_DROPPED &&
		       el.ev[E_CYC].err == cyc_err && cyc_err == ENOENT,
		       "cycles dropped with the host's errno ENOENT (host %s, got "
		       "%s)", pmu_errno__name(cyc_err),
		       pmu_errno__name(el.ev[E_CYC].err));
		TAP_OK(strncmp(el.ev[E_CYC].reason, "ENOENT: ", 8) == 0 &&
		       strstr(el.ev[E_CYC].reason, pmu_errno__reason(ENOENT)),
		       "cycles reason is name + reason: '%s'", el.ev[E_CYC].reason);
		TAP_OK(!el.hardware && el.ev[E_CYC].group == -1,
		       "no hardware event counted, cycles in no group");
	} else {
		TAP_OK(el.ev[E_CYC].status == PMU_EV_OK && el.hardware,
		       "cycles opens on this host and is OK (status %d '%s')",
		       el.ev[E_CYC].status, el.ev[E_CYC].reason);
	}
	TAP_OK(el.ev[E_BOGUS].status == PMU_EV_DROPPED &&
	       el.ev[E_BOGUS].err == ENOENT && strstr(el.ev[E_BOGUS].reason, "libpfm4"),
	       "bogus dropped: ENOENT '%s'", el.ev[E_BOGUS].reason);
	TAP_OK(el.ev[E_DUP].status == PMU_EV_DROPPED && el.ev[E_DUP].err == EEXIST,
	       "duplicate still dropped with EEXIST after probe (err %d)",
	       el.ev[E_DUP].err);

	/* Software events other than the clocks share one group, led by a
	 * non-clock event; task-clock is no member of it (commit 1546cb1: the
	 * clocks lose counts in mixed groups, as leader and as sibling) but
	 * is read from its time running (issue 18). */
	sw_group = el.ev[E_PF].group;
	TAP_OK(sw_group >= 0 && sw_group < el.ngroups &&
	       el.ev[E_CS].group == sw_group,
	       "page-faults and context-switches share one group (pf %d cs %d)",
	       el.ev[E_PF].group, el.ev[E_CS].group);
	TAP_OK(el.ev[E_TC].group == sw_group && el.ev[E_TC].derived &&
	       el.grp[sw_group].nclock == 1 && el.grp[sw_group].clock[0] == E_TC &&
	       el.nderived == 1,
	       "task-clock is read from the software group's time (group %d)",
	       el.ev[E_TC].group);
	TAP_OK(el.ngroups == (cyc_err ? 1 : 2), "%d groups (got %d)",
	       cyc_err ? 1 : 2, el.ngroups);
	if (sw_group >= 0 && sw_group < el.ngroups) {
		g = &el.grp[sw_group];
		TAP_OK(g->n == 2, "that software group has 2 members (%d)", g->n);
		TAP_OK(g->idx[0] != E_TC && el.ev[g->idx[0]].attr.type == PERF_TYPE_SOFTWARE &&
		       el.ev[g->idx[0]].attr.config != PERF_COUNT_SW_TASK_CLOCK &&
		       el.ev[g->idx[0]].attr.config != PERF_COUNT_SW_CPU_CLOCK,
		       "software group leader is not a clock event (leader '%s')",
		       el.ev[g->idx[0]].name);
	}
	{
		/* Every OK event is in exactly one group, at its own index. */
		int seen[E_N] = { 0 }, bad = 0;

		for (int gi = 0; gi < el.ngroups; gi++) {
			for (int m = 0; m < el.grp[gi].n; m++) {
				int i = el.grp[gi].idx[m];
				if (i < 0 || i >= E_N || el.ev[i].group != gi ||
				    el.ev[i].derived)
					bad++;
				else
					seen[i]++;
			}
			for (int k = 0; k < el.grp[gi].nclock; k++) {
				int i = el.grp[gi].clock[k];
				if (i < 0 || i >= E_N || el.ev[i].group != gi ||
				    !el.ev[i].derived)
					bad++;
				else
					seen[i]++;
			}
		}
		for (int i = 0; i < E_N; i++)
			bad += seen[i] != (el.ev[i].status == PMU_EV_OK);
		TAP_OK(bad == 0, "groups (members and derived clocks) cover exactly "
		       "the OK events (%d mismatches)",
		       bad);
	}
	TAP_OK(strcmp(pmu_evlist__privilege(&el), "user+kernel") == 0,
	       "privilege as root: user+kernel (got %s)", pmu_evlist__privilege(&el));
	TAP_OK(el.paranoid != -99, "paranoid read from /proc (%d)", el.paranoid);

	test_counters(&el);
}

/* Siblings are decoded at their own offsets: three page-fault counters in
 * one group (major-faults leads) all see the same 1000 first touches. */
static void test_fault_group(void)
{
	static struct pmu_evlist el;
	struct count a[PMU_MAX_EVENTS], b[PMU_MAX_EVENTS], d;
	struct pmu_counters c;
	char *mem;
	int rc;

	pmu_evlist__init(&el);
	pmu_evlist__add(&el, "major-faults");
	pmu_evlist__add(&el, "minor-faults");
	pmu_evlist__add(&el, "page-faults");
	TAP_OK(pmu_evlist__probe(&el) == 3 && el.ngroups == 1 &&
	       el.grp[0].n == 3 && el.grp[0].idx[0] == 0 &&
	       el.grp[0].idx[1] == 1 && el.grp[0].idx[2] == 2,
	       "major, minor and page faults form one group in list order "
	       "(%d groups)", el.ngroups);
	if (pmu_counters__open(&c, &el) != 3) {
		TAP_OK(0, "open the fault group: %s", strerror(c.err));
		pmu_counters__close(&c);
		return;
	}
	mem = map_fresh();
	if (!mem) {
		pmu_counters__close(&c);
		return;
	}
	pmu_counters__read(&c, a);
	rc = pmu_counters__read(&c, a);
	for (int p = 0; p < NPAGES; p++)
		mem[(size_t)p * PAGE] = 1;
	rc |= pmu_counters__read(&c, b);
	munmap(mem, (size_t)NPAGES * PAGE);
	pmu_counters__close(&c);
	TAP_OK(rc == 0, "fault group reads succeed (rc %d)", rc);
	count__sub(&d, &b[0], &a[0]);
	TAP_OK(d.value == 0, "major-faults (leader) delta 0 (got %llu)",
	       (unsigned long long)d.value);
	count__sub(&d, &b[1], &a[1]);
	TAP_OK(FAULTS_OK(d.value), "minor-faults (sibling 1) delta %d (got %llu)",
	       NPAGES, (unsigned long long)d.value);
	count__sub(&d, &b[2], &a[2]);
	TAP_OK(FAULTS_OK(d.value), "page-faults (sibling 2) delta %d (got %llu)",
	       NPAGES, (unsigned long long)d.value);
}

/* A full list: add refuses the 65th spec. */
static void test_evlist_full(void)
{
	static struct pmu_evlist el;
	char name[32];
	int rc = 0;

	pmu_evlist__init(&el);
	for (int i = 0; i < PMU_MAX_EVENTS; i++) {
		snprintf(name, sizeof(name), "r%x", i + 1);
		rc |= pmu_evlist__add(&el, name);
	}
	TAP_OK(rc == 0 && el.nevents == PMU_MAX_EVENTS,
	       "%d specs fit (%d)", PMU_MAX_EVENTS, el.nevents);
	TAP_OK(pmu_evlist__add(&el, "task-clock") == -1 &&
	       el.nevents == PMU_MAX_EVENTS, "spec %d is refused with -1",
	       PMU_MAX_EVENTS + 1);
}

int main(void)
{
	/* perf:: names need libpfm4's own detection, not a forced model. */
	unsetenv("LIBPFM_FORCE_PMU");
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_pfm_forced(); /* before this process uses libpfm4 */
	test_parse_ok();
	test_parse_bad();
	test_errno();
	test_privilege();
	test_evlist();
	test_fault_group();
	test_evlist_full();
	return tap_done();
}
