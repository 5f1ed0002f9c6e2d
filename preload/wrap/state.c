/* state.c - the state the wrap feature's files share (internal.h). */
#include "preload/wrap/internal.h"

struct wrap_state_all hs_wrap = { .lock = PTHREAD_MUTEX_INITIALIZER };

__thread unsigned hs_wrap_mpi_open __attribute__((tls_model("initial-exec")));
__thread unsigned hs_wrap_passed __attribute__((tls_model("initial-exec")));
