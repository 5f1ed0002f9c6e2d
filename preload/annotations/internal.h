/* internal.h - the annotations feature's parts (preload/annotations/).
 *
 * names.c defines every interposed function of LIKWID's Marker API and of
 * PAPI's high-level API from one table; each either forwards to the real
 * library (the shim dormant, or the API off in HPCSHIM_ANNOTATIONS) or
 * calls the operations below, which make hpcshim regions of the calls
 * (annotations.c).
 */
#ifndef HPCSHIM_PRELOAD_ANNOTATIONS_INTERNAL_H
#define HPCSHIM_PRELOAD_ANNOTATIONS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

/* The APIs, bits of HPCSHIM_ANNOTATIONS. */
enum hs_ann_api {
	HS_ANN_LIKWID = 1,
	HS_ANN_PAPI = 2,
};

/* The APIs the shim takes over in this process (set by the config hook;
 * 0 until then and when the shim is dormant: every call forwards). */
extern int hs_ann__on;

static inline bool hs_ann__handles(int api)
{
	return (__atomic_load_n(&hs_ann__on, __ATOMIC_RELAXED) & api) != 0;
}

/* ---- LIKWID's Marker API, under the shim (return values as LIKWID's) ---- */
void hs_ann__likwid_init(void);
void hs_ann__likwid_close(void);
int hs_ann__likwid_register(const char *tag);
int hs_ann__likwid_start(const char *tag);
int hs_ann__likwid_stop(const char *tag);
int hs_ann__likwid_reset(const char *tag);
void hs_ann__likwid_get(const char *tag, int *nevents, double *events, double *time,
			int *count);

/* ---- PAPI's high-level API, under the shim (papi.c: return values as
 * PAPI 7's) ------------------------------------------------------------- */
int hs_ann__papi_begin(const char *name);
int hs_ann__papi_end(const char *name);
int hs_ann__papi_read(const char *name);
int hs_ann__papi_stop(void);

/* PAPI's return codes (papi.h, PAPI 7): no papi.h here, the shim builds
 * without PAPI. */
enum {
	HS_PAPI_OK = 0,
	HS_PAPI_EINVAL = -1,
	HS_PAPI_ENOMEM = -2,
	HS_PAPI_ENOEVNT = -7,
	HS_PAPI_ENOTRUN = -9,
	HS_PAPI_EMISC = -14,
};

/* ---- annotations.c: a region boundary of the calling thread ------------ */

struct ann_note;
/* Begins region name for api, the name's note made first (outside the
 * region) and returned; NULL when out of memory (nothing begun). */
struct ann_note *hs_ann__begin(unsigned api, const char *name);

/* ---- notes.c: per region name, the APIs that named it, its read points -- */

/* The note of name: found in constant time with no lock once made;
 * get makes it (NULL: out of memory), find does not (NULL: none). */
struct ann_note *hs_ann__note_get(const char *name);
struct ann_note *hs_ann__note_find(const char *name);
void hs_ann__note_api(struct ann_note *n, unsigned api);
void hs_ann__note_read(struct ann_note *n);
/* Once, before any note: the table's fork handlers. */
void hs_ann__notes_init(void);
struct agg_process;
/* The "annotations" section of the results, when a name came; apis: the
 * APIs taken over (hs_ann__on: notes.c names no other part). */
void hs_ann__notes_result(struct agg_process *p, const int *apis);

/* ---- parse.c: what needs no process (unit-tested) ----------------------- */

/* HPCSHIM_ANNOTATIONS's value: the APIs' bits (unset or empty: both;
 * "off": 0), or -1 when it is not a list of likwid and papi, nor off. */
int hs_ann__parse(const char *v);

/* A Fortran CHARACTER argument (no NUL, blank-padded to len) as a C
 * string: trailing blanks trimmed, a CHAR(0) ends it.  In buf when it
 * fits, else malloc'd (*heap set; free it); NULL when out of memory. */
#define HS_ANN_FNAME 256
const char *hs_ann__fname(const char *s, size_t len, char *buf, char **heap);

#endif
