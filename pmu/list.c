/* list.c - the listing of usable presets and opcode classes (list.h).
 *
 * "Usable" is decided the way the shim decides at start: the block chosen
 * for this CPU model, its events encoded and opened once.  Every line says
 * why a set is not usable, so the listing answers "what can I ask for
 * here" without a trial run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/list.h"
#include "pmu/pmu.h"

int pmu_preset__probe(const struct preset *p, char *reason, size_t len)
{
	struct pmu_evlist *el;
	int nok = 0;

	reason[0] = '\0';
	if (p->unavailable[0]) {
		snprintf(reason, len, "%s", p->unavailable);
		return 0;
	}
	el = malloc(sizeof(*el));
	if (!el) {
		snprintf(reason, len, "out of memory");
		return 0;
	}
	pmu_evlist__init(el);
	for (int i = 0; i < p->nevents; i++)
		pmu_evlist__add(el, p->ev[i].spec);
	nok = pmu_evlist__probe(el);
	for (int i = 0; i < el->nevents; i++)
		if (el->ev[i].status != PMU_EV_OK) {
			snprintf(reason, len, "event '%s' dropped: %s",
				 el->ev[i].name, el->ev[i].reason);
			break;
		}
	free(el);
	return nok;
}

struct lister {
	const struct pmu_list_env *env;
	pmu_list_emit emit;
	void *ctx;
	enum preset_kind kind;
};

__attribute__((format(printf, 2, 3)))
static void lister__line(struct lister *l, const char *fmt, ...)
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
	const struct preset *p = preset_table__find(l->env->table, l->kind, name,
						    l->env->model);
	char reason[600], where[300];
	int nok;

	if (!p) {
		lister__line(l, "  %-14s not usable: no definition for CPU model "
			     "'%s'", name, l->env->model[0] ? l->env->model : "(none)");
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
	preset_table__names(l->env->table, kind, list__one, l);
}

static void section__presets(struct lister *l)
{
	section__sets(l, PRESET_NAMED);
}

static void section__opcodes(struct lister *l)
{
	section__sets(l, PRESET_OPCODE);
}

/* One entry per kind of preset.  The range-restriction forms of
 * HPCSHIM_RANGE add theirs here. */
static const struct {
	const char *title;
	void (*fn)(struct lister *l);
} sections[] = {
	{ "presets (HPCSHIM_PRESET)", section__presets },
	{ "opcode classes (HPCSHIM_OPCODE)", section__opcodes },
};

void pmu_list__run(const struct pmu_list_env *env, pmu_list_emit emit, void *ctx)
{
	struct lister l = { .env = env, .emit = emit, .ctx = ctx };

	if (env->model[0])
		lister__line(&l, "CPU model (libpfm4): %s", env->model);
	else
		lister__line(&l, "CPU model (libpfm4): none (%s); only '*' "
			     "definitions apply", env->model_note);
	lister__line(&l, "preset search path: %s", env->path);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		lister__line(&l, "%s:", sections[i].title);
		sections[i].fn(&l);
	}
}
