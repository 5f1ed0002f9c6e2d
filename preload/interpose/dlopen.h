/* dlopen.h - the exported dlopen and its one optional observer.
 *
 * The wrapper never changes what dlopen loads (see dlopen.c).  A feature
 * that must learn about objects the moment they are loaded (a breakpoint
 * waits for the function it is set on) registers a callback; with none,
 * dlopen jumps straight to glibc's and costs nothing.
 */
#ifndef HPCSHIM_PRELOAD_DLOPEN_H
#define HPCSHIM_PRELOAD_DLOPEN_H

/* fn() runs after every dlopen that returned a handle, on the calling
 * thread; NULL unhooks.  One callback at a time: the last one wins. */
void hs_dlopen__on_load(void (*fn)(void));

/* A second observer, for good (HPCSHIM_WRAP patches every loaded object):
 * fn() runs after every dlopen that returned a handle, after the other. */
void hs_dlopen__observe(void (*fn)(void));

#endif
