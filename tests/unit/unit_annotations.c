/* unit_annotations.c - the annotations feature's pure parts
 * (preload/annotations/parse.c): HPCSHIM_ANNOTATIONS's values and the
 * Fortran names of LIKWID's and PAPI's calls (trailing blanks, CHAR(0),
 * names longer than the stack buffer).  TAP through tests/unit/tap.h.
 */
#include <stdlib.h>
#include <string.h>

#include "preload/annotations/internal.h"
#include "tests/unit/tap.h"

static const struct {
	const char *v;
	int want;
} vars[] = {
	{ NULL, HS_ANN_LIKWID | HS_ANN_PAPI },
	{ "", HS_ANN_LIKWID | HS_ANN_PAPI },
	{ " , ,", HS_ANN_LIKWID | HS_ANN_PAPI },
	{ "likwid", HS_ANN_LIKWID },
	{ "papi", HS_ANN_PAPI },
	{ " papi , likwid ", HS_ANN_LIKWID | HS_ANN_PAPI },
	{ "likwid,likwid", HS_ANN_LIKWID },
	{ "off", 0 },
	{ "off,off", 0 },
	{ "off,papi", -1 },
	{ "LIKWID", -1 },
	{ "likwidx", -1 },
	{ "pap", -1 },
	{ "likwid,bogus", -1 },
};

int main(void)
{
	char buf[HS_ANN_FNAME], *heap, big[HS_ANN_FNAME + 50];
	const char *s;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		TAP_OK(hs_ann__parse(vars[i].v) == vars[i].want,
		       "HPCSHIM_ANNOTATIONS='%s' -> %d",
		       vars[i].v ? vars[i].v : "(unset)", vars[i].want);

	s = hs_ann__fname("example   ", 10, buf, &heap);
	TAP_OK(s && strcmp(s, "example") == 0 && !heap, "trailing blanks trimmed");
	s = hs_ann__fname("  lead  x", 9, buf, &heap);
	TAP_OK(s && strcmp(s, "  lead  x") == 0, "leading and inner blanks kept");
	s = hs_ann__fname("abcdef", 3, buf, &heap);
	TAP_OK(s && strcmp(s, "abc") == 0, "only len characters (no NUL in Fortran)");
	s = hs_ann__fname("ab\0cd", 5, buf, &heap);
	TAP_OK(s && strcmp(s, "ab") == 0, "a CHAR(0) ends the name");
	s = hs_ann__fname("    ", 4, buf, &heap);
	TAP_OK(s && strcmp(s, "") == 0, "only blanks: the empty name");
	TAP_OK(hs_ann__fname(NULL, 4, buf, &heap) == NULL, "no argument: NULL");
	memset(big, 'n', sizeof(big));
	s = hs_ann__fname(big, sizeof(big), buf, &heap);
	TAP_OK(s && heap && s == heap && strlen(s) == sizeof(big),
	       "a long name on the heap, whole");
	free(heap);
	return tap_done();
}
