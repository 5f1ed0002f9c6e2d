/* wrap.h - HPCSHIM_WRAP, a feature of the shim (core/feature.h): named
 * library functions become regions at run time (docs/wrapping.md). */
#ifndef HPCSHIM_PRELOAD_WRAP_H
#define HPCSHIM_PRELOAD_WRAP_H

#include "preload/core/feature.h"

extern const struct hs_feature hs_wrap_feature;

#endif
