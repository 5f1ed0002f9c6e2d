/* openmp.c - OpenMP constructs as regions, without touching the source
 * (docs/openmp.md).  A feature of the shim (core/feature.h):
 *
 *   config  HPCSHIM_OPENMP: on (default) | off | barrier (libgomp's
 *           implicit barrier waits measured on each thread, with counts)
 *   start   recording follows the core: on while it counts
 *   result  the top-level "openmp" (result.c) when an OpenMP runtime was
 *           seen: each construct, each thread's work and waits
 *
 * The events come from a source (gomp.c: libgomp's GOMP_* entry points)
 * through the construct API (construct.c).  A program without an OpenMP
 * runtime never calls a GOMP_* name: nothing is recorded, no section.
 */
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/base/log.h"
#include "preload/config/varparse.h"
#include "preload/core/core.h"
#include "preload/openmp/internal.h"
#include "preload/openmp/openmp.h"
#include "preload/openmp/result.h"

static bool omp_enabled = true;

struct omp_result hs_omp_result;

static void omp__config(struct hs_config *cfg)
{
	static const char *const names[] = { "on", "off", "barrier" };
	int v = hs_var__choice("HPCSHIM_OPENMP", getenv("HPCSHIM_OPENMP"), names, 3, 0);

	(void)cfg;
	omp_enabled = v != 1;
	hs_omp_barrier = v == 2;
}

static const char *name__kind(const char *n)
{
	const char *base = strrchr(n, '/');

	base = base ? base + 1 : n;
	if (!strncmp(base, "libgomp.so", 10))
		return "libgomp";
	if (!strncmp(base, "libomp.so", 9) || !strncmp(base, "libomp-", 7) ||
	    !strncmp(base, "libiomp5.so", 11))
		return "libomp";
	return NULL;
}

const char *hs_omp__classify(const char *path)
{
	char real[PATH_MAX];
	const char *k = name__kind(path);

	if (k && realpath(path, real))
		return name__kind(real) ? name__kind(real) : k;
	return k;
}

static int omp__loaded_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *n = info->dlpi_name, *k;

	(void)size;
	(void)data;
	if (!n || !*n || !(k = hs_omp__classify(n)))
		return 0;
	snprintf(hs_omp_result.path, sizeof(hs_omp_result.path), "%s", n);
	hs_omp_result.kind = k;
	return 1;
}

static void omp__start(void)
{
	if (!omp_enabled)
		return;
	/* The runtime linked with the program; one dlopen'ed later is found
	 * at its first construct (gomp.c). */
	dl_iterate_phdr(omp__loaded_cb, NULL);
	__atomic_store_n(&hs_omp_on, true, __ATOMIC_RELAXED);
}

void hs_omp__runtime(const char *kind, const char *path)
{
	snprintf(hs_omp_result.path, sizeof(hs_omp_result.path), "%s", path);
	__atomic_store_n(&hs_omp_result.kind, kind, __ATOMIC_RELEASE);
}

/* Once per source, with HPCSHIM_VERBOSE: what serves the constructs. */
static void omp__tell(const char *source)
{
	hs_log(HS_LOG_INFO, "HPCSHIM_OPENMP: constructs of %s (%s) recorded through %s",
	       hs_omp_result.kind ? hs_omp_result.kind : "the runtime",
	       hs_omp_result.path[0] ? hs_omp_result.path : "?", source);
}

void hs_omp__gomp_started(void)
{
	if (omp_enabled)
		omp__tell("its GOMP_* entry points");
}

bool hs_omp__enabled(void)
{
	return omp_enabled;
}


void hs_omp__ompt_started(const char *path)
{
	if (path)
		hs_omp__runtime("libomp", path);
	__atomic_store_n(&hs_omp_result.ompt, true, __ATOMIC_RELEASE);
	omp__tell("OMPT");
}

void hs_omp__refuse(const char *why)
{
	snprintf(hs_omp_result.reason, sizeof(hs_omp_result.reason), "%s", why);
	__atomic_store_n(&hs_omp_result.refused, true, __ATOMIC_RELEASE);
	if (omp_enabled)
		hs_log(HS_LOG_ERROR, "HPCSHIM_OPENMP: %s: constructs not recorded", why);
}

/* The top-level "openmp", after "regions" and the ranges. */
static const struct agg_section omp_section = {
	.name = "openmp",
	.order = 20,
	.tail = hs_omp_result__tail,
};

/* Also in a flush and the MPI snapshot (partial: other threads run): the
 * constructs, the threads' list and their pages of figures are published
 * with release and read with acquire, each figure is a relaxed atomic of
 * its one writer (construct.c), so reading them beside running threads is
 * safe; a construct under way shows the shares ended so far. */
static void omp__result(struct agg_process *p, bool partial)
{
	(void)partial;
	if (!omp_enabled)
		return;
	if (!hs_omp_result.kind && !hs_omp_result.refused && !hs_omp_construct__count())
		return;
	agg_sections__add(&p->sections, &omp_section, &hs_omp_result);
}

static void omp__fork_child(void)
{
	hs_omp_construct__fork_child();
}

const struct hs_feature hs_openmp_feature = {
	.name = "openmp",
	.config = omp__config,
	.start = omp__start,
	.fork_child = omp__fork_child,
	.result = omp__result,
	.slot = &hs_omp_slot,
};
