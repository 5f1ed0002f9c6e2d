/* convert_otf2.c - hpcshim convert --to otf2: an OTF2 archive (the OTF2
 * library, 3.x) for Vampir, Scalasca and the Score-P tools.
 *
 * -o DIR: the archive DIR/traces.otf2 with DIR/traces/ (Score-P's names).
 * The job in one archive: a system tree node per host, a location group
 * (a process) per rank, a location (a CPU thread) per thread, a region
 * per region name.  Each trace record (threads[].trace, HPCSHIM_TRACE) is
 * one Enter and one Leave at its begin_ns and end_ns, nested as
 * convert__nest orders them (a child's end past its parent's is cut to
 * it).  The trace's event (the main event) is a metric: its delta in the
 * call, at the Leave, as a point value ("ABSOLUTE_POINT": the call's own
 * count, not a running total), for records that have one.  The clock is
 * ours: nanoseconds since the epoch (CLOCK_REALTIME, every result shares
 * it), global offset the earliest thread start, so Vampir's times are
 * wall time and realtimeTimestamp is the offset itself.
 *
 * Memory: the results are read one file at a time (results__each) and
 * each thread's events go through the library's chunked buffers to its
 * file, so the job's size costs disk, not memory: what stays is one file's
 * document, the names, and a record per rank and per thread for the
 * definitions, written last.
 */
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <otf2/otf2.h>

#include "tools/convert.h"
#include "tools/results.h"
#include "tools/xalloc.h"

#define OTF2W_NAME "traces"
#define OTF2W_CHUNK_EVENTS (1024 * 1024)
#define OTF2W_CHUNK_DEFS (4 * 1024 * 1024)

struct otf2w_group {
	uint32_t name, node;
};

struct otf2w_loc {
	uint64_t events;
	uint32_t name, group;
};

struct otf2w {
	OTF2_Archive *ar;
	const char *prog;
	struct hs_strtab str;     /* OTF2 strings: id = number */
	struct hs_strtab regions; /* region names: region id = number */
	struct hs_strtab metrics; /* trace events: metric member and class id */
	struct hs_strtab hosts;   /* system tree node = number + 1 (0: the machine) */
	struct otf2w_group *groups;
	size_t ngroups;
	struct otf2w_loc *locs;
	size_t nlocs;
	uint64_t tmin, tmax, last;
	size_t records;
	bool failed;
	const char *out;
	char why[400]; /* the library's first message (otf2w__error) */
};

static OTF2_FlushType otf2w__pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc,
				       void *cd, bool final)
{
	(void)ud, (void)ft, (void)loc, (void)cd, (void)final;
	return OTF2_FLUSH;
}

/* A buffer flush record's end: the last time written, so a location's
 * times never go back. */
static OTF2_TimeStamp otf2w__post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ft, (void)loc;
	return ((struct otf2w *)ud)->last;
}

/* The library's messages kept, not printed: its first one goes into
 * ours, one line ("[OTF2] src/...: error: ..." lines otherwise, several
 * per failure). */
static OTF2_ErrorCode otf2w__error(void *ud, const char *file, uint64_t line, const char *fn,
				   OTF2_ErrorCode rc, const char *fmt, va_list va)
{
	struct otf2w *w = ud;

	(void)file, (void)line, (void)fn;
	if (!w->why[0])
		vsnprintf(w->why, sizeof(w->why), fmt, va);
	return rc;
}

static bool otf2w__ok(struct otf2w *w, OTF2_ErrorCode rc, const char *what)
{
	if (rc == OTF2_SUCCESS)
		return true;
	if (!w->failed)
		fprintf(stderr, "%s: %s: OTF2 %s: %s%s%s\n", w->prog, w->out, what,
			OTF2_Error_GetDescription(rc), w->why[0] ? ": " : "", w->why);
	w->failed = true;
	return false;
}

static int otf2w__rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* What the archive made of DIR, when nothing could be read into it or it
 * could not be written whole: DIR did not exist before (convert_otf2), so
 * all of it is ours. */
static void otf2w__remove(const char *dir)
{
	nftw(dir, otf2w__rm, 16, FTW_DEPTH | FTW_PHYS);
}

static uint32_t otf2w__str(struct otf2w *w, const char *s)
{
	return (uint32_t)xintern(&w->str, s, NULL);
}

static void otf2w__time(struct otf2w *w, long long t)
{
	uint64_t u = t > 0 ? (uint64_t)t : 0;

	if (u < w->tmin)
		w->tmin = u;
	if (u > w->tmax)
		w->tmax = u;
}

/* The delta of record s as an integer, when it has one. */
static bool otf2w__delta(const struct dr_span *s, int64_t *v)
{
	struct json_object *d = dr_span__delta(s);

	if (!d || !(json_object_is_type(d, json_type_int) || json_object_is_type(d, json_type_double)))
		return false;
	*v = json_object_is_type(d, json_type_int) ? json_object_get_int64(d)
						    : (int64_t)(json_object_get_double(d) + 0.5);
	return true;
}

/* The thread's records as Enter/Leave (and the metric at each Leave). */
static void otf2w__events(struct otf2w *w, const struct dr_thread *th, uint64_t loc)
{
	OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->ar, loc);
	OTF2_DefWriter *dw;
	const char *evname = dr_thread__trace_event(th);
	OTF2_MetricRef metric = evname ? (OTF2_MetricRef)xintern(&w->metrics, evname, NULL) : 0;
	OTF2_Type type = OTF2_TYPE_INT64;
	struct convert_ev *ev;
	size_t n;

	if (!ew) {
		otf2w__ok(w, OTF2_ERROR_MEM_ALLOC_FAILED, "event writer");
		return;
	}
	/* the clock is ns since the epoch, unsigned: nothing before 0 */
	n = convert__nest(th, 0, &ev);
	for (size_t i = 0; i < n && !w->failed; i++) {
		const struct dr_span *s = dr_thread__span(th, ev[i].span);
		OTF2_RegionRef r = (OTF2_RegionRef)xintern(&w->regions, dr_span__region(s), NULL);
		uint64_t at = (uint64_t)ev[i].at;
		OTF2_MetricValue mv;

		otf2w__time(w, ev[i].at);
		w->last = at;
		if (ev[i].open) {
			otf2w__ok(w, OTF2_EvtWriter_Enter(ew, NULL, at, r), "enter");
			w->records++;
			w->locs[loc].events++;
			continue;
		}
		otf2w__ok(w, OTF2_EvtWriter_Leave(ew, NULL, at, r), "leave");
		w->locs[loc].events++;
		if (evname && otf2w__delta(s, &mv.signed_int)) {
			otf2w__ok(w, OTF2_EvtWriter_Metric(ew, NULL, at, metric, 1, &type, &mv),
				  "metric");
			w->locs[loc].events++;
		}
	}
	free(ev);
	otf2w__ok(w, OTF2_Archive_CloseEvtWriter(w->ar, ew), "event writer");
	/* an empty local definition file per location, as the readers expect */
	dw = OTF2_Archive_GetDefWriter(w->ar, loc);
	if (dw)
		otf2w__ok(w, OTF2_Archive_CloseDefWriter(w->ar, dw), "definition writer");
}

/* A location without events: its empty files. */
static void otf2w__empty(struct otf2w *w, uint64_t loc)
{
	OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->ar, loc);
	OTF2_DefWriter *dw;

	if (ew)
		otf2w__ok(w, OTF2_Archive_CloseEvtWriter(w->ar, ew), "event writer");
	dw = OTF2_Archive_GetDefWriter(w->ar, loc);
	if (dw)
		otf2w__ok(w, OTF2_Archive_CloseDefWriter(w->ar, dw), "definition writer");
}

static void otf2w__thread_name(const struct dr_thread *th, char *name, size_t len)
{
	long long omp = dr_thread__omp(th);
	int n = snprintf(name, len, "tid %lld", dr_thread__tid(th));

	if (dr_thread__name(th) && n > 0 && (size_t)n < len)
		n += snprintf(name + n, len - (size_t)n, " %s", dr_thread__name(th));
	if (omp >= 0 && n > 0 && (size_t)n < len)
		snprintf(name + n, len - (size_t)n, " (OpenMP %lld)", omp);
}

/* One result file: its process (a job document: its ranks, no threads). */
static int otf2w__file(struct results *one, void *arg)
{
	struct otf2w *w = arg;
	const struct dr_doc *d = one->r[0].doc;
	char name[300];
	uint32_t group = 0;
	size_t first = w->ngroups;

	for (size_t k = 0; k < dr_doc__nranks(d); k++) {
		struct dr_rank rk;

		dr_doc__rank(d, k, &rk);
		if (rk.rank >= 0)
			snprintf(name, sizeof(name), "rank %d (%s:%lld)", rk.rank, rk.host, rk.pid);
		else
			snprintf(name, sizeof(name), "process %s:%lld", rk.host, rk.pid);
		if (rk.wall > 0)
			otf2w__time(w, (long long)(dr_doc__start_ns(d) + rk.wall));
		w->groups = xrealloc(w->groups, (w->ngroups + 1) * sizeof(*w->groups));
		w->groups[w->ngroups].name = otf2w__str(w, name);
		w->groups[w->ngroups].node = (uint32_t)xintern(&w->hosts, rk.host, NULL) + 1;
		otf2w__str(w, rk.host);
		if (k == 0)
			group = (uint32_t)w->ngroups;
		w->ngroups++;
	}
	for (size_t k = 0; k < dr_doc__nthreads(d) && !w->failed; k++) {
		const struct dr_thread *th = dr_doc__thread(d, k);

		/* the threads' starts are exact; the process's is read as a
		 * double (docread), 256 ns coarse at today's epoch times */
		otf2w__time(w, dr_thread__start_ns(th));
		otf2w__thread_name(th, name, sizeof(name));
		w->locs = xrealloc(w->locs, (w->nlocs + 1) * sizeof(*w->locs));
		w->locs[w->nlocs] = (struct otf2w_loc){ 0, otf2w__str(w, name), group };
		otf2w__events(w, th, w->nlocs++);
	}
	/* a job document keeps no threads: a location without events per rank,
	 * since the readers want every group to have one */
	for (size_t k = first; !dr_doc__nthreads(d) && k < w->ngroups && !w->failed; k++) {
		w->locs = xrealloc(w->locs, (w->nlocs + 1) * sizeof(*w->locs));
		w->locs[w->nlocs] = (struct otf2w_loc){ 0, otf2w__str(w, "no threads (a job document)"),
							(uint32_t)k };
		otf2w__empty(w, w->nlocs++);
	}
	return w->failed ? -1 : 0;
}

static const char *otf2w__unit(const char *ev)
{
	return !strcmp(ev, "task-clock") || !strcmp(ev, "cpu-clock") ? "ns" : "#";
}

/* The global definitions, once every name and location is known. */
static void otf2w__defs(struct otf2w *w)
{
	OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(w->ar);
	uint32_t empty = otf2w__str(w, ""), machine = otf2w__str(w, "machine");
	uint32_t node = otf2w__str(w, "node");
	uint32_t desc = otf2w__str(w, "the region call's count (HPCSHIM_TRACE delta), at its leave");
	uint32_t *hostname = xrealloc(NULL, (w->hosts.n + 1) * sizeof(*hostname));

	if (!g) {
		otf2w__ok(w, OTF2_ERROR_MEM_ALLOC_FAILED, "global definition writer");
		free(hostname);
		return;
	}
	for (size_t i = 0; i < w->hosts.n; i++)
		hostname[i] = otf2w__str(w, w->hosts.name[i]);
	for (size_t i = 0; i < w->regions.n; i++)
		otf2w__str(w, w->regions.name[i]);
	for (size_t i = 0; i < w->metrics.n; i++) {
		otf2w__str(w, w->metrics.name[i]);
		otf2w__str(w, otf2w__unit(w->metrics.name[i]));
	}
	if (w->tmin > w->tmax)
		w->tmin = w->tmax = 0;
	otf2w__ok(w, OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, w->tmin,
							       w->tmax - w->tmin, w->tmin),
		  "clock properties");
	for (size_t i = 0; i < w->str.n; i++)
		otf2w__ok(w, OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i, w->str.name[i]), "string");
	otf2w__ok(w, OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine,
							      OTF2_UNDEFINED_SYSTEM_TREE_NODE),
		  "system tree");
	for (size_t i = 0; i < w->hosts.n; i++)
		otf2w__ok(w, OTF2_GlobalDefWriter_WriteSystemTreeNode(g, (uint32_t)i + 1, hostname[i],
								      node, 0),
			  "system tree");
	for (size_t i = 0; i < w->ngroups; i++)
		otf2w__ok(w, OTF2_GlobalDefWriter_WriteLocationGroup(
				     g, (uint32_t)i, w->groups[i].name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
				     w->groups[i].node, OTF2_UNDEFINED_LOCATION_GROUP),
			  "location group");
	for (size_t i = 0; i < w->nlocs; i++)
		otf2w__ok(w, OTF2_GlobalDefWriter_WriteLocation(g, i, w->locs[i].name,
								OTF2_LOCATION_TYPE_CPU_THREAD,
								w->locs[i].events, w->locs[i].group),
			  "location");
	for (size_t i = 0; i < w->regions.n; i++) {
		uint32_t n = otf2w__str(w, w->regions.name[i]);

		otf2w__ok(w, OTF2_GlobalDefWriter_WriteRegion(g, (uint32_t)i, n, n, empty,
							      OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER,
							      OTF2_REGION_FLAG_NONE, empty, 0, 0),
			  "region");
	}
	for (size_t i = 0; i < w->metrics.n; i++) {
		OTF2_MetricMemberRef m = (OTF2_MetricMemberRef)i;

		otf2w__ok(w, OTF2_GlobalDefWriter_WriteMetricMember(
				     g, m, otf2w__str(w, w->metrics.name[i]), desc, OTF2_METRIC_TYPE_OTHER,
				     OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0,
				     otf2w__str(w, otf2w__unit(w->metrics.name[i]))),
			  "metric member");
		otf2w__ok(w, OTF2_GlobalDefWriter_WriteMetricClass(g, (OTF2_MetricRef)i, 1, &m,
								   OTF2_METRIC_SYNCHRONOUS,
								   OTF2_RECORDER_KIND_CPU),
			  "metric class");
	}
	free(hostname);
}

static void otf2w__free(struct otf2w *w)
{
	hs_strtab__free(&w->str);
	hs_strtab__free(&w->regions);
	hs_strtab__free(&w->metrics);
	hs_strtab__free(&w->hosts);
	free(w->groups);
	free(w->locs);
}

int convert_otf2(int argc, char **argv, const char *out, const char *prog)
{
	static OTF2_FlushCallbacks flush = {
		.otf2_pre_flush = otf2w__pre_flush,
		.otf2_post_flush = otf2w__post_flush,
	};
	struct otf2w w = { .prog = prog, .tmin = UINT64_MAX, .out = out };
	OTF2_ErrorCallback was;
	struct stat st;
	size_t used, nbad;
	int rc = 0;

	if (lstat(out, &st) == 0) {
		fprintf(stderr, "%s: %s: %s (the archive is made as a new directory)\n", prog, out,
			strerror(EEXIST));
		return -1;
	}
	was = OTF2_Error_RegisterCallback(otf2w__error, &w);
	w.ar = OTF2_Archive_Open(out, OTF2W_NAME, OTF2_FILEMODE_WRITE, OTF2W_CHUNK_EVENTS,
				 OTF2W_CHUNK_DEFS, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!w.ar) {
		fprintf(stderr, "%s: %s: the OTF2 archive cannot be made%s%s\n", prog, out,
			w.why[0] ? ": " : "", w.why);
		OTF2_Error_RegisterCallback(was, NULL);
		return -1;
	}
	w.str = (struct hs_strtab){ 0 };
	w.regions = (struct hs_strtab){ 0 };
	w.metrics = (struct hs_strtab){ 0 };
	w.hosts = (struct hs_strtab){ 0 };
	otf2w__ok(&w, OTF2_Archive_SetFlushCallbacks(w.ar, &flush, &w), "flush callbacks");
	otf2w__ok(&w, OTF2_Archive_SetSerialCollectiveCallbacks(w.ar), "collective callbacks");
	otf2w__ok(&w, OTF2_Archive_SetCreator(w.ar, "hpcshim " PACKAGE_VERSION), "creator");
	otf2w__ok(&w, OTF2_Archive_OpenEvtFiles(w.ar), "event files");
	otf2w__ok(&w, OTF2_Archive_OpenDefFiles(w.ar), "definition files");
	used = w.failed ? 0 : results__each(prog, argc, argv, otf2w__file, &w, &nbad);
	otf2w__ok(&w, OTF2_Archive_CloseEvtFiles(w.ar), "event files");
	otf2w__ok(&w, OTF2_Archive_CloseDefFiles(w.ar), "definition files");
	if (!w.failed)
		otf2w__defs(&w);
	otf2w__ok(&w, OTF2_Archive_Close(w.ar), "archive");
	OTF2_Error_RegisterCallback(was, NULL);
	if (!used && !w.failed) {
		fprintf(stderr, "%s: no result could be read\n", prog);
		otf2w__remove(out);
		rc = -2;
	} else if (w.failed) {
		otf2w__remove(out); /* a partial archive is no archive */
		rc = -1;
	}
	else if (!w.records)
		fprintf(stderr, "%s: no trace records (run with hpcshim run --trace N, or "
				"HPCSHIM_TRACE=N): the archive has definitions only\n",
			prog);
	else if (nbad)
		rc = -2;
	otf2w__free(&w);
	return rc;
}
