/* formula.c - recursive-descent parser to RPN, evaluator over doubles.
 *
 * Parsing happens once per preset block (pmu/preset.c); evaluation once per
 * metric and interval when the results are written (aggregate/metric.c), so
 * the evaluator is a flat loop over the RPN with a fixed-size stack.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/formula.h"

struct parser {
	const char *text, *p;
	struct formula *f;
	char *err;
	size_t errlen;
	int depth;
	bool failed;
};

/* The first error wins: later ones are consequences of it. */
__attribute__((format(printf, 2, 3))) static void parser__fail(struct parser *ps,
							       const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
}

static int parser__col(const struct parser *ps)
{
	return (int)(ps->p - ps->text) + 1;
}

static void parser__skip(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static void parser__emit(struct parser *ps, enum formula_op op, int var, double num)
{
	struct formula *f = ps->f;

	if (ps->failed)
		return;
	if (f->n >= FORMULA_MAX_OPS) {
		parser__fail(ps, "formula too long (more than %d terms and operators)",
			     FORMULA_MAX_OPS);
		return;
	}
	f->code[f->n++] = (struct formula_op_rec){ .op = (uint8_t)op,
						   .var = (uint8_t)var,
						   .num = num };
}

static bool is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

static void parse_expr(struct parser *ps);

/* Decimal numbers only (digits, fraction, exponent): no hex, inf or nan,
 * which strtod would also accept. */
static void parse_number(struct parser *ps)
{
	const char *s = ps->p;
	char buf[64];
	size_t len;

	while (isdigit((unsigned char)*ps->p))
		ps->p++;
	if (*ps->p == '.')
		for (ps->p++; isdigit((unsigned char)*ps->p); ps->p++)
			;
	if ((*ps->p == 'e' || *ps->p == 'E') &&
	    (isdigit((unsigned char)ps->p[1]) || ((ps->p[1] == '+' || ps->p[1] == '-') &&
						  isdigit((unsigned char)ps->p[2])))) {
		ps->p += 2;
		while (isdigit((unsigned char)*ps->p))
			ps->p++;
	}
	len = (size_t)(ps->p - s);
	if (len >= sizeof(buf) || (len == 1 && *s == '.')) {
		ps->p = s;
		parser__fail(ps, "column %d: malformed number", parser__col(ps));
		return;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	parser__emit(ps, FORMULA_NUM, 0, strtod(buf, NULL));
}

static int formula__add_var(struct parser *ps, const char *name, size_t len)
{
	struct formula *f = ps->f;

	for (int i = 0; i < f->nvars; i++)
		if (strlen(f->var[i]) == len && memcmp(f->var[i], name, len) == 0)
			return i;
	if (len >= FORMULA_NAME_MAX) {
		parser__fail(ps, "name '%.*s...' longer than %d characters", 20,
			     name, FORMULA_NAME_MAX - 1);
		return -1;
	}
	if (f->nvars >= FORMULA_MAX_VARS) {
		parser__fail(ps, "more than %d distinct names", FORMULA_MAX_VARS);
		return -1;
	}
	memcpy(f->var[f->nvars], name, len);
	f->var[f->nvars][len] = '\0';
	return f->nvars++;
}

static void parse_call(struct parser *ps, const char *name, size_t len, int col)
{
	static const struct {
		const char *name;
		enum formula_op op;
	} funcs[] = {
		{ "min", FORMULA_MIN },
		{ "max", FORMULA_MAX },
		{ "ratio", FORMULA_RATIO },
	};
	int op = -1;

	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strlen(funcs[i].name) == len &&
		    memcmp(funcs[i].name, name, len) == 0)
			op = (int)funcs[i].op;
	if (op < 0) {
		parser__fail(ps,
			     "column %d: unknown function '%.*s' (known: min, "
			     "max, ratio)",
			     col, (int)(len > 40 ? 40 : len), name);
		return;
	}
	ps->p++; /* '(' */
	parse_expr(ps);
	parser__skip(ps);
	if (*ps->p != ',') {
		parser__fail(ps,
			     "column %d: function '%.*s' takes 2 arguments: "
			     "expected ','",
			     parser__col(ps), (int)len, name);
		return;
	}
	ps->p++;
	parse_expr(ps);
	parser__skip(ps);
	if (*ps->p != ')') {
		parser__fail(ps,
			     "column %d: function '%.*s' takes 2 arguments: "
			     "expected ')'",
			     parser__col(ps), (int)len, name);
		return;
	}
	ps->p++;
	parser__emit(ps, (enum formula_op)op, 0, 0);
}

static void parse_primary(struct parser *ps)
{
	parser__skip(ps);
	if (ps->failed)
		return;
	if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
		parse_number(ps);
	} else if (is_name_start(*ps->p)) {
		const char *s = ps->p;
		int col = parser__col(ps), v;
		size_t len;

		while (is_name_char(*ps->p))
			ps->p++;
		len = (size_t)(ps->p - s);
		parser__skip(ps);
		if (*ps->p == '(') {
			parse_call(ps, s, len, col);
			return;
		}
		v = formula__add_var(ps, s, len);
		if (v >= 0)
			parser__emit(ps, FORMULA_VAR, v, 0);
	} else if (*ps->p == '(') {
		ps->p++;
		parse_expr(ps);
		parser__skip(ps);
		if (*ps->p != ')') {
			parser__fail(ps, "column %d: expected ')'", parser__col(ps));
			return;
		}
		ps->p++;
	} else if (*ps->p == '\0') {
		parser__fail(ps, "column %d: expected an operand at the end",
			     parser__col(ps));
	} else {
		parser__fail(ps, "column %d: expected an operand, found '%c'",
			     parser__col(ps), *ps->p);
	}
}

static void parse_unary(struct parser *ps)
{
	parser__skip(ps);
	if (*ps->p == '-') {
		ps->p++;
		/* Bounded: "- - - ..." must not exhaust the stack. */
		if (++ps->depth > FORMULA_MAX_OPS) {
			parser__fail(ps, "formula nested too deeply");
			return;
		}
		parse_unary(ps);
		ps->depth--;
		parser__emit(ps, FORMULA_NEG, 0, 0);
		return;
	}
	parse_primary(ps);
}

static void parse_term(struct parser *ps)
{
	parse_unary(ps);
	for (;;) {
		char c;

		parser__skip(ps);
		c = *ps->p;
		if (ps->failed || (c != '*' && c != '/'))
			return;
		ps->p++;
		parse_unary(ps);
		parser__emit(ps, c == '*' ? FORMULA_MUL : FORMULA_DIV, 0, 0);
	}
}

static void parse_expr(struct parser *ps)
{
	if (++ps->depth > FORMULA_MAX_OPS) {
		parser__fail(ps, "formula nested too deeply");
		return;
	}
	parse_term(ps);
	for (;;) {
		char c;

		parser__skip(ps);
		c = *ps->p;
		if (ps->failed || (c != '+' && c != '-'))
			break;
		ps->p++;
		parse_term(ps);
		parser__emit(ps, c == '+' ? FORMULA_ADD : FORMULA_SUB, 0, 0);
	}
	ps->depth--;
}

int hs_formula__parse(struct formula *f, const char *text, char *err, size_t errlen)
{
	struct parser ps = { .text = text, .p = text, .f = f, .err = err, .errlen = errlen };

	memset(f, 0, sizeof(*f));
	if (errlen)
		err[0] = '\0';
	parser__skip(&ps);
	if (*ps.p == '\0') {
		parser__fail(&ps, "empty formula");
		return -1;
	}
	parse_expr(&ps);
	parser__skip(&ps);
	if (!ps.failed && *ps.p != '\0')
		parser__fail(&ps, "column %d: unexpected '%c'", parser__col(&ps),
			     *ps.p);
	return ps.failed ? -1 : 0;
}

int hs_formula__var(const struct formula *f, const char *name)
{
	for (int i = 0; i < f->nvars; i++)
		if (strcmp(f->var[i], name) == 0)
			return i;
	return -1;
}

bool hs_formula__eval(const struct formula *f, const double *vals,
		      const char *const *why, double *out, const char **reason)
{
	double st[FORMULA_MAX_OPS];
	const char *unk[FORMULA_MAX_OPS]; /* NULL: st[] entry known */
	int sp = 0;

	for (int i = 0; i < f->n; i++) {
		const struct formula_op_rec *o = &f->code[i];
		double a, b;
		const char *ua, *ub;

		switch (o->op) {
		case FORMULA_NUM:
			st[sp] = o->num, unk[sp++] = NULL;
			continue;
		case FORMULA_VAR:
			st[sp] = vals[o->var], unk[sp++] = why[o->var];
			continue;
		case FORMULA_NEG:
			st[sp - 1] = -st[sp - 1];
			continue;
		default:
			break;
		}
		/* Binary: the parser emitted two operands before this. */
		b = st[--sp], ub = unk[sp];
		a = st[sp - 1], ua = unk[sp - 1];
		if (ua || ub) {
			unk[sp - 1] = ua ? ua : ub;
			continue;
		}
		switch (o->op) {
		case FORMULA_ADD:
			a += b;
			break;
		case FORMULA_SUB:
			a -= b;
			break;
		case FORMULA_MUL:
			a *= b;
			break;
		case FORMULA_MIN:
			a = b < a ? b : a;
			break;
		case FORMULA_MAX:
			a = b > a ? b : a;
			break;
		case FORMULA_DIV:
		case FORMULA_RATIO:
			if (b == 0) {
				unk[sp - 1] = "division by zero";
				continue;
			}
			a /= b;
			break;
		}
		st[sp - 1] = a;
	}
	if (sp != 1) { /* unreachable for a parsed formula */
		*reason = "malformed formula";
		return false;
	}
	if (unk[0]) {
		*reason = unk[0];
		return false;
	}
	if (!isfinite(st[0])) {
		*reason = "not a finite number";
		return false;
	}
	*out = st[0];
	return true;
}
