/* state.c - the process object and the calling thread's object, read by
 * every part of the shim (core.h).  Data only. */
#include <unistd.h>

#include "preload/core/core.h"

struct hs_process hs_proc = { .lock = PTHREAD_MUTEX_INITIALIZER };

__thread struct hs_thread *hs_self __attribute__((tls_model("initial-exec")));

bool hs_process__foreign(void)
{
	return getpid() != hs_proc.pid;
}
