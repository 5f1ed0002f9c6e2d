/* guest_wraplib.h - the pmubed guest's wrapped library (guest_wraplib.c). */
#ifndef PMUBED_GUEST_WRAPLIB_H
#define PMUBED_GUEST_WRAPLIB_H
#include <stdint.h>

typedef void pw_f1_fn(uint64_t n);
typedef void pw_f7_fn(uint64_t n, double a, int b, double c, long d, double e, int f);
pw_f1_fn pw_f1;
pw_f7_fn pw_f7;
/* The originals, by a pointer HPCSHIM_WRAP does not patch. */
pw_f1_fn *pw_orig1(void);
pw_f7_fn *pw_orig7(void);
#endif
