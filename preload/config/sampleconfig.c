/* sampleconfig.c - HPCSHIM_REGION_SAMPLE: which regions are measured on a
 * sample of their calls (docs/sampling.md).
 *
 *   HPCSHIM_REGION_SAMPLE=N              every region: one call in N
 *   HPCSHIM_REGION_SAMPLE=name:N,...     those regions only
 *   HPCSHIM_REGION_SAMPLE=N,name:M,...   both; a name's own N wins
 *
 * N is 1..1000000 (1: every call, as without the variable).  A bad item
 * is reported on one line and left out; the rest applies.
 */
#include <stdlib.h>
#include <string.h>

#include "common/memclear.h"
#include "preload/base/log.h"
#include "preload/config/config.h"
#include "preload/config/varparse.h"

#define SAMPLE_MAX_N 1000000

/* N is the rest of the item: the list goes on after its comma. */
static bool sample__number(const char *s, size_t len, uint32_t *n)
{
	const char *end;
	uint64_t v;

	if (!hs_var__uint_at(s, false, 1, SAMPLE_MAX_N, &end, &v) || end != s + len)
		return false;
	*n = (uint32_t)v;
	return true;
}

static void sample__item(void *ctx, const char *item, size_t len)
{
	struct hs_sample_config *sc = ctx;
	const char *colon = memrchr(item, ':', len);
	uint32_t n;

	if (!colon) {
		if (sample__number(item, len, &n)) {
			sc->every = n;
			sc->every_set = true;
			return;
		}
	} else if (colon > item &&
		   sample__number(colon + 1, len - (size_t)(colon + 1 - item), &n)) {
		if (sc->n < HS_SAMPLE_MAX) {
			char *name = strndup(item, (size_t)(colon - item));

			if (name) {
				sc->name[sc->n] = name;
				sc->name_every[sc->n++] = n;
			}
		} else {
			sc->ignored++;
		}
		return;
	}
	hs_log(HS_LOG_ERROR,
	       "HPCSHIM_REGION_SAMPLE: '%.*s' is not N or name:N (N in 1..%d); "
	       "ignored",
	       (int)(len > 60 ? 60 : len), item, SAMPLE_MAX_N);
}

void hs_sample_config__from_env(struct hs_sample_config *sc, const char *v)
{
	hs_mem__clear(sc, sizeof(*sc));
	sc->every = 1;
	hs_var__each_item(v, sample__item, sc);
	if (sc->ignored)
		hs_log(HS_LOG_ERROR,
		       "HPCSHIM_REGION_SAMPLE: %d names beyond the first %d "
		       "ignored",
		       sc->ignored, HS_SAMPLE_MAX);
}

uint32_t hs_sample_config__every_or(const struct hs_sample_config *sc,
				    const char *name, uint32_t dflt)
{
	for (int i = sc->n - 1; i >= 0; i--)
		if (strcmp(sc->name[i], name) == 0)
			return sc->name_every[i];
	return sc->every_set ? sc->every : dflt;
}

uint32_t hs_sample_config__every(const struct hs_sample_config *sc,
				 const char *name)
{
	/* The last item naming a region wins, as a later setting should. */
	for (int i = sc->n - 1; i >= 0; i--)
		if (strcmp(sc->name[i], name) == 0)
			return sc->name_every[i];
	return sc->every;
}
