/* json.c - the process result as JSON (json-c), written atomically.
 *
 * Layout: docs/schema.md.  Counts are JSON numbers: the exact count, or the
 * scaled estimate when the event was multiplexed (then a "multiplexed" entry
 * next to it carries raw, enabled, running and coverage).  An event that
 * never ran in an interval is null, never 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/sys.h"
#include "aggregate/aggregate.h"
#include "aggregate/metric.h"
#include "aggregate/mux.h"


static json_object *json_u64(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static json_object *json_estimate(const struct count *c)
{
	double v;

	if (!hs_count__estimate(c, &v))
		return NULL; /* json null: not covered */
	if (c->running == c->enabled)
		return json_u64(c->value);
	return json_u64((uint64_t)llround(v));
}

/* Every string that comes from the outside goes through here. */
static json_object *json_text(const char *s)
{
	char *clean = agg_utf8__clean(s);
	json_object *o = json_object_new_string(clean ? clean : "?");

	free(clean);
	return o;
}

static json_object *json_double(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* {"event": number|null, ...} over counted events, plus a sibling
 * "<key>_multiplexed" entry in parent when coverage < 1 somewhere.  The
 * counts of thread t (NULL: not a thread's) as reported: agg_mux__view. */
static void add_counts(json_object *parent, const char *key,
		       const struct agg_process *p, const struct agg_thread *t,
		       const struct count *c, uint64_t missing)
{
	json_object *vals = json_object_new_object(), *mux = NULL;
	struct count view[p->nev ? p->nev : 1];

	agg_mux__view(p, t ? t->rot : NULL, c, view);
	for (int i = 0; i < p->nev; i++) {
		struct count s;

		if (!p->ev[i].ok)
			continue;
		if (missing & (1ull << i)) {
			json_object_object_add(vals, p->ev[i].name, NULL);
			continue;
		}
		s = view[i];
		json_object_object_add(vals, p->ev[i].name, json_estimate(&s));
		if (s.running != s.enabled) {
			if (!mux)
				mux = json_object_new_object();
			json_object_object_add(mux, p->ev[i].name,
					       agg_mux__entry(p, t, i, &s, &c[i]));
		}
	}
	json_object_object_add(parent, key, vals);
	if (mux) {
		char k[64];
		snprintf(k, sizeof(k), "%s_multiplexed", key);
		json_object_object_add(parent, k, mux);
	}
	agg_metrics__add_counts(parent, key, p, c, missing);
}

static json_object *json_process(const struct agg_process *p)
{
	json_object *o = json_object_new_object(), *cmd = json_object_new_array();

	json_object_object_add(o, "pid", json_object_new_int(p->pid));
	json_object_object_add(o, "ppid", json_object_new_int(p->ppid));
	json_object_object_add(o, "host", json_text(p->host));
	json_object_object_add(o, "rank", p->rank >= 0 ?
			       json_object_new_int(p->rank) : NULL);
	for (int i = 0; i < p->argc; i++)
		json_object_array_add(cmd, json_text(p->argv[i]));
	json_object_object_add(o, "command", cmd);
	json_object_object_add(o, "start_ns", json_u64(p->start_ns));
	json_object_object_add(o, "end_ns", json_u64(p->end_ns));
	json_object_object_add(o, "complete", json_object_new_boolean(p->complete));
	json_object_object_add(o, "end", json_object_new_string(p->end));
	if (p->signal) {
		json_object_object_add(o, "signal", json_object_new_int(p->signal));
		json_object_object_add(o, "signal_name",
				       json_object_new_string(sigabbrev_np(p->signal) ?
							      sigabbrev_np(p->signal) : "?"));
	}
	json_object_object_add(o, "exec_generation",
			       json_object_new_int(p->exec_generation));
	return o;
}

static json_object *json_events(const struct agg_process *p)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < p->nev; i++) {
		const struct agg_event *e = &p->ev[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_text(e->name));
		json_object_object_add(o, "status",
			json_object_new_string(e->ok ? "ok" : "dropped"));
		json_object_object_add(o, "source", json_object_new_string(e->source));
		if (e->encoding && e->encoding[0])
			json_object_object_add(o, "encoding",
					       json_object_new_string(e->encoding));
		if (e->ok) {
			json_object_object_add(o, "privilege",
					       json_object_new_string(e->privilege));
			if (e->downgraded)
				json_object_object_add(o, "downgraded",
					json_object_new_boolean(true));
			json_object_object_add(o, "group", json_object_new_int(e->group));
		} else {
			json_object_object_add(o, "errno", json_object_new_int(e->err));
			json_object_object_add(o, "error", json_object_new_string(e->errname));
			json_object_object_add(o, "reason", json_text(e->reason));
		}
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_pmu(const struct agg_process *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "cpu_pmu", p->pmu.cpu_pmu[0] ?
			       json_object_new_string(p->pmu.cpu_pmu) : NULL);
	json_object_object_add(o, "hardware", json_object_new_boolean(p->pmu.hardware));
	json_object_object_add(o, "fallback", p->pmu.fallback ?
			       json_object_new_string(p->pmu.fallback) : NULL);
	json_object_object_add(o, "privilege", json_object_new_string(p->pmu.privilege));
	json_object_object_add(o, "perf_event_paranoid", json_object_new_int(p->pmu.paranoid));
	json_object_object_add(o, "privilege_requested", json_object_new_string(
		p->pmu.privilege_requested ? p->pmu.privilege_requested : "all"));
	json_object_object_add(o, "privilege_note", p->pmu.privilege_note ?
			       json_object_new_string(p->pmu.privilege_note) : NULL);
	return o;
}

static json_object *json_warnings(const struct agg_thread_warnings *w)
{
	json_object *o = json_object_new_object();
#define WARN(field) json_object_object_add(o, #field, \
		json_u64(__atomic_load_n(&w->field, __ATOMIC_RELAXED)))
	WARN(unmatched_end);
	WARN(auto_closed);
	WARN(depth_overflow);
	WARN(read_errors);
#undef WARN
	return o;
}

/* Per-call statistics of the main event; null when no call had a value. */
static json_object *json_percall(const struct agg_process *p,
				 const struct agg_percall *pc)
{
	json_object *o;

	if (p->main_ev < 0 || pc->n == 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "event", json_text(p->ev[p->main_ev].name));
	json_object_object_add(o, "calls", json_u64(pc->n));
	json_object_object_add(o, "min", json_u64(pc->min));
	json_object_object_add(o, "max", json_u64(pc->max));
	json_object_object_add(o, "mean", json_double((double)pc->sum / (double)pc->n));
	return o;
}

static struct agg_percall load_percall(const struct agg_percall *pc)
{
	struct agg_percall s = {
		__atomic_load_n(&pc->n, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->min, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->max, __ATOMIC_RELAXED),
		__atomic_load_n(&pc->sum, __ATOMIC_RELAXED),
	};
	return s;
}

/* Combines per-call statistics across threads. */
static void percall_merge(struct agg_percall *acc, const struct agg_percall *pc)
{
	if (pc->n == 0)
		return;
	if (acc->n == 0 || pc->min < acc->min)
		acc->min = pc->min;
	if (pc->max > acc->max)
		acc->max = pc->max;
	acc->sum += pc->sum;
	acc->n += pc->n;
}

/* How this thread's counters were read: "user" (mmap page, no system
 * call), "syscall" (read()), "mixed", or "none" (never read). */
static json_object *json_reads(const struct agg_thread *t)
{
	json_object *o = json_object_new_object();
	uint64_t u = __atomic_load_n(&t->reads_user, __ATOMIC_RELAXED);
	uint64_t s = __atomic_load_n(&t->reads_syscall, __ATOMIC_RELAXED);

	json_object_object_add(o, "method", json_object_new_string(
		u && s ? "mixed" : u ? "user" : s ? "syscall" : "none"));
	json_object_object_add(o, "user", json_u64(u));
	json_object_object_add(o, "syscall", json_u64(s));
	return o;
}

static json_object *json_thread(const struct agg_process *p,
				const struct agg_thread *t)
{
	const struct agg_name *nm = __atomic_load_n(&t->name, __ATOMIC_ACQUIRE);
	json_object *o = json_object_new_object(), *regs = json_object_new_array();
	const struct agg_region *r;

	json_object_object_add(o, "tid", json_object_new_int(t->tid));
	json_object_object_add(o, "start_ns", json_u64(t->start_ns));
	json_object_object_add(o, "end_ns", json_u64(t->end_ns));
	json_object_object_add(o, "alive_at_exit", json_object_new_boolean(t->alive_at_exit));
	int omp = __atomic_load_n(&t->omp_thread, __ATOMIC_RELAXED);

	if (omp >= 0)
		json_object_object_add(o, "omp_thread", json_object_new_int(omp));
	if (nm)
		json_object_object_add(o, "name", json_text(nm->s));
	json_object_object_add(o, "reads", json_reads(t));
	if (t->missing) {
		json_object_object_add(o, "error", json_object_new_string(
			t->reason ? t->reason : "counters not opened"));
		if (t->err && strerrorname_np(t->err))
			json_object_object_add(o, "errno",
				json_object_new_string(strerrorname_np(t->err)));
	}
	add_counts(o, "totals", p, t, t->totals, t->missing);
	for (r = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE); r;
	     r = __atomic_load_n(&r->next, __ATOMIC_ACQUIRE)) {
		json_object *ro = json_object_new_object();

		json_object_object_add(ro, "name", json_text(r->name));
		json_object_object_add(ro, "calls",
			json_u64(__atomic_load_n(&r->calls, __ATOMIC_RELAXED)));
		add_counts(ro, "inclusive", p, t, r->c, t->missing);
		add_counts(ro, "exclusive", p, t, r->c + r->nev, t->missing);
		struct agg_percall pc = load_percall(&r->percall);
		json_object_object_add(ro, "per_call", json_percall(p, &pc));
		json_object_array_add(regs, ro);
	}
	json_object_object_add(o, "regions", regs);
	json_object_object_add(o, "warnings", json_warnings(&t->warn));
	if (t->range && p->range)
		json_object_object_add(o, "ranges", agg_range__thread_json(p, t));
	if (p->mux && p->mux->mode == AGG_MUX_ROTATE)
		json_object_object_add(o, "rotation", agg_rotation__json(p, t));
	if (t->series)
		json_object_object_add(o, "series", agg_series__json(p, t));
	return o;
}

/* Across-thread summary of one region name. */
struct region_sum {
	const char *name;
	uint64_t calls;
	int threads;
	struct agg_percall percall;
	struct agg_mux_sum *mx; /* [2 nev], after st[] in the same block */
	struct agg_stat st[]; /* [0, nev) inclusive, [nev, 2 nev) exclusive */
};

static void region_sum__free(struct lh_entry *e)
{
	free((void *)lh_entry_v(e));
}

static void stats_add(struct agg_stat *st, const struct agg_process *p,
		      const struct agg_thread *t, const struct count *c,
		      uint64_t missing)
{
	struct count view[p->nev ? p->nev : 1];

	agg_mux__view(p, t->rot, c, view);
	for (int i = 0; i < p->nev; i++) {
		struct count s = view[i];
		double v;

		if (p->ev[i].ok && !(missing & (1ull << i)) &&
		    hs_count__estimate(&s, &v))
			agg_stat__add(&st[i], v);
	}
}

static json_object *json_stats(const struct agg_process *p,
			       const struct agg_stat *st)
{
	json_object *o = json_object_new_object();

	for (int i = 0; i < p->nev; i++) {
		json_object *so;

		if (!p->ev[i].ok)
			continue;
		if (st[i].n == 0) {
			json_object_object_add(o, p->ev[i].name, NULL);
			continue;
		}
		so = json_object_new_object();
		json_object_object_add(so, "sum", json_double(st[i].sum));
		json_object_object_add(so, "min", json_double(st[i].min));
		json_object_object_add(so, "max", json_double(st[i].max));
		json_object_object_add(so, "mean", json_double(agg_stat__mean(&st[i])));
		json_object_object_add(so, "threads", json_object_new_int64((int64_t)st[i].n));
		json_object_object_add(o, p->ev[i].name, so);
	}
	return o;
}

/* Per region name: calls, threads, sum/min/max/mean across threads. */
static json_object *json_regions(const struct agg_process *p)
{
	struct lh_table *tab = lh_kchar_table_new(64, region_sum__free);
	size_t sz = sizeof(struct region_sum) + 2 * (size_t)p->nev *
		(sizeof(struct agg_stat) + sizeof(struct agg_mux_sum));
	json_object *a = json_object_new_array();
	struct lh_entry *e;

	for (const struct agg_thread *t = p->threads; t; t = t->next) {
		for (const struct agg_region *r = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE);
		     r; r = __atomic_load_n(&r->next, __ATOMIC_ACQUIRE)) {
			struct region_sum *rs = NULL;

			if (!lh_table_lookup_ex(tab, r->name, (void **)&rs)) {
				rs = calloc(1, sz);
				if (!rs)
					continue;
				rs->name = r->name;
				rs->mx = (struct agg_mux_sum *)(rs->st + 2 * p->nev);
				lh_table_insert(tab, rs->name, rs);
			}
			rs->calls += __atomic_load_n(&r->calls, __ATOMIC_RELAXED);
			rs->threads++;
			struct agg_percall pc = load_percall(&r->percall);
			percall_merge(&rs->percall, &pc);
			stats_add(rs->st, p, t, r->c, t->missing);
			stats_add(rs->st + p->nev, p, t, r->c + r->nev, t->missing);
			agg_mux_sum__add(rs->mx, p, t, r->c, t->missing);
			agg_mux_sum__add(rs->mx + p->nev, p, t, r->c + r->nev, t->missing);
		}
	}
	lh_foreach(tab, e) {
		const struct region_sum *rs = lh_entry_v(e);
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_text(rs->name));
		json_object_object_add(o, "calls", json_u64(rs->calls));
		json_object_object_add(o, "threads", json_object_new_int(rs->threads));
		json_object_object_add(o, "inclusive", json_stats(p, rs->st));
		agg_mux_sum__json(o, "inclusive", p, rs->mx);
		json_object_object_add(o, "exclusive", json_stats(p, rs->st + p->nev));
		agg_mux_sum__json(o, "exclusive", p, rs->mx + p->nev);
		json_object_object_add(o, "per_call", json_percall(p, &rs->percall));
		agg_metrics__add_stats(o, "inclusive", p, rs->st);
		agg_metrics__add_stats(o, "exclusive", p, rs->st + p->nev);
		json_object_array_add(a, o);
	}
	lh_table_free(tab);
	return a;
}

/* Process totals: per event the sum of the threads' estimates (and the
 * metrics over those sums); their coverage and standard error go to mx
 * (the "totals_multiplexed" entry). */
static void json_totals(json_object *doc, const struct agg_process *p,
			struct agg_mux_sum *mx)
{
	struct agg_stat st[p->nev ? p->nev : 1];
	json_object *o = json_object_new_object();

	memset(st, 0, sizeof(st));
	for (const struct agg_thread *t = p->threads; t; t = t->next) {
		stats_add(st, p, t, t->totals, t->missing);
		agg_mux_sum__add(mx, p, t, t->totals, t->missing);
	}
	for (int i = 0; i < p->nev; i++) {
		if (!p->ev[i].ok)
			continue;
		json_object_object_add(o, p->ev[i].name, st[i].n ?
				       json_u64((uint64_t)llround(st[i].sum)) : NULL);
	}
	json_object_object_add(doc, "totals", o);
	agg_metrics__add_stats(doc, "totals", p, st);
}

static json_object *json_uncovered(const struct agg_process *p)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < p->nuncovered; i++) {
		const struct agg_uncovered *u = &p->uncovered[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "tid", json_object_new_int(u->tid));
		json_object_object_add(o, "minor_faults", json_u64(u->minor_faults));
		json_object_object_add(o, "major_faults", json_u64(u->major_faults));
		json_object_object_add(o, "cpu_ns", json_u64(u->cpu_ns));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *json_document(const struct agg_process *p)
{
	json_object *doc = json_object_new_object();
	json_object *tool = json_object_new_object(), *threads = json_object_new_array();
	int nthreads = 0;
	struct agg_mux_sum mx[p->nev ? p->nev : 1];

	json_object_object_add(doc, "schema", json_object_new_string(AGG_SCHEMA));
	json_object_object_add(tool, "name", json_object_new_string("hpcshim"));
	json_object_object_add(tool, "version", json_object_new_string(p->version));
	json_object_object_add(doc, "tool", tool);
	json_object_object_add(doc, "process", json_process(p));
	json_object_object_add(doc, "pmu", json_pmu(p));
	json_object_object_add(doc, "events", json_events(p));
	agg_metrics__add_sets(doc, p);
	if (p->mux) {
		json_object_object_add(doc, "mux", agg_mux__json(p));
		json_object_object_add(doc, "groups", agg_groups__json(p));
	}
	memset(mx, 0, sizeof(mx));
	json_totals(doc, p, mx);
	agg_mux_sum__json(doc, "totals", p, mx);
	for (const struct agg_thread *t = p->threads; t; t = t->next, nthreads++)
		json_object_array_add(threads, json_thread(p, t));
	json_object_object_add(doc, "thread_count", json_object_new_int(nthreads));
	json_object_object_add(doc, "uncovered_region_calls", json_u64(p->uncovered_calls));
	json_object_object_add(doc, "uncovered_threads", json_uncovered(p));
	json_object_object_add(doc, "threads", threads);
	json_object_object_add(doc, "regions", json_regions(p));
	if (p->range)
		json_object_object_add(doc, "ranges", agg_range__process_json(p));
	return doc;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Publishes tmp under base.json, base-1.json, ...: link(2) never replaces
 * an existing file, so a result of an earlier process (pid reuse) or another
 * host with the same name is never lost. */
static int publish(const char *tmp, const char *dir, const char *base,
		   char *path, size_t pathlen)
{
	for (int k = 0; k < 1000; k++) {
		if (k == 0)
			snprintf(path, pathlen, "%s/%s.json", dir, base);
		else
			snprintf(path, pathlen, "%s/%s-%d.json", dir, base, k);
		if (link(tmp, path) == 0)
			return 0;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* hpcshim-<host>-<pid>[-r<rank>][-x<exec generation>] */
static void result_base(const struct agg_process *p, char *base, size_t len)
{
	char rank[16] = "", gen[16] = "";

	if (p->rank >= 0)
		snprintf(rank, sizeof(rank), "-r%d", p->rank);
	/* Every exec'd image of a pid has its own file. */
	if (p->exec_generation > 0)
		snprintf(gen, sizeof(gen), "-x%d", p->exec_generation);
	snprintf(base, len, "hpcshim-%s-%d%s%s", p->host, p->pid, rank, gen);
	for (char *c = base; *c; c++) /* a host name is no path */
		if (*c == '/')
			*c = '_';
}

int agg_process__write(const struct agg_process *p, const char *dir,
		       char *path, size_t pathlen, char *err, size_t errlen)
{
	json_object *doc = json_document(p);
	const char *text = json_object_to_json_string_ext(doc,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	char base[256], tmp[4096];
	int fd, rc = -1, saved;

	result_base(p, base, sizeof(base));
	/* Unique per process start, so a file left by a killed process with
	 * the same pid never blocks this one. */
	snprintf(tmp, sizeof(tmp), "%s/.%s-%llx.json.tmp", dir, base,
		 (unsigned long long)p->start_ns);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a file in %s: %s", dir, strerror(errno));
		goto out;
	}
	if (write_all(fd, text, strlen(text)) < 0 || write_all(fd, "\n", 1) < 0) {
		saved = errno;
		snprintf(err, errlen, "cannot write to %s: %s", dir, strerror(saved));
		hs_sys__close(fd);
		goto fail_unlink;
	}
	if (hs_sys__close(fd) < 0) {
		snprintf(err, errlen, "cannot write to %s: %s", dir, strerror(errno));
		goto fail_unlink;
	}
	if (publish(tmp, dir, base, path, pathlen) < 0) {
		snprintf(err, errlen, "cannot publish %s: %s", path, strerror(errno));
		goto fail_unlink;
	}
	rc = 0;
fail_unlink:
	unlink(tmp);
out:
	json_object_put(doc);
	return rc;
}
