#define _GNU_SOURCE
#include "CPlatform.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int microapp_end_with_parent(pid_t expected_parent, int signal_number) {
    if (prctl(PR_SET_PDEATHSIG, (unsigned long)signal_number, 0UL, 0UL, 0UL) != 0) return -1;
    // The parent may have ended between our start and the prctl: then we were already reparented and the kernel
    // will never send the signal, so look once more.
    return getppid() == expected_parent ? 0 : 1;
}

static volatile sig_atomic_t termination_target = 0;
static volatile sig_atomic_t termination_received = 0;

static void forward_termination(int signal_number) {
    int saved = errno;
    termination_received = signal_number;
    pid_t target = (pid_t)termination_target;
    if (target > 0) kill(target, signal_number);
    errno = saved;
}

int microapp_forward_termination_install(void) {
    struct sigaction action = {0};
    action.sa_handler = forward_termination;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGTERM, &action, NULL) != 0) return -1;
    if (sigaction(SIGHUP, &action, NULL) != 0) return -1;
    // A parent may have started this process with them blocked (the mask is inherited): they would never arrive.
    sigset_t wanted;
    sigemptyset(&wanted);
    sigaddset(&wanted, SIGTERM);
    sigaddset(&wanted, SIGHUP);
    return sigprocmask(SIG_UNBLOCK, &wanted, NULL);
}

/// Installs `handler` for `signal_number` and unblocks it in the calling thread: a parent may have started this
/// process with it blocked (the mask is inherited), and it would never arrive. 0, or -1 with errno set.
static int handle_unblocked(int signal_number, void (*handler)(int)) {
    struct sigaction action = {0};
    action.sa_handler = handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(signal_number, &action, NULL) != 0) return -1;
    sigset_t wanted;
    sigemptyset(&wanted);
    sigaddset(&wanted, signal_number);
    return sigprocmask(SIG_UNBLOCK, &wanted, NULL);
}

static void forward_only(int signal_number) {
    int saved = errno;
    pid_t target = (pid_t)termination_target;
    if (target > 0) kill(target, signal_number);
    errno = saved;
}

int microapp_forward_signal_install(int signal_number) { return handle_unblocked(signal_number, forward_only); }

static volatile sig_atomic_t signal_pipe_end = -1;

static void write_to_signal_pipe(int signal_number) {
    int saved = errno;
    unsigned char byte = (unsigned char)signal_number;
    if (signal_pipe_end >= 0) (void)write(signal_pipe_end, &byte, 1);
    errno = saved;
}

int microapp_signal_pipe_install(int signal_number) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    // The reading end blocks (a thread waits on it); the writing end never does (a full pipe drops the byte: one
    // pending request is as good as many).
    int flags = fcntl(ends[0], F_GETFL);
    if (flags < 0 || fcntl(ends[0], F_SETFL, flags & ~O_NONBLOCK) != 0) return -1;
    signal_pipe_end = ends[1];
    if (handle_unblocked(signal_number, write_to_signal_pipe) != 0) return -1;
    return ends[0];
}

void microapp_forward_termination_to(pid_t child) {
    termination_target = child;
    int received = termination_received;
    if (child > 0 && received != 0) kill(child, received);
}

int microapp_forward_termination_received(void) { return termination_received; }

int microapp_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    return (int)syscall(434, pid, 0);
#endif
}

int microapp_exchange_paths(const char *first, const char *second) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, first, AT_FDCWD, second, 2 /* RENAME_EXCHANGE */);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int microapp_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int microapp_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int microapp_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int microapp_close_from(int lowest) { return close_range((unsigned int)lowest, ~0U, 0); }
