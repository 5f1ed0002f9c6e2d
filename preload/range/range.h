/* range.h - range restriction, checkpoints and start/stop triggers: the
 * feature's runtime (its configuration: preload/config/range.h).
 */
#ifndef HPCSHIM_RANGE_H
#define HPCSHIM_RANGE_H

#include <stdbool.h>
#include <sys/types.h>

#include "preload/config/range.h"

/* range.c: hooks called from shim.c, thread.c, fork.c, uncovered.c. */
struct hs_thread;
struct agg_range_info;
void hs_range__init(void);                 /* constructor, after the probe */
void hs_range__thread_start(struct hs_thread *t);
void hs_range__thread_stop(struct hs_thread *t);   /* before counters close */
void hs_range__fork_child(void);           /* first thing in the child    */
void hs_range__collect(bool in_signal);    /* under hs_proc.lock          */
const struct agg_range_info *hs_range__result(void);
bool hs_range__own_task(pid_t tid);        /* our drain thread            */
/* dlopen.c -> range.c: objects were loaded; resolve what waits for them. */
void hs_range__loaded(void);
/* dlopen.c: route dlopen through hs_range__loaded (only while a
 * checkpoint or trigger waits for an object not loaded yet). */
void hs_dlopen__hook(bool on);

#endif
