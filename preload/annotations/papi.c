/* papi.c - PAPI's high-level API under the shim: each call a region
 * boundary (annotations.c), answered with what PAPI 7 answers, misuse
 * included (docs/annotations.md), so that a program that checks its
 * return codes takes the same path with and without the shim.
 *
 * From PAPI 7.0.0's src/high-level/papi_hl.c (tests/shim/test_markers.py
 * runs the same calls against the real library where it can count):
 *
 *   - its state is per thread: whether the thread ever began a region (an
 *     end or a read before that is PAPI_EMISC), whether its event set
 *     runs (PAPI_hl_stop: PAPI_OK, then PAPI_ENOEVNT until the next
 *     begin starts it again), and a stack of the thread's regions, 11
 *     deep at most (PAPIHL_MAX_STACK_SIZE 10, and the push tests before it
 *     writes; the next begin is PAPI_ENOMEM);
 *   - an end matches the innermost region begun only, by name: any other
 *     end is PAPI_EINVAL;
 *   - a read of anything but the innermost region is ignored: PAPI_OK;
 *   - an error inside PAPI (the EINVAL and ENOMEM above) switches the
 *     whole API off for the process (_internal_hl_clean_up_all): every
 *     later begin, read and end is PAPI_EMISC, and the failing thread's
 *     event set is stopped.
 *
 * Here the API switched off begins and ends nothing more; regions it left
 * open stay open (closed at their thread's end, as any).  A NULL name,
 * which PAPI 7.0.0 dereferences (SIGSEGV), is PAPI_EINVAL, PAPI's code
 * for a bad argument, and changes nothing at a begin.
 */
#include <stdbool.h>
#include <string.h>

#include "annotate/hpcshim.h"
#include "common/compiler.h"
#include "preload/annotations/internal.h"
#include "preload/base/log.h"
#include "preload/core/core.h"

#define PAPI_DEPTH 11

/* PAPI's per-thread state (thread-local in papi_hl.c too): a region is
 * known by its note, one per name in the process. */
struct papi_thread {
	bool begun, running;
	int depth;
	struct ann_note *stack[PAPI_DEPTH];
};

static __thread struct papi_thread papi_self __attribute__((tls_model("initial-exec")));
static int papi_off; /* the API switched off, process-wide (atomic) */

/* Whether the API is off; a call then also stops the calling thread's
 * event set, as PAPI's cleans the thread up. */
static bool papi__off(struct papi_thread *p)
{
	if (likely(!__atomic_load_n(&papi_off, __ATOMIC_RELAXED)))
		return false;
	p->running = false;
	return true;
}

/* An error that switches the API off; rc is returned.  PAPI says why
 * only when asked (PAPI_HL_VERBOSE); here once, always: the regions that
 * stop coming would otherwise go unexplained. */
static int papi__fail(struct papi_thread *p, const char *call, const char *name, int rc,
		      const char *why)
{
	p->running = false;
	if (!__atomic_exchange_n(&papi_off, 1, __ATOMIC_RELAXED))
		hs_log(HS_LOG_ERROR,
		       "%s(\"%s\") returns %d: %s; as in PAPI, its high-level API is off "
		       "from here (PAPI_EMISC), the regions it began and did not end stay open",
		       call, name ? name : "(null)", rc, why);
	return rc;
}

/* Whether name is the innermost region the thread began. */
static bool papi__top(const struct papi_thread *p, const char *name)
{
	return p->depth > 0 && name && hs_ann__note_find(name) == p->stack[p->depth - 1];
}

int hs_ann__papi_begin(const char *name)
{
	struct papi_thread *p = &papi_self;
	struct ann_note *n;

	if (papi__off(p))
		return HS_PAPI_EMISC;
	if (unlikely(!name))
		return HS_PAPI_EINVAL;
	if (unlikely(p->depth == PAPI_DEPTH))
		return papi__fail(p, "PAPI_hl_region_begin", name, HS_PAPI_ENOMEM,
				  "PAPI nests 11 regions at most");
	n = hs_ann__begin(HS_ANN_PAPI, name);
	if (unlikely(!n))
		return HS_PAPI_ENOMEM;
	p->stack[p->depth++] = n;
	p->begun = p->running = true;
	return HS_PAPI_OK;
}

int hs_ann__papi_end(const char *name)
{
	struct papi_thread *p = &papi_self;

	if (papi__off(p) || !p->begun)
		return HS_PAPI_EMISC;
	if (unlikely(!papi__top(p, name)))
		return papi__fail(p, "PAPI_hl_region_end", name, HS_PAPI_EINVAL,
				  "not the innermost region begun on this thread");
	p->depth--;
	hpcshim_region_end(name);
	return HS_PAPI_OK;
}

/* PAPI stores the counts since the region's begin as an intermediate
 * result of the region; here the read point is counted for the region
 * (its "reads" in "annotations"), the counts stay the region's. */
int hs_ann__papi_read(const char *name)
{
	struct papi_thread *p = &papi_self;

	if (papi__off(p) || !p->begun)
		return HS_PAPI_EMISC;
	if (papi__top(p, name) && hs_self)
		hs_ann__note_read(p->stack[p->depth - 1]);
	return HS_PAPI_OK;
}

/* Regions still open stay open (closed at the thread's end, as any). */
int hs_ann__papi_stop(void)
{
	struct papi_thread *p = &papi_self;

	if (!p->running)
		return HS_PAPI_ENOEVNT;
	p->running = false;
	return HS_PAPI_OK;
}
