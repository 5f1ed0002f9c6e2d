/* varparse.h - the shapes HPCSHIM_* values share (internal).
 *
 * Every comma list is split the same way (blanks trimmed, empty items
 * skipped) and every keyword variable is checked and reported the same
 * way, whichever module owns the variable. */
#ifndef HPCSHIM_VARPARSE_H
#define HPCSHIM_VARPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Receives one item: not NUL-terminated, len > 0. */
typedef void (*hs_var_item_fn)(void *ctx, const char *item, size_t len);

/* Calls fn for every non-empty item of the comma list v (NULL: none),
 * blanks and tabs around it trimmed. */
void hs_var__each_item(const char *v, hs_var_item_fn fn, void *ctx);

/* One line "VAR='v' <what>": the value cut to 40 characters (then "..."),
 * what formatted like printf.  How every bad single value is reported. */
void hs_var__bad(const char *var, const char *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The index of v in names[0..n); unset or empty gives dflt, anything else
 * one line "VAR='v' is not a, b or c; using <names[dflt]>" and dflt. */
int hs_var__choice(const char *var, const char *v, const char *const *names, int n,
		   int dflt);

/* The unsigned integer at the start of s, in [lo, hi]: decimal digits,
 * or with hex also "0x" or "0X" and hexadecimal digits.  No sign, no blank
 * (strtoul's leading blanks, '-' and octal are what this replaces: an
 * environment value means what it shows).  *end is the first character
 * after the digits.  false when s starts with no digit, the number does
 * not fit in 64 bits or lies outside [lo, hi]. */
bool hs_var__uint_at(const char *s, bool hex, uint64_t lo, uint64_t hi,
		     const char **end, uint64_t *n);

/* The same for a whole value: decimal, nothing after the digits. */
bool hs_var__uint(const char *v, uint64_t lo, uint64_t hi, uint64_t *n);

/* "<digits><unit>" with unit ns, us, ms or s -> ns; false when malformed
 * or outside [lo, hi]. */
bool hs_var__duration(const char *v, uint64_t lo, uint64_t hi, uint64_t *ns);

#endif
