/* quiet.c - an image that did nothing measurable writes no file at exec.
 *
 * A shell that forks and execs a command used to leave, for every command,
 * a file of the fork child's few microseconds ("end": "exec", nothing in
 * it).  "Measurable" is decided from this image's own start (hs_quiet__mark:
 * the constructor of an exec'd image, the fork handler's end in a fork
 * child) to the exec: one thread only, no region entered or ended (the
 * region records, their calls and the open depth are as at the mark), and
 * below both floors (quiet.h) of CPU time and page faults, which the
 * kernel gives per process whatever events are counted.  A shell's fork
 * child takes 40-130 us and 15-35 faults; touching a megabyte alone is
 * 256 faults.
 */
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "preload/base/log.h"
#include "preload/core/core.h"
#include "preload/core/quiet.h"

static struct {
	uint64_t cpu_ns, faults;
	size_t nregions;
	uint64_t calls;
	int depth;
} base;

static void quiet__now(uint64_t *cpu_ns, uint64_t *faults)
{
	struct timespec ts = { 0, 0 };
	struct rusage ru = { 0 };

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	getrusage(RUSAGE_SELF, &ru);
	*cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	*faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
}

/* The calling thread's region records: how many, and their calls. */
static void quiet__regions(size_t *n, uint64_t *calls, int *depth)
{
	struct hs_thread *t = hs_self;

	*n = 0;
	*calls = 0;
	*depth = 0;
	if (!t || !t->agg)
		return;
	*depth = t->depth;
	for (struct agg_region *r = t->agg->head; r; r = r->next) {
		(*n)++;
		*calls += __atomic_load_n(&r->calls, __ATOMIC_RELAXED);
	}
}

void hs_quiet__mark(void)
{
	quiet__now(&base.cpu_ns, &base.faults);
	quiet__regions(&base.nregions, &base.calls, &base.depth);
}

bool hs_quiet__nothing(void)
{
	uint64_t cpu, faults, calls;
	size_t n;
	int depth;
	bool alone;

	/* Held: another thread is starting or ending (not alone), or this
	 * one is, and exec was called from a signal handler. */
	if (pthread_mutex_trylock(&hs_proc.lock) != 0)
		return false;
	alone = !hs_proc.done && hs_proc.live == hs_self &&
		(!hs_self || !hs_self->next);
	pthread_mutex_unlock(&hs_proc.lock);
	if (!alone || __atomic_load_n(&hs_proc.uncovered_calls, __ATOMIC_RELAXED))
		return false;
	quiet__regions(&n, &calls, &depth);
	if (n != base.nregions || calls != base.calls || depth != base.depth)
		return false;
	quiet__now(&cpu, &faults);
	cpu -= base.cpu_ns;
	faults -= base.faults;
	hs_log(HS_LOG_DEBUG, "image of pid %d: %llu us of CPU, %llu page faults",
	       (int)getpid(), (unsigned long long)cpu / 1000,
	       (unsigned long long)faults);
	return cpu < HS_QUIET_CPU_NS && faults < HS_QUIET_FAULTS;
}
