/* pfm.h - libpfm4 encoding (pfm.c).  Free of <linux/perf_event.h> because
 * libpfm4's headers bring their own, clashing copy of perf_event_attr. */
#ifndef HPCSHIM_PMU_PFM_H
#define HPCSHIM_PMU_PFM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmu_encoding {
	uint32_t type;
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel, exclude_hv;
};

/* Encodes a libpfm4 event name (default privilege user+kernel).  fq gets
 * libpfm4's fully qualified name.  -1 with reason on failure. */
int pmu_pfm__encode(const char *spec, struct pmu_encoding *enc, char *fq,
		    size_t fqlen, char *reason, size_t reasonlen);

/* The core PMU model libpfm4 detects, or the one LIBPFM_FORCE_PMU forces
 * (libpfm4 PMU name: "clx", "amd64_fam19h_zen4", "arm_n1", ...).  -1 with
 * reason when libpfm4 finds none (name is then ""). */
int pmu_pfm__host_model(char *name, size_t len, char *reason, size_t reasonlen);
/* Whether this libpfm4 build has tables for a model (present or not). */
bool pmu_pfm__knows_model(const char *model);

#endif
