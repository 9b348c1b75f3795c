#define _GNU_SOURCE
#include "fd_passing.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t microapp_send_with_fds(int socket, const void *bytes, size_t count, const int *fds, int fd_count) {
    if (count == 0 || fd_count < 0 || fd_count > MICROAPP_MAX_PASSED_FDS) {
        errno = EINVAL;
        return -1;
    }
    struct iovec vector = {.iov_base = (void *)bytes, .iov_len = count};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * MICROAPP_MAX_PASSED_FDS)];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1};
    if (fd_count > 0) {
        message.msg_control = control.buffer;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)fd_count);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)fd_count);
        memcpy(CMSG_DATA(header), fds, sizeof(int) * (size_t)fd_count);
    }
    ssize_t sent;
    do {
        sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

ssize_t microapp_receive_with_fds(
    int socket, void *buffer, size_t capacity, int *fds, int fd_capacity, int *fd_count) {
    *fd_count = 0;
    struct iovec vector = {.iov_base = buffer, .iov_len = capacity};
    union {
        char buffer[CMSG_SPACE(sizeof(int) * MICROAPP_MAX_PASSED_FDS)];
        struct cmsghdr align;
    } control;
    struct msghdr message = {
        .msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
    ssize_t received;
    do {
        received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return -1;
    int refused = (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        const unsigned char *data = CMSG_DATA(header);
        for (int index = 0; index < count; index++) {
            int fd;
            memcpy(&fd, data + sizeof(int) * (size_t)index, sizeof fd);
            if (refused || *fd_count >= fd_capacity) {
                close(fd);
                refused = 1;
            } else {
                fds[(*fd_count)++] = fd;
            }
        }
    }
    if (refused) {
        for (int index = 0; index < *fd_count; index++) close(fds[index]);
        *fd_count = 0;
        errno = EMSGSIZE;
        return -1;
    }
    return received;
}

int microapp_pidfd_send_signal(int pidfd, int signal_number) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal_number, NULL, 0);
}
