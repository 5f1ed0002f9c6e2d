/* fdtab.c - which descriptors are ours, and still ours.
 *
 * A program may close descriptors it did not open: daemons and shells close
 * everything at start, dup2() onto a number, close_range().  If one of ours
 * goes that way and the number is reused, a read() of "our" counter would
 * consume the program's data and a close() would close its file.  So every
 * counter fd is registered here, the preload layer revokes numbers the
 * program closes, and pmu/ never reads or closes a revoked number.
 *
 * One byte per descriptor below FDTAB_SIZE (64 KiB of .bss); numbers above
 * are not tracked.  Relaxed atomics: the check is a plain load on the read
 * path.  A close racing with a read in another thread is not covered.
 */
#include <stdint.h>
#include <unistd.h>

#include "pmu/internal.h"

#define FDTAB_SIZE 65536

static uint8_t fdtab[FDTAB_SIZE];

bool pmu_fdtab__tracked(int fd)
{
	return fd >= 0 && fd < FDTAB_SIZE;
}

void pmu_fdtab__own(int fd)
{
	if (pmu_fdtab__tracked(fd))
		__atomic_store_n(&fdtab[fd], 1, __ATOMIC_RELAXED);
}

bool pmu_fdtab__valid(int fd)
{
	if (!pmu_fdtab__tracked(fd))
		return fd >= 0;
	return __atomic_load_n(&fdtab[fd], __ATOMIC_RELAXED) != 0;
}

bool pmu_fdtab__revoke(int fd)
{
	if (!pmu_fdtab__tracked(fd))
		return false;
	return __atomic_exchange_n(&fdtab[fd], 0, __ATOMIC_RELAXED) != 0;
}

void pmu_fdtab__revoke_range(unsigned int first, unsigned int last)
{
	if (last >= FDTAB_SIZE)
		last = FDTAB_SIZE - 1;
	for (unsigned int fd = first; fd <= last; fd++)
		pmu_fdtab__revoke((int)fd);
}
