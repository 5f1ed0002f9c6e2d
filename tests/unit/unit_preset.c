/* unit_preset.c - formulas, preset file parsing, block selection, and the
 * shipped preset files encoded under every supported CPU model.
 *
 * TAP through tests/unit/tap.h; table rows carry their __LINE__.  The encoding
 * part runs one child per model with LIBPFM_FORCE_PMU set before libpfm4
 * is initialised (pmu/pfm.c initialises it once per process, lazily); the
 * child reports one verdict per line through a pipe.  A model whose
 * tables this libpfm4 build lacks (Arm models in an x86 build) is SKIPped
 * with that reason.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/formula.h"
#include "pmu/pmu.h"
#include "presets/preset.h"
#include "tests/unit/tap_model.h"

/* ---- formulas: values ------------------------------------------------- */

#define U NULL /* known input */
#define X "event 'x' dropped: ENOENT"

struct eval_row {
	int line;
	const char *text;
	double a, b, c;          /* values of the names a, b, c */
	const char *wa, *wb, *wc; /* why each is unknown, or NULL */
	bool ok;
	double want;             /* when ok                     */
	const char *reason;      /* when not ok                 */
};

static const struct eval_row eval_rows[] = {
	/* precedence and associativity */
	{ __LINE__, "1 + 2 * 3", 0, 0, 0, U, U, U, true, 7, NULL },
	{ __LINE__, "(1 + 2) * 3", 0, 0, 0, U, U, U, true, 9, NULL },
	{ __LINE__, "10 - 4 - 3", 0, 0, 0, U, U, U, true, 3, NULL },
	{ __LINE__, "24 / 4 / 2", 0, 0, 0, U, U, U, true, 3, NULL },
	{ __LINE__, "2 * 3 + 4 * 5", 0, 0, 0, U, U, U, true, 26, NULL },
	{ __LINE__, "2 * (3 + 4) * 5", 0, 0, 0, U, U, U, true, 70, NULL },
	{ __LINE__, "((((7))))", 0, 0, 0, U, U, U, true, 7, NULL },
	{ __LINE__, "-2 * 3", 0, 0, 0, U, U, U, true, -6, NULL },
	{ __LINE__, "2 * -3", 0, 0, 0, U, U, U, true, -6, NULL },
	{ __LINE__, "- -2", 0, 0, 0, U, U, U, true, 2, NULL },
	{ __LINE__, "1 - -1", 0, 0, 0, U, U, U, true, 2, NULL },
	{ __LINE__, "1e3 + 1.5e-3 + .25 + 2.", 0, 0, 0, U, U, U, true, 1002.2515, NULL },
	/* names */
	{ __LINE__, "a / b", 6, 3, 0, U, U, U, true, 2, NULL },
	{ __LINE__, "a/b", 1, 4, 0, U, U, U, true, 0.25, NULL },
	{ __LINE__, "1000 * a / b", 3, 4, 0, U, U, U, true, 750, NULL },
	{ __LINE__, "(a - c) / b", 10, 4, 2, U, U, U, true, 2, NULL },
	{ __LINE__, "a + a * a", 3, 0, 0, U, U, U, true, 12, NULL },
	{ __LINE__, "a / (b / 1e6)", 50, 2e6, 0, U, U, U, true, 25, NULL },
	/* functions */
	{ __LINE__, "min(a, b)", 5, 3, 0, U, U, U, true, 3, NULL },
	{ __LINE__, "max(a, b)", 5, 3, 0, U, U, U, true, 5, NULL },
	{ __LINE__, "max(a - b, 0)", 2, 3, 0, U, U, U, true, 0, NULL },
	{ __LINE__, "ratio(a, b)", 3, 6, 0, U, U, U, true, 0.5, NULL },
	{ __LINE__, "min(a, max(b, c)) * 2", 9, 1, 4, U, U, U, true, 8, NULL },
	{ __LINE__, "ratio ( a , b + c )", 8, 1, 3, U, U, U, true, 2, NULL },
	/* division by zero: null, never inf or nan */
	{ __LINE__, "a / b", 6, 0, 0, U, U, U, false, 0, "division by zero" },
	{ __LINE__, "0 / b", 0, 0, 0, U, U, U, false, 0, "division by zero" },
	{ __LINE__, "ratio(a, b)", 1, 0, 0, U, U, U, false, 0, "division by zero" },
	{ __LINE__, "a / (b - c)", 1, 5, 5, U, U, U, false, 0, "division by zero" },
	{ __LINE__, "min(a / b, 1)", 1, 0, 0, U, U, U, false, 0, "division by zero" },
	{ __LINE__, "1 + a / b * 0", 1, 0, 0, U, U, U, false, 0, "division by zero" },
	/* unknown inputs: null with the input's reason, even where the
	 * arithmetic would not need it (0 * unknown is not 0) */
	{ __LINE__, "a + b", 1, 2, 0, U, X, U, false, 0, X },
	{ __LINE__, "0 * b", 1, 2, 0, U, X, U, false, 0, X },
	{ __LINE__, "a / b", 1, 0, 0, X, U, U, false, 0, X },
	{ __LINE__, "min(a, b)", 1, 2, 0, U, X, U, false, 0, X },
	{ __LINE__, "-b", 1, 2, 0, U, X, U, false, 0, X },
	{ __LINE__, "a / b + c", 1, 0, 1, U, U, "never ran", false, 0, "division by zero" },
	{ __LINE__, "c + a / b", 1, 0, 1, U, U, "never ran", false, 0, "never ran" },
	/* overflow */
	{ __LINE__, "a * a", 1e300, 0, 0, U, U, U, false, 0, "not a finite number" },
};

static void test_eval(void)
{
	for (size_t i = 0; i < sizeof(eval_rows) / sizeof(eval_rows[0]); i++) {
		const struct eval_row *r = &eval_rows[i];
		struct formula f;
		double vals[FORMULA_MAX_VARS] = { 0 }, out = -12345;
		const char *why[FORMULA_MAX_VARS] = { 0 }, *reason = NULL;
		char err[200];
		bool ok;

		if (hs_formula__parse(&f, r->text, err, sizeof(err)) < 0) {
			TAP_OK(0, "row %d: '%s' parses (%s)", r->line, r->text, err);
			continue;
		}
		for (int v = 0; v < f.nvars; v++) {
			const char *n = f.var[v];

			vals[v] = !strcmp(n, "a") ? r->a : !strcmp(n, "b") ? r->b : r->c;
			why[v] = !strcmp(n, "a") ? r->wa : !strcmp(n, "b") ? r->wb : r->wc;
		}
		ok = hs_formula__eval(&f, vals, why, &out, &reason);
		if (r->ok)
			TAP_OK(ok && fabs(out - r->want) <= 1e-12 * fmax(1, fabs(r->want)),
			       "row %d: %s = %g (got %s %g)", r->line, r->text, r->want,
			       ok ? "value" : reason, out);
		else
			TAP_OK(!ok && reason && strcmp(reason, r->reason) == 0,
			       "row %d: %s is null: %s (got %s %s)", r->line, r->text,
			       r->reason, ok ? "value" : "null",
			       ok ? "" : reason);
	}
}

/* ---- formulas: the name table ----------------------------------------- */

static void test_vars(void)
{
	struct formula f;
	char err[200];

	hs_formula__parse(&f, "cycles / inst + cycles * x.y_z", err, sizeof(err));
	TAP_OK(f.nvars == 3 && !strcmp(f.var[0], "cycles") && !strcmp(f.var[1], "inst") &&
	       !strcmp(f.var[2], "x.y_z"),
	       "names are distinct, in first-seen order (%d: %s %s %s)", f.nvars,
	       f.var[0], f.var[1], f.var[2]);
	TAP_OK(hs_formula__var(&f, "inst") == 1 && hs_formula__var(&f, "nope") == -1,
	       "hs_formula__var finds names and only those");
	TAP_OK(hs_formula__parse(&f, "min + 1", err, sizeof(err)) == 0 && f.nvars == 1,
	       "a function name not followed by '(' is a plain name (%s)", err);
}

/* ---- formulas: malformed ---------------------------------------------- */

struct bad_row {
	int line;
	const char *text;
	const char *err; /* substring of the message */
};

static const struct bad_row bad_rows[] = {
	{ __LINE__, "", "empty formula" },
	{ __LINE__, "   ", "empty formula" },
	{ __LINE__, "1 +", "column 4: expected an operand at the end" },
	{ __LINE__, "(1 + 2", "column 7: expected ')'" },
	{ __LINE__, "1 + 2)", "column 6: unexpected ')'" },
	{ __LINE__, "1 2", "column 3: unexpected '2'" },
	{ __LINE__, "a b", "column 3: unexpected 'b'" },
	{ __LINE__, "a + * b", "column 5: expected an operand, found '*'" },
	{ __LINE__, "+a", "column 1: expected an operand, found '+'" },
	{ __LINE__, "2 ^ 3", "column 3: unexpected '^'" },
	{ __LINE__, "a $ b", "column 3: unexpected '$'" },
	{ __LINE__, "()", "column 2: expected an operand, found ')'" },
	{ __LINE__, ".", "column 1: malformed number" },
	{ __LINE__, "1..2", "column 3: unexpected '.'" },
	{ __LINE__, "0x10", "column 2: unexpected 'x'" },
	{ __LINE__, "avg(a, b)", "column 1: unknown function 'avg'" },
	{ __LINE__, "min(a)", "takes 2 arguments: expected ','" },
	{ __LINE__, "max(a, b, c)", "takes 2 arguments: expected ')'" },
	{ __LINE__, "ratio(a, )", "expected an operand, found ')'" },
	{ __LINE__, "a / (b", "column 7: expected ')'" },
	{ __LINE__, "a0+a1+a2+a3+a4+a5+a6+a7+a8+a9+b0+b1+b2+b3+b4+b5+b6",
	  "more than 16 distinct names" },
};

static void test_bad(void)
{
	char big[1000], deep[400];
	struct formula f;
	char err[200];

	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		const struct bad_row *r = &bad_rows[i];
		int rc = hs_formula__parse(&f, r->text, err, sizeof(err));

		TAP_OK(rc == -1 && strstr(err, r->err),
		       "row %d: '%s' is refused with '%s' (got %d '%s')", r->line,
		       r->text, r->err, rc, err);
	}
	/* 33 terms and 32 operators: 65 > FORMULA_MAX_OPS */
	big[0] = '\0';
	for (int i = 0; i < 33; i++)
		strcat(big, i ? "+1" : "1");
	TAP_OK(hs_formula__parse(&f, big, err, sizeof(err)) == -1 &&
	       strstr(err, "formula too long"), "65 RPN entries refused: %s", err);
	/* deep nesting is bounded, not a stack overflow */
	memset(deep, '(', 300);
	deep[300] = '1';
	deep[301] = '\0';
	TAP_OK(hs_formula__parse(&f, deep, err, sizeof(err)) == -1 &&
	       strstr(err, "nested too deeply"), "300 nested parentheses refused: %s", err);
	memset(deep, '-', 300);
	TAP_OK(hs_formula__parse(&f, deep, err, sizeof(err)) == -1 &&
	       strstr(err, "nested too deeply"), "300 unary minus refused: %s", err);
}

/* ---- preset files: errors with line numbers ----------------------------- */

struct errs {
	char msg[8][600];
	int n;
};

static void collect(void *ctx, const char *msg)
{
	struct errs *e = ctx;

	if (e->n < 8)
		snprintf(e->msg[e->n], sizeof(e->msg[0]), "%s", msg);
	e->n++;
}

static int load_text(struct preset_table *t, const char *text, int dir,
		     struct errs *e)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int n;

	if (!in)
		return -1;
	n = pmu_preset_table__load_stream(t, in, "t.preset", dir, collect, e);
	fclose(in);
	return n;
}

struct file_row {
	int line;
	const char *text;
	int valid;        /* valid blocks */
	const char *err;  /* exact first diagnostic, or NULL for none */
};

#define GOOD "preset ok *\n  event a = task-clock\nend\n"

static const struct file_row file_rows[] = {
	{ __LINE__, GOOD, 1, NULL },
	{ __LINE__, "# comment only\n\n   \t\n", 0, NULL },
	{ __LINE__, "preset x *\n  event a = task-clock # trailing comment\n"
	  "  metric m = a / 2\n  description d\nend\r\n", 1, NULL },
	{ __LINE__, "event a = task-clock\n" GOOD, 1,
	  "t.preset:1: 'event' outside a preset or opcode block" },
	{ __LINE__, "preset x *\n  evnt a = task-clock\nend\n" GOOD, 1,
	  "t.preset:2: preset 'x': unknown keyword 'evnt' (expected event, metric, "
	  "description, unavailable or end) (preset skipped)" },
	{ __LINE__, "preset x *\n  event a task-clock\nend\n", 0,
	  "t.preset:2: preset 'x': expected 'event NAME = ...' (preset skipped)" },
	{ __LINE__, "preset x *\n  event 1a = task-clock\nend\n", 0,
	  "t.preset:2: preset 'x': event alias '1a' is not a name usable in formulas "
	  "([A-Za-z_][A-Za-z0-9_.]*, at most 47 characters, not min/max/ratio) (preset skipped)" },
	{ __LINE__, "preset x *\n  event min = task-clock\nend\n", 0,
	  "t.preset:2: preset 'x': event alias 'min' is not a name usable in formulas "
	  "([A-Za-z_][A-Za-z0-9_.]*, at most 47 characters, not min/max/ratio) (preset skipped)" },
	{ __LINE__, "preset x *\n  event a = task-clock,cycles\nend\n", 0,
	  "t.preset:2: preset 'x': event 'a': the spec must be one event name "
	  "without blanks or commas (preset skipped)" },
	{ __LINE__, "preset x *\n  event a = task-clock\n  event a = cycles\nend\n", 0,
	  "t.preset:3: preset 'x': event alias 'a' declared twice (preset skipped)" },
	{ __LINE__, "preset x *\n  event a = task-clock\n  event b = task-clock\nend\n", 0,
	  "t.preset:3: preset 'x': event 'task-clock' already declared as 'a' (preset skipped)" },
	{ __LINE__, "preset x *\n  event a = task-clock\n  metric m = a / b\nend\n", 0,
	  "t.preset:3: preset 'x': metric 'm': 'b' is not an event alias declared "
	  "above (preset skipped)" },
	{ __LINE__, "preset x *\n  event a = task-clock\n\n  metric m = a / (a\nend\n", 0,
	  "t.preset:4: preset 'x': metric 'm': column 7: expected ')' (preset skipped)" },
	{ __LINE__, "preset x *\n  event a = task-clock\n  metric m = a\n  metric m = a\nend\n", 0,
	  "t.preset:4: preset 'x': metric 'm' defined twice (preset skipped)" },
	{ __LINE__, "preset x *\n  event a = task-clock\n  metric m a\nend\n", 0,
	  "t.preset:3: preset 'x': expected 'metric NAME = ...' (preset skipped)" },
	{ __LINE__, "preset x\n  event a = task-clock\nend\n", 0,
	  "t.preset:1: preset 'x': no model after the name (a libpfm4 PMU name such "
	  "as skl, or '*' for any) (preset skipped)" },
	{ __LINE__, "preset\nend\n" GOOD, 1,
	  "t.preset:1: 'preset' needs a name of letters, digits, '_', '-', '.' (at "
	  "most 47 characters), then models" },
	{ __LINE__, "preset x *\nend\n", 0,
	  "t.preset:2: preset 'x': no event (give events, or 'unavailable REASON') "
	  "(preset skipped)" },
	{ __LINE__, "preset x *\n  unavailable no such thing\n  event a = cycles\nend\n", 0,
	  "t.preset:4: preset 'x': 'unavailable' block with events or metrics (preset skipped)" },
	{ __LINE__, "preset x *\n  description a\n  description b\n  event a = cycles\nend\n", 0,
	  "t.preset:3: preset 'x': 'description' given twice (preset skipped)" },
	{ __LINE__, "preset x *\n  event a = task-clock\nend junk\n", 0,
	  "t.preset:3: preset 'x': text after 'end' (preset skipped)" },
	{ __LINE__, "end\n" GOOD, 1, "t.preset:1: 'end' outside a preset or opcode block" },
	/* a missing 'end': the next header starts a new block */
	{ __LINE__, "preset x *\n  event a = task-clock\n" GOOD, 1,
	  "t.preset:3: preset 'x': not closed by 'end' before this 'preset' (preset skipped)" },
	{ __LINE__, GOOD "opcode y *\n  event a = task-clock\n", 1,
	  "t.preset:5: opcode 'y': not closed by 'end' at the end of the file (opcode skipped)" },
	/* an error skips to the block's end; the next block is read */
	{ __LINE__, "preset x *\n  bogus\n  event a = cycles\nend\n" GOOD, 1,
	  "t.preset:2: preset 'x': unknown keyword 'bogus' (expected event, metric, "
	  "description, unavailable or end) (preset skipped)" },
	{ __LINE__, "opcode loads skl\n  unavailable not here\nend\n", 1, NULL },
};

static void test_files(void)
{
	for (size_t i = 0; i < sizeof(file_rows) / sizeof(file_rows[0]); i++) {
		const struct file_row *r = &file_rows[i];
		struct preset_table t;
		struct errs e = { .n = 0 };
		int n;

		pmu_preset_table__init(&t);
		n = load_text(&t, r->text, 0, &e);
		if (r->err)
			TAP_OK(n == r->valid && e.n == 1 && strcmp(e.msg[0], r->err) == 0,
			       "row %d: %d valid, one diagnostic '%s' (got %d valid, "
			       "%d: '%s')", r->line, r->valid, r->err, n, e.n,
			       e.n ? e.msg[0] : "");
		else
			TAP_OK(n == r->valid && e.n == 0,
			       "row %d: %d valid, no diagnostic (got %d, %d: '%s')",
			       r->line, r->valid, n, e.n, e.n ? e.msg[0] : "");
		pmu_preset_table__free(&t);
	}
}

/* The content of a good block survives the parse. */
static void test_block_content(void)
{
	struct preset_table t;
	struct errs e = { .n = 0 };
	const struct preset *p;

	pmu_preset_table__init(&t);
	load_text(&t, "opcode loads skl clx\n  description retired loads\n"
		  "  event loads = MEM_INST_RETIRED:ALL_LOADS\n"
		  "  event l1_miss = MEM_LOAD_RETIRED:L1_MISS\n"
		  "  metric l1_miss_per_load = l1_miss / loads\nend\n", 0, &e);
	p = pmu_preset_table__find(&t, PRESET_OPCODE, "loads", "clx");
	TAP_OK(p && p->nevents == 2 && !strcmp(p->ev[1].alias, "l1_miss") &&
	       !strcmp(p->ev[1].spec, "MEM_LOAD_RETIRED:L1_MISS") && p->nmetrics == 1 &&
	       !strcmp(p->m[0].text, "l1_miss / loads") &&
	       !strcmp(p->description, "retired loads") && p->line == 1 &&
	       !strcmp(p->file, "t.preset"),
	       "block content: events, metric text, description, file and line");
	TAP_OK(!pmu_preset_table__find(&t, PRESET_NAMED, "loads", "clx"),
	       "preset and opcode names are separate name spaces");
	pmu_preset_table__free(&t);
}

/* ---- selection: model match, '*' fallback, search-path order ----------- */

struct sel_row {
	int line;
	const char *model;
	const char *name;
	const char *want; /* description of the block chosen, or NULL */
};

static const struct sel_row sel_rows[] = {
	{ __LINE__, "skl", "cpi", "dir1 skl" },        /* first dir with the name wins */
	{ __LINE__, "SKL", "cpi", "dir1 skl" },        /* case-insensitive model      */
	{ __LINE__, "icl", "cpi", "dir1 star" },       /* dir1's '*' beats dir2's icl */
	{ __LINE__, "zen", "cpi", "dir1 star" },
	{ __LINE__, "icl", "tlb", "dir2 icl" },        /* exact beats '*' in one dir  */
	{ __LINE__, "skl", "tlb", "dir2 star" },
	{ __LINE__, "", "tlb", "dir2 star" },          /* no model: only '*'          */
	{ __LINE__, "icl", "branch", "dir2 icl first" }, /* first block in a dir     */
	{ __LINE__, "skl", "branch", NULL },           /* no block for skl, no '*'    */
	{ __LINE__, "skl", "nope", NULL },
};

static void test_select(void)
{
	static const char dir1[] =
		"preset cpi *\n description dir1 star\n event a = cycles\nend\n"
		"preset cpi skl\n description dir1 skl\n event a = cycles\nend\n";
	static const char dir2[] =
		"preset cpi icl\n description dir2 icl\n event a = cycles\nend\n"
		"preset tlb *\n description dir2 star\n event a = cycles\nend\n"
		"preset tlb icl skx\n description dir2 icl\n event a = cycles\nend\n"
		"preset branch icl\n description dir2 icl first\n event a = cycles\nend\n"
		"preset branch icl\n description dir2 icl second\n event a = cycles\nend\n";
	struct preset_table t;
	struct errs e = { .n = 0 };

	pmu_preset_table__init(&t);
	load_text(&t, dir1, 0, &e);
	load_text(&t, dir2, 1, &e);
	TAP_OK(e.n == 0 && t.n == 7, "selection fixture loads (%d blocks, %d errors)",
	       t.n, e.n);
	for (size_t i = 0; i < sizeof(sel_rows) / sizeof(sel_rows[0]); i++) {
		const struct sel_row *r = &sel_rows[i];
		const struct preset *p = pmu_preset_table__find(&t, PRESET_NAMED, r->name,
								r->model);

		TAP_OK(r->want ? p && !strcmp(p->description, r->want) : !p,
		       "row %d: %s on '%s' -> %s (got %s)", r->line, r->name, r->model,
		       r->want ? r->want : "none", p ? p->description : "none");
	}
	pmu_preset_table__free(&t);
}

/* ---- the shipped files under every supported model ------------------------ */

static const char *const models[] = {
	"skl", "skx", "clx", "icl", "icx", "spr",
	"amd64_fam17h_zen2", "amd64_fam19h_zen3", "amd64_fam19h_zen4",
	"arm_n1", "arm_v1", "arm_n2", "arm_v2",
};

/* Every model must define (events or 'unavailable') these; the presets may
 * come from a '*' fallback, the opcode classes must be the model's own. */
static const char *const preset_names[] = {
	"generic", "software", "cpi", "branch", "cache", "tlb", "flops",
};
static const char *const opcode_names[] = {
	"loads", "stores", "branches", "flops", "fp-single", "fp-double", "simd",
	"sw-prefetch", "atomics", "split", "divides",
};

/* Expected encodings from the vendors' manuals (Intel SDM vol. 3B / perfmon
 * tables, AMD PPRs, Arm architecture common events): event | umask << 8 |
 * cmask << 24 for x86, the event number for Arm; all PERF_TYPE_RAW. */
struct code_row {
	int line;
	const char *model, *kind, *set, *alias;
	uint64_t config;
};

static const struct code_row code_rows[] = {
	{ __LINE__, "skl", "opcode", "loads", "loads", 0x81d0 },          /* MEM_INST_RETIRED.ALL_LOADS */
	{ __LINE__, "skl", "opcode", "loads", "l1_miss", 0x08d1 },        /* MEM_LOAD_RETIRED.L1_MISS */
	{ __LINE__, "skl", "opcode", "atomics", "locked", 0x21d0 },       /* MEM_INST_RETIRED.LOCK_LOADS */
	{ __LINE__, "skl", "opcode", "split", "split_loads", 0x41d0 },    /* MEM_INST_RETIRED.SPLIT_LOADS */
	{ __LINE__, "skl", "opcode", "split", "split_stores", 0x42d0 },
	{ __LINE__, "skl", "opcode", "flops", "sd", 0x01c7 },             /* FP_ARITH_INST_RETIRED.SCALAR_DOUBLE */
	{ __LINE__, "skl", "opcode", "flops", "ps512", 0x80c7 },
	{ __LINE__, "skl", "opcode", "sw-prefetch", "nta", 0x0132 },      /* SW_PREFETCH_ACCESS.NTA */
	{ __LINE__, "skl", "opcode", "divides", "div_active", 0x1000114 },/* ARITH.DIVIDER_ACTIVE, cmask 1 */
	{ __LINE__, "skl", "preset", "flops", "f4", 0x18c7 },             /* 128B_PACKED_SINGLE|256B_PACKED_DOUBLE */
	{ __LINE__, "skl", "preset", "cpi", "inst", 0xc0 },
	{ __LINE__, "skl", "preset", "cpi", "stalls", 0x40004a3 },        /* CYCLE_ACTIVITY.STALLS_TOTAL */
	{ __LINE__, "clx", "opcode", "loads", "loads", 0x81d0 },
	{ __LINE__, "clx", "preset", "branch", "misp", 0xc5 },
	{ __LINE__, "icl", "opcode", "divides", "div_active", 0x1000914 },/* ARITH.DIVIDER_ACTIVE on ICL */
	{ __LINE__, "icl", "opcode", "sw-prefetch", "l2_miss", 0x2824 },  /* L2_RQSTS.SWPF_MISS */
	{ __LINE__, "icl", "preset", "flops", "f4", 0x18c7 },             /* FP_ARITH_INST_RETIRED.4_FLOPS */
	{ __LINE__, "icl", "preset", "cache", "llc_ref", 0x4f2e },
	{ __LINE__, "spr", "opcode", "sw-prefetch", "nta", 0x0140 },      /* SW_PREFETCH_ACCESS moved to 0x40 */
	{ __LINE__, "spr", "opcode", "divides", "div_active", 0x10009b0 },/* ARITH.DIV_ACTIVE 0xb0 */
	{ __LINE__, "spr", "preset", "flops", "h1", 0x03cf },             /* FP_ARITH_INST_RETIRED2.SCALAR */
	{ __LINE__, "amd64_fam17h_zen2", "preset", "cpi", "inst", 0xc0 },
	{ __LINE__, "amd64_fam17h_zen2", "opcode", "loads", "loads", 0x129 },     /* LS_DISPATCH.LD_DISPATCH */
	{ __LINE__, "amd64_fam17h_zen2", "opcode", "atomics", "cacheable", 0xe25 },
	{ __LINE__, "amd64_fam17h_zen2", "opcode", "sw-prefetch", "pf", 0x74b },
	{ __LINE__, "amd64_fam17h_zen2", "opcode", "split", "misaligned", 0x47 },
	{ __LINE__, "amd64_fam17h_zen2", "opcode", "divides", "div_ops", 0xd4 },
	{ __LINE__, "amd64_fam19h_zen3", "preset", "flops", "flops", 0xf03 },    /* RETIRED_SSE_AVX_FLOPS.ANY */
	{ __LINE__, "amd64_fam19h_zen3", "opcode", "split", "ma64", 0x147 },
	{ __LINE__, "amd64_fam19h_zen4", "opcode", "simd", "fp256", 0x1008 },
	{ __LINE__, "amd64_fam19h_zen4", "opcode", "simd", "int256", 0xf00d },
	{ __LINE__, "amd64_fam19h_zen4", "opcode", "divides", "sdiv", 0x50a },
	{ __LINE__, "arm_n1", "preset", "cpi", "inst", 0x08 },
	{ __LINE__, "arm_n1", "preset", "cpi", "cycles", 0x11 },
	{ __LINE__, "arm_n1", "opcode", "loads", "loads", 0x70 },       /* LD_SPEC */
	{ __LINE__, "arm_n1", "opcode", "loads", "l1d_refill_rd", 0x42 },
	{ __LINE__, "arm_n1", "opcode", "split", "unaligned_ld", 0x68 },
	{ __LINE__, "arm_n1", "opcode", "atomics", "ldrex", 0x6c },
	{ __LINE__, "arm_v1", "opcode", "simd", "sve_inst", 0x8006 },
	{ __LINE__, "arm_v1", "preset", "flops", "scale", 0x80c0 },
	{ __LINE__, "arm_n2", "opcode", "flops", "dp", 0x801c },
	{ __LINE__, "arm_v2", "preset", "cache", "l2d", 0x16 },
};

static const char *data_dir(char *buf, size_t len)
{
	const char *src = getenv("HPCSHIM_SRCDIR");

	snprintf(buf, len, "%s/data/presets", src && *src ? src : ".");
	return buf;
}

static void child_names(FILE *out, const struct preset_table *t, const char *model,
			enum preset_kind kind, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct preset *p = pmu_preset_table__find(t, kind, names[i], model);
		bool exact;
		int bad = 0;

		if (!p) {
			verdict(out, false, "%s: %s '%s' has a definition",
				model, pmu_preset_kind__name(kind), names[i]);
			continue;
		}
		pmu_preset__matches(p, model, &exact);
		if (kind == PRESET_OPCODE && !exact) {
			verdict(out, false, "%s: opcode class '%s' is the model's own "
				"(got a '*' block)", model, names[i]);
			continue;
		}
		if (p->unavailable[0]) {
			verdict(out, true, "%s: %s '%s' is unavailable with a reason: %s",
				model, pmu_preset_kind__name(kind), names[i], p->unavailable);
			continue;
		}
		for (int e = 0; e < p->nevents; e++) {
			struct pmu_event ev;
			size_t ml = strlen(model);

			pmu_event__parse(&ev, p->ev[e].spec);
			if (ev.status != PMU_EV_OK) {
				verdict(out, false, "%s: %s '%s' event %s encodes: %s",
					model, pmu_preset_kind__name(kind), names[i],
					p->ev[e].spec, ev.reason);
				bad++;
			} else if (ev.source == PMU_SRC_PFM &&
				   (strncmp(ev.encoding, model, ml) ||
				    strncmp(ev.encoding + ml, "::", 2))) {
				verdict(out, false, "%s: %s '%s' event %s is the model's "
					"own (encoding %s)", model, pmu_preset_kind__name(kind),
					names[i], p->ev[e].spec, ev.encoding);
				bad++;
			}
		}
		if (!bad)
			verdict(out, true, "%s: %s '%s': all %d events encode for this "
				"model (%s:%d)", model, pmu_preset_kind__name(kind), names[i],
				p->nevents, p->file, p->line);
	}
}

static void child_codes(FILE *out, const struct preset_table *t, const char *model)
{
	for (size_t i = 0; i < sizeof(code_rows) / sizeof(code_rows[0]); i++) {
		const struct code_row *r = &code_rows[i];
		enum preset_kind k = strcmp(r->kind, "opcode") ? PRESET_NAMED : PRESET_OPCODE;
		const struct preset *p;
		struct pmu_event ev;
		int e;

		if (strcmp(r->model, model))
			continue;
		p = pmu_preset_table__find(t, k, r->set, model);
		e = p ? pmu_preset__event(p, r->alias) : -1;
		if (e < 0) {
			verdict(out, false, "row %d: %s %s '%s' has event %s", r->line,
				model, r->kind, r->set, r->alias);
			continue;
		}
		pmu_event__parse(&ev, p->ev[e].spec);
		verdict(out, ev.status == PMU_EV_OK && ev.attr.type == PERF_TYPE_RAW &&
			ev.attr.config == r->config,
			"row %d: %s %s '%s' %s = %s -> raw %#llx (got type %u config %#llx)",
			r->line, model, r->kind, r->set, r->alias, p->ev[e].spec,
			(unsigned long long)r->config, ev.attr.type,
			(unsigned long long)ev.attr.config);
	}
}

/* The checks of one model; libpfm4 must not be initialised yet. */
static void check_model(const char *model, FILE *out)
{
	struct preset_table t;
	struct errs e = { .n = 0 };
	char dir[4096];

	setenv("LIBPFM_FORCE_PMU", model, 1);
	if (!pmu_pfm__knows_model(model)) {
		if (out)
			fprintf(out, "S libpfm4 on this host has no tables for %s\n", model);
		else
			SKIP("libpfm4 on this host has no tables for %s", model);
		return;
	}
	pmu_preset_table__init(&t);
	pmu_preset_table__load_path(&t, data_dir(dir, sizeof(dir)), collect, &e);
	verdict(out, e.n == 0 && t.n > 0, "%s: shipped preset files parse without "
		"diagnostics (%d blocks; first: %s)", model, t.n, e.n ? e.msg[0] : "none");
	child_names(out, &t, model, PRESET_NAMED, preset_names,
		    sizeof(preset_names) / sizeof(preset_names[0]));
	child_names(out, &t, model, PRESET_OPCODE, opcode_names,
		    sizeof(opcode_names) / sizeof(opcode_names[0]));
	child_codes(out, &t, model);
	pmu_preset_table__free(&t);
}

/* "unit_preset MODEL" checks one model's encodings in this process, no
 * fork: for emulators whose fork does not work (qemu-user) and for a
 * guest with another libpfm4 build (Arm tables on aarch64). */
int main(int argc, char **argv)
{
	unsetenv("LIBPFM_FORCE_PMU");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2) {
		check_model(argv[1], NULL);
		return tap_done();
	}
	test_eval();
	test_vars();
	test_bad();
	test_files();
	test_block_content();
	test_select();
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		tap_model__forked(models[i], check_model);
	return tap_done();
}
