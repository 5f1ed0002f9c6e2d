/* speclist.c - a comma list of event specs with {a,b} groups: the syntax
 * of HPCSHIM_EVENTS, and of any feature's list of events (the mux
 * feature's HPCSHIM_MUX_PINNED).  See config.h. */
#include <stdlib.h>
#include <string.h>

#include "preload/config/config.h"

static void list__add(struct hs_speclist *l, const char *s, size_t len, int gid)
{
	if (l->n >= PMU_MAX_EVENTS) {
		l->ignored++;
		return;
	}
	l->spec[l->n] = strndup(s, len);
	if (!l->spec[l->n])
		return;
	l->group[l->n++] = gid;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Items are separated by commas; "{a,b}" makes a and b one user group.
 * Blanks around items are trimmed.  A nested '{', a '}' outside a group,
 * a missing comma after '}' and an unclosed group are counted in braces
 * (the brace is ignored; an unclosed group ends with the list). */
void hs_speclist__parse(struct hs_speclist *l, const char *v)
{
	const char *p = v;
	int gid = -1, members = 0;

	memset(l, 0, sizeof(*l));
	for (;;) {
		const char *s, *e;

		p = skip_blanks(p);
		if (*p == '{') {
			if (gid >= 0) {
				l->braces++; /* nested: ignored */
			} else {
				gid = l->ngroups++;
				members = 0;
			}
			p = skip_blanks(p + 1);
		}
		s = p;
		while (*p && *p != ',' && *p != '{' && *p != '}')
			p++;
		e = p;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e > s) {
			list__add(l, s, (size_t)(e - s), gid);
			members += gid >= 0;
		} else if (*p != '}' || members == 0) {
			l->empty++;
		}
		if (*p == '}') {
			if (gid < 0)
				l->braces++;
			gid = -1;
			p = skip_blanks(p + 1);
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p == '\0')
				break;
			l->braces++; /* "{a}b": read as "{a},b" */
			continue;
		}
		if (*p == '{') { /* "a{b": read as "a,{b" */
			if (gid < 0)
				l->braces++;
			continue;
		}
		if (*p == ',') {
			p++;
			continue;
		}
		break;
	}
	if (gid >= 0)
		l->braces++;
}

void hs_speclist__free(struct hs_speclist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->spec[i]);
	l->n = 0;
}
