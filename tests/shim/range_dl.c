/* range_dl.c - librange_dl.so: loaded by tests/shim/range_prog with dlopen, for
 * ranges, checkpoints and triggers on objects loaded later
 * (tests/shim/test_range.py). */
void dl_touch(char *p, long pages, long page);
void dl_count(void);

static __attribute__((noipa)) void dl_static(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noipa)) void dl_touch(char *p, long pages, long page)
{
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
}

__attribute__((noipa)) void dl_count(void)
{
	dl_static();
}
