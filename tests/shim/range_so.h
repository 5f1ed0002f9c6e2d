/* range_so.h - librange_so.so, linked into tests/shim/range_prog (so: form). */
#ifndef HPCSHIM_TESTS_RANGE_SO_H
#define HPCSHIM_TESTS_RANGE_SO_H

/* First-touches pages pages of size page at p: one fault per page, every
 * one inside this shared object. */
void so_touch(char *p, long pages, long page);

#endif
