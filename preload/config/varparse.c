/* varparse.c - comma lists and keyword values of HPCSHIM_* (varparse.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/log.h"
#include "preload/config/varparse.h"

void hs_var__each_item(const char *v, hs_var_item_fn fn, void *ctx)
{
	const char *p = v;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len)
			fn(ctx, p, len);
		p = end ? end + 1 : NULL;
	}
}

void hs_var__bad(const char *var, const char *v, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	hs_log(HS_LOG_ERROR, "%s='%.40s%s' %s", var, v, strlen(v) > 40 ? "..." : "",
	       what);
}

int hs_var__choice(const char *var, const char *v, const char *const *names, int n,
		   int dflt)
{
	char alts[256] = "";
	size_t at = 0;

	if (!v || !*v)
		return dflt;
	for (int i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	for (int i = 0; i < n && at < sizeof(alts); i++)
		at += (size_t)snprintf(alts + at, sizeof(alts) - at, "%s%s",
				       i == 0     ? "" :
				       i == n - 1 ? " or " :
						    ", ",
				       names[i]);
	hs_var__bad(var, v, "is not %s; using %s", alts, names[dflt]);
	return dflt;
}

static int digit(char c, bool hex)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (hex && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (hex && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digit by digit, so the overflow is seen and a value needs no NUL (an
 * item of a comma list ends at its comma). */
bool hs_var__uint_at(const char *s, bool hex, uint64_t lo, uint64_t hi,
		     const char **end, uint64_t *n)
{
	unsigned base = 10;
	uint64_t v = 0;
	bool over = false;
	int d;

	hex = hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	if (hex) {
		base = 16;
		s += 2;
	}
	if (digit(*s, hex) < 0)
		return false;
	for (; (d = digit(*s, hex)) >= 0; s++) {
		over |= v > (UINT64_MAX - (uint64_t)d) / base;
		v = v * base + (uint64_t)d;
	}
	*end = s;
	if (over || v < lo || v > hi)
		return false;
	*n = v;
	return true;
}

bool hs_var__uint(const char *v, uint64_t lo, uint64_t hi, uint64_t *n)
{
	const char *end;
	uint64_t x;

	if (!hs_var__uint_at(v, false, lo, hi, &end, &x) || *end)
		return false;
	*n = x;
	return true;
}

/* "<digits><unit>" with unit ns, us, ms or s -> ns; false when malformed or
 * outside [lo, hi]. */
bool hs_var__duration(const char *v, uint64_t lo, uint64_t hi, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", 1000000 },
		{ "s", 1000000000 },
	};
	const char *end;
	uint64_t n;

	if (!hs_var__uint_at(v, false, 0, UINT64_MAX, &end, &n))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) != 0)
			continue;
		if (n > hi / units[i].mult || n * units[i].mult < lo)
			return false;
		*ns = n * units[i].mult;
		return true;
	}
	return false;
}
