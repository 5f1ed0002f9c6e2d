/* openmp_work.c - annotated sample: unequal work across an OpenMP team.
 *
 * Usage: openmp_work            (team size: OMP_NUM_THREADS or the default)
 *
 * Region "serial" runs on the main thread before the parallel part.  In
 * the parallel part every OpenMP thread wraps its share of a
 * schedule(static) loop in region "omp_loop"; the loop has CHUNK
 * iterations per thread and iteration i costs (i / CHUNK + 1) units, so
 * with the static schedule thread t does work proportional to t + 1.
 * Under hpcshim the per-thread task-clock of "omp_loop" grows with t.
 * The work is integer hashing, so the printed result is exact and
 * independent of timing (it depends only on the team size).
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#include "annotate/hpcshim.h"

#define CHUNK 64        /* loop iterations per thread */
#define STEPS 300000    /* xorshift steps per unit: roughly 0.3 ms */
#define SERIAL_UNITS 64 /* serial part: about as much as thread 0 */

/* `units` x STEPS rounds of xorshift64 from a seed: pure CPU work whose
 * result cannot be optimised away or vary between runs. */
static uint64_t work(uint64_t seed, long units)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;

	for (long i = 0; i < units * STEPS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static uint64_t serial_part(void)
{
	uint64_t r;

	HPC_BEGIN("serial");
	r = work(12345, SERIAL_UNITS);
	HPC_END("serial");
	return r;
}

/* Returns the sum of the iteration hashes; *team gets the team size.
 * The loop bound is the team actually granted (omp_get_num_threads), so
 * the static schedule still gives thread t exactly block t.  nowait keeps
 * the loop's barrier out of "omp_loop": each thread's region measures its
 * own share only, not the time spent waiting for the slowest thread. */
static uint64_t parallel_part(int *team)
{
	uint64_t sum = 0;

#pragma omp parallel
	{
		long n = (long)omp_get_num_threads() * CHUNK;

#pragma omp master
		*team = omp_get_num_threads();

		HPC_BEGIN("omp_loop");
#pragma omp for schedule(static) reduction(+ : sum) nowait
		for (long i = 0; i < n; i++)
			sum += work((uint64_t)i, i / CHUNK + 1);
		HPC_END("omp_loop");
	}
	return sum;
}

int main(void)
{
	uint64_t s = serial_part(), p;
	int team = 0;

	p = parallel_part(&team);
	printf("openmp threads %d serial %016llx parallel %016llx\n", team,
	       (unsigned long long)s, (unsigned long long)p);
	return 0;
}
