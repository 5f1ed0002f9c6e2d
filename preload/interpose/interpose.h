/* interpose.h - the libc functions the shim wraps, as the constructor
 * (boot.c) sees them.  Wrappers call only the core (core.h) and reach the
 * real functions through base/real.h.
 *
 *   pthread.c  pthread_create: every new thread counted
 *   exec.c     the exec family: results written before the image goes
 *   signal.c   fatal signals: results written before the default action
 *   fdguard.c  close, close_range, closefrom, dup2, dup3: the program
 *              closing one of our descriptors takes it from us first
 *   dlopen.c   dlopen: objects loaded, for whoever waits for one
 */
#ifndef HPCSHIM_PRELOAD_INTERPOSE_H
#define HPCSHIM_PRELOAD_INTERPOSE_H

#include <stdbool.h>

/* exec.c: the constructor's call when the image starts: its exec
 * generation (how many earlier images of this process wrote a file, from
 * the marker the last one left), and the start of its own work for the
 * quiet rule (core/quiet.h). */
int hs_exec__generation(void);

/* boot.c: the constructor's work, once, for a wrapper that runs before
 * the constructor (a constructor of an object initialised before ours
 * creates a thread).  Thread-safe; the constructor then finds it done.
 * false when the caller is the thread starting us (it goes on without). */
bool hs_boot__early(void);

/* signal.c: our handler for fatal signals left at their default. */
void hs_signal__init(void);

#endif
