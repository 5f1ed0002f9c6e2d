/* programs.c - HPCSHIM_PROGRAMS: the programs the shim counts.
 *
 * A comma list of fnmatch(3) globs matched against a program's name (no
 * directory).  It is read before anything else starts (core/dormant.c
 * decides with it whether this process stays dormant), so it is not part
 * of struct hs_config.  A glob that can never match a name is reported
 * and left out; the others still apply.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/log.h"
#include "preload/config/config.h"
#include "preload/config/varparse.h"

/* Why g can never match a program's name, or NULL. */
static const char *programs__bad(const char *g, size_t len)
{
	if (len > 255)
		return "longer than a file name";
	if (memchr(g, '/', len))
		return "a program name has no '/'";
	for (size_t i = 0; i < len; i++) {
		if (g[i] == '\\') {
			if (++i == len)
				return "ends in a lone '\\'";
		} else if (g[i] == '[') {
			size_t j = i + 1;

			/* ']' first in a bracket (after '!' or '^') is a
			 * member, not the end. */
			if (j < len && (g[j] == '!' || g[j] == '^'))
				j++;
			if (j < len && g[j] == ']')
				j++;
			while (j < len && g[j] != ']')
				j++;
			if (j == len)
				return "'[' without ']'";
			i = j;
		}
	}
	return NULL;
}

static void programs__item(void *ctx, const char *item, size_t len)
{
	struct hs_programs *p = ctx;
	const char *why = programs__bad(item, len);

	if (why) {
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_PROGRAMS: '%.*s%s' is not a program "
		       "name glob (%s); ignored",
		       (int)(len > 40 ? 40 : len), item, len > 40 ? "..." : "", why);
		return;
	}
	if (p->n == HS_PROGRAMS_MAX) {
		if (p->ignored++ == 0)
			hs_log(HS_LOG_ERROR,
			       "HPCSHIM_PROGRAMS: more than %d globs; "
			       "the rest ignored",
			       HS_PROGRAMS_MAX);
		return;
	}
	p->glob[p->n] = strndup(item, len);
	if (p->glob[p->n])
		p->n++;
}

void hs_programs__from_env(struct hs_programs *p)
{
	memset(p, 0, sizeof(*p));
	hs_var__each_item(getenv("HPCSHIM_PROGRAMS"), programs__item, p);
}

bool hs_programs__match(const char *const *globs, int n, const char *name)
{
	if (!name || !*name)
		return false;
	for (int i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

void hs_programs__free(struct hs_programs *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->glob[i]);
	p->n = 0;
}
