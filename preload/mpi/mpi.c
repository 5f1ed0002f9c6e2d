/* mpi.c - the MPI feature: a job's results reduced in the job, at
 * MPI_Finalize, into one job document; a rank's results saved early
 * (MPI_Init) and before MPI_Abort.  docs/mpi-scale.md has the costs.
 *
 * libhpcshim.so links no MPI.  It exports MPI_Init, MPI_Init_thread,
 * MPI_Finalize, MPI_Abort and their Fortran spellings (Open MPI's Fortran
 * bindings call PMPI_Finalize directly: a C-only wrapper never sees a
 * Fortran program finish), each forwarding to the next definition
 * (dlsym(RTLD_NEXT), the pattern of preload/base/real.c).  A program
 * without MPI never calls them, and dlsym.c hides them from its probes.
 *
 * At MPI_Finalize, before the real one and only while MPI_Initialized
 * and not MPI_Finalized, the implementation is recognised from
 * MPI_Get_library_version, its plugin (plugin.h) is dlopened from next to
 * the shim (at MPI_Init, where the plugin duplicates MPI_COMM_WORLD while
 * every rank is there), every rank renders its results so far (the
 * flush's snapshot, core/flush.c) and summarises them (aggregate/jobsum.h,
 * with the offline merge's code, aggregate/jobdoc.c), the plugin merges
 * the summaries up a binomial tree to rank 0 (messages of one summary's
 * size, whatever the ranks), then the ranks that hold the extremes send
 * rank 0 their own entries, and rank 0 writes
 * hpcshim-job-<host>-<pid>[-j<job>].json beside the rank files.  Then
 * every rank learns whether it was written: with HPCSHIM_MPI_FILES=job (or
 * auto above its threshold, for the ranks the document does not name) a
 * rank writes no file of its own only then.  Any failure leaves the
 * per-rank files, with one line.  Every wait of the plugin ends at a
 * deadline (HPCSHIM_MPI_WAIT per level of the tree): a rank that never
 * reaches MPI_Finalize holds nobody, and the document lists it (and the
 * ranks below it in the tree) in missing_ranks.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "aggregate/docread.h"
#include "aggregate/jobdoc.h"
#include "aggregate/jobsrc.h"
#include "aggregate/jobsrc_view.h"
#include "aggregate/jobsum.h"
#include "aggregate/oom.h"
#include "aggregate/result.h"
#include "common/dl.h"
#include "presets/preset.h"
#include "presets/tree_file.h"
#include "preload/base/log.h"
#include "preload/base/real.h"
#include "preload/config/varparse.h"
#include "preload/core/core.h"
#include "preload/core/feature.h"
#include "preload/mpi/mpi.h"
#include "preload/mpi/plugin.h"

#define HS_EXPORT __attribute__((visibility("default")))

/* ---- the real functions ------------------------------------------------ */

static void *mpi__real(const char *name)
{
	hs_real_dlsym_fn ds = hs_real__dlsym();

	return ds ? ds(RTLD_NEXT, name) : NULL;
}

/* The C functions the feature calls itself (ints and pointers only: the
 * same ABI in every implementation). */
static void *mpi__any(const char *name)
{
	hs_real_dlsym_fn ds = hs_real__dlsym();

	return ds ? ds(RTLD_DEFAULT, name) : NULL;
}

/* A wrapper whose original is missing: the program could not have been
 * linked against it, so only a lookup of our own export gets here. */
static void *mpi__need(const char *name)
{
	void *f = mpi__real(name);

	if (!f) {
		hs_log(HS_LOG_ERROR, "%s called but no MPI library defines it", name);
		abort();
	}
	return f;
}

/* ---- the state ------------------------------------------------------------ */

static int finalized; /* the reduction ran (or was declined), atomic */
enum files_mode { FILES_ALL, FILES_JOB, FILES_AUTO };
static int files_mode = FILES_AUTO; /* HPCSHIM_MPI_FILES (mpi__config) */
static uint64_t files_ranks = 256; /* HPCSHIM_MPI_FILES_RANKS: auto's threshold */
#define WAIT_DEFAULT_NS 60000000000ull
static uint64_t wait_ns = WAIT_DEFAULT_NS; /* HPCSHIM_MPI_WAIT: per level of the tree */
/* HPCSHIM_MPI_SUMMARY: where a rank's summary comes from (mpi__config) */
enum { SUMMARY_VIEW, SUMMARY_DOC, SUMMARY_CHECK };
static int summary_mode = SUMMARY_VIEW;
static const struct hs_mpi_plugin *init_plugin; /* found at MPI_Init */


/* Whether this rank writes no file of its own once the job document is
 * written: job, or auto above the threshold unless the document names it. */
static bool mpi__no_file(int size, bool named)
{
	if (files_mode == FILES_JOB)
		return true;
	return files_mode == FILES_AUTO && size >= 0 && (uint64_t)size > files_ranks &&
	       !named;
}
static bool in_child; /* a fork child of a rank: never takes part */

static bool mpi__running(void)
{
	return !in_child &&
	       __atomic_load_n(&hs_proc.state, __ATOMIC_ACQUIRE) == HS_RUNNING;
}

/* ---- the reduction ---------------------------------------------------------- */

static void mpi__fallback(int rank, const char *why)
{
	if (rank <= 0)
		hs_log(HS_LOG_ERROR,
		       "MPI: no job document (%s); per-rank files only", why);
}

/* The plugin of the process's MPI, or NULL (why says). */
static const struct hs_mpi_plugin *mpi__plugin(char *why, size_t whylen)
{
	int (*libver)(char *, int *) = (int (*)(char *, int *))mpi__any(
		"MPI_Get_library_version");
	static char ver[16384]; /* MPI_MAX_LIBRARY_VERSION_STRING: 256 .. 8192 */
	const char *impl = NULL, *dirs[4];
	hs_real_dlopen_fn dlo = hs_real__dlopen();
	char self[PATH_MAX] = "(unknown)", path[PATH_MAX + 64];
	int len = 0, first;

	if (!libver || libver(ver, &len) != 0) {
		snprintf(why, whylen, "MPI_Get_library_version not available");
		return NULL;
	}
	if (strstr(ver, "Open MPI"))
		impl = "openmpi";
	else if (strstr(ver, "MPICH"))
		impl = "mpich";
	if (!impl) {
		snprintf(why, whylen, "no plugin for this MPI (%.60s)", ver);
		return NULL;
	}
	/* Beside the shim (installed: pkglibdir is <libdir>/hpcshim), in the
	 * build tree (.libs/../preload/mpi), then the configured pkglibdir.
	 * The shim's real directory (common/dl.h), not the name it was
	 * preloaded by: ./libhpcshim.so after a chdir, or a name without a
	 * slash, would load a plugin (and run its constructor) from the
	 * current directory. */
	dirs[0] = "";
	dirs[1] = "/hpcshim";
	dirs[2] = "/../preload/mpi";
	dirs[3] = NULL;
	first = hs_dl__self_dir((const void *)mpi__plugin, self, sizeof(self)) ? 0 : 3;
	for (int i = first; i < 4 && dlo; i++) {
		void *h;
		const struct hs_mpi_plugin *p;
		if (dirs[i])
			snprintf(path, sizeof(path), "%s%s/hpcshim-mpi-%s.so", self,
				 dirs[i], impl);
		else
			snprintf(path, sizeof(path), "%s/hpcshim-mpi-%s.so",
				 HPCSHIM_PKGLIBDIR, impl);
		if (access(path, R_OK) != 0)
			continue;
		h = dlo(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			snprintf(why, whylen, "%s: %.200s", path, dlerror());
			return NULL;
		}
		p = (const struct hs_mpi_plugin *)hs_real__dlsym()(
			h, HS_MPI_PLUGIN_SYMBOL);
		if (p && p->abi == HS_MPI_PLUGIN_ABI)
			return p;
		snprintf(why, whylen, "%s: not a plugin of this hpcshim", path);
		return NULL;
	}
	snprintf(why, whylen, "hpcshim-mpi-%s.so not found beside %s", impl, self);
	return NULL;
}

/* A rank that has a file from the start: a job that is killed (an abort
 * elsewhere, the launcher's SIGKILL) leaves every rank's results so far.
 * Not with HPCSHIM_MPI_FILES=job, nor auto above its threshold (the
 * launcher's size), whose point is no file per rank. */
static void mpi__after_init(void)
{
	char why[512];

	if (!mpi__running())
		return;
	if (!mpi__no_file(hs_proc.size, false))
		hs_flush__now();
	/* the plugin, and its communicator while every rank is here (a
	 * failure is said at MPI_Finalize, where the plugin is looked for
	 * again) */
	init_plugin = mpi__plugin(why, sizeof(why));
	if (init_plugin)
		init_plugin->init();
}

/* The job drill-down's tree: from this rank's preset search path, the
 * files its presets feature read at the start (whose diagnostics were
 * shown then), read again only when the rank carries a drill-down. */
struct mpi_trees {
	bool read;
	struct tree_table tt;
};

static void mpi__tree_err(void *ctx, const char *msg)
{
	(void)ctx;
	hs_log(HS_LOG_DEBUG, "%s", msg);
}

static const struct tree *mpi__tree(void *ctx, const char *name, const char *model)
{
	struct mpi_trees *t = ctx;
	char path[8192];

	if (!t->read) {
		pmu_preset__search_path(hs_proc.cfg.preset_path, path, sizeof(path));
		pmu_tree_table__init(&t->tt);
		pmu_tree_table__load_path(&t->tt, path, mpi__tree_err, NULL);
		t->read = true;
	}
	return pmu_tree_table__find(&t->tt, name, model);
}

static uint64_t mpi__clock(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mpi__now(void)
{
	return mpi__clock(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time: the phases' own cost, apart from the
 * waits for a core that 64 ranks on 2 cores add to their wall times. */
static uint64_t mpi__cpu(void)
{
	return mpi__clock(CLOCK_THREAD_CPUTIME_ID);
}

/* The reduction's state on this rank (plugin.h's callbacks). */
struct mpi_red {
	struct agg_jobsum s;
	bool named; /* the document names this rank (its entry was asked for) */
	char *entry; /* this rank's entry of ranks[] (its results are freed
		      * once summarised: rank 0's peak is then the larger of
		      * its own results and the document, not their sum) */
	int rank, size;
	struct mpi_trees trees;
	struct agg_jobsrc_view vs; /* the view's values (mpi__summarise_view) */
	char why[256];
	uint64_t t_start, t_merge, t_doc; /* ns in the phases (the debug line) */
	uint64_t c_pack, c_merge; /* CPU ns packing, unpacking and merging */
	/* the callback's arguments under agg_jobdoc__guard */
	const void *in;
	size_t in_len;
	void **out;
	size_t *out_len;
};

/* The rank's snapshot text parsed and checked, numbered as MPI numbers
 * it (text freed); NULL with m->why.  *t_parsed: when the parse ended. */
static struct dr_doc *mpi__parse(struct mpi_red *m, char *text, size_t len,
				 uint64_t *t_parsed, bool prune)
{
	json_object *d = NULL, *proc = NULL;
	json_tokener *tok;
	struct dr_doc *doc;
	bool finite;

	if (!text) {
		snprintf(m->why, sizeof(m->why), "rank %d could not render its results", m->rank);
		return NULL;
	}
	/* the writer prints no NaN nor infinity (null): when the text shows
	 * none, the parsed document is not walked for them */
	finite = dr_text__finite(text, len);
	tok = json_tokener_new();
	d = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	if (tok)
		json_tokener_free(tok);
	free(text);
	if (!d || !json_object_object_get_ex(d, "process", &proc)) {
		json_object_put(d);
		snprintf(m->why, sizeof(m->why), "rank %d: its results do not parse", m->rank);
		return NULL;
	}
	/* MPI's own numbering, whatever the launcher's variables said. */
	json_object_object_add(proc, "rank", json_object_new_int(m->rank));
	json_object_object_add(proc, "size", json_object_new_int(m->size));
	if (prune)
		agg_jobsrc_view__prune(d);
	doc = finite ? dr_doc__wrap_finite(d) : dr_doc__wrap(d);
	*t_parsed = mpi__now();
	if (!doc || dr_doc__check_partial(doc, m->why, sizeof(m->why))) {
		dr_doc__free(doc);
		if (!m->why[0])
			snprintf(m->why, sizeof(m->why), "out of memory");
		return NULL;
	}
	return doc;
}

/* The summary from the writer's view (aggregate/jobsrc_view.h): the
 * snapshot written with the view's tap, which takes the totals, region
 * summaries and thread records as they are written and leaves them out of
 * the text, so that only a small document is rendered, parsed and checked
 * for the rest (the entry, profile, OpenMP constructs).  0, or 1 when
 * this rank's results need the whole document (a drill-down reads every
 * region; the view could not be taken): nothing summarised then. */
static int mpi__summarise_view(struct mpi_red *m, struct dr_doc **docp, uint64_t *cpu,
			       struct agg_jobsum *check)
{
	struct agg_jobsrc src;
	struct dr_doc *doc = NULL, *whole;
	uint64_t t, c0 = mpi__cpu();
	size_t len = 0;
	char *text, *copy = NULL;

	agg_jobsrc_view__init(&m->vs);
	/* a check: one snapshot, written whole, summarised both ways */
	m->vs.keep_all = check != NULL;
	text = hs_flush__snapshot_tap(&len, &m->vs.tap);
	cpu[0] = mpi__cpu() - c0;
	if (!text)
		return 1;
	if (check) {
		if (!(copy = malloc(len + 1))) {
			free(text);
			return 1;
		}
		memcpy(copy, text, len + 1);
	}
	c0 = mpi__cpu();
	doc = mpi__parse(m, text, len, &t, check != NULL);
	cpu[1] = mpi__cpu() - c0;
	/* a drill-down reads every region of the document: the whole one */
	if (!doc || dr_doc__drill(doc) || agg_jobsrc_view__source(&m->vs, doc, &src))
		goto whole_doc;
	c0 = mpi__cpu();
	agg_jobdoc__summarise_src(&m->s, &src, m->rank, NULL, mpi__tree, &m->trees);
	cpu[2] = mpi__cpu() - c0;
	*docp = doc;
	if (check) {
		if ((whole = mpi__parse(m, copy, len, &t, false)))
			agg_jobdoc__summarise(check, whole, m->rank, NULL, mpi__tree, &m->trees);
		dr_doc__free(whole);
		m->why[0] = '\0';
	}
	return 0;

whole_doc:
	m->why[0] = '\0'; /* not this rank's failure: the whole document next */
	dr_doc__free(doc);
	free(copy);
	return 1;
}

/* The summary from the whole document (what hpcshim merge reads of a rank
 * file): rendered, parsed, checked, summarised.  0, or -1 with m->why.
 * The CPU adds to cpu[] (after a view's attempt, its cost too). */
static int mpi__summarise_doc(struct mpi_red *m, struct agg_jobsum *s, struct dr_doc **docp,
			      uint64_t *cpu)
{
	uint64_t t, c0 = mpi__cpu();
	size_t len = 0;
	char *text = hs_flush__snapshot(&len);

	cpu[0] += mpi__cpu() - c0;
	c0 = mpi__cpu();
	if (!(*docp = mpi__parse(m, text, len, &t, false)))
		return -1;
	cpu[1] += mpi__cpu() - c0;
	c0 = mpi__cpu();
	agg_jobdoc__summarise(s, *docp, m->rank, NULL, mpi__tree, &m->trees);
	cpu[2] += mpi__cpu() - c0;
	return 0;
}

/* HPCSHIM_MPI_SUMMARY=check: this rank summarised both ways, the packed
 * summaries compared byte for byte (tests/mpi/test_mpi_viewsum.py); the
 * document's is kept.  One line either way. */
static void mpi__check(struct mpi_red *m, const struct agg_jobsum *doc_s)
{
	struct agg_buf a = { 0 }, b = { 0 };
	size_t at = 0;

	if (agg_jobsum__pack(&m->s, &a) || agg_jobsum__pack(doc_s, &b)) {
		hs_log(HS_LOG_ERROR, "MPI_Finalize: rank %d: summary check: out of memory",
		       m->rank);
		goto out;
	}
	while (at < a.len && at < b.len && a.p[at] == b.p[at])
		at++;
	if (a.len == b.len && at == a.len)
		hs_log(HS_LOG_ERROR,
		       "MPI_Finalize: rank %d: summary check: the view's and the document's "
		       "summaries are identical (%zu bytes, %zu cells)",
		       m->rank, a.len, m->s.n);
	else
		hs_log(HS_LOG_ERROR,
		       "MPI_Finalize: rank %d: summary check: the view's and the document's "
		       "summaries DIFFER at byte %zu (%zu and %zu bytes, %zu and %zu cells)",
		       m->rank, at, a.len, b.len, m->s.n, doc_s->n);
out:
	agg_buf__free(&a);
	agg_buf__free(&b);
}

/* This rank's results summarised: from the writer's view, or (a
 * drill-down, the view not taken, HPCSHIM_MPI_SUMMARY=doc) from its whole
 * document as before. */
static int mpi__start_fn(void *arg)
{
	struct mpi_red *m = arg;
	struct dr_doc *doc = NULL;
	uint64_t t0 = mpi__now(), cpu[3] = { 0, 0, 0 };
	const char *how = "document";
	int rc = 0;

	struct agg_jobsum ds = { .size = -1 };
	bool check = summary_mode == SUMMARY_CHECK;

	if (summary_mode != SUMMARY_DOC &&
	    mpi__summarise_view(m, &doc, cpu, check ? &ds : NULL) == 0) {
		how = "view";
		if (check && ds.ranks) {
			mpi__check(m, &ds);
			/* the document's summary goes on up the tree */
			agg_jobsum__free(&m->s);
			m->s = ds;
		} else {
			agg_jobsum__free(&ds);
		}
	} else {
		rc = mpi__summarise_doc(m, &m->s, &doc, cpu);
	}
	if (rc == 0)
		/* its entry, as the summary holds it (made once) */
		m->entry = m->s.nent == 1 ? agg_xstrdup(m->s.etext[0]) :
					    agg_jobdoc__entry(doc, m->rank, NULL);
	dr_doc__free(doc);
	agg_jobsrc_view__free(&m->vs);
	hs_log(HS_LOG_DEBUG,
	       "MPI_Finalize: rank %d: summarised from its %s in %.1f ms; CPU: rendered %.1f ms, "
	       "parsed and checked %.1f ms, summarised %.1f ms",
	       m->rank, how, (double)(mpi__now() - t0) / 1e6, (double)cpu[0] / 1e6,
	       (double)cpu[1] / 1e6, (double)cpu[2] / 1e6);
	return rc;
}

static int mpi__guard(int (*fn)(void *), struct mpi_red *m)
{
	int rc = agg_jobdoc__guard(fn, m);

	if (rc < 0 && !m->why[0])
		snprintf(m->why, sizeof(m->why), "out of memory");
	return rc;
}

static int mpi__start(void *ctx, int rank, int size)
{
	struct mpi_red *m = ctx;

	uint64_t t0 = mpi__now();
	int rc;

	m->rank = rank;
	m->size = size;
	rc = mpi__guard(mpi__start_fn, m);
	m->t_start = mpi__now() - t0;
	return rc;
}

static int mpi__pack(void *ctx, void **buf, size_t *len)
{
	struct mpi_red *m = ctx;
	struct agg_buf b = { 0 };
	uint64_t c0 = mpi__cpu();

	if (agg_jobsum__pack(&m->s, &b)) {
		agg_buf__free(&b);
		return -1;
	}
	m->c_pack += mpi__cpu() - c0;
	*buf = b.p;
	*len = b.len;
	return 0;
}

static int mpi__merge_fn(void *arg)
{
	struct mpi_red *m = arg;
	struct agg_buf b = { .p = (unsigned char *)m->in, .len = m->in_len };
	struct agg_jobsum child;
	int rc;

	if (agg_jobsum__unpack(&child, &b)) {
		snprintf(m->why, sizeof(m->why), "a damaged summary from a child of rank %d",
			 m->rank);
		return -1;
	}
	rc = agg_jobsum__merge(&m->s, &child);
	agg_jobsum__free(&child);
	return rc;
}

static int mpi__merge(void *ctx, const void *buf, size_t len)
{
	struct mpi_red *m = ctx;

	uint64_t t0 = mpi__now(), c0 = mpi__cpu();
	int rc;

	m->in = buf;
	m->in_len = len;
	rc = mpi__guard(mpi__merge_fn, m);
	m->t_merge += mpi__now() - t0;
	m->c_merge += mpi__cpu() - c0;
	return rc;
}

static int mpi__named(void *ctx, int *ranks, int max)
{
	struct mpi_red *m = ctx;

	return agg_jobsum__named(&m->s, ranks, max);
}

static int mpi__entry_fn(void *arg)
{
	struct mpi_red *m = arg;
	char *e = agg_xstrdup(m->entry);

	m->named = true;
	*m->out = e;
	*m->out_len = strlen(e);
	return 0;
}

static int mpi__entry(void *ctx, void **buf, size_t *len)
{
	struct mpi_red *m = ctx;

	m->out = buf;
	m->out_len = len;
	return mpi__guard(mpi__entry_fn, m);
}

static int mpi__add_entry(void *ctx, int rank, const void *buf, size_t len)
{
	struct mpi_red *m = ctx;
	char *t = malloc(len + 1);
	int rc;

	if (!t)
		return -1;
	memcpy(t, buf, len);
	t[len] = '\0';
	rc = agg_jobsum__add_named(&m->s, rank, t);
	free(t);
	return rc;
}

/* Rank 0: the job document from the merged summary, written beside the
 * rank files.  0, or -1 with why. */
static int mpi__document_fn(void *arg)
{
	struct mpi_red *m = arg;
	char host[256] = "unknown", path[PATH_MAX + 320], jobsfx[72];
	char *text;
	size_t len;
	int rc;

	if (m->s.ranks > (uint64_t)m->size) {
		snprintf(m->why, sizeof(m->why), "%llu ranks summarised for %d",
			 (unsigned long long)m->s.ranks, m->size);
		return -1;
	}
	if (m->s.ranks < (uint64_t)m->size)
		hs_log(HS_LOG_ERROR,
		       "MPI: %llu of %d ranks did not reach the job document within "
		       "HPCSHIM_MPI_WAIT (%.3g s per level of the tree): listed in missing_ranks",
		       (unsigned long long)(m->size - m->s.ranks), m->size,
		       (double)wait_ns / 1e9);
	text = agg_jobdoc__render(&m->s, NULL, "hpcshim (MPI_Finalize)", "hpcshim", mpi__tree,
				  &m->trees, &len);
	gethostname(host, sizeof(host) - 1);
	for (char *c = host; *c; c++)
		if (*c == '/')
			*c = '_';
	agg_result__job_suffix(hs_proc.job, jobsfx, sizeof(jobsfx));
	snprintf(path, sizeof(path), "%s/hpcshim-job-%s-%d%s.json", hs_proc.cfg.output, host,
		 (int)getpid(), jobsfx);
	rc = agg_jobdoc__write(path, text, false, m->why, sizeof(m->why));
	free(text);
	if (rc == 0 && m->s.ranks < (uint64_t)m->size)
		hs_log(HS_LOG_INFO, "job document of %llu of %d ranks written to %s",
		       (unsigned long long)m->s.ranks, m->size, path);
	else if (rc == 0)
		hs_log(HS_LOG_INFO, "job document of %d ranks written to %s", m->size, path);
	return rc;
}

static void mpi__red_free(struct mpi_red *m)
{
	agg_jobsum__free(&m->s);
	agg_jobsrc_view__free(&m->vs); /* left by a summary that ran out of memory */
	free(m->entry);
	if (m->trees.read)
		pmu_tree_table__free(&m->trees.tt);
}

/* Before the real MPI_Finalize, once per process. */
static void mpi__before_finalize(void)
{
	int (*initialized)(int *) = (int (*)(int *))mpi__any("MPI_Initialized");
	int (*fin)(int *) = (int (*)(int *))mpi__any("MPI_Finalized");
	const struct hs_mpi_plugin *plugin;
	int ini = 0, done = 1, rank = hs_proc.rank, size = 0, rounds = 0;
	bool named = false;
	char why[512] = "";
	struct mpi_red *m;
	struct hs_mpi_ops ops = { .start = mpi__start, .pack = mpi__pack,
				  .merge = mpi__merge, .named = mpi__named,
				  .entry = mpi__entry, .add_entry = mpi__add_entry };
	uint64_t t0 = mpi__now(), c0 = mpi__cpu();

	if (__atomic_exchange_n(&finalized, 1, __ATOMIC_ACQ_REL) || !mpi__running())
		return;
	if (!initialized || !fin || initialized(&ini) != 0 || !ini ||
	    fin(&done) != 0 || done) {
		mpi__fallback(rank, "MPI not initialized, or already finalized");
		return;
	}
	plugin = init_plugin ? init_plugin : mpi__plugin(why, sizeof(why));
	if (!plugin) {
		mpi__fallback(rank, why);
		return;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		mpi__fallback(rank, "out of memory");
		return;
	}
	ops.ctx = m;
	if (plugin->reduce(&ops, wait_ns, &rank, &size, &rounds, why, sizeof(why)) != 0) {
		mpi__fallback(rank, why[0] ? why : m->why);
		mpi__red_free(m);
		free(m);
		return;
	}
	done = 0;
	if (rank == 0) {
		uint64_t t1 = mpi__now();

		done = mpi__guard(mpi__document_fn, m) == 0;
		m->t_doc = mpi__now() - t1;
	}
	hs_log(HS_LOG_DEBUG,
	       "MPI_Finalize: rank %d: summary %.1f ms, merges %.1f ms, document %.1f ms; "
	       "CPU: packing %.1f ms, unpacking and merging %.1f ms",
	       rank, (double)m->t_start / 1e6, (double)m->t_merge / 1e6,
	       (double)m->t_doc / 1e6, (double)m->c_pack / 1e6, (double)m->c_merge / 1e6);
	snprintf(why, sizeof(why), "%s", m->why);
	named = m->named;
	mpi__red_free(m);
	free(m);
	done = plugin->finish(done);
	if (done != 1) {
		mpi__fallback(rank, why[0] ? why : "rank 0 could not write it");
		return;
	}
	hs_log(HS_LOG_DEBUG,
	       "MPI_Finalize: in-job reduction of rank %d took %.3f ms (%d rounds), "
	       "%.1f ms of its CPU", rank, (double)(mpi__now() - t0) / 1e6, rounds,
	       (double)(mpi__cpu() - c0) / 1e6);
	if (mpi__no_file(size, named))
		hs_publish__suppress();
}

/* The calling rank's results before the job is taken down: a flush (end
 * "flush", complete false: the program did not finish); if the process
 * then leaves through exit or _exit, the end's file replaces it. */
static void mpi__before_abort(void)
{
	if (mpi__running())
		hs_flush__now();
}

/* ---- the C interface ------------------------------------------------------- */

HS_EXPORT int MPI_Init(int *argc, char ***argv);
HS_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
HS_EXPORT int MPI_Finalize(void);
HS_EXPORT int MPI_Abort(void *comm, int code);

HS_EXPORT int MPI_Init(int *argc, char ***argv)
{
	int (*real)(int *, char ***) = (int (*)(int *, char ***))mpi__need("MPI_Init");
	int rc = real(argc, argv);

	if (rc == 0)
		mpi__after_init();
	return rc;
}

HS_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int (*real)(int *, char ***, int, int *) = (int (*)(
		int *, char ***, int, int *))mpi__need("MPI_Init_thread");
	int rc = real(argc, argv, required, provided);

	if (rc == 0)
		mpi__after_init();
	return rc;
}

HS_EXPORT int MPI_Finalize(void)
{
	int (*real)(void) = (int (*)(void))mpi__need("MPI_Finalize");

	mpi__before_finalize();
	return real();
}

/* MPI_Comm is a pointer in Open MPI and an int in MPICH: passed on as the
 * register it came in (both ABIs pass either in the same one). */
HS_EXPORT int MPI_Abort(void *comm, int code)
{
	int (*real)(void *, int) = (int (*)(void *, int))mpi__need("MPI_Abort");

	mpi__before_abort();
	return real(comm, code);
}

/* ---- Fortran: every argument by reference; ierr may be absent (f08) -------- */

typedef void (*f1_fn)(void *);
typedef void (*f3_fn)(void *, void *, void *);

#define MPI_FORTRAN_INIT(name)                   \
	HS_EXPORT void name(void *ierr);         \
	void name(void *ierr)                    \
	{                                        \
		((f1_fn)mpi__need(#name))(ierr); \
		if (!ierr || *(int *)ierr == 0)  \
			mpi__after_init();       \
	}
#define MPI_FORTRAN_INIT_THREAD(name)                           \
	HS_EXPORT void name(void *req, void *prov, void *ierr); \
	void name(void *req, void *prov, void *ierr)            \
	{                                                       \
		((f3_fn)mpi__need(#name))(req, prov, ierr);     \
		if (!ierr || *(int *)ierr == 0)                 \
			mpi__after_init();                      \
	}
#define MPI_FORTRAN_FINALIZE(name)                    \
	HS_EXPORT void name(void *ierr);              \
	void name(void *ierr)                         \
	{                                             \
		f1_fn real = (f1_fn)mpi__need(#name); \
		mpi__before_finalize();               \
		real(ierr);                           \
	}
#define MPI_FORTRAN_ABORT(name)                                  \
	HS_EXPORT void name(void *comm, void *code, void *ierr); \
	void name(void *comm, void *code, void *ierr)            \
	{                                                        \
		f3_fn real = (f3_fn)mpi__need(#name);            \
		mpi__before_abort();                             \
		real(comm, code, ierr);                          \
	}

/* The names of libmpi_mpifh / libmpi_usempif08 (Open MPI) and
 * libmpichfort (MPICH), from nm -D: name, name_, name__, NAME, and the
 * f08 names (Open MPI's mpif-h MPI_*_f08, both's mpi_*_f08_). */
#define MPI_FORTRAN_NAMES(X, lower, upper, mixed) \
	X(lower)                                  \
	X(lower##_) X(lower##__) X(upper) X(upper##_) X(mixed##_f08) X(lower##_f08_)

MPI_FORTRAN_NAMES(MPI_FORTRAN_INIT, mpi_init, MPI_INIT, MPI_Init)
MPI_FORTRAN_NAMES(MPI_FORTRAN_INIT_THREAD, mpi_init_thread, MPI_INIT_THREAD,
		  MPI_Init_thread)
MPI_FORTRAN_NAMES(MPI_FORTRAN_FINALIZE, mpi_finalize, MPI_FINALIZE, MPI_Finalize)
MPI_FORTRAN_NAMES(MPI_FORTRAN_ABORT, mpi_abort, MPI_ABORT, MPI_Abort)

/* ---- dlsym.c: which addresses are ours -------------------------------------- */

#define MPI_ADDR(name) (void *)name,
static void *const wrappers[] = {
	(void *)MPI_Init, (void *)MPI_Init_thread, (void *)MPI_Finalize,
	(void *)MPI_Abort,
	MPI_FORTRAN_NAMES(MPI_ADDR, mpi_init, MPI_INIT, MPI_Init) MPI_FORTRAN_NAMES(
		MPI_ADDR, mpi_init_thread, MPI_INIT_THREAD, MPI_Init_thread)
		MPI_FORTRAN_NAMES(MPI_ADDR, mpi_finalize, MPI_FINALIZE, MPI_Finalize)
			MPI_FORTRAN_NAMES(MPI_ADDR, mpi_abort, MPI_ABORT, MPI_Abort)
};

bool hs_mpi__is_wrapper(const void *f)
{
	for (size_t i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++)
		if (wrappers[i] == f)
			return true;
	return false;
}

/* ---- the feature -------------------------------------------------------------- */

/* HPCSHIM_MPI_FILES: which files an MPI job leaves.  "auto" (the
 * default): up to HPCSHIM_MPI_FILES_RANKS ranks (256) as "all", above only
 * the job document and the files of the ranks it names (the holders of
 * extremes).  "all": every rank's own file, and the job document that
 * rank 0 writes at MPI_Finalize.  "job": only the job document.  A rank
 * still writes its own file when the in-job reduction failed, so no
 * result is ever lost to the choice.  One file per rank overwhelms the
 * metadata servers of parallel file systems at scale. */
static void mpi__config(struct hs_config *cfg)
{
	static const char *const names[] = { "all", "job", "auto" };
	const char *v = getenv("HPCSHIM_MPI_FILES_RANKS");
	const char *w = getenv("HPCSHIM_MPI_WAIT");
	uint64_t n;

	(void)cfg;
	files_mode = hs_var__choice("HPCSHIM_MPI_FILES", getenv("HPCSHIM_MPI_FILES"), names,
				    3, FILES_AUTO);
	/* HPCSHIM_MPI_SUMMARY: "view" (the default), "doc" (the whole
	 * document, as before: for comparisons), "check" (both, compared) */
	summary_mode = hs_var__choice("HPCSHIM_MPI_SUMMARY", getenv("HPCSHIM_MPI_SUMMARY"),
				      (const char *const[]){ "view", "doc", "check" }, 3,
				      SUMMARY_VIEW);
	files_ranks = 256;
	if (v && *v) {
		if (hs_var__uint(v, 0, 1u << 30, &n))
			files_ranks = n;
		else
			hs_var__bad("HPCSHIM_MPI_FILES_RANKS", v,
				    "is not a number of ranks (0 to 2^30); using 256");
	}
	/* HPCSHIM_MPI_WAIT: how long the reduction waits for a rank, per level
	 * of the tree, before it counts it (and the ranks below it) missing */
	wait_ns = WAIT_DEFAULT_NS;
	if (w && *w && !hs_var__duration(w, 100000000ull, 86400000000000ull, &wait_ns)) {
		wait_ns = WAIT_DEFAULT_NS;
		hs_var__bad("HPCSHIM_MPI_WAIT", w,
			    "is not a duration from 100ms to 86400s (e.g. 30s); using 60s");
	}
}

/* A fork child of a rank is no rank: it never takes part in a reduction. */
static void mpi__fork_child(void)
{
	in_child = true;
}

const struct hs_feature hs_mpi_feature = {
	.name = "mpi",
	.config = mpi__config,
	.fork_child = mpi__fork_child,
};
