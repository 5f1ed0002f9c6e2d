/* shim.c - the process: start at load time, write results at exit.
 *
 * The constructor parses the environment, probes which events open on this
 * host, and starts the main thread's counters.  The destructor (run by
 * exit() and by returning from main) reads every thread still alive, freezes
 * the thread lists and writes one JSON file.  Nothing here may change what
 * the host program does: failures degrade to fewer counters plus a reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aggregate/mux.h"
#include "common/lock.h"
#include "preload/base/log.h"
#include "preload/presets.h"
#include "preload/mux.h"
#include "preload/range/range.h"
#include "preload/shim.h"

struct hs_process hs_proc = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void shim__copy_argv(int argc, char **argv)
{
	if (argc <= 0 || !argv)
		return;
	hs_proc.argv = calloc((size_t)argc, sizeof(char *));
	if (!hs_proc.argv)
		return;
	for (int i = 0; i < argc && argv[i]; i++) {
		hs_proc.argv[i] = strdup(argv[i]);
		if (!hs_proc.argv[i])
			break;
		hs_proc.argc = i + 1;
	}
}

/* The agg_event view of the evlist: what the results say about events. */
static void shim__describe_events(void)
{
	const struct pmu_evlist *el = &hs_proc.evlist;

	for (int i = 0; i < el->nevents; i++) {
		const struct pmu_event *e = &el->ev[i];
		hs_proc.ev[i] = (struct agg_event){
			.name = e->name,
			.ok = e->status == PMU_EV_OK,
			.source = pmu_source__name(e->source),
			.encoding = e->encoding,
			.privilege = pmu_event__privilege(e),
			.downgraded = e->downgraded,
			.group = e->group,
			.err = e->err,
			.errname = pmu_errno__name(e->err),
			.reason = e->reason,
		};
	}
}

/* Everything wrong with HPCSHIM_EVENTS in one line: the first dropped
 * event with its reason, the others by name (every reason is in the
 * results), items ignored, and whether anything is left to count. */
static void shim__report_drops(void)
{
	const struct pmu_evlist *el = &hs_proc.evlist;
	const struct hs_config *cfg = &hs_proc.cfg;
	char line[900];
	int n = 0, len = 0;

	line[0] = '\0';
	/* Only the user's list: preset events are judged per set. */
	for (int i = 0; i < el->nevents && i < cfg->nuser; i++) {
		const struct pmu_event *e = &el->ev[i];

		if (e->status == PMU_EV_OK)
			continue;
		if (n == 0)
			len = snprintf(line, sizeof(line), "event '%.100s' dropped: %s",
				       e->name, e->reason);
		else if (len < (int)sizeof(line) - 300)
			len += snprintf(line + len, sizeof(line) - (size_t)len,
					"%s '%.40s'", n == 1 ? "; also dropped:" : ",",
					e->name);
		n++;
	}
	if (n > 1)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				" (%d in all; reasons in the results)", n);
	if (cfg->events_ignored)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"%s%d events beyond the limit of %d ignored",
				len ? "; " : "", cfg->events_ignored, PMU_MAX_EVENTS);
	if (cfg->events_empty)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"%s%d empty items ignored", len ? "; " : "",
				cfg->events_empty);
	if (cfg->events_braces + cfg->mux.pinned.braces)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"%s%d misplaced braces ignored (a group is {a,b})",
				len ? "; " : "", cfg->events_braces + cfg->mux.pinned.braces);
	if (len && pmu_evlist__nok(el) == 0)
		snprintf(line + len, sizeof(line) - (size_t)len,
			 "; no event left to count");
	if (len)
		hs_log(HS_LOG_ERROR, "HPCSHIM_EVENTS: %s", line);
}

static void shim__report_events(void)
{
	const struct pmu_evlist *el = &hs_proc.evlist;
	int hw_total = 0;

	for (int i = 0; i < el->nevents; i++) {
		const struct pmu_event *e = &el->ev[i];
		if (e->status == PMU_EV_OK)
			hs_log(HS_LOG_DEBUG, "event %s: ok (group %d, %s)", e->name,
			       e->group, pmu_event__privilege(e));
		else
			hs_log(HS_LOG_DEBUG, "event '%s' dropped: %s", e->name,
			       e->reason);
		hw_total += e->status != PMU_EV_OK && pmu_event__is_hardware(e);
	}
	/* Drops from the default set are expected on VMs and stay quiet. */
	if (!hs_proc.cfg.events_default)
		shim__report_drops();
	if (hs_proc.cfg.events_default && !el->hardware && hw_total) {
		snprintf(hs_proc.fallback, sizeof(hs_proc.fallback),
			 "no hardware PMU available (hardware events failed to "
			 "open); counting software events only");
		hs_log(HS_LOG_INFO, "%s", hs_proc.fallback);
	}
}

__attribute__((constructor))
static void shim__init(int argc, char **argv, char **envp)
{
	(void)envp;
	hs_proc.pid = getpid();
	hs_proc.start_ns = hs_clock__realtime();
	shim__copy_argv(argc, argv);
	hs_config__from_env(&hs_proc.cfg);
	hs_presets__select(&hs_proc.cfg);

	pmu_evlist__init(&hs_proc.evlist);
	hs_proc.evlist.user_read = hs_proc.cfg.user_read;
	hs_mux__add_events(&hs_proc.evlist, &hs_proc.cfg);
	hs_range_feature.configure(&hs_proc.cfg, &hs_proc.evlist);
	pmu_evlist__probe(&hs_proc.evlist);
	hs_mux__setup(&hs_proc.evlist, &hs_proc.cfg);
	hs_proc.main_ev = hs_mux__main_event(&hs_proc.evlist);
	shim__describe_events();
	shim__report_events();
	hs_presets__finish(&hs_proc.evlist);
	/* With no event left the shim still runs: regions are still called
	 * and counted, and the results say why nothing else is there.  (A
	 * user's list was reported above; the default set always has
	 * task-clock, so this is a host or sandbox without perf events.) */
	if (pmu_evlist__nok(&hs_proc.evlist) == 0 && hs_proc.cfg.events_default)
		hs_log(HS_LOG_ERROR, "no event could be opened: %s",
		       hs_proc.evlist.ev[0].reason);
	hs_proc.exec_generation = hs_exec__generation();
	pthread_atfork(hs_site__fork_prepare, hs_site__fork_parent,
		       hs_fork__child);
	hs_signal__init();
	hs_range_feature.start();
	__atomic_store_n(&hs_proc.state, HS_RUNNING, __ATOMIC_RELEASE);
	hs_self = hs_thread__start();
}

static int shim__rank(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long r;

		if (!v || !*v)
			continue;
		r = strtol(v, &end, 10);
		if (*end == '\0' && r >= 0 && r < (1L << 30))
			return (int)r;
	}
	return -1;
}

/* Reads every live thread's final counts and links its result in front of
 * the finished ones.  Called with the lock held and the lists frozen. */
static struct agg_thread *shim__collect(uint64_t end_ns)
{
	struct agg_thread *all = hs_proc.done;
	struct count other[PMU_MAX_EVENTS];

	for (struct hs_thread *t = hs_proc.live; t; t = t->next) {
		/* Another live thread owns t->now (its region path writes it
		 * concurrently): read it into a buffer of our own. */
		struct count *buf = t == hs_self ? t->now : other;
		bool ok;

		hs_rotate__collect(t, t == hs_self);
		ok = (t == hs_self ? pmu_counters__read(&t->ctr, buf)
		      : pmu_counters__read_other(&t->ctr, buf)) == 0;

		if (!ok)
			hs_atomic__add(&t->agg->warn.read_errors, 1);
		hs_thread__sync_missing(t);
		if (t == hs_self)
			hs_thread__close_all(t, ok);
		agg_thread__set_totals(t->agg, buf);
		t->agg->alive_at_exit = true;
		t->agg->end_ns = end_ns;
		t->agg->next = all;
		all = t->agg;
	}
	return all;
}

/* The fallback when HPCSHIM_OUTPUT cannot take the file (missing,
 * unwritable, full): $TMPDIR, else /tmp.  One line says where it went. */
static void shim__publish(const struct agg_process *p)
{
	const char *dir = hs_proc.cfg.output, *tmp = getenv("TMPDIR");
	char path[4096] = "", err[4400] = "", err2[4400] = "";

	if (agg_process__write(p, dir, path, sizeof(path), err, sizeof(err)) == 0) {
		hs_log(HS_LOG_INFO, "results written to %s", path);
		return;
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (strcmp(tmp, dir) != 0 &&
	    agg_process__write(p, tmp, path, sizeof(path), err2, sizeof(err2)) == 0)
		hs_log(HS_LOG_ERROR, "%.1000s; results written to %s instead",
		       err, path);
	else
		hs_log(HS_LOG_ERROR, "%.1000s; results lost", err);
}

static const char *const end_names[] = {
	[HS_END_EXIT] = "exit", [HS_END_EXIT_NOW] = "_exit",
	[HS_END_EXEC] = "exec", [HS_END_SIGNAL] = "signal",
};

static void shim__write(struct agg_thread *threads, uint64_t end_ns,
			enum hs_end end, int signo,
			const struct agg_uncovered *unc, int nunc)
{
	char host[256] = "unknown", note[200];
	struct agg_process p = {
		.pid = hs_proc.pid, .ppid = getppid(), .host = host,
		.rank = shim__rank(), .argv = hs_proc.argv, .argc = hs_proc.argc,
		.exec_generation = hs_proc.exec_generation,
		.start_ns = hs_proc.start_ns, .end_ns = end_ns,
		.complete = end != HS_END_SIGNAL, .end = end_names[end],
		.signal = end == HS_END_SIGNAL ? signo : 0,
		.version = PACKAGE_VERSION, .nev = hs_proc.evlist.nevents,
		.ev = hs_proc.ev, .main_ev = hs_proc.main_ev, .threads = threads,
		.uncovered_calls = __atomic_load_n(&hs_proc.uncovered_calls,
						   __ATOMIC_RELAXED),
		.uncovered = unc, .nuncovered = nunc,
		.metrics = hs_presets__view(),
		.mux = hs_mux__agg(),
		.pmu = {
			.cpu_pmu = hs_proc.evlist.cpu_pmu,
			.hardware = hs_proc.evlist.hardware,
			.fallback = hs_proc.fallback[0] ? hs_proc.fallback : NULL,
			.privilege = pmu_evlist__privilege(&hs_proc.evlist),
			.paranoid = hs_proc.evlist.paranoid,
			.privilege_requested = pmu_plm__name(hs_proc.cfg.range.privilege),
		},
	};

	hs_range_feature.result(&p);
	pmu_evlist__privilege_note(&hs_proc.evlist, hs_proc.cfg.range.privilege,
				   note, sizeof(note));
	if (note[0])
		p.pmu.privilege_note = note;

	gethostname(host, sizeof(host) - 1);
	shim__publish(&p);
}

bool hs_process__foreign(void)
{
	return getpid() != hs_proc.pid;
}

void hs_process__finish(enum hs_end end, int signo)
{
	int expected = HS_RUNNING;
	struct agg_thread *threads;
	struct agg_uncovered *unc = NULL;
	uint64_t end_ns;
	int nunc;

	/* A vfork child shares our memory: it must not flip our state. */
	if (hs_process__foreign())
		return;
	if (!__atomic_compare_exchange_n(&hs_proc.state, &expected, HS_FINISHED,
					 false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	end_ns = hs_clock__realtime();
	/* In a signal handler the interrupted code may be this very thread
	 * inside thread start or end, holding the lock: bounded wait. */
	if (!hs_lock__mutex(&hs_proc.lock, end == HS_END_SIGNAL)) {
		hs_log(HS_LOG_ERROR, "signal %d arrived inside the shim's thread "
		       "bookkeeping; results not written", signo);
		return;
	}
	threads = shim__collect(end_ns);
	hs_range_feature.collect(end == HS_END_SIGNAL);
	nunc = hs_uncovered__scan(&unc);
	pthread_mutex_unlock(&hs_proc.lock);
	shim__write(threads, end_ns, end, signo, unc, nunc);
	free(unc);
}

__attribute__((destructor))
static void shim__fini(void)
{
	hs_process__finish(HS_END_EXIT, 0);
}
