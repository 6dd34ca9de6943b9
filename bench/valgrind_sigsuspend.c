/* Preloaded into servers run under valgrind by bench/hitcost.
 *
 * valgrind 3.19 (Debian 12) dies with an internal SIGSEGV when a program parks its main thread in
 * sigsuspend() with the signal mask in libdispatch's data, as a Swift program with an async main does
 * (dispatch_main). This sigsuspend() passes a copy of the mask on the stack to the same system call. */
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
