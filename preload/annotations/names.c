/* names.c - every function of LIKWID's Marker API and PAPI's high-level
 * API the shim defines, from one table.
 *
 * The shim is preloaded, so its definitions come before liblikwid's and
 * libpapi's in symbol resolution: a program linked with -llikwid or
 * -lpapi calls these.  Each one, while the shim counts with its API on
 * (HPCSHIM_ANNOTATIONS, annotations.c), makes the call a region boundary
 * and the real library never runs; otherwise (the shim dormant, the API
 * off) it forwards to the real function, the next definition after the
 * shim (dlsym(RTLD_NEXT) through preload/base/real.h), so the program
 * runs as it does without the shim.
 *
 * The table names each exported function with its shape (the signature,
 * C or Fortran) and the shim's operation; one definition per shape makes
 * them all.  The Fortran names are the ones the libraries export (nm -D):
 * LIKWID's gfortran spelling (lower case, one underscore: its likwid.mod),
 * PAPI's four (papif_hl_x, _x_, _x__, PAPIF_HL_X).  gfortran passes each
 * CHARACTER argument's length after the other arguments, as a size_t.
 * Exported through preload/hpcshim.map (likwid_marker*, PAPI_hl_*,
 * papif_hl_*, PAPIF_HL_*).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include "common/compiler.h"
#include "preload/annotations/internal.h"
#include "preload/base/real.h"

#define HS_EXPORT __attribute__((visibility("default")))

/* PAPIF_HL_*'s four spellings of one function. */
#define ANN_PAPIF(X, shape, lower, upper, op) \
	X(shape, PAPI, lower, op)             \
	X(shape, PAPI, lower##_, op)          \
	X(shape, PAPI, lower##__, op) X(shape, PAPI, upper, op)

/* X(shape, api, exported name, operation hs_ann__<op>) */
#define ANN_TABLE(X)                                                                  \
	X(V_V, LIKWID, likwid_markerInit, likwid_init)                                \
	X(V_V, LIKWID, likwid_markerThreadInit, nothing)                              \
	X(I_S, LIKWID, likwid_markerRegisterRegion, likwid_register)                  \
	X(I_S, LIKWID, likwid_markerStartRegion, likwid_start)                        \
	X(I_S, LIKWID, likwid_markerStopRegion, likwid_stop)                          \
	X(I_S, LIKWID, likwid_markerResetRegion, likwid_reset)                        \
	X(V_GET, LIKWID, likwid_markerGetRegion, likwid_get)                          \
	X(V_V, LIKWID, likwid_markerNextGroup, nothing)                               \
	X(V_V, LIKWID, likwid_markerClose, likwid_close)                              \
	X(V_V, LIKWID, likwid_markerinit_, likwid_init)                               \
	X(V_V, LIKWID, likwid_markerthreadinit_, nothing)                             \
	X(V_FS, LIKWID, likwid_markerregisterregion_, likwid_register)                \
	X(V_FS, LIKWID, likwid_markerstartregion_, likwid_start)                      \
	X(V_FS, LIKWID, likwid_markerstopregion_, likwid_stop)                        \
	X(V_FS, LIKWID, likwid_markerresetregion_, likwid_reset)                      \
	X(V_FGET, LIKWID, likwid_markergetregion_, likwid_get)                        \
	X(V_V, LIKWID, likwid_markernextgroup_, nothing)                              \
	X(V_V, LIKWID, likwid_markerclose_, likwid_close)                             \
	X(I_S, PAPI, PAPI_hl_region_begin, papi_begin)                                \
	X(I_S, PAPI, PAPI_hl_region_end, papi_end)                                    \
	X(I_S, PAPI, PAPI_hl_read, papi_read)                                         \
	X(I_V, PAPI, PAPI_hl_stop, papi_stop)                                         \
	ANN_PAPIF(X, V_FSC, papif_hl_region_begin, PAPIF_HL_REGION_BEGIN, papi_begin) \
	ANN_PAPIF(X, V_FSC, papif_hl_region_end, PAPIF_HL_REGION_END, papi_end)       \
	ANN_PAPIF(X, V_FSC, papif_hl_read, PAPIF_HL_READ, papi_read)                  \
	ANN_PAPIF(X, V_C, papif_hl_stop, PAPIF_HL_STOP, papi_stop)

/* What a call returns when the real library is missing (only a lookup of
 * the shim's own export gets there): LIKWID's "not initialised", PAPI's
 * PAPI_ENOTRUN. */
#define ANN_ABSENT_LIKWID (-EFAULT)
#define ANN_ABSENT_PAPI HS_PAPI_ENOTRUN

static void hs_ann__nothing(void)
{
}

/* ---- the real functions ---------------------------------------------- */

#define ANN_INDEX(shape, api, name, op) ANN_IX_##name,
enum { ANN_TABLE(ANN_INDEX) ANN_N };
#undef ANN_INDEX

static void *ann_real[ANN_N];

/* The next definition of name after the shim, looked up once; NULL when
 * no loaded library has one. */
static void *ann__real(int ix, const char *name)
{
	void *f = __atomic_load_n(&ann_real[ix], __ATOMIC_ACQUIRE);

	if (unlikely(!f)) {
		hs_real_dlsym_fn ds = hs_real__dlsym();

		f = ds ? ds(RTLD_NEXT, name) : NULL;
		if (f)
			__atomic_store_n(&ann_real[ix], f, __ATOMIC_RELEASE);
	}
	return f;
}

#define ANN_REAL(name, type) ((type)ann__real(ANN_IX_##name, #name))

/* ---- one definition per shape ----------------------------------------- */

typedef void v_v_fn(void);
typedef int i_s_fn(const char *);
typedef int i_v_fn(void);
typedef void v_get_fn(const char *, int *, double *, double *, int *);
typedef void v_fs_fn(const char *, size_t);
typedef void v_fget_fn(const char *, int *, double *, double *, int *, size_t);
typedef void v_fsc_fn(const char *, int *, size_t);
typedef void v_c_fn(int *);

#define ANN_ON(api) likely(hs_ann__handles(HS_ANN_##api))

/* A Fortran name as a C string for the length of one statement. */
#define ANN_FNAME(s, len, body)                                        \
	do {                                                           \
		char buf_[HS_ANN_FNAME], *heap_;                       \
		const char *tag = hs_ann__fname(s, len, buf_, &heap_); \
		if (tag) {                                             \
			body;                                          \
		}                                                      \
		free(heap_);                                           \
	} while (0)

#define ANN_DEF_V_V(api, name, op)                     \
	HS_EXPORT void name(void)                      \
	{                                              \
		v_v_fn *real;                          \
		if (ANN_ON(api)) {                     \
			hs_ann__##op();                \
			return;                        \
		}                                      \
		if ((real = ANN_REAL(name, v_v_fn *))) \
			real();                        \
	}

#define ANN_DEF_I_S(api, name, op)                        \
	HS_EXPORT int name(const char *s)                 \
	{                                                 \
		i_s_fn *real;                             \
		if (ANN_ON(api))                          \
			return hs_ann__##op(s);           \
		real = ANN_REAL(name, i_s_fn *);          \
		return real ? real(s) : ANN_ABSENT_##api; \
	}

#define ANN_DEF_I_V(api, name, op)                       \
	HS_EXPORT int name(void)                         \
	{                                                \
		i_v_fn *real;                            \
		if (ANN_ON(api))                         \
			return hs_ann__##op();           \
		real = ANN_REAL(name, i_v_fn *);         \
		return real ? real() : ANN_ABSENT_##api; \
	}

#define ANN_DEF_V_GET(api, name, op)                                                 \
	HS_EXPORT void name(const char *s, int *n, double *ev, double *tm, int *cnt) \
	{                                                                            \
		v_get_fn *real;                                                      \
		if (ANN_ON(api)) {                                                   \
			hs_ann__##op(s, n, ev, tm, cnt);                             \
			return;                                                      \
		}                                                                    \
		if ((real = ANN_REAL(name, v_get_fn *)))                             \
			real(s, n, ev, tm, cnt);                                     \
	}

#define ANN_DEF_V_FS(api, name, op)                                 \
	HS_EXPORT void name(const char *s, size_t len)              \
	{                                                           \
		v_fs_fn *real;                                      \
		if (ANN_ON(api)) {                                  \
			ANN_FNAME(s, len, (void)hs_ann__##op(tag)); \
			return;                                     \
		}                                                   \
		if ((real = ANN_REAL(name, v_fs_fn *)))             \
			real(s, len);                               \
	}

#define ANN_DEF_V_FGET(api, name, op)                                         \
	HS_EXPORT void name(const char *s, int *n, double *ev, double *tm,    \
			    int *cnt, size_t len)                             \
	{                                                                     \
		v_fget_fn *real;                                              \
		if (ANN_ON(api)) {                                            \
			ANN_FNAME(s, len, hs_ann__##op(tag, n, ev, tm, cnt)); \
			return;                                               \
		}                                                             \
		if ((real = ANN_REAL(name, v_fget_fn *)))                     \
			real(s, n, ev, tm, cnt, len);                         \
	}

#define ANN_DEF_V_FSC(api, name, op)                                \
	HS_EXPORT void name(const char *s, int *check, size_t len)  \
	{                                                           \
		v_fsc_fn *real;                                     \
		if (ANN_ON(api)) {                                  \
			int rc_ = 0;                                \
			ANN_FNAME(s, len, rc_ = hs_ann__##op(tag)); \
			if (check)                                  \
				*check = rc_;                       \
			return;                                     \
		}                                                   \
		if ((real = ANN_REAL(name, v_fsc_fn *)))            \
			real(s, check, len);                        \
		else if (check)                                     \
			*check = ANN_ABSENT_##api;                  \
	}

#define ANN_DEF_V_C(api, name, op)                     \
	HS_EXPORT void name(int *check)                \
	{                                              \
		v_c_fn *real;                          \
		if (ANN_ON(api)) {                     \
			int rc_ = hs_ann__##op();      \
			if (check)                     \
				*check = rc_;          \
			return;                        \
		}                                      \
		if ((real = ANN_REAL(name, v_c_fn *))) \
			real(check);                   \
		else if (check)                        \
			*check = ANN_ABSENT_##api;     \
	}

/* Their prototypes first (the exported names have no header here). */
#define ANN_PROTO_V_V(name) void name(void);
#define ANN_PROTO_I_S(name) int name(const char *);
#define ANN_PROTO_I_V(name) int name(void);
#define ANN_PROTO_V_GET(name) \
	void name(const char *, int *, double *, double *, int *);
#define ANN_PROTO_V_FS(name) void name(const char *, size_t);
#define ANN_PROTO_V_FGET(name) \
	void name(const char *, int *, double *, double *, int *, size_t);
#define ANN_PROTO_V_FSC(name) void name(const char *, int *, size_t);
#define ANN_PROTO_V_C(name) void name(int *);
#define ANN_DECLARE(shape, api, name, op) HS_EXPORT ANN_PROTO_##shape(name)
ANN_TABLE(ANN_DECLARE)
#undef ANN_DECLARE

#define ANN_DEFINE(shape, api, name, op) ANN_DEF_##shape(api, name, op)
ANN_TABLE(ANN_DEFINE)
#undef ANN_DEFINE
