/* pfm.c - libpfm4 encoding of native and perf:: event names.
 *
 * Kept apart because <perfmon/pfmlib_perf_event.h> brings libpfm4's own copy
 * of struct perf_event_attr, which clashes with <linux/perf_event.h>.  Only
 * plain fields leave this file.  libpfm4 is loaded and initialised only
 * when a name needs it: linked, its tables' relocations and page faults
 * cost every process about 1 ms at start (bench/start.sh), and most runs
 * use table names only.  dlmopen in the base namespace is dlopen without
 * the shim's dlopen wrapper (internal code never calls what the shim
 * interposes).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

#include "common/dl.h"
#include "pmu/pfm.h"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_init_rc = PFM_ERR_NOINIT;
static bool pfm_loaded;

static __typeof__(pfm_initialize) *p_initialize;
static __typeof__(pfm_strerror) *p_strerror;
static __typeof__(pfm_get_os_event_encoding) *p_encode;
static __typeof__(pfm_get_pmu_info) *p_pmu_info;

static bool pfm_load(void)
{
	static const char *const names[] = { "libpfm.so.4", "libpfm.so" };
	hs_dlsym_fn sym = hs_dl__dlsym();
	void *h = NULL;

	if (!sym)
		return false;
	for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlmopen(LM_ID_BASE, names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	p_initialize = (__typeof__(p_initialize))sym(h, "pfm_initialize");
	p_strerror = (__typeof__(p_strerror))sym(h, "pfm_strerror");
	p_encode = (__typeof__(p_encode))sym(h, "pfm_get_os_event_encoding");
	p_pmu_info = (__typeof__(p_pmu_info))sym(h, "pfm_get_pmu_info");
	return p_initialize && p_strerror && p_encode && p_pmu_info;
}

static void pfm_init(void)
{
	pfm_loaded = pfm_load();
	if (pfm_loaded)
		pfm_init_rc = p_initialize();
}

/* Why libpfm4 cannot answer, into reason; false when it can. */
static bool pfm_unusable(char *reason, size_t reasonlen)
{
	pthread_once(&pfm_once, pfm_init);
	if (!pfm_loaded) {
		snprintf(reason, reasonlen,
			 "libpfm4 (libpfm.so.4) cannot be loaded: "
			 "install libpfm4");
		return true;
	}
	if (pfm_init_rc != PFM_SUCCESS) {
		snprintf(reason, reasonlen, "libpfm4 initialisation failed: %s",
			 p_strerror(pfm_init_rc));
		return true;
	}
	return false;
}

int pmu_pfm__encode(const char *spec, struct pmu_encoding *enc, char *fq,
		    size_t fqlen, char *reason, size_t reasonlen)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int rc;

	if (pfm_unusable(reason, reasonlen))
		return -1;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	/* Default privilege: user + kernel; the probe downgrades if needed. */
	rc = p_encode(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS) {
		snprintf(reason, reasonlen, "%s", p_strerror(rc));
		free(fstr);
		return -1;
	}
	enc->type = attr.type;
	enc->config = attr.config;
	enc->config1 = attr.config1;
	enc->config2 = attr.config2;
	enc->exclude_user = attr.exclude_user;
	enc->exclude_kernel = attr.exclude_kernel;
	enc->exclude_hv = attr.exclude_hv;
	snprintf(fq, fqlen, "%s", fstr ? fstr : "");
	free(fstr);
	return 0;
}

/* The first present core PMU in libpfm4's table: the model it detected
 * from CPUID/MIDR, or the one LIBPFM_FORCE_PMU forced (then the only one
 * present).  Presets are chosen by this name. */
int pmu_pfm__host_model(char *name, size_t len, char *reason, size_t reasonlen)
{
	pfm_pmu_t p;

	name[0] = '\0';
	if (pfm_unusable(reason, reasonlen))
		return -1;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (p_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE)
			continue;
		snprintf(name, len, "%s", info.name);
		return 0;
	}
	snprintf(reason, reasonlen,
		 "libpfm4 detects no core PMU model on this "
		 "CPU");
	return -1;
}

bool pmu_pfm__knows_model(const char *model)
{
	pfm_pmu_t p;
	char why[8];

	if (pfm_unusable(why, sizeof(why)))
		return false;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		/* pfm_get_pmu_info answers for PMUs that are compiled in,
		 * present or not. */
		if (p_pmu_info(p, &info) == PFM_SUCCESS && info.name &&
		    strcmp(info.name, model) == 0)
			return true;
	}
	return false;
}
