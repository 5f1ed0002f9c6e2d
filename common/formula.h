/* formula.h - derived-metric formulas: parse once, evaluate many times.
 *
 * A plain data type like count.h: no perf_event_open knowledge, so
 * aggregate/ may evaluate what pmu/preset.c parsed.  Grammar (docs/presets.md):
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | NAME | FUNC '(' expr ',' expr ')' | '(' expr ')'
 *   FUNC    := min | max | ratio
 *
 * NAME is an event alias ([A-Za-z_][A-Za-z0-9_.]*).  A formula is stored in
 * reverse Polish notation over a table of its distinct names.  Evaluation
 * runs over doubles; an unknown input or a division by zero makes the result
 * unknown (null) with a reason, never a number.
 */
#ifndef HPCSHIM_COMMON_FORMULA_H
#define HPCSHIM_COMMON_FORMULA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FORMULA_MAX_OPS 64  /* RPN length (operands + operators)        */
#define FORMULA_MAX_VARS 16 /* distinct names in one formula             */
#define FORMULA_NAME_MAX 48 /* a name's length + 1                       */

enum formula_op {
	FORMULA_NUM,
	FORMULA_VAR,
	FORMULA_NEG,
	FORMULA_ADD,
	FORMULA_SUB,
	FORMULA_MUL,
	FORMULA_DIV,
	FORMULA_MIN,
	FORMULA_MAX,
	FORMULA_RATIO,
};

struct formula_op_rec {
	uint8_t op;  /* enum formula_op                    */
	uint8_t var; /* FORMULA_VAR: index into formula.var */
	double num;  /* FORMULA_NUM: the constant           */
};

struct formula {
	int n;
	struct formula_op_rec code[FORMULA_MAX_OPS];
	int nvars;
	char var[FORMULA_MAX_VARS][FORMULA_NAME_MAX];
};

/* Parses text into f.  Returns 0, or -1 with a one-line reason in err
 * ("column 7: expected ')'", "unknown function 'avg'", ...). */
int hs_formula__parse(struct formula *f, const char *text, char *err, size_t errlen);

/* Index of name in f->var, or -1. */
int hs_formula__var(const struct formula *f, const char *name);

/* Evaluates f with vals[i] for f->var[i]; why[i] is NULL when vals[i] is
 * known, else the reason it is not.  Returns true with *out, or false with
 * *reason: the first unknown input's why[], "division by zero", or "not a
 * finite number".  *reason points to a static string or into why[]. */
bool hs_formula__eval(const struct formula *f, const double *vals,
		      const char *const *why, double *out, const char **reason);

#endif
