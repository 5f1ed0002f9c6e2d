/* tramp.c - the register trampoline: the wrapper of a function whose
 * arguments all travel in registers, with no libffi on the call path.
 *
 * A libffi closure classifies the arguments on every call (its entry copies
 * them into avalue[], ffi_call or closure.c's direct call copies them back):
 * that grows with the argument count and cost as much as a region pair for
 * seven arguments.  When every argument is an integer, pointer, float or
 * double, none of them goes on the stack, and the result is one of those or
 * void, nothing needs classifying: the argument registers hold the call
 * exactly as the caller made it.  The trampoline saves them, calls
 * tramp__begin (the region's BEGIN, returns the original), restores them,
 * calls the original, saves the result registers, calls tramp__end (END,
 * errno kept) and returns.  Its frame sits between the caller's and the
 * original's; the original reads no argument from the caller's frame (none
 * is on the stack), so the caller's return address simply stays in it: no
 * shadow stack.  The bits are forwarded untouched, so narrow integers keep
 * whatever extension the caller gave them, as in a direct call.
 *
 * A target's entry is one of TRAMP_N stubs in this file's text (no code is
 * written at run time): stub i puts i in a scratch register the calling
 * convention leaves free at a call (x86-64 r11, AArch64 x16, which a PLT
 * stub clobbers anyway) and jumps to the common code; tramp__tab[i] is the
 * target.  With every stub taken, or on another architecture, targets use
 * the libffi closure (closure.c).
 *
 * The common code has CFI, so a C++ exception unwinds through its frame;
 * a longjmp out of the original just leaves it (the region code closes
 * the frame at the thread's next boundary above the stack position given,
 * the trampoline's frame).
 */
#include <errno.h>
#include <stdint.h>

#include "preload/core/core.h"
#include "preload/wrap/internal.h"

#define TRAMP_N 1024

#if defined(__x86_64__) || defined(__aarch64__)

/* Written once under hs_wrap.lock before the stub is published (a slot
 * store with release order), read by the calls. */
__attribute__((visibility("hidden"))) struct wrap_target *hs_wrap_tramp__tab[TRAMP_N];
static int tramp_used;

__attribute__((visibility("hidden"))) void *hs_wrap_tramp__begin(unsigned i,
								 uintptr_t sp);
__attribute__((visibility("hidden"))) void hs_wrap_tramp__end(unsigned i, uintptr_t sp);
extern const char hs_wrap_tramp__stubs[] __attribute__((visibility("hidden")));

/* The saved argument and result registers in the frame (sp): below. */
#if defined(__x86_64__)
#define TRAMP_ARG(sp, k) (((const uint64_t *)(sp))[k])
#define TRAMP_RET(sp) (((const uint64_t *)(sp))[0])
#elif defined(__aarch64__)
#define TRAMP_ARG(sp, k) (((const uint64_t *)(sp))[2 + (k)])
#define TRAMP_RET(sp) (((const uint64_t *)(sp))[2])
#endif

void *hs_wrap_tramp__begin(unsigned i, uintptr_t sp)
{
	struct wrap_target *tg = hs_wrap_tramp__tab[i];
	struct wrap_spec *s = tg->spec;

	if (!hs_wrap__enter(s))
		return tg->orig;
#ifdef TRAMP_ARG
	/* Before the region begins: outside the call's counts. */
	if (s->bkind == WB_SEND && hs_wrap.in_mpi)
		hs_wrap_bytes__send(s, (int)TRAMP_ARG(sp, s->bcount),
				    (uintptr_t)TRAMP_ARG(sp, s->btype));
#endif
	/* The region's BEGIN last, as a tail call: it returns the original. */
	return hs_region__call_begin_to(&s->site, s->name, sp, tg->orig);
}

void hs_wrap_tramp__end(unsigned i, uintptr_t sp)
{
	struct wrap_spec *s = hs_wrap_tramp__tab[i]->spec;
	int err;

	if (!hs_wrap__leave(s))
		return;
	err = errno;
	hs_region__call_end(&s->site, s->name, sp);
#ifdef TRAMP_RET
	if (hs_wrap.in_mpi && s->bkind == WB_RET)
		hs_wrap_bytes__ret(s, (intptr_t)TRAMP_RET(sp));
#endif
	errno = err;
}

#if defined(__x86_64__)
#define TRAMP_INT 6
#define TRAMP_STUB 16
#ifdef __CET__
#define TRAMP_ENDBR "endbr64\n"
#else
#define TRAMP_ENDBR ""
#endif
/* Frame (rsp after the sub, 16-byte aligned for the calls):
 *   0..48   rdi rsi rdx rcx r8 r9 rax (rax: vector count of a varargs
 *           call; kept for fidelity) -- after the call: rax, rdx
 *   56..112 xmm0-7 (low 64 bits: scalars only) -- after: xmm0, xmm1
 *   120     stub index, 128 the original */
__asm__(".text\n"
	".p2align 4\n"
	".type hs_wrap_tramp__common, @function\n"
	"hs_wrap_tramp__common:\n"
	".cfi_startproc\n"
	"sub $136, %rsp\n"
	".cfi_adjust_cfa_offset 136\n"
	"mov %rdi, 0(%rsp)\n"
	"mov %rsi, 8(%rsp)\n"
	"mov %rdx, 16(%rsp)\n"
	"mov %rcx, 24(%rsp)\n"
	"mov %r8, 32(%rsp)\n"
	"mov %r9, 40(%rsp)\n"
	"mov %rax, 48(%rsp)\n"
	"movq %xmm0, 56(%rsp)\n"
	"movq %xmm1, 64(%rsp)\n"
	"movq %xmm2, 72(%rsp)\n"
	"movq %xmm3, 80(%rsp)\n"
	"movq %xmm4, 88(%rsp)\n"
	"movq %xmm5, 96(%rsp)\n"
	"movq %xmm6, 104(%rsp)\n"
	"movq %xmm7, 112(%rsp)\n"
	"mov %r11, 120(%rsp)\n"
	"mov %r11d, %edi\n"
	"mov %rsp, %rsi\n"
	"call hs_wrap_tramp__begin\n"
	"mov %rax, 128(%rsp)\n"
	"mov 0(%rsp), %rdi\n"
	"mov 8(%rsp), %rsi\n"
	"mov 16(%rsp), %rdx\n"
	"mov 24(%rsp), %rcx\n"
	"mov 32(%rsp), %r8\n"
	"mov 40(%rsp), %r9\n"
	"mov 48(%rsp), %rax\n"
	"movq 56(%rsp), %xmm0\n"
	"movq 64(%rsp), %xmm1\n"
	"movq 72(%rsp), %xmm2\n"
	"movq 80(%rsp), %xmm3\n"
	"movq 88(%rsp), %xmm4\n"
	"movq 96(%rsp), %xmm5\n"
	"movq 104(%rsp), %xmm6\n"
	"movq 112(%rsp), %xmm7\n"
	"call *128(%rsp)\n"
	"mov %rax, 0(%rsp)\n"
	"mov %rdx, 8(%rsp)\n"
	"movq %xmm0, 56(%rsp)\n"
	"movq %xmm1, 64(%rsp)\n"
	"mov 120(%rsp), %edi\n"
	"mov %rsp, %rsi\n"
	"call hs_wrap_tramp__end\n"
	"mov 0(%rsp), %rax\n"
	"mov 8(%rsp), %rdx\n"
	"movq 56(%rsp), %xmm0\n"
	"movq 64(%rsp), %xmm1\n"
	"add $136, %rsp\n"
	".cfi_adjust_cfa_offset -136\n"
	"ret\n"
	".cfi_endproc\n"
	".size hs_wrap_tramp__common, .-hs_wrap_tramp__common\n"
	/* The stubs: 16 bytes each. */
	".p2align 4\n"
	".globl hs_wrap_tramp__stubs\n"
	".hidden hs_wrap_tramp__stubs\n"
	".type hs_wrap_tramp__stubs, @function\n"
	"hs_wrap_tramp__stubs:\n"
	".set hs_wrap_tramp__i, 0\n"
	".rept 1024\n" TRAMP_ENDBR "movl $hs_wrap_tramp__i, %r11d\n"
	"jmp hs_wrap_tramp__common\n"
	".p2align 4\n"
	".set hs_wrap_tramp__i, hs_wrap_tramp__i + 1\n"
	".endr\n"
	".size hs_wrap_tramp__stubs, .-hs_wrap_tramp__stubs\n");
#else
#define TRAMP_INT 8
#define TRAMP_STUB 8
/* Frame (sp after the push, x29 = sp):
 *   0 x29, 8 x30, 16..80 x0-x7, 80 x8 (indirect result), 88 stub index,
 *   96..152 d0-d7, 160 the original -- after the call: x0, x1 at 16, 24;
 *   d0-d3 at 96..120 (a homogeneous float aggregate is not taken here,
 *   kept anyway) */
__asm__(".text\n"
	".p2align 4\n"
	".type hs_wrap_tramp__common, %function\n"
	"hs_wrap_tramp__common:\n"
	".cfi_startproc\n"
	"stp x29, x30, [sp, #-176]!\n"
	".cfi_def_cfa_offset 176\n"
	".cfi_offset x29, -176\n"
	".cfi_offset x30, -168\n"
	"mov x29, sp\n"
	".cfi_def_cfa_register x29\n"
	"stp x0, x1, [sp, #16]\n"
	"stp x2, x3, [sp, #32]\n"
	"stp x4, x5, [sp, #48]\n"
	"stp x6, x7, [sp, #64]\n"
	"stp x8, x16, [sp, #80]\n"
	"stp d0, d1, [sp, #96]\n"
	"stp d2, d3, [sp, #112]\n"
	"stp d4, d5, [sp, #128]\n"
	"stp d6, d7, [sp, #144]\n"
	"mov w0, w16\n"
	"mov x1, sp\n"
	"bl hs_wrap_tramp__begin\n"
	"mov x16, x0\n"
	"str x0, [sp, #160]\n"
	"ldp x0, x1, [sp, #16]\n"
	"ldp x2, x3, [sp, #32]\n"
	"ldp x4, x5, [sp, #48]\n"
	"ldp x6, x7, [sp, #64]\n"
	"ldr x8, [sp, #80]\n"
	"ldp d0, d1, [sp, #96]\n"
	"ldp d2, d3, [sp, #112]\n"
	"ldp d4, d5, [sp, #128]\n"
	"ldp d6, d7, [sp, #144]\n"
	"blr x16\n"
	"stp x0, x1, [sp, #16]\n"
	"stp d0, d1, [sp, #96]\n"
	"stp d2, d3, [sp, #112]\n"
	"ldr w0, [sp, #88]\n"
	"mov x1, sp\n"
	"bl hs_wrap_tramp__end\n"
	"ldp x0, x1, [sp, #16]\n"
	"ldp d0, d1, [sp, #96]\n"
	"ldp d2, d3, [sp, #112]\n"
	"ldp x29, x30, [sp], #176\n"
	".cfi_restore x29\n"
	".cfi_restore x30\n"
	".cfi_def_cfa sp, 0\n"
	"ret\n"
	".cfi_endproc\n"
	".size hs_wrap_tramp__common, .-hs_wrap_tramp__common\n"
	/* The stubs: 8 bytes each. */
	".p2align 3\n"
	".globl hs_wrap_tramp__stubs\n"
	".hidden hs_wrap_tramp__stubs\n"
	".type hs_wrap_tramp__stubs, %function\n"
	"hs_wrap_tramp__stubs:\n"
	".set hs_wrap_tramp__i, 0\n"
	".rept 1024\n"
	"mov w16, #hs_wrap_tramp__i\n"
	"b hs_wrap_tramp__common\n"
	".set hs_wrap_tramp__i, hs_wrap_tramp__i + 1\n"
	".endr\n"
	".size hs_wrap_tramp__stubs, .-hs_wrap_tramp__stubs\n");
#endif

_Static_assert(TRAMP_N == 1024, "the .rept counts above");

static bool kind__reg(enum wsig_kind k, int *ni, int *nf)
{
	switch (k) {
	case WSIG_FLOAT:
	case WSIG_DOUBLE:
		return ++*nf <= 8;
	case WSIG_VOID:
	case WSIG_STRUCT:
	case WSIG_VECTOR:
	case WSIG_LDOUBLE:
		return false;
	default:
		return ++*ni <= TRAMP_INT;
	}
}

bool hs_wrap_tramp__fits(const struct wsig *sig)
{
	int ni = 0, nf = 0, rni = 0, rnf = 0;

	for (int i = 0; i < sig->nargs; i++)
		if (!kind__reg(sig->arg[i].kind, &ni, &nf))
			return false;
	return sig->ret.kind == WSIG_VOID || kind__reg(sig->ret.kind, &rni, &rnf);
}

void *hs_wrap_tramp__claim(struct wrap_target *tg)
{
	if (tramp_used >= TRAMP_N)
		return NULL;
	hs_wrap_tramp__tab[tramp_used] = tg;
	return (void *)(hs_wrap_tramp__stubs + (size_t)tramp_used++ * TRAMP_STUB);
}

#else

bool hs_wrap_tramp__fits(const struct wsig *sig)
{
	(void)sig;
	return false;
}

void *hs_wrap_tramp__claim(struct wrap_target *tg)
{
	(void)tg;
	return NULL;
}

#endif
