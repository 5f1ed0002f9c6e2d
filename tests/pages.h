/* pages.h - fresh pages with exactly one page fault each, for the test
 * programs (C and C++).  The mapping is made before and removed after the
 * caller's region, so only the touches fall inside it. */
#ifndef HPCSHIM_TESTS_PAGES_H
#define HPCSHIM_TESTS_PAGES_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096

/* pages fresh 4 KiB pages (at least one is mapped); exits 99 on failure. */
static inline char *map_pages(long pages)
{
	size_t len = (size_t)(pages > 0 ? pages : 1) * PAGE;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(99);
	}
	/* No transparent huge pages: one fault must mean one 4 KiB page. */
	madvise(p, len, MADV_NOHUGEPAGE);
	return (char *)p;
}

static inline void unmap_pages(char *p, long pages)
{
	munmap(p, (size_t)(pages > 0 ? pages : 1) * PAGE);
}

/* First touch of each page: one minor fault per page. */
static inline void touch(char *p, long pages)
{
	for (long i = 0; i < pages; i++)
		p[i * PAGE] = 1;
}

/* Touch the next 64 KiB of this thread's stack once, early.  A region whose
 * calls go deeper than the program has been before takes a real fault on a
 * fresh stack page; where that page boundary falls moves with the kernel's
 * random stack offset, so a test counting exact faults would see one more
 * about once in a hundred runs (recursion, 301 of 300). */
static __attribute__((noinline, unused)) void prefault_stack(void)
{
	volatile char buf[64 * 1024];

	for (size_t i = 0; i < sizeof(buf); i += 256)
		buf[i] = 0;
}

#endif
