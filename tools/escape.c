/* escape.c - data made inert for its medium: HTML, terminal, CSV,
 * markdown (escape.h).  The terminal's rules are the base of markdown's;
 * each writes to a FILE, the _dup versions to a memory stream. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/escape.h"
#include "tools/xalloc.h"

void esc__html(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* The length of the valid UTF-8 sequence at s (1 to 4), 0 when the bytes
 * there are not one (a stray continuation, an overlong form, a surrogate,
 * past U+10FFFF, cut short); *cp its code point. */
static int utf8_seq(const unsigned char *s, unsigned *cp)
{
	unsigned c = s[0];
	int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
			       (c & 0xf8) == 0xf0 ? 4 : 0;
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };

	if (!n)
		return 0;
	*cp = n == 1 ? c : c & (0x7fu >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min[n] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/* The terminal's escape of the character at s to f; returns the bytes
 * it took. */
static int term_char(FILE *f, const unsigned char *s)
{
	unsigned cp;
	int n = utf8_seq(s, &cp);

	if (!n) {
		fprintf(f, "\\x%02x", s[0]);
		return 1;
	}
	if (cp < 0x20 || cp == 0x7f)
		fprintf(f, "\\x%02x", cp);
	else if (cp >= 0x80 && cp < 0xa0)
		fprintf(f, "\\u%04x", cp);
	else if (cp == '\\')
		fputs("\\\\", f);
	else
		fwrite(s, 1, (size_t)n, f);
	return n;
}

/* Whether s is written as it is on a terminal. */
static bool term_plain(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f || *p == '\\')
			return false;
	return true;
}

void esc__term(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (term_plain(s)) {
		fputs(s, f);
		return;
	}
	while (*p)
		p += term_char(f, p);
}

void esc__md(FILE *f, const char *s)
{
	char *t = esc__term_dup(s);

	for (const char *p = t; *p; p++) {
		if (strchr("<>&\"'", *p)) {
			char one[2] = { *p, 0 };

			esc__html(f, one);
		} else if (strchr("\\`*_[]|~", *p)) {
			fputc('\\', f);
			fputc(*p, f);
		} else {
			fputc(*p, f);
		}
	}
	free(t);
}

/* A text cell that a spreadsheet would take for a formula. */
static bool csv_formula(const char *s)
{
	return *s && strchr("=+-@\t\r", *s);
}

void esc__csv(FILE *f, const char *s, const char *sep)
{
	bool formula = csv_formula(s);

	if (!formula && !strpbrk(s, "\"\r\n") && !(*sep && strstr(s, sep))) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void die(void)
{
	fputs("hpcshim: out of memory\n", stderr);
	exit(XALLOC_STATUS);
}

static char *dup_with(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		die();
	fn(m, s);
	if (fclose(m) || !buf)
		die();
	return buf;
}

char *esc__term_dup(const char *s)
{
	return term_plain(s) ? xstrdup(s) : dup_with(esc__term, s);
}

char *esc__md_dup(const char *s)
{
	return dup_with(esc__md, s);
}

const char *esc__t(const char *s)
{
	static char *ring[8];
	static unsigned next;
	char **slot;

	if (!s || term_plain(s))
		return s;
	slot = &ring[next++ % 8];
	free(*slot);
	*slot = esc__term_dup(s);
	return *slot;
}
