/* compiler.h - branch hints for the hot paths (region boundaries, the
 * counter read).  GNU C; the project builds with gnu11. */
#ifndef HPCSHIM_COMMON_COMPILER_H
#define HPCSHIM_COMMON_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#endif
