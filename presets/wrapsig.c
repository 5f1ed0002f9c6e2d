/* wrapsig.c - C-like prototypes -> struct wsig (wrapsig.h).
 *
 * A small recursive-descent parser over a token list: enough C for the
 * prototypes of numerical and system libraries, nothing more.  What it
 * cannot express (a complex number, a function pointer by value) is an
 * error with a reason, never a guess: a wrong signature would corrupt the
 * arguments of the wrapped call.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "presets/preset.h"
#include "presets/wrapsig.h"

#define TOK_MAX 160
#define TOKLEN 64

struct lex {
	char tok[TOK_MAX][TOKLEN];
	int n, i;
	char *err;
	size_t errlen;
	const struct wsig_typedefs *td;
};

static int lex__fail(struct lex *L, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int lex__fail(struct lex *L, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(L->err, L->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int lex__split(struct lex *L, const char *s)
{
	L->n = L->i = 0;
	while (*s) {
		size_t k = 0;

		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		if (L->n == TOK_MAX)
			return lex__fail(L, "too long");
		if (isalnum((unsigned char)*s) || *s == '_') {
			while (isalnum((unsigned char)s[k]) || s[k] == '_')
				k++;
		} else if (!strncmp(s, "...", 3)) {
			k = 3;
		} else if (strchr("*(),;{}[]", *s)) {
			k = 1;
		} else {
			return lex__fail(L, "unexpected '%c'", *s);
		}
		if (k >= TOKLEN)
			return lex__fail(L, "name too long");
		memcpy(L->tok[L->n], s, k);
		L->tok[L->n++][k] = '\0';
		s += k;
	}
	return 0;
}

static const char *lex__peek(const struct lex *L)
{
	return L->i < L->n ? L->tok[L->i] : "";
}

static bool lex__accept(struct lex *L, const char *t)
{
	if (L->i < L->n && !strcmp(L->tok[L->i], t)) {
		L->i++;
		return true;
	}
	return false;
}

static bool is_ident(const char *t)
{
	return isalpha((unsigned char)*t) || *t == '_';
}

/* Names with a fixed meaning: <stdint.h>, <stddef.h>, MPI's. */
static const struct {
	const char *name;
	enum wsig_kind kind;
} named_types[] = {
	{ "int8_t", WSIG_S8 },
	{ "uint8_t", WSIG_U8 },
	{ "int16_t", WSIG_S16 },
	{ "uint16_t", WSIG_U16 },
	{ "int32_t", WSIG_S32 },
	{ "uint32_t", WSIG_U32 },
	{ "int64_t", WSIG_S64 },
	{ "uint64_t", WSIG_U64 },
	{ "size_t", WSIG_U64 },
	{ "ssize_t", WSIG_S64 },
	{ "off_t", WSIG_S64 },
	{ "off64_t", WSIG_S64 },
	{ "ptrdiff_t", WSIG_S64 },
	{ "intptr_t", WSIG_S64 },
	{ "uintptr_t", WSIG_U64 },
	{ "mode_t", WSIG_U32 },
	{ "pointer", WSIG_POINTER },
	{ "bool", WSIG_U8 },
	{ "_Bool", WSIG_U8 },
	{ "MPI_Aint", WSIG_S64 },
	{ "MPI_Offset", WSIG_S64 },
	{ "MPI_Count", WSIG_S64 },
	{ "MPI_Comm", WSIG_HANDLE },
	{ "MPI_Datatype", WSIG_HANDLE },
	{ "MPI_Op", WSIG_HANDLE },
	{ "MPI_Request", WSIG_HANDLE },
	{ "MPI_Group", WSIG_HANDLE },
	{ "MPI_Win", WSIG_HANDLE },
	{ "MPI_Info", WSIG_HANDLE },
	{ "MPI_File", WSIG_HANDLE },
	{ "MPI_Errhandler", WSIG_HANDLE },
	{ "MPI_Message", WSIG_HANDLE },
	{ "__m64", WSIG_VECTOR },
	{ "__m128", WSIG_VECTOR },
	{ "__m128d", WSIG_VECTOR },
	{ "__m128i", WSIG_VECTOR },
	{ "__m256", WSIG_VECTOR },
	{ "__m256d", WSIG_VECTOR },
	{ "__m256i", WSIG_VECTOR },
	{ "__m512", WSIG_VECTOR },
	{ "__m512d", WSIG_VECTOR },
	{ "__m512i", WSIG_VECTOR },
	{ "float32x4_t", WSIG_VECTOR },
	{ "float64x2_t", WSIG_VECTOR },
	{ "vector", WSIG_VECTOR },
};

static bool is_qualifier(const char *t)
{
	return !strcmp(t, "const") || !strcmp(t, "volatile") ||
	       !strcmp(t, "restrict") || !strcmp(t, "__restrict") ||
	       !strcmp(t, "register");
}

static int parse__type(struct lex *L, struct wsig_type *t);

/* "struct { double, int }" by value, or "struct tag *" (a pointer). */
static int parse__struct(struct lex *L, struct wsig_type *t)
{
	if (!lex__accept(L, "{")) {
		if (!is_ident(lex__peek(L)))
			return lex__fail(L, "struct without fields or tag");
		L->i++;
		if (strcmp(lex__peek(L), "*"))
			return lex__fail(
				L, "a named struct by value: spell its fields, struct { ... }");
		t->kind = WSIG_POINTER;
		return 0;
	}
	t->kind = WSIG_STRUCT;
	t->nfields = 0;
	do {
		struct wsig_type f;

		if (t->nfields == WSIG_MAX_FIELDS)
			return lex__fail(L, "more than %d struct fields",
					 WSIG_MAX_FIELDS);
		if (parse__type(L, &f) < 0)
			return -1;
		if (f.kind == WSIG_STRUCT || f.kind == WSIG_VOID)
			return lex__fail(L, "struct fields must be scalars");
		if (f.kind == WSIG_VECTOR)
			return lex__fail(L, "vector struct fields are not supported");
		/* A field name may follow. */
		if (is_ident(lex__peek(L)))
			L->i++;
		t->field[t->nfields++] = f.kind;
		/* "struct { double re; double im; }": a last ';' */
	} while ((lex__accept(L, ",") || lex__accept(L, ";")) &&
		 strcmp(lex__peek(L), "}"));
	if (!lex__accept(L, "}"))
		return lex__fail(L, "expected '}' in struct");
	return 0;
}

/* C's scalar words: [signed|unsigned] [char|short|int|long|long long]. */
static int parse__words(struct lex *L, struct wsig_type *t, bool *seen)
{
	int sign = 0, longs = 0;
	bool chr = false, shrt = false, in = false, flt = false, dbl = false,
	     vd = false;

	for (;;) {
		const char *w = lex__peek(L);

		if (is_qualifier(w))
			;
		else if (!strcmp(w, "signed"))
			sign = 1;
		else if (!strcmp(w, "unsigned"))
			sign = 2;
		else if (!strcmp(w, "char"))
			chr = true;
		else if (!strcmp(w, "short"))
			shrt = true;
		else if (!strcmp(w, "int"))
			in = true;
		else if (!strcmp(w, "long"))
			longs++;
		else if (!strcmp(w, "float"))
			flt = true;
		else if (!strcmp(w, "double"))
			dbl = true;
		else if (!strcmp(w, "void"))
			vd = true;
		else
			break;
		L->i++;
		*seen = true;
	}
	if (vd)
		t->kind = WSIG_VOID;
	else if (flt)
		t->kind = WSIG_FLOAT;
	else if (dbl)
		t->kind = longs ? WSIG_LDOUBLE : WSIG_DOUBLE;
	else if (chr)
		t->kind = sign == 2 ? WSIG_U8 : WSIG_S8;
	else if (shrt)
		t->kind = sign == 2 ? WSIG_U16 : WSIG_S16;
	else if (longs)
		t->kind = sign == 2 ? WSIG_U64 : WSIG_S64;
	else if (in || sign)
		t->kind = sign == 2 ? WSIG_U32 : WSIG_S32;
	(void)in;
	return 0;
}

static int parse__type(struct lex *L, struct wsig_type *t)
{
	bool seen = false;
	const char *w;

	memset(t, 0, sizeof(*t));
	while (is_qualifier(lex__peek(L)))
		L->i++;
	w = lex__peek(L);
	if (lex__accept(L, "struct") || lex__accept(L, "union")) {
		if (parse__struct(L, t) < 0)
			return -1;
		seen = true;
	} else if (!strcmp(w, "_Complex") || !strcmp(w, "complex")) {
		return lex__fail(L, "complex numbers are not supported");
	} else {
		parse__words(L, t, &seen);
	}
	w = lex__peek(L);
	if (!strcmp(w, "_Complex") || !strcmp(w, "complex"))
		return lex__fail(L, "complex numbers are not supported");
	if (!seen) {
		if (!is_ident(w))
			return lex__fail(L, "expected a type, got '%s'",
					 *w ? w : "end");
		for (size_t i = 0; i < sizeof(named_types) / sizeof(*named_types); i++)
			if (!strcmp(named_types[i].name, w)) {
				t->kind = named_types[i].kind;
				seen = true;
			}
		for (int i = 0; !seen && L->td && i < L->td->n; i++)
			if (!strcmp(L->td->e[i].name, w)) {
				*t = L->td->e[i].t;
				seen = true;
			}
		L->i++;
		if (!seen) {
			/* An unknown name is fine behind a '*'. */
			if (strcmp(lex__peek(L), "*"))
				return lex__fail(L, "unknown type '%s'", w);
			t->kind = WSIG_POINTER;
		}
	}
	while (is_qualifier(lex__peek(L)))
		L->i++;
	while (lex__accept(L, "*")) {
		t->kind = WSIG_POINTER;
		while (is_qualifier(lex__peek(L)))
			L->i++;
	}
	return 0;
}

/* A parameter: type [name] [ '[' ... ']' ] */
static int parse__param(struct lex *L, struct wsig_type *t)
{
	if (parse__type(L, t) < 0)
		return -1;
	if (is_ident(lex__peek(L)))
		L->i++;
	if (lex__accept(L, "[")) {
		while (L->i < L->n && strcmp(lex__peek(L), "]"))
			L->i++;
		if (!lex__accept(L, "]"))
			return lex__fail(L, "expected ']'");
		t->kind = WSIG_POINTER;
	}
	if (lex__accept(L, "(")) /* a function pointer: "void (*f)(int)" */
		return lex__fail(L, "write a function pointer as 'pointer'");
	return 0;
}

static const char *kind__name(enum wsig_kind k)
{
	static const char *const n[] = {
		"void",    "int8",   "uint8",  "int16",  "uint16", "int32",
		"uint32",  "int64",  "uint64", "float",  "double", "long double",
		"pointer", "handle", "struct", "vector",
	};
	return n[k];
}

static void type__text(const struct wsig_type *t, char *buf, size_t len)
{
	size_t n;

	if (t->kind != WSIG_STRUCT) {
		snprintf(buf, len, "%s", kind__name(t->kind));
		return;
	}
	n = (size_t)snprintf(buf, len, "struct{");
	for (int i = 0; i < t->nfields && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "",
				      kind__name(t->field[i]));
	if (n < len)
		snprintf(buf + n, len - n, "}");
}

static void wsig__text(struct wsig *s)
{
	char t[160];
	size_t n;

	type__text(&s->ret, t, sizeof(t));
	n = (size_t)snprintf(s->text, sizeof(s->text), "%s(", t);
	for (int i = 0; i < s->nargs && n < sizeof(s->text); i++) {
		type__text(&s->arg[i], t, sizeof(t));
		n += (size_t)snprintf(s->text + n, sizeof(s->text) - n, "%s%s",
				      i ? "," : "", t);
	}
	if (n < sizeof(s->text))
		snprintf(s->text + n, sizeof(s->text) - n, "%s)",
			 s->variadic ? (s->nargs ? ",..." : "...") : "");
}

static int parse__proto(struct lex *L, bool named, struct wsig *s)
{
	memset(s, 0, sizeof(*s));
	if (parse__type(L, &s->ret) < 0)
		return -1;
	if (named) {
		if (!is_ident(lex__peek(L)))
			return lex__fail(L, "expected the function's name");
		snprintf(s->name, sizeof(s->name), "%s", lex__peek(L));
		L->i++;
	}
	if (!lex__accept(L, "("))
		return lex__fail(L, "expected '('");
	if (lex__accept(L, ")"))
		goto done;
	/* "(void)": no arguments. */
	if (!strcmp(lex__peek(L), "void") && L->i + 1 < L->n &&
	    !strcmp(L->tok[L->i + 1], ")")) {
		L->i += 2;
		goto done;
	}
	do {
		if (lex__accept(L, "...")) {
			s->variadic = true;
			break;
		}
		if (s->nargs == WSIG_MAX_ARGS)
			return lex__fail(L, "more than %d arguments", WSIG_MAX_ARGS);
		if (parse__param(L, &s->arg[s->nargs]) < 0)
			return -1;
		if (s->arg[s->nargs].kind == WSIG_VOID)
			return lex__fail(L, "a void argument");
		s->nargs++;
	} while (lex__accept(L, ","));
	if (!lex__accept(L, ")"))
		return lex__fail(L, "expected ')'");
done:
	for (int i = 0; i < s->nargs; i++)
		if (s->arg[i].kind == WSIG_VECTOR)
			s->vector = true;
	if (s->ret.kind == WSIG_VECTOR)
		s->vector = true;
	wsig__text(s);
	return 0;
}

/* The lexer's 10 KiB come from the heap: in .tbss every thread the
 * program starts would get (and clear) them, for a parser that runs a few
 * times at start. */
static int parse__in(struct lex *L, const char *text, bool named,
		     const struct wsig_typedefs *td, struct wsig *out)
{
	L->td = td;
	if (lex__split(L, text) < 0 || parse__proto(L, named, out) < 0)
		return -1;
	lex__accept(L, ";");
	if (L->i != L->n)
		return lex__fail(L, "unexpected '%s' after the prototype",
				 lex__peek(L));
	return 0;
}

static struct lex *lex__new(char *err, size_t errlen)
{
	struct lex *L = calloc(1, sizeof(*L));

	if (!L)
		snprintf(err, errlen, "out of memory");
	else {
		L->err = err;
		L->errlen = errlen;
	}
	return L;
}

int wsig__parse(const char *text, bool named, const struct wsig_typedefs *td,
		struct wsig *out, char *err, size_t errlen)
{
	struct lex *L = lex__new(err, errlen);
	int rc;

	if (!L)
		return -1;
	rc = parse__in(L, text, named, td, out);
	free(L);
	return rc;
}

/* "typedef TYPE NAME" */
static int typedef__in(struct lex *L, const char *text, struct wsig_typedefs *td)
{
	struct wsig_type t;

	L->td = td;
	if (lex__split(L, text) < 0)
		return -1;
	L->i = 1; /* "typedef" */
	if (parse__type(L, &t) < 0)
		return -1;
	if (!is_ident(lex__peek(L)) || L->i + 1 != L->n)
		return lex__fail(L, "typedef: expected TYPE NAME");
	if (td->n == (int)(sizeof(td->e) / sizeof(td->e[0])))
		return lex__fail(L, "too many typedefs");
	snprintf(td->e[td->n].name, sizeof(td->e[0].name), "%s", lex__peek(L));
	td->e[td->n++].t = t;
	return 0;
}

static int parse__typedef(const char *text, struct wsig_typedefs *td, char *err,
			  size_t errlen)
{
	struct lex *L = lex__new(err, errlen);
	int rc;

	if (!L)
		return -1;
	rc = typedef__in(L, text, td);
	free(L);
	return rc;
}

int wsig__load_file(const char *file, wsig_fn *fn, wsig_bad_fn *bad, void *ctx)
{
	FILE *f = fopen(file, "re");
	struct wsig_typedefs *td;
	char line[512], stmt[4096], err[200], msg[PATH_MAX + 400];
	size_t used = 0;
	int lineno = 0, first = 0, n = 0, nbad = 0;
	struct wsig s;

	if (!f)
		return -1;
	td = calloc(1, sizeof(*td));
	if (!td) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, '#'), *p;

		lineno++;
		if (c)
			*c = '\0';
		if ((c = strstr(line, "//")))
			*c = '\0';
		for (p = line; *p;) {
			char *semi = strchr(p, ';');
			size_t k = semi ? (size_t)(semi - p) : strlen(p);

			if (!used) {
				while (k && isspace((unsigned char)*p))
					p++, k--;
				if (!k && !semi)
					break;
				first = lineno;
			}
			if (used + k + 2 < sizeof(stmt)) {
				memcpy(stmt + used, p, k);
				used += k;
				stmt[used++] = ' ';
			}
			p += k;
			if (!semi)
				break;
			p++;
			stmt[used] = '\0';
			used = 0;
			if (!strncmp(stmt, "typedef", 7) &&
			    isspace((unsigned char)stmt[7])) {
				if (parse__typedef(stmt, td, err, sizeof(err)) < 0)
					goto bad;
				continue;
			}
			if (wsig__parse(stmt, true, td, &s, err, sizeof(err)) == 0) {
				fn(ctx, &s);
				n++;
				continue;
			}
bad:
			/* the first problem of the file, and a count */
			if (nbad++ == 0)
				snprintf(msg, sizeof(msg), "%s:%d: %s", file, first, err);
		}
	}
	if (used && nbad++ == 0)
		snprintf(msg, sizeof(msg), "%s:%d: no ';' at the end", file, first);
	if (nbad > 1) {
		size_t k = strlen(msg);

		snprintf(msg + k, sizeof(msg) - k, " (and %d more problems in this file)",
			 nbad - 1);
	}
	if (nbad && bad)
		bad(ctx, msg);
	free(td);
	fclose(f);
	return n;
}

void wsig__search_path(const char *user, char *buf, size_t len)
{
	char presets[4 * PATH_MAX];
	size_t n;
	char *save = NULL;

	if (!len)
		return;
	snprintf(buf, len, "%s", user ? user : "");
	pmu_preset__search_path(NULL, presets, sizeof(presets));
	for (char *d = strtok_r(presets, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		size_t k = strlen(d);

		if (k < 7 || strcmp(d + k - 7, "presets"))
			continue;
		d[k - 7] = '\0';
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%swrap", n ? ":" : "", d);
	}
}
