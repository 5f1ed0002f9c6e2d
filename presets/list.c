/* list.c - the listing of usable presets, opcode classes and range forms
 * (list.h).
 *
 * "Usable" is decided the way the shim decides at start: the block chosen
 * for this CPU model, its events encoded and opened once.  Every line says
 * why a set is not usable, so the listing answers "what can I ask for
 * here" without a trial run.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/pmu.h"
#include "pmu/point.h"
#include "pmu/sample.h"
#include "presets/list.h"

struct lister {
	const struct pmu_list_env *env;
	pmu_list_emit emit;
	void *ctx;
	enum preset_kind kind;
};

__attribute__((format(printf, 2, 3))) static void lister__line(struct lister *l,
							       const char *fmt, ...)
{
	char line[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	l->emit(l->ctx, line);
}

static void list__one(void *ctx, const char *name)
{
	struct lister *l = ctx;
	const struct preset *p = pmu_preset_table__find(l->env->table, l->kind,
							name, l->env->model);
	char reason[600], where[300];
	int nok;

	if (!p) {
		lister__line(l,
			     "  %-14s not usable: no definition for CPU model "
			     "'%s'",
			     name, l->env->model[0] ? l->env->model : "(none)");
		return;
	}
	snprintf(where, sizeof(where), "%s:%d", p->file, p->line);
	nok = pmu_preset__probe(p, reason, sizeof(reason));
	if (p->unavailable[0])
		lister__line(l, "  %-14s not usable: %s (%s)", name, reason, where);
	else if (nok == p->nevents)
		lister__line(l, "  %-14s usable: %d events, %d metrics (%s)", name,
			     p->nevents, p->nmetrics, where);
	else if (nok > 0)
		lister__line(l, "  %-14s partly usable: %d of %d events open; %s (%s)",
			     name, nok, p->nevents, reason, where);
	else
		lister__line(l, "  %-14s not usable: %s (%s)", name, reason, where);
}

static void section__sets(struct lister *l, enum preset_kind kind)
{
	l->kind = kind;
	pmu_preset_table__names(l->env->table, kind, list__one, l);
}

static void section__presets(struct lister *l)
{
	section__sets(l, PRESET_NAMED);
}

static void section__opcodes(struct lister *l)
{
	section__sets(l, PRESET_OPCODE);
}

/* Can this thread sample ev (PERF_SAMPLE_IP, as HPCSHIM_RANGE does)?
 * 0, or the errno of the refusal. */
static int range__sampling(uint32_t type, uint64_t config, uint64_t period)
{
	struct perf_event_attr a = {
		.type = type,
		.size = sizeof(a),
		.config = config,
		.sample_period = period,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	int fd = pmu_sys__open(&a, -1);

	if (fd < 0)
		return errno;
	pmu_sys__close(fd);
	return 0;
}

static void range__line(struct lister *l, const char *form, int err, const char *usable)
{
	if (err)
		lister__line(l, "  %-24s not usable: %s: %s", form,
			     pmu_errno__name(err), pmu_errno__reason(err));
	else
		lister__line(l, "  %-24s usable: %s", form, usable);
}

/* A way to watch checkpoints and triggers: usable only if a point on a
 * function executed once counts it (pmu_point__works, as the shim
 * checks). */
static void range__point(struct lister *l, const char *form, enum pmu_point_method m,
			 int err, const char *usable)
{
	char why[200];

	if (err)
		range__line(l, form, err, usable);
	else if (pmu_point__works(m, true, why, sizeof(why)))
		range__line(l, form, 0, usable);
	else
		lister__line(l, "  %-24s not usable: %s", form, why);
}

/* The forms of HPCSHIM_RANGE, HPCSHIM_CHECKPOINT, HPCSHIM_TRIGGER and
 * HPCSHIM_PRIVILEGE, each tried the way the shim uses it. */
static void section__ranges(struct lister *l)
{
	int err = 0, bps = pmu_bp__limit(&err);
	int paranoid = pmu_sys__paranoid();
	char bp[80];

	range__line(l, "ranges, software events",
		    range__sampling(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1),
		    "IP sampling (func:, so:, exe, addr:, kernel, !form)");
	range__line(l, "ranges, hardware events",
		    range__sampling(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				    1000003),
		    "IP sampling of hardware events");
	snprintf(bp, sizeof(bp), "%d execute breakpoints per thread", bps);
	range__point(l, "points: breakpoints", PMU_POINT_BREAKPOINT, bps > 0 ? 0 : err, bp);
	range__point(l, "points: uprobes", PMU_POINT_UPROBE, 0,
		     "no register limit, file-backed code");
	if (paranoid > 1)
		lister__line(l,
			     "  %-24s %s: perf_event_paranoid is %d (user only "
			     "unless the process has CAP_PERFMON)",
			     "privilege kernel", "depends", paranoid);
	else
		range__line(l, "privilege kernel", 0, "perf_event_paranoid allows it");
}

/* One entry per kind of thing a user can ask for. */
static const struct {
	const char *title;
	void (*fn)(struct lister *l);
} sections[] = {
	{ "presets (HPCSHIM_PRESET)", section__presets },
	{ "opcode classes (HPCSHIM_OPCODE)", section__opcodes },
	{ "range forms (HPCSHIM_RANGE, _CHECKPOINT, _TRIGGER, _PRIVILEGE)",
	  section__ranges },
};

void pmu_list__run(const struct pmu_list_env *env, pmu_list_emit emit, void *ctx)
{
	struct lister l = { .env = env, .emit = emit, .ctx = ctx };

	if (env->model[0])
		lister__line(&l, "CPU model (libpfm4): %s", env->model);
	else
		lister__line(&l,
			     "CPU model (libpfm4): none (%s); only '*' "
			     "definitions apply",
			     env->model_note);
	lister__line(&l, "preset search path: %s", env->path);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		lister__line(&l, "%s:", sections[i].title);
		sections[i].fn(&l);
	}
}
