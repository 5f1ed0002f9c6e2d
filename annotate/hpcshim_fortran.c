/* hpcshim_fortran.c - the C side of the Fortran module `hpcshim`.
 *
 * Fortran has no weak references, so the module's procedures call these
 * functions, which reach the shim through the weak references of
 * <hpcshim.h>: a program linked with libhpcshim_fortran runs unchanged
 * without the shim, and each call then costs a branch.
 *
 * A Fortran string arrives as (address, length), blank-padded and not
 * NUL-terminated.  Trailing blanks are trimmed (as LEN_TRIM does), the
 * rest is copied into a stack buffer and terminated; a name too long for
 * the buffer is copied to the heap instead.  A NUL inside the name ends it
 * on the C side.
 */
#include <stdlib.h>
#include <string.h>

#include "annotate/hpcshim.h"

/* Called from annotate/hpcshim.f90 only (bind(C) interfaces there). */
void hpcshim_fortran_begin(const char *name, size_t len);
void hpcshim_fortran_end(const char *name, size_t len);
void hpcshim_fortran_thread_name(const char *name, size_t len);
int hpcshim_fortran_active(void);

/* Region names are short; 256 bytes keep a call off the heap. */
#define FNAME_STACK 256

struct fname {
	char buf[FNAME_STACK];
	char *heap;
};

/* A C string with the contents of the Fortran string (s, len), or NULL
 * when a long name cannot be copied (the call is then skipped: a
 * truncated name could pair a BEGIN with the wrong END). */
static const char *fname__get(struct fname *f, const char *s, size_t len)
{
	char *d = f->buf;

	while (len > 0 && s[len - 1] == ' ')
		len--;
	f->heap = NULL;
	if (len >= sizeof(f->buf)) {
		f->heap = malloc(len + 1);
		if (!f->heap)
			return NULL;
		d = f->heap;
	}
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

static void fname__put(struct fname *f)
{
	free(f->heap);
}

/* Without the shim there is nothing to copy the name for. */
#define FNAME_CALL(fn, macro, s, len)                                       \
	do {                                                                \
		struct fname f;                                             \
		const char *c;                                              \
		if (!HPCSHIM__FN(fn))                                       \
			return;                                             \
		c = fname__get(&f, (s), (len));                             \
		if (c)                                                      \
			macro(c);                                           \
		fname__put(&f);                                             \
	} while (0)

void hpcshim_fortran_begin(const char *name, size_t len)
{
	FNAME_CALL(hpcshim_region_begin, HPC_BEGIN, name, len);
}

void hpcshim_fortran_end(const char *name, size_t len)
{
	FNAME_CALL(hpcshim_region_end, HPC_END, name, len);
}

void hpcshim_fortran_thread_name(const char *name, size_t len)
{
	FNAME_CALL(hpcshim_thread_name, HPC_THREAD_NAME, name, len);
}

int hpcshim_fortran_active(void)
{
	return HPC_ACTIVE();
}
