/* site.c - process-wide region ids for call-site handles.
 *
 * A literal region name gets one small integer for the whole process, so a
 * call site can cache it (struct hpcshim_site) and each thread can find its
 * record for the region by indexing an array: no hashing and no string
 * comparison after a site's first call.  Interning takes a lock, but only
 * on that first call per site.
 */
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "annotate/hpcshim.h"
#include "preload/core/core.h"

struct site_name {
	const char *name; /* our copy */
	int id;
};

static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;
static struct site_name *site_tab; /* open addressing by name hash */
static size_t site_cap, site_n;

static uint64_t site__hash(const char *s)
{
	return hs_hash__str(HS_HASH_INIT, s);
}

static int site__grow(void)
{
	size_t cap = site_cap ? 2 * site_cap : 256;
	struct site_name *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -1;
	for (size_t i = 0; i < site_cap; i++) {
		size_t j;
		if (!site_tab[i].name)
			continue;
		for (j = site__hash(site_tab[i].name) & (cap - 1); tab[j].name;
		     j = (j + 1) & (cap - 1))
			;
		tab[j] = site_tab[i];
	}
	free(site_tab);
	site_tab = tab;
	site_cap = cap;
	return 0;
}

/* The id of name (1, 2, ...), or 0 when out of memory. */
static int site__intern(const char *name)
{
	size_t i;
	int id = 0;

	pthread_mutex_lock(&site_lock);
	if (2 * (site_n + 1) > site_cap && site__grow() < 0)
		goto out;
	for (i = site__hash(name) & (site_cap - 1); site_tab[i].name;
	     i = (i + 1) & (site_cap - 1)) {
		if (strcmp(site_tab[i].name, name) == 0) {
			id = site_tab[i].id;
			goto out;
		}
	}
	site_tab[i].name = strdup(name);
	if (site_tab[i].name) {
		site_tab[i].id = id = (int)++site_n;
	}
out:
	pthread_mutex_unlock(&site_lock);
	return id;
}

int hs_site__resolve(struct hpcshim_site *site, const char *name)
{
	int id = site__intern(name);

	/* Racing first calls store the same pair.  The id goes last: a reader
	 * that sees it also sees the name it belongs to. */
	if (id) {
		__atomic_store_n(&site->name, name, __ATOMIC_RELAXED);
		__atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
	}
	return id;
}

/* fork(): the child must not inherit the lock held by a thread it does not
 * have, nor a table half rehashed. */
void hs_site__fork_prepare(void)
{
	pthread_mutex_lock(&site_lock);
}

void hs_site__fork_parent(void)
{
	pthread_mutex_unlock(&site_lock);
}

void hs_site__fork_child(void)
{
	pthread_mutex_init(&site_lock, NULL);
}
