/* presets.c - named presets and opcode classes in the process (presets.h).
 *
 * A feature (core/feature.h): config() reads its variables (HPCSHIM_PRESET,
 * HPCSHIM_OPCODE, HPCSHIM_LIST); then two steps around the evlist's probe:
 * select() reads the preset files, picks each requested set's block for
 * the CPU model libpfm4 detects and appends the events; finish() turns the
 * probe's verdict into a status per set and maps every metric's names to
 * event indices.  The blocks chosen are copied and the file table freed:
 * the process keeps only what the results need.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate/aggregate.h"
#include "aggregate/drill.h"
#include "aggregate/metric.h"
#include "pmu/pfm.h"
#include "pmu/pmu.h"
#include "preload/base/log.h"
#include "preload/config/config.h"
#include "preload/config/varparse.h"
#include "preload/presets/presets.h"
#include "presets/list.h"
#include "presets/preset.h"
#include "presets/tree_file.h"

#define MAX_SETS 32
#define WHY_LEN 200

enum sel_state {
	SEL_UNKNOWN,     /* no block of this name at all           */
	SEL_INVALID,     /* only malformed blocks (reported as read) */
	SEL_NODEF,       /* blocks exist, none for this CPU model   */
	SEL_UNAVAILABLE, /* the model's block says 'unavailable'    */
	SEL_EVENTS,      /* the model's block has events            */
	SEL_TREE,        /* topdown/topdown2: the model's stall tree */
};

struct sel {
	enum preset_kind kind;
	char name[PRESET_NAME_MAX + 8];
	enum sel_state state;
	struct preset blk;
	char *file;
	int evidx[PRESET_MAX_EVENTS]; /* index into the event list, or -1 */
	char evwhy[PRESET_MAX_EVENTS][WHY_LEN]; /* evidx -1: why                  */
	struct formula f[PRESET_MAX_METRICS];
	char reason[1100];
	const char *alias[PRESET_MAX_EVENTS], *event[PRESET_MAX_EVENTS];
	const char *mname[PRESET_MAX_METRICS], *mtext[PRESET_MAX_METRICS];
};

/* Process-wide, written by the constructor only, read by the writer. */
static struct {
	char model[64];
	char note[256];
	int n;
	struct sel *s;
	struct agg_set sets[MAX_SETS];
	struct agg_metric *m;
	int nm;
	struct agg_metrics view;
	/* HPCSHIM_PRESET=topdown / topdown2 (docs/drilldown.md): the host's
	 * stall tree, its events' places in the list, the drill-down view. */
	const struct tree_table *trees; /* during select() only */
	struct tree *tree;
	char *tree_file;
	int tree_level;
	int tree_evidx[TREE_MAX_EVENTS];
	char tree_why[TREE_MAX_EVENTS][WHY_LEN];
	const char *tree_alias[TREE_MAX_EVENTS], *tree_spec[TREE_MAX_EVENTS];
	struct agg_drill drill;
} pr;

static const char *var_of(enum preset_kind k)
{
	return k == PRESET_OPCODE ? "HPCSHIM_OPCODE" : "HPCSHIM_PRESET";
}

static const char *what_of(enum preset_kind k)
{
	return k == PRESET_OPCODE ? "class" : "preset";
}

static void presets__file_error(void *ctx, const char *msg)
{
	(void)ctx;
	hs_log(HS_LOG_ERROR, "%s", msg);
}

static void presets__emit(void *ctx, const char *line)
{
	(void)ctx;
	hs_log(HS_LOG_ERROR, "%s", line);
}

struct names {
	char buf[400];
	size_t len;
	bool cut;
};

static void names__add(struct names *n, const char *name)
{
	size_t need = strlen(name) + 2;

	if (n->cut || n->len + need + 4 >= sizeof(n->buf)) {
		if (!n->cut)
			n->len += (size_t)snprintf(n->buf + n->len,
						   sizeof(n->buf) - n->len, "%s...",
						   n->len ? ", " : "");
		n->cut = true;
		return;
	}
	n->len += (size_t)snprintf(n->buf + n->len, sizeof(n->buf) - n->len, "%s%s",
				   n->len ? ", " : "", name);
}

static void names__cb(void *ctx, const char *name)
{
	names__add(ctx, name);
}

static struct sel *presets__new(enum preset_kind kind, const char *name)
{
	struct sel *ns, *s;

	if (pr.n >= MAX_SETS)
		return NULL;
	ns = realloc(pr.s, (size_t)(pr.n + 1) * sizeof(*ns));
	if (!ns)
		return NULL;
	pr.s = ns;
	s = &pr.s[pr.n++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

static bool presets__seen(enum preset_kind kind, const char *name)
{
	for (int i = 0; i < pr.n; i++)
		if (pr.s[i].kind == kind && strcmp(pr.s[i].name, name) == 0)
			return true;
	return false;
}

/* "topdown" (level 1) and "topdown2" (levels 1-2) name the host's stall
 * tree ("tree topdown MODEL" in a *.tree file) unless a preset of that
 * name exists.  Returns whether the name was taken as a tree. */
static bool presets__tree_pick(struct sel *s, const struct preset_table *t)
{
	const struct tree *tr;
	int level = strcmp(s->name, "topdown") == 0  ? 1 :
		    strcmp(s->name, "topdown2") == 0 ? 2 :
						       0;

	if (s->kind != PRESET_NAMED || !level ||
	    pmu_preset_table__known(t, s->kind, s->name))
		return false;
	tr = pr.trees ? pmu_tree_table__find(pr.trees, "topdown", pr.model) : NULL;
	if (!tr) {
		s->state = SEL_NODEF;
		snprintf(s->reason, sizeof(s->reason),
			 "no stall tree for CPU model '%s'",
			 pr.model[0] ? pr.model : pr.note);
		return true;
	}
	if (!pr.tree) {
		pr.tree = malloc(sizeof(*pr.tree));
		if (!pr.tree) {
			s->state = SEL_NODEF;
			snprintf(s->reason, sizeof(s->reason), "out of memory");
			return true;
		}
		*pr.tree = *tr;
		pr.tree_file = strdup(tr->file);
		pr.tree->file = pr.tree_file;
	}
	if (level > pr.tree_level)
		pr.tree_level = level;
	s->state = SEL_TREE;
	s->file = pr.tree_file ? strdup(pr.tree_file) : NULL;
	s->blk.line = tr->line;
	snprintf(s->blk.description, sizeof(s->blk.description), "%s", tr->description);
	return true;
}

/* One requested name: which block, or why none. */
static void presets__pick(struct sel *s, const struct preset_table *t)
{
	const struct preset *p;

	if (!pmu_preset_table__known(t, s->kind, s->name) &&
	    pmu_preset_table__bad(t, s->kind, s->name)) {
		s->state = SEL_INVALID;
		snprintf(s->reason, sizeof(s->reason), "malformed definition: %s",
			 pmu_preset_table__bad(t, s->kind, s->name));
		return;
	}
	if (presets__tree_pick(s, t))
		return;
	if (!pmu_preset_table__known(t, s->kind, s->name)) {
		s->state = SEL_UNKNOWN;
		snprintf(s->reason, sizeof(s->reason), "unknown %s '%s'",
			 what_of(s->kind), s->name);
		return;
	}
	p = pmu_preset_table__find(t, s->kind, s->name, pr.model);
	if (!p) {
		s->state = SEL_NODEF;
		if (pr.model[0])
			snprintf(s->reason, sizeof(s->reason),
				 "no definition for "
				 "CPU model '%s'",
				 pr.model);
		else
			snprintf(s->reason, sizeof(s->reason),
				 "no definition for "
				 "this CPU (%s)",
				 pr.note);
		return;
	}
	s->blk = *p;
	s->file = strdup(p->file);
	s->blk.file = s->file;
	if (p->unavailable[0]) {
		s->state = SEL_UNAVAILABLE;
		snprintf(s->reason, sizeof(s->reason), "CPU model '%s': %s",
			 pr.model[0] ? pr.model : "(none)", p->unavailable);
		return;
	}
	s->state = SEL_EVENTS;
}

/* What resolving one variable's list found, for its single line. */
struct resolve {
	const struct preset_table *t;
	enum preset_kind kind;
	struct names unknown;
	int nunknown, ignored;
};

static void resolve__item(void *ctx, const char *p, size_t len)
{
	struct resolve *rs = ctx;
	char name[PRESET_NAME_MAX + 8];
	struct sel *s;

	/* An overlong name is unknown anyway: keep a prefix. */
	snprintf(name, sizeof(name), "%.*s%s",
		 (int)(len < PRESET_NAME_MAX - 4 ? len : PRESET_NAME_MAX - 4), p,
		 len < PRESET_NAME_MAX - 4 ? "" : "...");
	if (presets__seen(rs->kind, name))
		return;
	if (!(s = presets__new(rs->kind, name))) {
		rs->ignored++;
		return;
	}
	presets__pick(s, rs->t);
	if (s->state == SEL_UNKNOWN) {
		char q[PRESET_NAME_MAX + 12];

		snprintf(q, sizeof(q), "'%s'", s->name);
		names__add(&rs->unknown, q);
		rs->nunknown++;
	}
}

/* A comma list of names: every unknown one in a single line. */
static void presets__resolve(const struct preset_table *t, enum preset_kind kind,
			     const char *list)
{
	struct resolve rs = { .t = t, .kind = kind, .unknown = { .len = 0 } };
	struct names known = { .len = 0 };

	hs_var__each_item(list, resolve__item, &rs);
	if (rs.nunknown)
		pmu_preset_table__names(t, kind, names__cb, &known);
	/* Everything wrong with the variable in one line. */
	if (rs.nunknown && rs.ignored)
		hs_log(HS_LOG_ERROR,
		       "%s: unknown %s%s %s (known: %s); %d names "
		       "beyond the limit of %d sets ignored",
		       var_of(kind), what_of(kind),
		       rs.nunknown > 1 ? (kind == PRESET_OPCODE ? "es" : "s") : "",
		       rs.unknown.buf, known.len ? known.buf : "none", rs.ignored,
		       MAX_SETS);
	else if (rs.nunknown)
		hs_log(HS_LOG_ERROR, "%s: unknown %s%s %s (known: %s)",
		       var_of(kind), what_of(kind),
		       rs.nunknown > 1 ? (kind == PRESET_OPCODE ? "es" : "s") : "",
		       rs.unknown.buf, known.len ? known.buf : "none");
	else if (rs.ignored)
		hs_log(HS_LOG_ERROR,
		       "%s: %d names beyond the limit of %d sets "
		       "ignored",
		       var_of(kind), rs.ignored, MAX_SETS);
}

/* The sets' events go after the user's (HPCSHIM_EVENTS) and replace the
 * default set: asking for a preset is asking for its events. */
/* The tree's events up to the requested level, in the tree's order (on
 * icx/spr TOPDOWN.SLOTS first: it must lead the PERF_METRICS group), in
 * two groups of their own so each formula's events are read together:
 * the level-1 events, and the events only level 2 reads.  An event the
 * user already listed keeps its place and group. */
static int presets__append_tree(struct hs_config *cfg)
{
	int base = 0, over = 0;

	for (int i = 0; i < cfg->nevents; i++)
		if (cfg->event_group[i] >= base)
			base = cfg->event_group[i] + 1;
	for (int k = 0; k < pr.tree->nevents; k++) {
		const char *spec = pr.tree->ev[k].spec;
		int lvl = pr.tree->ev[k].level, j;

		pr.tree_evidx[k] = -1;
		if (lvl > pr.tree_level) {
			snprintf(pr.tree_why[k], WHY_LEN,
				 "event '%.60s' not counted: a level-%d event "
				 "(HPCSHIM_PRESET=topdown%d)",
				 spec, lvl, lvl);
			continue;
		}
		for (j = 0; j < cfg->nevents; j++)
			if (strcmp(cfg->events[j], spec) == 0)
				break;
		if (j == cfg->nevents && cfg->nevents < PMU_MAX_EVENTS &&
		    (cfg->events[j] = strdup(spec))) {
			cfg->event_group[j] = base + (lvl > 1);
			cfg->nevents++;
		}
		if (j < cfg->nevents) {
			pr.tree_evidx[k] = j;
		} else {
			snprintf(pr.tree_why[k], WHY_LEN,
				 "event '%.60s' not counted: more than %d events requested",
				 spec, PMU_MAX_EVENTS);
			over++;
		}
	}
	return over;
}

static void presets__append(struct hs_config *cfg)
{
	int over = 0;
	bool any = false;

	for (int i = 0; i < pr.n; i++)
		any |= pr.s[i].state == SEL_EVENTS || pr.s[i].state == SEL_TREE;
	if (!any)
		return;
	if (cfg->events_default) {
		for (int i = 0; i < cfg->nevents; i++)
			free(cfg->events[i]);
		cfg->nevents = cfg->nuser = 0;
		cfg->events_default = false;
	}
	if (pr.tree)
		over += presets__append_tree(cfg);
	for (int i = 0; i < pr.n; i++) {
		struct sel *s = &pr.s[i];

		if (s->state != SEL_EVENTS)
			continue;
		for (int e = 0; e < s->blk.nevents; e++) {
			const char *spec = s->blk.ev[e].spec;
			int j;

			s->evidx[e] = -1;
			for (j = 0; j < cfg->nevents; j++)
				if (strcmp(cfg->events[j], spec) == 0)
					break;
			if (j == cfg->nevents && cfg->nevents < PMU_MAX_EVENTS &&
			    (cfg->events[j] = strdup(spec)))
				cfg->nevents++;
			if (j < cfg->nevents) {
				s->evidx[e] = j;
			} else {
				snprintf(s->evwhy[e], WHY_LEN,
					 "event '%.60s' not "
					 "counted: more than %d events requested",
					 spec, PMU_MAX_EVENTS);
				over++;
			}
		}
	}
	if (over)
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_PRESET/HPCSHIM_OPCODE: %d events beyond "
		       "the limit of %d not counted",
		       over, PMU_MAX_EVENTS);
}

/* The feature's variables.  HPCSHIM_PRESET and HPCSHIM_OPCODE are kept as
 * text: select resolves them once libpfm4 has told the CPU model, in the
 * same constructor (so the environment's own strings serve).
 * HPCSHIM_PRESET_PATH is the core's (hs_config.preset_path): the MPI
 * feature searches the same path for stall trees. */
static struct {
	const char *presets, *opcodes; /* as given, or NULL */
	bool list;                     /* HPCSHIM_LIST=1    */
} var;

static void presets__config(struct hs_config *cfg)
{
	const char *v = getenv("HPCSHIM_LIST");

	(void)cfg;
	var.presets = getenv("HPCSHIM_PRESET");
	var.opcodes = getenv("HPCSHIM_OPCODE");
	if (v && *v && strcmp(v, "0") != 0) {
		if (strcmp(v, "1") == 0)
			var.list = true;
		else
			hs_var__bad("HPCSHIM_LIST", v, "is not 0 or 1; not listing");
	}
}

static void presets__select(struct hs_config *cfg)
{
	struct preset_table t;
	struct tree_table tt;
	char path[8192];

	if (!var.presets && !var.opcodes && !var.list)
		return;
	if (pmu_pfm__host_model(pr.model, sizeof(pr.model), pr.note, sizeof(pr.note)) < 0)
		pr.model[0] = '\0';
	pmu_preset__search_path(cfg->preset_path, path, sizeof(path));
	pmu_preset_table__init(&t);
	pmu_preset_table__load_path(&t, path, presets__file_error, NULL);
	if (var.list) {
		struct pmu_list_env env = { .model = pr.model,
					    .model_note = pr.note,
					    .path = path,
					    .table = &t };

		pmu_list__run(&env, presets__emit, NULL);
	}
	/* Stall trees are read only when a tree name may be asked for. */
	pmu_tree_table__init(&tt);
	if (var.presets && strstr(var.presets, "topdown"))
		pmu_tree_table__load_path(&tt, path, presets__file_error, NULL);
	pr.trees = &tt;
	presets__resolve(&t, PRESET_NAMED, var.presets);
	pr.trees = NULL;
	pmu_tree_table__free(&tt);
	presets__resolve(&t, PRESET_OPCODE, var.opcodes);
	pmu_preset_table__free(&t);
	presets__append(cfg);
}

/* Status of a set with events, from the probe. */
static void presets__judge(struct sel *s, const struct pmu_evlist *el,
			   struct agg_set *as)
{
	int nok = 0;

	s->reason[0] = '\0';
	for (int e = 0; e < s->blk.nevents; e++) {
		int i = s->evidx[e];

		if (i >= 0 && i < el->nevents && el->ev[i].status == PMU_EV_OK) {
			nok++;
			continue;
		}
		if (s->reason[0])
			continue;
		if (i < 0)
			snprintf(s->reason, sizeof(s->reason), "%s", s->evwhy[e]);
		else
			snprintf(s->reason, sizeof(s->reason), "event '%s' dropped: %s",
				 el->ev[i].name, el->ev[i].reason);
	}
	if (nok == s->blk.nevents) {
		as->status = "ok";
		return;
	}
	as->status = nok ? "partial" : "dropped";
	as->reason = s->reason;
	hs_log(HS_LOG_INFO, "%s: %s '%s' %s: %s", var_of(s->kind), what_of(s->kind),
	       s->name, nok ? "partly counted" : "not counted", s->reason);
}

/* A tree set: status from its events' probe; the drill-down view. */
static void presets__judge_tree(struct sel *s, const struct pmu_evlist *el,
				struct agg_set *as)
{
	int nok = 0, nwant = 0;

	s->reason[0] = '\0';
	for (int k = 0; k < pr.tree->nevents; k++) {
		int i = pr.tree_evidx[k];

		pr.tree_alias[k] = pr.tree->ev[k].alias;
		pr.tree_spec[k] = pr.tree->ev[k].spec;
		pr.drill.evidx[k] = i;
		pr.drill.why[k] = i < 0 ? pr.tree_why[k] : NULL;
		if (pr.tree->ev[k].level > pr.tree_level)
			continue;
		nwant++;
		if (i >= 0 && i < el->nevents && el->ev[i].status == PMU_EV_OK) {
			nok++;
			continue;
		}
		if (s->reason[0])
			continue;
		if (i < 0)
			snprintf(s->reason, sizeof(s->reason), "%s", pr.tree_why[k]);
		else
			snprintf(s->reason, sizeof(s->reason), "event '%s' dropped: %s",
				 el->ev[i].name, el->ev[i].reason);
	}
	pr.drill.t = pr.tree;
	pr.drill.level = pr.tree_level;
	pr.drill.name = pr.tree_level > 1 ? "topdown2" : "topdown";
	as->nevents = pr.tree->nevents;
	as->alias = pr.tree_alias;
	as->event = pr.tree_spec;
	if (nok == nwant) {
		as->status = "ok";
		return;
	}
	as->status = nok ? "partial" : "dropped";
	as->reason = s->reason;
	hs_log(HS_LOG_INFO, "HPCSHIM_PRESET: stall tree '%s' %s: %s", s->name,
	       nok ? "partly counted" : "not counted", s->reason);
}

static const struct agg_metric *presets__metric(const char *name)
{
	for (int i = 0; i < pr.nm; i++)
		if (strcmp(pr.m[i].name, name) == 0)
			return &pr.m[i];
	return NULL;
}

/* The block's metrics over event indices.  A name another set already
 * defined keeps its first definition: keys in the results are unique. */
static void presets__metrics(struct sel *s)
{
	for (int k = 0; k < s->blk.nmetrics; k++) {
		const struct preset_metric *pm = &s->blk.m[k];
		const struct agg_metric *prev = presets__metric(pm->name);
		struct agg_metric *m;
		char err[200];

		if (prev) {
			hs_log(HS_LOG_INFO,
			       "%s: metric '%s' of %s '%s' left out: "
			       "already defined by '%s'",
			       var_of(s->kind), pm->name, what_of(s->kind), s->name,
			       prev->set);
			continue;
		}
		/* Checked when the file was read; parsing again cannot fail. */
		if (hs_formula__parse(&s->f[k], pm->text, err, sizeof(err)) < 0)
			continue;
		m = &pr.m[pr.nm++];
		memset(m, 0, sizeof(*m));
		m->name = pm->name;
		m->set = s->name;
		m->f = &s->f[k];
		for (int v = 0; v < m->f->nvars; v++) {
			int e = pmu_preset__event(&s->blk, m->f->var[v]);

			m->evidx[v] = e >= 0 ? s->evidx[e] : -1;
			m->why[v] = e >= 0 && s->evidx[e] < 0 ? s->evwhy[e] : NULL;
		}
	}
}

static void presets__finish(struct pmu_evlist *el, const struct hs_config *cfg)
{
	(void)cfg;
	if (pr.n == 0)
		return;
	pr.m = calloc((size_t)pr.n * PRESET_MAX_METRICS, sizeof(*pr.m));
	for (int i = 0; i < pr.n; i++) {
		struct sel *s = &pr.s[i];
		struct agg_set *as = &pr.sets[i];

		*as = (struct agg_set){
			.kind = pmu_preset_kind__name(s->kind),
			.name = s->name,
			.model = pr.model,
			.file = s->file,
			.line = s->blk.line,
			.description = s->blk.description[0] ? s->blk.description : NULL,
		};
		switch (s->state) {
		case SEL_UNKNOWN:
			as->status = "unknown";
			as->reason = s->reason; /* reported by presets__resolve */
			continue;
		case SEL_INVALID:
			as->status = "invalid";
			as->reason = s->reason; /* reported when the file was read */
			continue;
		case SEL_NODEF:
		case SEL_UNAVAILABLE:
			as->status = "unavailable";
			as->reason = s->reason;
			hs_log(HS_LOG_INFO, "%s: %s '%s' not counted: %s",
			       var_of(s->kind), what_of(s->kind), s->name, s->reason);
			continue;
		case SEL_TREE:
			presets__judge_tree(s, el, as);
			continue;
		case SEL_EVENTS:
			break;
		}
		presets__judge(s, el, as);
		for (int e = 0; e < s->blk.nevents; e++) {
			s->alias[e] = s->blk.ev[e].alias;
			s->event[e] = s->blk.ev[e].spec;
		}
		for (int k = 0; k < s->blk.nmetrics; k++) {
			s->mname[k] = s->blk.m[k].name;
			s->mtext[k] = s->blk.m[k].text;
		}
		as->nevents = s->blk.nevents;
		as->alias = s->alias;
		as->event = s->event;
		as->nmetrics = s->blk.nmetrics;
		as->mname = s->mname;
		as->mtext = s->mtext;
		if (pr.m)
			presets__metrics(s);
	}
	pr.view = (struct agg_metrics){ .model = pr.model,
					.nsets = pr.n,
					.sets = pr.sets,
					.nmetrics = pr.nm,
					.m = pr.m,
					.drill = pr.drill.t ? &pr.drill : NULL };
}

static const struct agg_section presets_section = {
	.name = "presets",
	.order = 10, /* "presets" before "mux" */
	.head = agg_metrics__head,
	.counts = agg_metrics__counts,
	.sums = agg_metrics__sums,
};

/* Also in flushes and snapshots: pr.view is fixed at setup. */
static void presets__result(struct agg_process *p, bool partial)
{
	(void)partial;
	p->metrics = pr.n ? &pr.view : NULL;
	if (pr.n)
		agg_sections__add(&p->sections, &presets_section, &pr.view);
}

const struct hs_feature hs_presets_feature = {
	.name = "presets",
	.config = presets__config,
	.select = presets__select,
	.setup = presets__finish,
	.result = presets__result,
};
