/* parse.c - the annotations feature's pure parts: HPCSHIM_ANNOTATIONS's
 * value and Fortran names (tests/unit/unit_annotations.c). */
#include <stdlib.h>
#include <string.h>

#include "preload/annotations/internal.h"
#include "preload/config/varparse.h"

#define ANN_OFF 0x100
#define ANN_BAD 0x200

static void parse__item(void *ctx, const char *item, size_t len)
{
	int *bits = ctx;

	if (len == 6 && strncmp(item, "likwid", 6) == 0)
		*bits |= HS_ANN_LIKWID;
	else if (len == 4 && strncmp(item, "papi", 4) == 0)
		*bits |= HS_ANN_PAPI;
	else if (len == 3 && strncmp(item, "off", 3) == 0)
		*bits |= ANN_OFF;
	else
		*bits |= ANN_BAD;
}

int hs_ann__parse(const char *v)
{
	int bits = 0;

	hs_var__each_item(v, parse__item, &bits);
	if ((bits & ANN_BAD) ||
	    ((bits & ANN_OFF) && (bits & (HS_ANN_LIKWID | HS_ANN_PAPI))))
		return -1;
	if (bits & ANN_OFF)
		return 0;
	return bits ? bits : HS_ANN_LIKWID | HS_ANN_PAPI;
}

const char *hs_ann__fname(const char *s, size_t len, char *buf, char **heap)
{
	size_t n = 0;
	char *d = buf;

	*heap = NULL;
	if (!s)
		return NULL;
	while (n < len && s[n])
		n++;
	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n >= HS_ANN_FNAME) {
		d = *heap = malloc(n + 1);
		if (!d)
			return NULL;
	}
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}
