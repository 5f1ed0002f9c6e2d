/* state.c - the state the range feature's files share (internal.h).
 * Data only: every file of the feature reads it, so that none of them
 * depends on another for it. */
#include "preload/range/internal.h"

struct hs_range_state hs_rng = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.epfd = -1,
	.bp_limit = -1,
	.method = -1,
};
