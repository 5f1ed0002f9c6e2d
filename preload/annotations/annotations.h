/* annotations.h - the annotations feature: LIKWID's Marker API and PAPI's
 * high-level regions as hpcshim regions (annotations.c, names.c). */
#ifndef HPCSHIM_PRELOAD_ANNOTATIONS_H
#define HPCSHIM_PRELOAD_ANNOTATIONS_H

#include "preload/core/feature.h"

extern const struct hs_feature hs_annotations_feature;

#endif
