/*
 * Guarded calls: a SIGBUS raised by memory a call touches (typically a mapped file truncated under a
 * buffer) ends that call with SC_FAULT instead of ending the JVM. The JVM turns such faults in Java
 * code into an InternalError; this gives the native kernels the same courtesy.
 */
#ifndef SC_FAULT_GUARD_H
#define SC_FAULT_GUARD_H

#include <stdint.h>

/* What a guarded entry point returns when the memory it touched faulted. */
#define SC_FAULT (-1)

/*
 * Installs the SIGBUS handler once per process, chaining to the handler already installed (the JVM's),
 * which still gets every SIGBUS raised outside a guarded call. Returns 0, or the errno of sigaction.
 */
int sc_install_fault_guard(void);

/* Runs body(arg) on this thread; returns 0, or SC_FAULT if a SIGBUS interrupted it (body's effects are
 * then partial). Needs sc_install_fault_guard() first. */
int sc_run_guarded(void (*body)(void *), void *arg);

/* The address whose access faulted in this thread's last guarded call that returned SC_FAULT (the kernel's
 * si_addr), for naming the buffer that faulted; NULL before any. */
void *sc_fault_address(void);

#endif
