/* preset_probe.c - whether this host can count a block's events.
 *
 * Apart from the parser (preset.c) so that reading preset files needs
 * nothing of the perf layer (the config fuzzer links the parser alone).
 */
#include <stdio.h>
#include <stdlib.h>

#include "pmu/pmu.h"
#include "presets/preset.h"

/* Opened standalone, as the shim's own probe opens them: the answer is
 * what this host can count, not what fits next to other events. */
int pmu_preset__probe(const struct preset *p, char *reason, size_t len)
{
	struct pmu_evlist *el;
	int nok = 0;

	reason[0] = '\0';
	if (p->unavailable[0]) {
		snprintf(reason, len, "%s", p->unavailable);
		return 0;
	}
	el = malloc(sizeof(*el));
	if (!el) {
		snprintf(reason, len, "out of memory");
		return 0;
	}
	pmu_evlist__init(el);
	for (int i = 0; i < p->nevents; i++)
		pmu_evlist__add(el, p->ev[i].spec);
	nok = pmu_evlist__probe(el);
	for (int i = 0; i < el->nevents; i++)
		if (el->ev[i].status != PMU_EV_OK) {
			snprintf(reason, len, "event '%s' dropped: %s",
				 el->ev[i].name, el->ev[i].reason);
			break;
		}
	free(el);
	return nok;
}
