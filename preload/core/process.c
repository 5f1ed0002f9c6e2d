/* process.c - the process: started at load time, results at its end.
 *
 * boot.c's constructor calls configure (environment, probe of the events
 * on this host) and start (features, then the main thread's counters).
 * finish runs once, from whichever end comes first (exit, _exit, exec, a
 * fatal signal): it reads every thread still alive, freezes the thread
 * lists and writes one JSON file.  Nothing here may change what the host
 * program does: failures degrade to fewer counters plus a reason.  The
 * core names no feature: they run through the hook table (feature.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "aggregate/result.h"
#include "common/lock.h"
#include "preload/base/log.h"
#include "preload/core/core.h"
#include "preload/core/feature.h"
#include "preload/core/identity.h"

static void process__copy_argv(int argc, char **argv)
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

/* Rank, size and job as the image's start environment has them: the
 * program (or a launcher's helper in a fork child, before exec) may set
 * these variables later, and a file never claims a rank its process was
 * not started with.  A fork child claims none (fork.c). */
static void process__identity(void)
{
	struct hs_identity id;

	hs_identity__read(&id);
	hs_proc.rank = id.rank;
	hs_proc.size = id.size;
	snprintf(hs_proc.job, sizeof(hs_proc.job), "%s", id.job);
	snprintf(hs_proc.mpi_job, sizeof(hs_proc.mpi_job), "%s", id.mpi_job);
}

/* The constructor's first half (boot.c): environment -> configuration ->
 * event list -> probe, with the features' hooks in between.  Nothing is
 * counted yet. */
void hs_process__configure(int argc, char **argv)
{
	hs_proc.pid = getpid();
	hs_proc.start_ns = hs_clock__realtime();
	hs_proc.start_mono = hs_clock__monotonic();
	process__identity();
	process__copy_argv(argc, argv);
	hs_config__from_env(&hs_proc.cfg);
	agg_result__set_mode(hs_proc.cfg.file_mode); /* HPCSHIM_UMASK */
	hs_features__config(&hs_proc.cfg);
	hs_features__select(&hs_proc.cfg);
	hs_events__build(&hs_proc.evlist, &hs_proc.cfg);
	hs_features__configure(&hs_proc.cfg, &hs_proc.evlist);
	hs_proc.evlist.hold = true; /* until the main thread's are open */
	pmu_evlist__probe(&hs_proc.evlist);
	hs_features__setup(&hs_proc.evlist, &hs_proc.cfg);
	hs_events__publish();
}

/* The second half, once the interposition is ready: the features start,
 * then the calling (main) thread.  With no event left the shim still
 * runs: regions are still called and counted, and the results say why
 * nothing else is there.  (A user's list was reported already; the
 * default set always has task-clock, so this is a host or sandbox without
 * perf events.) */
void hs_process__start(int exec_generation)
{
	hs_proc.exec_generation = exec_generation;
	pthread_atfork(hs_site__fork_prepare, hs_site__fork_parent, hs_fork__child);
	hs_features__start();
	if (pmu_evlist__nok(&hs_proc.evlist) == 0 && hs_proc.cfg.events_default)
		hs_log(HS_LOG_ERROR, "no event could be opened: %s",
		       hs_proc.evlist.ev[0].reason);
	__atomic_store_n(&hs_proc.state, HS_RUNNING, __ATOMIC_RELEASE);
	hs_self = hs_thread__start();
	pmu_evlist__release(&hs_proc.evlist);
}

/* Reads every live thread's final counts and links its result in front of
 * the finished ones.  Called with the lock held and the lists frozen. */
static struct agg_thread *process__collect(uint64_t end_ns, uint64_t end_mono)
{
	struct agg_thread *all = hs_proc.done;
	struct count other[PMU_MAX_EVENTS];

	for (struct hs_thread *t = hs_proc.live; t; t = t->next) {
		/* Another live thread owns t->now (its region path writes it
		 * concurrently): read it into a buffer of our own. */
		struct count *buf = t == hs_self ? t->now : other;
		bool ok;

		hs_features__collect_thread(t, t == hs_self);
		ok = (t == hs_self ? pmu_counters__read(&t->ctr, buf) :
				     pmu_counters__read_other(&t->ctr, buf)) == 0;

		if (!ok)
			hs_atomic__add(&t->agg->warn.read_errors, 1);
		hs_thread__sync_missing(t);
		if (t == hs_self)
			hs_region__close_all(t, ok);
		agg_thread__set_totals(t->agg, buf);
		t->agg->alive_at_exit = true;
		t->agg->end_ns = end_ns;
		t->agg->end_mono = end_mono;
		t->agg->next = all;
		all = t->agg;
	}
	return all;
}

static const char *const end_names[] = {
	[HS_END_EXIT] = "exit",
	[HS_END_EXIT_NOW] = "_exit",
	[HS_END_EXEC] = "exec",
	[HS_END_SIGNAL] = "signal",
	[HS_END_FLUSH] = "flush",
	[HS_END_SNAPSHOT] = "snapshot",
};

void hs_process__write(struct agg_thread *threads, uint64_t end_ns,
		       uint64_t end_mono, enum hs_end end, int signo,
		       const struct agg_uncovered *unc, int nunc, const struct agg_tap *tap)
{
	char host[256] = "unknown", note[200];
	struct agg_process p = {
		.pid = hs_proc.pid, .ppid = getppid(), .host = host,
		.rank = hs_proc.rank, .size = hs_proc.size, .job = hs_proc.job,
		.mpi_job = hs_proc.mpi_job,
		.argv = hs_proc.argv, .argc = hs_proc.argc,
		.exec_generation = hs_proc.exec_generation,
		.shim_tid = __atomic_load_n(&hs_proc.flusher, __ATOMIC_RELAXED),
		.start_ns = hs_proc.start_ns, .end_ns = end_ns,
		.wall_ns = end_mono - hs_proc.start_mono,
		.complete = end != HS_END_SIGNAL && end != HS_END_FLUSH,
		.end = end_names[end],
		.signal = end == HS_END_SIGNAL ? signo : 0,
		.version = PACKAGE_VERSION, .nev = hs_proc.evlist.nevents,
		.ev = hs_proc.ev, .main_ev = hs_proc.main_ev, .threads = threads,
		.uncovered_calls = __atomic_load_n(&hs_proc.uncovered_calls,
						   __ATOMIC_RELAXED),
		.uncovered = unc, .nuncovered = nunc,
		.max_regions = hs_proc.cfg.limits.max_regions,
		.max_threads = hs_proc.cfg.limits.max_threads,
		/* A writer thread only at exit(), ordinary code: _exit and
		 * exec may be called in a signal handler (they are
		 * async-signal-safe), and a flush runs beside the program. */
		.spawn = end == HS_END_EXIT ? hs_publish__spawn : NULL,
		.pmu = {
			.cpu_pmu = hs_proc.evlist.cpu_pmu,
			.hardware = hs_proc.evlist.hardware,
			.fallback = hs_proc.fallback[0] ? hs_proc.fallback : NULL,
			.privilege = pmu_evlist__privilege(&hs_proc.evlist),
			.paranoid = hs_proc.evlist.paranoid,
			.privilege_requested = pmu_plm__name(hs_proc.cfg.privilege),
		},
	};

	struct rusage ru;

	/* The process's peak resident set so far (kB; a syscall, safe in a
	 * signal handler). */
	if (getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 0)
		p.peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024;
	pmu_evlist__privilege_note(&hs_proc.evlist, hs_proc.cfg.privilege,
				   note, sizeof(note));
	if (note[0])
		p.pmu.privilege_note = note;

	gethostname(host, sizeof(host) - 1);
	/* A flush runs beside the features' threads and handlers: their
	 * parts are only written at the end, but for those that only read
	 * what setup fixed (presets: metrics, drill-down). */
	hs_features__result(&p, end == HS_END_FLUSH || end == HS_END_SNAPSHOT);
	if (end == HS_END_SNAPSHOT) {
		p.tap = tap;
		hs_publish__render(&p);
	}
	else
		hs_publish__results(&p, end == HS_END_FLUSH, end == HS_END_SIGNAL);
}

void hs_process__finish(enum hs_end end, int signo)
{
	int expected = HS_RUNNING;
	struct agg_thread *threads;
	struct agg_uncovered *unc = NULL;
	uint64_t end_ns, end_mono;
	int nunc;

	/* A vfork child shares our memory: it must not flip our state. */
	if (hs_process__foreign())
		return;
	if (!__atomic_compare_exchange_n(&hs_proc.state, &expected, HS_FINISHED,
					 false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	hs_publish__final_begin();
	end_ns = hs_clock__realtime();
	end_mono = hs_clock__monotonic();
	/* In a signal handler the interrupted code may be this very thread
	 * inside thread start or end, holding the lock: bounded wait. */
	if (!hs_lock__mutex(&hs_proc.lock, end == HS_END_SIGNAL)) {
		hs_log(HS_LOG_ERROR,
		       "signal %d arrived inside the shim's thread "
		       "bookkeeping; results not written",
		       signo);
		hs_publish__final_end();
		return;
	}
	threads = process__collect(end_ns, end_mono);
	hs_features__collect(end == HS_END_SIGNAL);
	nunc = hs_uncovered__scan(&unc);
	pthread_mutex_unlock(&hs_proc.lock);
	hs_process__write(threads, end_ns, end_mono, end, signo, unc, nunc, NULL);
	hs_publish__final_end();
	free(unc);
}
