/* view_mem.c - the view's memory (view_internal.h): blocks freed at once,
 * the record scratch, tables mapped apart from the heap.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "aggregate/view_internal.h"

/* ---- memory: one list of zeroed blocks, freed at once ---------------- */


static void *chunk__alloc(struct agg_view_chunk **list, size_t n, size_t size)
{
	struct agg_view_chunk *c;

	if (n && size > (SIZE_MAX - sizeof(*c)) / n)
		return NULL;
	c = calloc(1, sizeof(*c) + (n ? n * size : 1));
	if (!c)
		return NULL;
	c->next = *list;
	*list = c;
	return c->data;
}

static void chunk__free(struct agg_view_chunk **list)
{
	while (*list) {
		struct agg_view_chunk *c = *list;

		*list = c->next;
		free(c);
	}
}

/* Tables that grow with the number of region names (10^5 and more):
 * mapped apart from the heap, so that their memory goes back to the
 * system as soon as they are freed.  From malloc, a flush's tables would
 * stay in the flusher thread's arena while the end builds its own, and
 * the process would peak at both. */
#define BIG_POPULATE (256 * 1024)

void *agg_view__big_alloc(size_t n, size_t size)
{
	size_t len = n * size;
	void *p;

	if (n && size > SIZE_MAX / n)
		return NULL;
	/* A large table's pages in place at once: one system call, not one
	 * fault per page as it fills (MAP_POPULATE).  A small one's come as
	 * they are touched: most of a small process's tables are never
	 * filled. */
	p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (len >= BIG_POPULATE ? MAP_POPULATE : 0),
		 -1, 0);
	return p == MAP_FAILED ? NULL : p; /* zeroed */
}

void agg_view__big_free(void *p, size_t n, size_t size)
{
	size_t len = n * size;

	if (p)
		munmap(p, len ? len : 1);
}

/* What lives as long as the view. */
void *agg_view__alloc(struct agg_view *v, size_t n, size_t size)
{
	return chunk__alloc(&v->mem, n, size);
}

/* Frees a record's scratch but one standard block, kept for the next. */
void agg_view__release(struct agg_view *v)
{
	struct agg_view_chunk *keep = NULL;

	while (v->scratch) {
		struct agg_view_chunk *c = v->scratch;

		v->scratch = c->next;
		if (!keep && c->cap == SCRATCH_BLOCK) {
			keep = c;
			continue;
		}
		free(c);
	}
	if (keep) {
		keep->used = 0;
		keep->next = NULL;
		v->scratch = keep;
	}
}

void agg_view__mem_free(struct agg_view *v)
{
	chunk__free(&v->mem);
	chunk__free(&v->scratch);
}
