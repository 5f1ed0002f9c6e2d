/* closure.c - the wrapper of a function: a libffi closure with the
 * function's own signature, whose handler opens the region, calls the
 * original with the same arguments (a direct call through a C prototype,
 * or ffi_call) and closes the region.  Signatures whose arguments all
 * travel in registers take tramp.c's trampoline instead (no libffi per
 * call) while its stubs last.
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
	case WSIG_VOID:
		return hs_wrap_ffi.t_void;
	case WSIG_S8:
		return hs_wrap_ffi.t_sint8;
	case WSIG_U8:
		return hs_wrap_ffi.t_uint8;
	case WSIG_S16:
		return hs_wrap_ffi.t_sint16;
	case WSIG_U16:
		return hs_wrap_ffi.t_uint16;
	case WSIG_S32:
		return hs_wrap_ffi.t_sint32;
	case WSIG_U32:
		return hs_wrap_ffi.t_uint32;
	case WSIG_S64:
		return hs_wrap_ffi.t_sint64;
	case WSIG_U64:
		return hs_wrap_ffi.t_uint64;
	case WSIG_FLOAT:
		return hs_wrap_ffi.t_float;
	case WSIG_DOUBLE:
		return hs_wrap_ffi.t_double;
	case WSIG_LDOUBLE:
		return hs_wrap_ffi.t_longdouble;
	case WSIG_POINTER:
		return hs_wrap_ffi.t_pointer;
	/* An MPI handle is an int in MPICH and a pointer in Open MPI: passing
	 * an int as a pointer-sized value would forward the register's
	 * undefined upper half, harmless in a register but not in general,
	 * so the width is the loaded MPI's. */
	case WSIG_HANDLE:
		return hs_wrap.handle_is_pointer ? hs_wrap_ffi.t_pointer :
						   hs_wrap_ffi.t_sint32;
	default:
		return NULL;
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

/* ---- the direct call: no ffi_call for register-only signatures ------- *
 *
 * libffi classifies the arguments on every call, in the closure and in
 * ffi_call: about 500 instructions for one argument, 2000 for seven.  When
 * every argument is an integer, a pointer, float or double, and the
 * result one of those or void, the original is called through a C
 * prototype with all argument registers and DIRECT_STACK 8-byte stack
 * slots: in the x86-64 System V and AAPCS64 (Linux) conventions such
 * arguments take the next register of their class, and once those run out
 * the next 8-byte stack slot in argument order; an argument the callee
 * does not declare is a register or slot it never reads (the caller pops
 * the stack).  Variadic callees, where that is not so, are refused.
 * Integers narrower than 64 bits are extended as their type says, a
 * float's bits go in the low half of its register or slot.
 */
#if defined(__x86_64__)
#define DIRECT_INT 6
#elif defined(__aarch64__)
#define DIRECT_INT 8
#endif
#define DIRECT_FP 8
#define DIRECT_STACK 16

#ifdef DIRECT_INT
#if DIRECT_INT == 6
#define DIRECT_IARGS uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t
#define DIRECT_ICALL(a) a[0], a[1], a[2], a[3], a[4], a[5]
#else
#define DIRECT_IARGS \
	uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t
#define DIRECT_ICALL(a) a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
#endif
#define DIRECT_FARGS double, double, double, double, double, double, double, double
#define DIRECT_FCALL(f) f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]

#define DIRECT_SARGS                                                          \
	uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, \
		uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,   \
		uint64_t, uint64_t, uint64_t
#define DIRECT_SCALL(a)                                                           \
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], \
		a[12], a[13], a[14], a[15]

typedef uint64_t direct_int_fn(DIRECT_IARGS, DIRECT_FARGS);
typedef double direct_double_fn(DIRECT_IARGS, DIRECT_FARGS);
typedef float direct_float_fn(DIRECT_IARGS, DIRECT_FARGS);
typedef uint64_t stack_int_fn(DIRECT_IARGS, DIRECT_FARGS, DIRECT_SARGS);
typedef double stack_double_fn(DIRECT_IARGS, DIRECT_FARGS, DIRECT_SARGS);
typedef float stack_float_fn(DIRECT_IARGS, DIRECT_FARGS, DIRECT_SARGS);

static bool kind__fp(enum wsig_kind k)
{
	return k == WSIG_FLOAT || k == WSIG_DOUBLE;
}

static bool kind__int(enum wsig_kind k)
{
	return k != WSIG_VOID && k != WSIG_STRUCT && k != WSIG_VECTOR &&
	       k != WSIG_LDOUBLE && !kind__fp(k);
}

static bool direct__fits(const struct wsig *sig)
{
	int ni = 0, nf = 0, ns = 0;

	for (int i = 0; i < sig->nargs; i++) {
		enum wsig_kind k = sig->arg[i].kind;

		if (kind__fp(k))
			ns += ++nf > DIRECT_FP;
		else if (kind__int(k))
			ns += ++ni > DIRECT_INT;
		else
			return false;
	}
	return ns <= DIRECT_STACK &&
	       (sig->ret.kind == WSIG_VOID || kind__fp(sig->ret.kind) ||
		kind__int(sig->ret.kind));
}

/* An integer argument or result, extended to 64 bits as its type says. */
static uint64_t int__load(enum wsig_kind k, const void *p)
{
	switch (k) {
	case WSIG_S8:
		return (uint64_t)(int64_t) * (const int8_t *)p;
	case WSIG_U8:
		return *(const uint8_t *)p;
	case WSIG_S16:
		return (uint64_t)(int64_t) * (const int16_t *)p;
	case WSIG_U16:
		return *(const uint16_t *)p;
	case WSIG_S32:
		return (uint64_t)(int64_t) * (const int32_t *)p;
	case WSIG_U32:
		return *(const uint32_t *)p;
	case WSIG_HANDLE:
		return hs_wrap.handle_is_pointer ?
			       *(const uint64_t *)p :
			       (uint64_t)(int64_t) * (const int32_t *)p;
	default:
		return *(const uint64_t *)p;
	}
}

static void direct__call(const struct wsig *sig, void *fn, void *ret, void **args)
{
	uint64_t ia[DIRECT_INT] = { 0 }, sa[DIRECT_STACK] = { 0 }, r = 0;
	double fa[DIRECT_FP] = { 0 };
	int ni = 0, nf = 0, ns = 0;
	enum wsig_kind rk = sig->ret.kind;

	for (int i = 0; i < sig->nargs; i++) {
		enum wsig_kind k = sig->arg[i].kind;
		union {
			double d;
			uint64_t u;
		} v;

		if (k == WSIG_DOUBLE)
			memcpy(&v.u, args[i], sizeof(double));
		else if (k == WSIG_FLOAT)
			v.u = *(const uint32_t *)args[i];
		else
			v.u = int__load(k, args[i]);
		if (kind__fp(k) && nf < DIRECT_FP)
			fa[nf++] = v.d;
		else if (!kind__fp(k) && ni < DIRECT_INT)
			ia[ni++] = v.u;
		else
			sa[ns++] = v.u;
	}
	if (ns) {
		if (rk == WSIG_DOUBLE)
			*(double *)ret = ((stack_double_fn *)fn)(DIRECT_ICALL(ia),
								 DIRECT_FCALL(fa),
								 DIRECT_SCALL(sa));
		else if (rk == WSIG_FLOAT)
			*(float *)ret = ((stack_float_fn *)fn)(DIRECT_ICALL(ia),
							       DIRECT_FCALL(fa),
							       DIRECT_SCALL(sa));
		else
			r = ((stack_int_fn *)fn)(DIRECT_ICALL(ia), DIRECT_FCALL(fa),
						 DIRECT_SCALL(sa));
	} else if (rk == WSIG_DOUBLE) {
		*(double *)ret = ((direct_double_fn *)fn)(DIRECT_ICALL(ia),
							  DIRECT_FCALL(fa));
	} else if (rk == WSIG_FLOAT) {
		*(float *)ret = ((direct_float_fn *)fn)(DIRECT_ICALL(ia),
							DIRECT_FCALL(fa));
	} else {
		r = ((direct_int_fn *)fn)(DIRECT_ICALL(ia), DIRECT_FCALL(fa));
	}
	/* A closure's integer result fills a whole ffi_arg. */
	if (!kind__fp(rk) && rk != WSIG_VOID)
		*(ffi_arg *)ret = (ffi_arg)int__load(rk, &r);
}
#else
static bool direct__fits(const struct wsig *sig)
{
	(void)sig;
	return false;
}

static void direct__call(const struct wsig *sig, void *fn, void *ret, void **args)
{
	(void)sig, (void)fn, (void)ret, (void)args;
}
#endif

bool hs_wrap_closure__prepare(struct wrap_spec *s)
{
	if (!hs_wrap_ffi__load()) {
		s->state = WS_REFUSED;
		s->status = "refused: no libffi";
		s->reason = "libffi (" HS_FFI_SONAME ") cannot be loaded";
		return false;
	}
	s->path = hs_wrap_tramp__fits(&s->sig) ? WRAP_REGISTERS :
		  direct__fits(&s->sig)        ? WRAP_DIRECT :
						 WRAP_FFI_CALL;
	for (int i = 0; i < s->sig.nargs; i++)
		if (!(s->atypes[i] = type__ffi(s, &s->sig.arg[i], i)))
			goto bad;
	s->rtype = type__ffi(s, &s->sig.ret, WSIG_MAX_ARGS);
	if (!s->rtype ||
	    hs_wrap_ffi.prep_cif(&s->cif, FFI_DEFAULT_ABI, (unsigned)s->sig.nargs,
				 s->rtype, s->atypes) != FFI_OK)
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
	bool region = hs_wrap__enter(s);

	if (region) {
		hs_region__call_begin(&s->site, s->name, sp);
		if (s->bkind == WB_SEND && hs_wrap.in_mpi)
			hs_wrap_bytes__send(s, *(const int *)args[(int)s->bcount],
					    hs_wrap.handle_is_pointer ?
						    (uintptr_t)*(void *const *)args[(int)s->btype] :
						    (uintptr_t)*(const uint32_t *)args[(int)s->btype]);
	}
	if (s->path != WRAP_FFI_CALL)
		direct__call(&s->sig, tg->orig, ret, args);
	else
		hs_wrap_ffi.call(cif, FFI_FN(tg->orig), ret, args);
	err = errno;
	if (hs_wrap__leave(s)) {
		hs_region__call_end(&s->site, s->name, sp);
		if (s->bkind == WB_RET && hs_wrap.in_mpi)
			hs_wrap_bytes__ret(s, *(const intptr_t *)ret);
	}
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
	if (s->path == WRAP_REGISTERS) {
		if ((tg->code = hs_wrap_tramp__claim(tg)))
			goto publish;
		/* No stub left: a closure with the direct call (such a
		 * signature fits it), and the spec says so. */
		s->path = WRAP_DIRECT;
	}
	tg->closure = hs_wrap_ffi.closure_alloc(sizeof(ffi_closure), &tg->code);
	if (!tg->closure ||
	    hs_wrap_ffi.prep_closure_loc(tg->closure, &s->cif, closure__handler, tg,
					 tg->code) != FFI_OK) {
		if (tg->closure)
			hs_wrap_ffi.closure_free(tg->closure);
		free(tg);
		return NULL;
	}
publish:
	/* Published last: readers walk the list without the lock. */
	tg->next = s->targets;
	__atomic_store_n(&s->targets, tg, __ATOMIC_RELEASE);
	return tg;
}

struct wrap_target *hs_wrap_closure__by_code(const void *code)
{
	for (int i = 0; i < hs_wrap.n; i++)
		for (struct wrap_target *tg = __atomic_load_n(&hs_wrap.spec[i].targets,
							      __ATOMIC_ACQUIRE);
		     tg; tg = tg->next)
			if (tg->code == code)
				return tg;
	return NULL;
}
