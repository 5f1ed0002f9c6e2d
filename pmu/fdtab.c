/* fdtab.c - which descriptors are ours, and still ours.
 *
 * A program may close descriptors it did not open: daemons and shells close
 * everything at start, dup2() onto a number, close_range().  If one of ours
 * goes that way and the number is reused, a read() of "our" counter would
 * consume the program's data and a close() would close its file.  So every
 * counter fd is registered here, the preload layer revokes numbers the
 * program closes, and pmu/ never reads or closes a revoked number.
 *
 * One byte per descriptor, in pages of 64 Ki numbers: the first page is
 * static (.bss), the others are allocated when a number in them is first
 * registered (our descriptors live above the program's RLIMIT_NOFILE,
 * fdspace.c, which may be anywhere up to the kernel's nr_open, 2^30).  A
 * page, once published, is never freed, so the read path is two plain
 * loads and no lock.  Relaxed atomics; a close racing with a read in
 * another thread is not covered.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "pmu/internal.h"

#define PAGE_BITS 16
#define PAGE_SIZE_FDS (1u << PAGE_BITS)
#define MAX_FDS (1u << 30) /* the kernel's ceiling for nr_open */
#define NPAGES (MAX_FDS / PAGE_SIZE_FDS)

/* Bumped by every revocation: a reader that checked its descriptors at
 * generation g need not check them again while it is still g. */
uint64_t pmu_fdtab__gen = 1;

static uint8_t first_page[PAGE_SIZE_FDS];
static uint8_t *pages[NPAGES] = { first_page };

static uint8_t *fdtab__slot(int fd, bool create)
{
	unsigned int n = (unsigned int)fd;
	uint8_t *page;

	if (fd < 0 || n >= MAX_FDS)
		return NULL;
	page = __atomic_load_n(&pages[n >> PAGE_BITS], __ATOMIC_ACQUIRE);
	if (!page && create) {
		uint8_t *fresh = calloc(PAGE_SIZE_FDS, 1), *none = NULL;

		if (!fresh)
			return NULL;
		if (__atomic_compare_exchange_n(&pages[n >> PAGE_BITS], &none, fresh,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			page = fresh;
		else {
			free(fresh); /* another thread published its page */
			page = none;
		}
	}
	return page ? &page[n & (PAGE_SIZE_FDS - 1)] : NULL;
}

bool pmu_fdtab__tracked(int fd)
{
	return fd >= 0 && (unsigned int)fd < MAX_FDS;
}

void pmu_fdtab__own(int fd)
{
	uint8_t *s = fdtab__slot(fd, true);

	if (s)
		__atomic_store_n(s, 1, __ATOMIC_RELAXED);
}

bool pmu_fdtab__valid(int fd)
{
	uint8_t *s = fdtab__slot(fd, false);

	return s && __atomic_load_n(s, __ATOMIC_RELAXED) != 0;
}

bool pmu_fdtab__revoke(int fd)
{
	uint8_t *s = fdtab__slot(fd, false);

	if (!s || __atomic_exchange_n(s, 0, __ATOMIC_RELAXED) == 0)
		return false;
	__atomic_fetch_add(&pmu_fdtab__gen, 1, __ATOMIC_RELEASE);
	return true;
}

/* Only the pages that exist: closefrom(3) costs one pass over the numbers
 * of the pages in use, not over 2^30. */
void pmu_fdtab__revoke_range(unsigned int first, unsigned int last)
{
	__atomic_fetch_add(&pmu_fdtab__gen, 1, __ATOMIC_RELEASE);
	if (last >= MAX_FDS)
		last = MAX_FDS - 1;
	for (unsigned int p = first >> PAGE_BITS; first <= last && p < NPAGES; p++) {
		uint8_t *page = __atomic_load_n(&pages[p], __ATOMIC_ACQUIRE);
		unsigned int end = (p + 1) * PAGE_SIZE_FDS - 1;

		if (end > last)
			end = last;
		for (unsigned int fd = first; page && fd <= end; fd++)
			__atomic_exchange_n(&page[fd & (PAGE_SIZE_FDS - 1)], 0,
					    __ATOMIC_RELAXED);
		first = end + 1;
	}
}
