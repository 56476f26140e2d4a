/* The SIGBUS guard: see fault_guard.h. */
#define _GNU_SOURCE
#include "fault_guard.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <ucontext.h>

/* The jump target of the guarded call running on this thread, or NULL. initial-exec: the handler reads it
 * with one fs-relative load, never entering the dynamic linker (which is not async-signal-safe). */
static __thread sigjmp_buf *fault_target __attribute__((tls_model("initial-exec")));
/* The address of this thread's last guarded fault (see sc_fault_address). */
static __thread void *fault_address __attribute__((tls_model("initial-exec")));

static struct sigaction previous_action;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_error;

static void on_sigbus(int sig, siginfo_t *info, void *context) {
    sigjmp_buf *target = fault_target;
    if (target != NULL && info->si_code > 0) { /* raised by the kernel for this thread's access */
        fault_target = NULL;
        fault_address = info->si_addr;
        /* sigsetjmp saved no mask (a system call per guarded call); restore the one the fault interrupted */
        pthread_sigmask(SIG_SETMASK, &((ucontext_t *)context)->uc_sigmask, NULL);
        siglongjmp(*target, 1);
    }
    if (previous_action.sa_flags & SA_SIGINFO) {
        previous_action.sa_sigaction(sig, info, context);
        return;
    }
    if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
        previous_action.sa_handler(sig);
        return;
    }
    /* default action: a synchronous fault re-executes and kills; a sent signal is raised again, to the same end */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGBUS, &dfl, NULL);
    if (info->si_code <= 0) {
        raise(sig);
    }
}

static void install(void) {
    struct sigaction ours;
    if (sigaction(SIGBUS, NULL, &previous_action) != 0) {
        install_error = errno;
        return;
    }
    memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_sigbus;
    ours.sa_mask = previous_action.sa_mask;
    ours.sa_flags = (previous_action.sa_flags | SA_SIGINFO) & ~(SA_RESETHAND | SA_NODEFER);
    if (sigaction(SIGBUS, &ours, NULL) != 0) {
        install_error = errno;
    }
}

int sc_install_fault_guard(void) {
    pthread_once(&install_once, install);
    return install_error;
}

int sc_run_guarded(void (*body)(void *), void *arg) {
    sigjmp_buf env;
    sigjmp_buf *outer = fault_target;
    if (sigsetjmp(env, 0) != 0) {
        fault_target = outer;
        return SC_FAULT;
    }
    fault_target = &env;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the target is set before body's first access */
    body(arg);
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* ...and cleared after its last */
    fault_target = outer;
    return 0;
}

void *sc_fault_address(void) {
    return fault_address;
}
