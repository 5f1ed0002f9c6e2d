/* internal.h - the pieces of the wrap feature and the state they share.
 *
 *   spec.c     HPCSHIM_WRAP -> specs with signatures (data/wrap/NAME.sig)
 *   ffi.c      libffi, loaded when the first closure needs it
 *   closure.c  a libffi closure per (spec, original): the region handler
 *   tramp.c    the register trampoline: no libffi for register-only calls
 *   got.c      the GOT slots (PLT and GLOB_DAT) of every loaded object
 *   dlsym.c    dlsym/dlvsym answered with the wrapper
 *   wrap.c     the feature: its variables, start, dlopen, results
 */
#ifndef HPCSHIM_PRELOAD_WRAP_INTERNAL_H
#define HPCSHIM_PRELOAD_WRAP_INTERNAL_H

#include <ffi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "aggregate/wrap.h"
#include "annotate/hpcshim.h"
#include "presets/wrapsig.h"

/* One definition of a wrapped function and its closure. */
struct wrap_target {
	struct wrap_spec *spec;
	void *orig; /* the definition the calls go to   */
	void *code; /* the closure's entry: what slots get */
	ffi_closure *closure;
	struct wrap_target *next;
};

enum wrap_state {
	WS_PENDING, /* may be wrapped: its slots are patched as found      */
	WS_REFUSED, /* never patched; status and reason say why          */
};

/* How a wrapped call reaches the original (docs/wrapping.md). */
enum wrap_path {
	WRAP_REGISTERS, /* tramp.c: every argument in a register, no libffi   */
	WRAP_DIRECT,    /* libffi closure, the original called through a C
			 * prototype (closure.c): scalars, some on the stack */
	WRAP_FFI_CALL,  /* libffi closure and ffi_call: the rest             */
};

struct wrap_spec {
	char *name, *object, *set; /* object: name@object, or NULL */
	struct wsig sig;
	bool has_sig;
	enum wrap_state state;
	const char *status, *reason; /* REFUSED: static text            */
	void *object_def;            /* name@object: that definition    */
	ffi_cif cif;
	ffi_type *atypes[WSIG_MAX_ARGS];
	ffi_type *rtype;
	ffi_type structs[WSIG_MAX_ARGS + 1];
	ffi_type *fields[WSIG_MAX_ARGS + 1][WSIG_MAX_FIELDS + 1];
	enum wrap_path path; /* how a call reaches the original          */
	struct hpcshim_site site;
	struct wrap_target *targets; /* under wrap_lock                 */
	uint64_t slots, dlsym;       /* atomic                          */
	char defobj[256];            /* where the first original is     */
	bool told;                   /* its stderr line written         */
	bool mpi;                    /* an MPI_ or PMPI_ name           */
	signed char bkind, bcount, btype; /* bytes.c: its bytes rule        */
	uint64_t bytes;              /* atomic: bytes.c                 */
};

/* bytes.c: how a call's bytes are known (HPCSHIM_PROFILE only). */
enum { WB_NONE, WB_SEND, WB_RET };
void hs_wrap_bytes__rule(struct wrap_spec *s);
void hs_wrap_bytes__send(struct wrap_spec *s, int count, uintptr_t type);
void hs_wrap_bytes__ret(struct wrap_spec *s, intptr_t ret);

struct wrap_state_all {
	pthread_mutex_t lock; /* the specs' targets, patching */
	int n;
	struct wrap_spec *spec;
	/* Name -> spec, open addressing (got.c looks up every relocation). */
	int *tab;
	size_t cap;
	bool handle_is_pointer; /* MPI handles: Open MPI pointers, else int */
	bool in_mpi; /* HPCSHIM_PROFILE: calls inside an MPI call are its time */
	struct agg_wrap result;
	struct agg_wrap_spec *out;
};

extern struct wrap_state_all hs_wrap;

/* HPCSHIM_PROFILE (hs_wrap.in_mpi): a wrapped call made while a wrapped
 * MPI call is open on the thread (the MPI library's own read or write) is
 * not a region of its own: its time stays the MPI call's, as mpiP counts
 * it.  Calls nest, so two per-thread counters pair every end with its
 * begin: the MPI calls open, and the calls passed over inside them. */
extern __thread unsigned hs_wrap_mpi_open, hs_wrap_passed
	__attribute__((tls_model("initial-exec")));

/* Whether the call of s about to begin is a region. */
static inline bool hs_wrap__enter(const struct wrap_spec *s)
{
	if (!hs_wrap.in_mpi)
		return true;
	if (s->mpi) {
		hs_wrap_mpi_open++;
		return true;
	}
	if (hs_wrap_mpi_open) {
		hs_wrap_passed++;
		return false;
	}
	return true;
}

/* Whether the call of s about to end was a region. */
static inline bool hs_wrap__leave(const struct wrap_spec *s)
{
	if (!hs_wrap.in_mpi)
		return true;
	if (s->mpi) {
		if (hs_wrap_mpi_open)
			hs_wrap_mpi_open--;
		return true;
	}
	if (hs_wrap_passed) {
		hs_wrap_passed--;
		return false;
	}
	return true;
}

/* spec.c: parse the variable, find signatures, refuse what must be.
 * Returns the number of specs (0: nothing to do). */
int hs_wrap_spec__load(const char *var, const char *path);
struct wrap_spec *hs_wrap_spec__find(const char *name);

/* configure.ac finds the soname of the libffi built against. */
#ifndef HS_FFI_SONAME
#define HS_FFI_SONAME "libffi.so"
#endif

/* ffi.c: libffi's functions and types, found when first needed.  A
 * closure's code calls through this table, not libffi's own names. */
#define WRAP_FFI_NAMES(X)                                                       \
	X(prep_cif, ffi_prep_cif)                                               \
	X(call, ffi_call)                                                       \
	X(closure_alloc, ffi_closure_alloc)                                     \
	X(closure_free, ffi_closure_free)                                       \
	X(prep_closure_loc, ffi_prep_closure_loc)                               \
	X(t_void, ffi_type_void)                                                \
	X(t_sint8, ffi_type_sint8)                                              \
	X(t_uint8, ffi_type_uint8)                                              \
	X(t_sint16, ffi_type_sint16)                                            \
	X(t_uint16, ffi_type_uint16)                                            \
	X(t_sint32, ffi_type_sint32)                                            \
	X(t_uint32, ffi_type_uint32)                                            \
	X(t_sint64, ffi_type_sint64)                                            \
	X(t_uint64, ffi_type_uint64)                                            \
	X(t_float, ffi_type_float)                                              \
	X(t_double, ffi_type_double)                                            \
	X(t_longdouble, ffi_type_longdouble)                                    \
	X(t_pointer, ffi_type_pointer)

struct wrap_ffi {
	__typeof__(ffi_prep_cif) *prep_cif;
	__typeof__(ffi_call) *call;
	__typeof__(ffi_closure_alloc) *closure_alloc;
	__typeof__(ffi_closure_free) *closure_free;
	__typeof__(ffi_prep_closure_loc) *prep_closure_loc;
	ffi_type *t_void, *t_sint8, *t_uint8, *t_sint16, *t_uint16, *t_sint32,
		*t_uint32, *t_sint64, *t_uint64, *t_float, *t_double, *t_longdouble,
		*t_pointer;
};

extern struct wrap_ffi hs_wrap_ffi;

/* Loads libffi once; false when it cannot be loaded. */
bool hs_wrap_ffi__load(void);

/* closure.c: prepares the spec's cif (false: refused, status set); the
 * target for orig (created on first sight), under hs_wrap.lock. */
bool hs_wrap_closure__prepare(struct wrap_spec *s);
struct wrap_target *hs_wrap_closure__target(struct wrap_spec *s, void *orig);
/* The original behind a wrapper's entry, or NULL. */
struct wrap_target *hs_wrap_closure__by_code(const void *code);

/* tramp.c: whether every argument and the result of sig travel in
 * registers; a trampoline entry for tg (NULL: none left, use a closure). */
bool hs_wrap_tramp__fits(const struct wsig *sig);
void *hs_wrap_tramp__claim(struct wrap_target *tg);

/* got.c: patch the slots of the objects loaded since the last call (at
 * the first, every loaded object), and the slots still pending in the
 * others (a wrapped name whose definition arrived since).  Under
 * hs_wrap.lock. */
void hs_wrap_got__patch_new(void);

/* dlsym.c: the replacements of dlsym and dlvsym in the program's slots. */
void *hs_wrap_dlsym__dlsym(void *handle, const char *name);
void *hs_wrap_dlsym__dlvsym(void *handle, const char *name, const char *version);
/* The definition a lookup of name from object lm would find: the global
 * scope first, then lm's own. */
void *hs_wrap_dlsym__resolve(const char *name, void *lm);

#endif
