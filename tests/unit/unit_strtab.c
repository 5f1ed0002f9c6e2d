/* unit_strtab.c - common/strtab's lookups beside an intern, with no lock
 * (what preload/annotations/notes.c relies on): while one thread interns
 * NAMES strings, its slots growing a dozen times, readers look up
 * strings already interned (each must be found, at its index) and strings
 * not interned yet (each must be absent or at its own index, never
 * another's).  TAP through tests/unit/tap.h.  Built with -fsanitize=thread
 * by hand it must report nothing.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "common/strtab.h"
#include "tests/unit/tap.h"

#define NAMES 100000
#define READERS 2

static struct hs_strtab tab;
static size_t published; /* strings interned so far (atomic) */
static int writing = 1;  /* atomic */

struct reader {
	pthread_t th;
	uint64_t rng;
	long looks, wrong;
};

static void name_of(char *buf, size_t len, size_t i)
{
	snprintf(buf, len, "name-%zu", i);
}

/* The one interning thread: the table's contract asks no lock of it. */
static void *writer(void *arg)
{
	long *wrong = arg;
	char buf[32];
	bool added;

	for (size_t i = 0; i < NAMES; i++) {
		name_of(buf, sizeof(buf), i);
		if (hs_strtab__intern(&tab, buf, &added) != (long)i || !added)
			(*wrong)++;
		__atomic_store_n(&published, i + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&writing, 0, __ATOMIC_RELEASE);
	return NULL;
}

/* Looks up string i: must be at i, or (when may_miss) absent. */
static bool look(size_t i, bool may_miss)
{
	char buf[32];
	long got;

	name_of(buf, sizeof(buf), i);
	got = hs_strtab__lookup(&tab, buf);
	return got == (long)i || (may_miss && got == -1);
}

static void *reader(void *arg)
{
	struct reader *r = arg;

	while (__atomic_load_n(&writing, __ATOMIC_ACQUIRE)) {
		size_t n = __atomic_load_n(&published, __ATOMIC_ACQUIRE);

		r->rng ^= r->rng << 13; /* xorshift64 */
		r->rng ^= r->rng >> 7;
		r->rng ^= r->rng << 17;
		if (n && !look(r->rng % n, false))
			r->wrong++;
		if (!look(n + r->rng % 64, true)) /* being interned, or not yet */
			r->wrong++;
		r->looks++;
	}
	return NULL;
}

int main(void)
{
	struct reader rd[READERS] = { { 0 } };
	pthread_t w;
	long wrong_w = 0, wrong_r = 0, looks = 0, missing = 0;

	for (int k = 0; k < READERS; k++) {
		rd[k].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
		pthread_create(&rd[k].th, NULL, reader, &rd[k]);
	}
	pthread_create(&w, NULL, writer, &wrong_w);
	pthread_join(w, NULL);
	for (int k = 0; k < READERS; k++) {
		pthread_join(rd[k].th, NULL);
		wrong_r += rd[k].wrong;
		looks += rd[k].looks;
	}
	for (size_t i = 0; i < NAMES; i++)
		missing += !look(i, false);
	TAP_OK(wrong_w == 0, "strtab: %d strings interned by one thread, each index its order",
	       NAMES);
	TAP_OK(looks > 0 && wrong_r == 0,
	       "strtab: %ld lookups beside the interns, none wrong (%ld)", looks, wrong_r);
	TAP_OK(missing == 0, "strtab: every string found afterwards (%ld missing)", missing);
	hs_strtab__free(&tab);
	return tap_done();
}
