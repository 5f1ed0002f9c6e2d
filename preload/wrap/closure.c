/* closure.c - the wrapper of a function: a libffi closure with the
 * function's own signature, whose handler opens the region, calls the
 * original with the same arguments (ffi_call) and closes the region.
 *
 * One closure per (spec, definition): two libraries may define the same
 * name and each slot keeps going to the definition it was bound to.  The
 * region is the spec's (name, cached site id): no string hashing per call.
 * errno as the original left it is what the caller sees.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preload/core/core.h"
#include "preload/wrap/internal.h"

static ffi_type *kind__ffi(enum wsig_kind k)
{
	switch (k) {
	case WSIG_VOID: return &ffi_type_void;
	case WSIG_S8: return &ffi_type_sint8;
	case WSIG_U8: return &ffi_type_uint8;
	case WSIG_S16: return &ffi_type_sint16;
	case WSIG_U16: return &ffi_type_uint16;
	case WSIG_S32: return &ffi_type_sint32;
	case WSIG_U32: return &ffi_type_uint32;
	case WSIG_S64: return &ffi_type_sint64;
	case WSIG_U64: return &ffi_type_uint64;
	case WSIG_FLOAT: return &ffi_type_float;
	case WSIG_DOUBLE: return &ffi_type_double;
	case WSIG_LDOUBLE: return &ffi_type_longdouble;
	case WSIG_POINTER: return &ffi_type_pointer;
	/* An MPI handle is an int in MPICH and a pointer in Open MPI: passing
	 * an int as a pointer-sized value would forward the register's
	 * undefined upper half, harmless in a register but not in general,
	 * so the width is the loaded MPI's. */
	case WSIG_HANDLE:
		return hs_wrap.handle_is_pointer ? &ffi_type_pointer :
						   &ffi_type_sint32;
	default: return NULL;
	}
}

static ffi_type *type__ffi(struct wrap_spec *s, const struct wsig_type *t, int slot)
{
	ffi_type *st;

	if (t->kind != WSIG_STRUCT)
		return kind__ffi(t->kind);
	st = &s->structs[slot];
	for (int i = 0; i < t->nfields; i++)
		s->fields[slot][i] = kind__ffi(t->field[i]);
	s->fields[slot][t->nfields] = NULL;
	st->size = 0;
	st->alignment = 0;
	st->type = FFI_TYPE_STRUCT;
	st->elements = s->fields[slot];
	return st;
}

bool hs_wrap_closure__prepare(struct wrap_spec *s)
{
	for (int i = 0; i < s->sig.nargs; i++)
		if (!(s->atypes[i] = type__ffi(s, &s->sig.arg[i], i)))
			goto bad;
	s->rtype = type__ffi(s, &s->sig.ret, WSIG_MAX_ARGS);
	if (!s->rtype ||
	    ffi_prep_cif(&s->cif, FFI_DEFAULT_ABI, (unsigned)s->sig.nargs, s->rtype,
			 s->atypes) != FFI_OK)
		goto bad;
	return true;
bad:
	s->state = WS_REFUSED;
	s->status = "refused: signature";
	s->reason = "libffi cannot call this signature";
	return false;
}

/* The wrapper.  The stack position recorded is this frame's: below the
 * caller's, above anything the original calls.  A longjmp or exception
 * out of the original skips the end; the region code closes the frame at
 * the thread's next boundary above it (hs_region__call_begin). */
static void closure__handler(ffi_cif *cif, void *ret, void **args, void *data)
{
	struct wrap_target *tg = data;
	struct wrap_spec *s = tg->spec;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	int err;

	hs_region__call_begin(&s->site, s->name, sp);
	ffi_call(cif, FFI_FN(tg->orig), ret, args);
	err = errno;
	hs_region__call_end(&s->site, s->name, sp);
	errno = err;
}

struct wrap_target *hs_wrap_closure__target(struct wrap_spec *s, void *orig)
{
	struct wrap_target *tg;

	for (tg = s->targets; tg; tg = tg->next)
		if (tg->orig == orig)
			return tg;
	tg = calloc(1, sizeof(*tg));
	if (!tg)
		return NULL;
	tg->spec = s;
	tg->orig = orig;
	tg->closure = ffi_closure_alloc(sizeof(ffi_closure), &tg->code);
	if (!tg->closure ||
	    ffi_prep_closure_loc(tg->closure, &s->cif, closure__handler, tg,
				 tg->code) != FFI_OK) {
		if (tg->closure)
			ffi_closure_free(tg->closure);
		free(tg);
		return NULL;
	}
	/* Published last: readers walk the list without the lock. */
	tg->next = s->targets;
	__atomic_store_n(&s->targets, tg, __ATOMIC_RELEASE);
	return tg;
}

struct wrap_target *hs_wrap_closure__by_code(const void *code)
{
	for (int i = 0; i < hs_wrap.n; i++)
		for (struct wrap_target *tg =
			     __atomic_load_n(&hs_wrap.spec[i].targets, __ATOMIC_ACQUIRE);
		     tg; tg = tg->next)
			if (tg->code == code)
				return tg;
	return NULL;
}
