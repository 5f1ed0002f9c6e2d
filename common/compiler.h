/* compiler.h - branch hints for the hot paths (region boundaries, the
 * counter read).  GNU C; the project builds with gnu11. */
#ifndef HPCSHIM_COMMON_COMPILER_H
#define HPCSHIM_COMMON_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Not instrumented by a sanitizer: the shim's dlsym and the lookup of
 * libc's, which a sanitizer's runtime calls while it starts, before its
 * per-thread state exists (TSan crashed every program at its first
 * intercepted function). */
#define HS_NO_SANITIZE __attribute__((no_sanitize("thread", "address", "undefined")))

#endif
