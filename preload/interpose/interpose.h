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

/* pthread.c: what starts the shim when pthread_create runs before our
 * constructor (a constructor of an object initialised before ours
 * creates a thread): the constructor's work, once and thread-safe; the
 * constructor then finds it done.  false when the caller is the thread
 * starting us (it goes on without).
 *
 * Whoever boots the shim (boot.c) registers it with HS_EARLY_START(fn).
 * The registration is data, not a call: such a thread is created before
 * any code of ours has run, but after the dynamic linker relocated our
 * data.  The linker gathers the entries into the section hs_early (the
 * kernel's initcalls, FreeBSD's linker sets), which pthread.c walks: the
 * wrapper never names boot.c. */
typedef bool (*hs_early_fn)(void);
#define HS_EARLY_START(fn)                                       \
	static const hs_early_fn hs_early__entry __attribute__(( \
		section("hs_early"), used, aligned(sizeof(void *)))) = (fn)

/* signal.c: our handler for fatal signals left at their default. */
void hs_signal__init(void);

#endif
