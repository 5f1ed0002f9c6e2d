/* openmp.h - the OpenMP feature (docs/openmp.md). */
#ifndef HPCSHIM_PRELOAD_OPENMP_H
#define HPCSHIM_PRELOAD_OPENMP_H

#include "preload/core/feature.h"

extern const struct hs_feature hs_openmp_feature;

#endif
