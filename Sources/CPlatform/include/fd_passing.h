// Handing descriptors to another process over a Unix socket (SCM_RIGHTS) and forking a single-threaded template
// process: the zygote that starts isolated features. CMSG_* are macros and fork is not callable from Swift safely.
#ifndef MICROAPP_FD_PASSING_H
#define MICROAPP_FD_PASSING_H

#include <stddef.h>
#include <sys/types.h>

/// The most descriptors one message carries.
#define MICROAPP_MAX_PASSED_FDS 8

/// Sends `count` bytes (at least one) and `fd_count` descriptors (at most MICROAPP_MAX_PASSED_FDS) as one message
/// on the Unix socket `socket`, retrying EINTR. Returns the bytes sent, or -1 with errno set.
ssize_t microapp_send_with_fds(int socket, const void *bytes, size_t count, const int *fds, int fd_count);

/// Receives one message of at most `capacity` bytes and at most `fd_capacity` descriptors (close-on-exec) from the
/// Unix socket `socket`, retrying EINTR; `*fd_count` is set to the descriptors received. Descriptors beyond
/// `fd_capacity` or a truncated message are closed and refused (EMSGSIZE). Returns the bytes received (0 at end of
/// stream), or -1 with errno set.
ssize_t microapp_receive_with_fds(
    int socket, void *buffer, size_t capacity, int *fds, int fd_capacity, int *fd_count);

/// fork(2). Only for a process that is still single-threaded (the zygote checks /proc/self/task first). The child's
/// thread forgets the thread id its parent's thread cached for Swift's locks (see inherited_thread_ids.c): with the
/// parent's, a lock it holds while another thread of the child waits for it spins or traps forever.
pid_t microapp_fork(void);

/// pidfd_send_signal(2): signals the process behind a pidfd (never another process that reused its pid).
/// Returns 0, or -1 with errno set.
int microapp_pidfd_send_signal(int pidfd, int signal_number);

#endif
