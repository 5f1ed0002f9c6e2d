/* measure.h - what measuring costs: calibrated at start, told in every
 * answer, and kept small at automatic points (measure.c). */
#ifndef HPCSHIM_PRELOAD_MEASURE_H
#define HPCSHIM_PRELOAD_MEASURE_H

#include "preload/core/feature.h"

extern const struct hs_feature hs_measure_feature;

#endif
