/* dropped.h - threads whose events could not be counted are never silent. */
#ifndef HPCSHIM_PRELOAD_DROPPED_H
#define HPCSHIM_PRELOAD_DROPPED_H

#include "preload/core/feature.h"

extern const struct hs_feature hs_dropped_feature;

#endif
