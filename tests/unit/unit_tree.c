/* unit_tree.c - every event of every shipped stall tree (data/presets/
 * *.tree) encodes under the model the tree is for, with libpfm4 forced to
 * that model (LIBPFM_FORCE_PMU), the way unit_preset checks the presets:
 * one verdict per event (it resolves, as the model's own event), and the
 * encodings the vendors document for a few of them (code_rows).
 *
 * One child per model: libpfm4 reads LIBPFM_FORCE_PMU once, when it is
 * initialised.  A model whose tables this libpfm4 build lacks (the Arm
 * models in an x86 build) is SKIPped with that reason; "unit_tree MODEL"
 * checks one model in this process (no fork: qemu-user, for the Arm
 * tables of an aarch64 libpfm4, tools/check-presets-arm.sh).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu/pfm.h"
#include "pmu/pmu.h"
#include "presets/tree_file.h"
#include "tests/unit/tap_model.h"

static const char *const models[] = {
	"skx", "clx", "icx", "spr", "amd64_fam19h_zen4", "arm_v1", "arm_n1",
};

/* Encodings from the vendors: Arm's common architectural and
 * microarchitectural event numbers (Arm ARM D17.x, the same codes as Linux
 * perf's pmu-events/arch/arm64/common-and-microarch.json), the number
 * itself as PERF_TYPE_RAW config; Intel's PERF_METRICS events (fixed
 * counter 3 and the metric pseudo-events, tools/perf/Documentation/
 * topdown.txt). */
struct code_row {
	int line;
	const char *model, *alias;
	uint64_t config;
};

static const struct code_row code_rows[] = {
	{ __LINE__, "arm_v1", "cycles", 0x11 },  /* CPU_CYCLES */
	{ __LINE__, "arm_v1", "inst", 0x08 },    /* INST_RETIRED */
	{ __LINE__, "arm_v1", "br_mis", 0x10 },  /* BR_MIS_PRED */
	{ __LINE__, "arm_v1", "st_fe", 0x23 },   /* STALL_FRONTEND */
	{ __LINE__, "arm_v1", "st_be", 0x24 },   /* STALL_BACKEND */
	{ __LINE__, "arm_v1", "op_ret", 0x3a },  /* OP_RETIRED */
	{ __LINE__, "arm_v1", "op_spec", 0x3b }, /* OP_SPEC */
	{ __LINE__, "arm_v1", "ss_be", 0x3d },   /* STALL_SLOT_BACKEND */
	{ __LINE__, "arm_v1", "ss_fe", 0x3e },   /* STALL_SLOT_FRONTEND */
	{ __LINE__, "arm_v1", "ss", 0x3f },      /* STALL_SLOT */
	{ __LINE__, "arm_n1", "cycles", 0x11 },
	{ __LINE__, "arm_n1", "inst", 0x08 },
	{ __LINE__, "arm_n1", "st_fe", 0x23 },
	{ __LINE__, "arm_n1", "st_be", 0x24 },
	{ __LINE__, "icx", "m_ret", 0x8000 },    /* topdown-retiring */
	{ __LINE__, "icx", "m_be", 0x8300 },     /* topdown-be-bound */
	{ __LINE__, "spr", "m_heavy", 0x8400 },  /* topdown-heavy-ops */
	{ __LINE__, "spr", "m_mem", 0x8700 },    /* topdown-mem-bound */
};

static void collect(void *ctx, const char *msg)
{
	(*(int *)ctx)++;
	fprintf(stderr, "%s\n", msg);
}

static int tree_event(const struct tree *t, const char *alias)
{
	for (int e = 0; e < t->nevents; e++)
		if (!strcmp(t->ev[e].alias, alias))
			return e;
	return -1;
}

static void check_events(FILE *out, const struct tree *t, const char *model)
{
	size_t ml = strlen(model);

	for (int e = 0; e < t->nevents; e++) {
		struct pmu_event ev;

		pmu_event__parse(&ev, t->ev[e].spec);
		if (ev.status != PMU_EV_OK)
			verdict(out, false, "%s: tree event %s = %s encodes: %s", model,
				t->ev[e].alias, t->ev[e].spec, ev.reason);
		else if (ev.source == PMU_SRC_PFM &&
			 (strncmp(ev.encoding, model, ml) ||
			  strncmp(ev.encoding + ml, "::", 2)))
			verdict(out, false, "%s: tree event %s = %s is the model's "
				"own (encoding %s)", model, t->ev[e].alias,
				t->ev[e].spec, ev.encoding);
		else
			verdict(out, true, "%s: tree event %s = %s encodes (%s, type %u "
				"config %#llx)", model, t->ev[e].alias, t->ev[e].spec,
				ev.source == PMU_SRC_PFM ? ev.encoding : "raw",
				ev.attr.type, (unsigned long long)ev.attr.config);
	}
}

static void check_codes(FILE *out, const struct tree *t, const char *model)
{
	for (size_t i = 0; i < sizeof(code_rows) / sizeof(code_rows[0]); i++) {
		const struct code_row *r = &code_rows[i];
		struct pmu_event ev;
		int e;

		if (strcmp(r->model, model))
			continue;
		e = tree_event(t, r->alias);
		if (e < 0) {
			verdict(out, false, "row %d: %s tree has event %s", r->line,
				model, r->alias);
			continue;
		}
		pmu_event__parse(&ev, t->ev[e].spec);
		verdict(out, ev.status == PMU_EV_OK && ev.attr.type == PERF_TYPE_RAW &&
			ev.attr.config == r->config,
			"row %d: %s tree %s = %s -> raw %#llx (got type %u config %#llx)",
			r->line, model, r->alias, t->ev[e].spec,
			(unsigned long long)r->config, ev.attr.type,
			(unsigned long long)ev.attr.config);
	}
}

/* The checks of one model; libpfm4 must not be initialised yet. */
static void check_model(const char *model, FILE *out)
{
	const struct tree *t;
	struct tree_table tt;
	char dir[4096];
	const char *src = getenv("HPCSHIM_SRCDIR");
	int errs = 0;

	setenv("LIBPFM_FORCE_PMU", model, 1);
	if (!pmu_pfm__knows_model(model)) {
		if (out)
			fprintf(out, "S libpfm4 on this host has no tables for %s\n", model);
		else
			SKIP("libpfm4 on this host has no tables for %s", model);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/data/presets", src && *src ? src : ".");
	pmu_tree_table__init(&tt);
	pmu_tree_table__load_path(&tt, dir, collect, &errs);
	t = pmu_tree_table__find(&tt, "topdown", model);
	verdict(out, t && !errs, "%s: a topdown tree (%s, %d events), tree files "
		"without diagnostics (%d)", model, t ? t->file : "none",
		t ? t->nevents : 0, errs);
	if (t) {
		check_events(out, t, model);
		check_codes(out, t, model);
	}
	pmu_tree_table__free(&tt);
}

int main(int argc, char **argv)
{
	unsetenv("LIBPFM_FORCE_PMU");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2) {
		check_model(argv[1], NULL);
		return tap_done();
	}
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		tap_model__forked(models[i], check_model);
	return tap_done();
}
